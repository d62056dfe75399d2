"""Current ratings (PlayerRating) are the lines of the newest current list of each type (a view since migration
ratings 0009): they follow every publication, ignore drafts and older lists, and the admin shows them."""

import datetime

import pytest
from django.urls import reverse

from ratings.models import PlayerRating, RatingList, RatingListEntry, RatingListStatus
from ratings.services import rating_list_compute_preview, rating_list_publish
from tests.events.test_admin_roles import client_for, make_officer
from tests.ratings.scenarios import JAN, MAR, MAY, bimonthly_policy, players, round_robin, starting_list

pytestmark = pytest.mark.django_db


def by_player(rows) -> dict[int, tuple]:
    values = rows.values_list("player_id", "rating", "k_factor", "games", "rank", "rating_list_id")
    return {row[0]: row[1:] for row in values}


def current(rating_type: str = "standard") -> dict[int, tuple]:
    return by_player(PlayerRating.objects.filter(rating_type=rating_type))


def lines_of(rating_list: RatingList) -> dict[int, tuple]:
    return by_player(RatingListEntry.objects.filter(rating_list=rating_list))


def test_current_ratings_follow_each_published_list_and_ignore_drafts_and_older_lists():
    bimonthly_policy()
    group = players(4)
    january = starting_list(JAN, {p: 1800 + 50 * i for i, p in enumerate(group)})
    assert current() == lines_of(january)

    round_robin(group, start=datetime.date(2026, 1, 10))
    march = rating_list_publish("standard", MAR, today=MAR).rating_list
    assert current() == lines_of(march)
    assert current() != lines_of(january)

    round_robin(group, start=datetime.date(2026, 3, 10))
    draft = rating_list_compute_preview("standard", MAY)
    assert draft.status == RatingListStatus.DRAFT
    assert current() == lines_of(march)  # a preview changes nothing

    may = rating_list_publish("standard", MAY, today=MAY).rating_list
    assert current() == lines_of(may)
    assert not PlayerRating.objects.filter(rating_type="rapid").exists()  # each type has its own lists


def test_the_admin_lists_current_ratings_by_type_and_finds_a_player_by_id_number():
    bimonthly_policy()
    group = players(3)
    starting_list(JAN, {p: 2000 + 10 * i for i, p in enumerate(group)})
    client = client_for(make_officer())
    url = reverse("admin:ratings_playerrating_changelist")

    page = client.get(url, {"rating_type": "standard", "q": str(group[2].id_number)})

    assert page.status_code == 200
    assert list(page.context["cl"].result_list) == [PlayerRating.objects.get(player=group[2])]
    row = PlayerRating.objects.get(player=group[2])
    assert client.get(reverse("admin:ratings_playerrating_change", args=[row.pk])).status_code == 200


def test_a_newest_list_taken_away_under_a_running_process_never_hides_a_rating(client):
    """Issue 36: a database restored under running processes can lose its newest list. A process that read the
    current lists' bound (ratings.models.current_lists_bound, kept per process on PostgreSQL) before must not
    then show players without a current rating: the bound checks the lists marker on each use and is read
    again. Here the list and its lines go by raw SQL, as a restore does, with no ORM signal to tell anyone."""
    from django.db import connection

    bimonthly_policy()
    group = players(3)
    january = starting_list(JAN, {p: 2000 + 10 * i for i, p in enumerate(group)})
    round_robin(group, start=datetime.date(2026, 1, 10))
    march = rating_list_publish("standard", MAR, today=MAR).rating_list
    assert current() == lines_of(march)  # the bound is read and kept, naming March
    expected = lines_of(january)

    with connection.cursor() as cursor:  # March and every row naming it, as a restore from before March
        for relation in RatingList._meta.get_fields(include_hidden=True):
            if not relation.auto_created or relation.concrete or relation.many_to_many:
                continue  # the list's own columns
            model, column = relation.related_model, relation.field.column
            if not model._meta.managed or model._meta.proxy:
                continue  # views (current ratings) and proxies have no rows of their own
            table = model._meta.db_table
            if relation.field.null:
                cursor.execute(f'UPDATE "{table}" SET "{column}" = NULL WHERE "{column}" = %s', [march.pk])
            else:
                cursor.execute(f'DELETE FROM "{table}" WHERE "{column}" = %s', [march.pk])
        cursor.execute("DELETE FROM ratings_ratinglist WHERE id = %s", [march.pk])

    assert current() == expected  # January's lines: the newest list now
    player = group[0]
    answer = client.get(f"/api/v1/players/{player.id_number}/")
    assert answer.status_code == 200
    assert str(expected[player.pk][0]) in answer.content.decode()


def test_the_lists_marker_changes_with_every_write_to_the_lists_and_only_then():
    """The token the bound is checked against changes with any statement writing the lists (a trigger on
    PostgreSQL: raw SQL included), so a process holding a bound sees the change on its next use."""
    from django.db import connection

    from ratings.models import ListsMarker

    if connection.vendor != "postgresql":
        pytest.skip("SQLite keeps no bound (entries are one table) and so no trigger on the lists")
    bimonthly_policy()
    group = players(2)
    january = starting_list(JAN, {p: 2000 + 10 * i for i, p in enumerate(group)})

    def token():
        return ListsMarker.objects.get().token

    before = token()
    assert token() == before  # reads change nothing
    list(PlayerRating.objects.all())
    assert token() == before
    with connection.cursor() as cursor:
        cursor.execute("UPDATE ratings_ratinglist SET closing_date = closing_date WHERE id = %s", [january.pk])
    after_update = token()
    assert after_update != before
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM ratings_ratinglist WHERE id = -1")  # a statement, even one touching nothing
    assert token() != after_update
