"""An entry's key is its player and list (ratings 0017): no id column; the admin reads the entries through a view
that gives each a single key (ratings.models.RatingListEntryRow); merge records name moved entries by list."""

import datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from players.models import PlayerMerge
from players.services import player_merge, player_merge_reverse
from ratings.models import PlayerRating, RatingList, RatingListEntry, entry_key, entry_key_split
from tests.events.test_admin_roles import make_officer
from tests.factories import make_player
from tests.players.test_merge import make_list

BEFORE = ("ratings", "0016_entry_federation_index_without_inactive")


def _rows() -> list[tuple]:
    """Every entry as stored (raw SQL: the model's state differs before and after the migration)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT rating_list_id, player_id, rating, position, federation FROM ratings_ratinglistentry ORDER BY 1, 2"
        )
        return cursor.fetchall()


def _two_lists_and_a_merge() -> tuple[PlayerMerge, RatingList, RatingList]:
    january, march = make_list(datetime.date(2026, 1, 1)), make_list(datetime.date(2026, 3, 1))
    kept, duplicate, other = make_player(), make_player(), make_player()
    for rating_list, player, rating in (
        (january, kept, 1800),
        (january, duplicate, 1500),
        (march, duplicate, 1520),
        (march, other, 2100),
    ):
        RatingListEntry.objects.create(rating_list=rating_list, player=player, rating=rating, position=1)
    merge = player_merge(kept, duplicate, user=make_officer(), reason="duplicate")
    return merge, january, march


def test_the_key_splits_back_into_list_and_player():
    assert entry_key_split(entry_key(7, 2_000_001)) == (7, 2_000_001)
    assert entry_key_split(entry_key(2**31 - 1, 2**32 - 1)) == (2**31 - 1, 2**32 - 1)


@pytest.mark.django_db(transaction=True)  # (SQLite changes a table's schema outside a transaction only)
def test_migration_0017_keeps_every_entry_and_names_the_merged_entries_by_list_both_ways():
    merge, january, march = _two_lists_and_a_merge()
    # the merge moved the March line and left the January one (the kept player has one): named by their lists
    assert merge.moved["list_entries"] == [march.pk]
    assert merge.moved["left_on_merged"]["list_entries"] == [january.pk]
    rows = _rows()
    current = sorted(PlayerRating.objects.values_list("player_id", "rating"))
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("ratings")

    MigrationExecutor(connection).migrate([BEFORE])
    assert _rows() == rows
    with connection.cursor() as cursor:  # before 0017 merge records named entries by id
        cursor.execute("SELECT id, rating_list_id, player_id FROM ratings_ratinglistentry")
        ids = {(list_id, player_id): pk for pk, list_id, player_id in cursor.fetchall()}
    merge.refresh_from_db()
    assert merge.moved["list_entries"] == [ids[(march.pk, merge.kept_id)]]
    assert merge.moved["left_on_merged"]["list_entries"] == [ids[(january.pk, merge.merged_id)]]

    MigrationExecutor(connection).migrate(latest)
    assert _rows() == rows
    assert sorted(PlayerRating.objects.values_list("player_id", "rating")) == current
    merge.refresh_from_db()
    assert merge.moved["list_entries"] == [march.pk]
    assert merge.moved["left_on_merged"]["list_entries"] == [january.pk]
    # and the record still reverses the merge
    player_merge_reverse(merge, user=merge.merged_by, reason="twins")
    assert RatingListEntry.objects.get(rating_list=march, player_id=merge.merged_id).rating == 1520


@pytest.mark.django_db
def test_the_admin_lists_an_entry_and_opens_it_by_its_single_key(admin_client):
    _merge, _january, march = _two_lists_and_a_merge()
    entry = RatingListEntry.objects.get(rating_list=march, rating=2100)
    entries = admin_client.get(
        reverse("admin:ratings_ratinglistentryrow_changelist"), {"rating_list__id__exact": march.pk}
    )
    assert entries.status_code == 200
    assert entries.context["cl"].result_count == 2
    # the changelist's address before ratings 0017 leads there, with its filters
    old = admin_client.get("/admin/ratings/ratinglistentry/", {"rating_list__id__exact": march.pk})
    assert old.status_code == 302
    assert old.url == reverse("admin:ratings_ratinglistentryrow_changelist") + f"?rating_list__id__exact={march.pk}"
    key = entry_key(march.pk, entry.player_id)
    change = reverse("admin:ratings_ratinglistentryrow_change", args=[key])
    assert change in entries.content.decode()
    page = admin_client.get(change)
    assert page.status_code == 200
    assert "2100" in page.content.decode()
    # current ratings (a view) have the same key
    rating = PlayerRating.objects.get(player_id=entry.player_id)
    assert rating.pk == key
    assert admin_client.get(reverse("admin:ratings_playerrating_change", args=[key])).status_code == 200
    # a key that names no entry, or is no number, is the admin's usual "does not exist"
    for missing in (entry_key(march.pk, 999_999), "not-a-key"):
        response = admin_client.get(reverse("admin:ratings_ratinglistentryrow_change", args=[missing]))
        assert response.status_code == 302
        assert response.url == reverse("admin:index")
