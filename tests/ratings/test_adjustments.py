"""One-off adjustments end to end: the engine's formula (FIDE 1 March 2024), the preview, the publication that
applies and records it (after or before the period's games), the ledger, the profile and the backtest."""

import datetime
import io
import json

import numpy as np
import pytest
from django.core.management import call_command

from ratings.engine import RulesPreset, get_preset
from ratings.engine.adjustments import FIDE_2024_COMPRESSION, AdjustmentSpec
from ratings.engine.calculator import calculate_change
from ratings.models import RatingAdjustment, RatingListEntry
from ratings.selectors import rating_list_current
from ratings.services import rating_list_publish
from ratings.services.adjustments import rating_adjustment_preview
from ratings.services.pool import pool_ledgers
from tests.ratings.scenarios import JAN, MAR, bimonthly_policy, event_with_games, players, starting_list


@pytest.mark.parametrize(
    ("rating", "adjusted"),
    # rating-rules.md 1.9, sources S5, S7, S27, S30; 1999 + 0.4 rounds to 1999, 1998 + 0.8 to 1999
    [(1000, 1400), (1500, 1700), (1600, 1760), (1700, 1820), (1950, 1970), (1999, 1999), (1998, 1999), (2000, 2000)],
)
def test_the_fide_2024_compression_reproduces_the_published_examples(rating, adjusted):
    assert rating + FIDE_2024_COMPRESSION.amounts(np.array([float(rating)]))[0] == adjusted


def test_the_adjustment_is_frozen_with_the_rules():
    rules = get_preset("fide-2024").replace(adjustment=FIDE_2024_COMPRESSION)
    assert RulesPreset.from_json(rules.to_json()) == rules
    with pytest.raises(ValueError, match="order"):
        AdjustmentSpec(name="x", order="sometime")


def federation(order="after-games"):
    bimonthly_policy()
    a, b, c, d = players(4)
    starting_list(JAN, {a: 1500, b: 1900, c: 2100, d: 1600}, rated_games_total=80)
    event_with_games([a, b, c], [(0, 1, 1.0), (2, 0, 0.5)], start=datetime.date(2026, 1, 10), name="January")
    adjustment = RatingAdjustment.objects.create(
        rating_type="standard", list_date=MAR, name="FIDE 1 March 2024", order=order, source="FIDE Council"
    )
    return (a, b, c, d), adjustment


def test_preview_publish_ledger_and_profile_after_the_games(db, client, django_assert_max_num_queries):
    (a, _b, c, d), adjustment = federation()
    with django_assert_max_num_queries(4):
        preview = rating_adjustment_preview(adjustment)
    assert preview.moved == 3
    assert preview.points == 200 + 40 + 160
    assert preview.largest == 200
    assert preview.before.at_least_2000 == 1
    assert preview.after.at_least_2000 == 1
    assert preview.after.total - preview.before.total == 400
    assert [m["amount"] for m in preview.movers] == [200, 160, 40]

    rating_list_publish("standard", MAR)
    march = rating_list_current("standard", MAR)
    adjustment.refresh_from_db()
    assert adjustment.applied_to == march
    assert march.rules["adjustment"]["factor"] == 0.4  # recorded with its rules
    entries = {e.player_id: e for e in RatingListEntry.objects.filter(rating_list=march)}
    # a beat b (1500 v 1900) and drew c: games first with the ratings in force, then the compression
    rules = get_preset("fide-2024")
    games_a = calculate_change(1500, None, [1900, 2100], [1.0, 0.5], rules, rated_games_total=80, list_date=MAR)
    after_games = games_a.new_rating
    assert entries[a.pk].rating == after_games + FIDE_2024_COMPRESSION.amounts(np.array([after_games]))[0]
    assert entries[a.pk].adjustment == entries[a.pk].rating - after_games
    assert entries[a.pk].change == entries[a.pk].rating - 1500  # the change since the previous list includes it
    assert entries[d.pk].rating == 1760
    assert entries[d.pk].adjustment == 160
    assert entries[d.pk].change == 160
    assert entries[c.pk].adjustment is None  # 2000 and above: unchanged
    ledger = pool_ledgers([march])[0]
    assert ledger.adjustments == sum(e.adjustment or 0 for e in entries.values())
    assert ledger.balanced
    total = sum(e.rating for e in entries.values())
    assert ledger.from_games == total - ledger.adjustments - (1500 + 1900 + 2100 + 1600)
    # the profile shows the adjusted rating; the pool page and API show the adjustment
    assert "1760" in client.get(f"/players/{d.id_number}/").content.decode()
    data = client.get(f"/api/v1/rating-lists/{MAR}/standard/pool/").json()
    assert data["adjustments"] == ledger.adjustments > 0
    # the backtest applies the federation's adjustment again: the replay is still exact
    out = io.StringIO()
    call_command("rating_backtest", "--rating-type", "standard", "--rules", "fide-2024", "--json", stdout=out)
    assert json.loads(out.getvalue())["summary"]["differences"] == 0


def test_before_the_games_the_period_is_rated_with_the_adjusted_ratings(db):
    (a, _b, _c, d), _ = federation(order="before-games")
    rating_list_publish("standard", MAR)
    march = rating_list_current("standard", MAR)
    entries = {e.player_id: e for e in RatingListEntry.objects.filter(rating_list=march)}
    rules = get_preset("fide-2024")
    # a: 1500 -> 1700 first, then beat b (1900 -> 1940) and drew c (2100)
    games_a = calculate_change(1700, None, [1940, 2100], [1.0, 0.5], rules, rated_games_total=80, list_date=MAR)
    assert entries[a.pk].rating == games_a.new_rating
    assert entries[a.pk].adjustment == 200
    assert entries[a.pk].change == games_a.new_rating - 1500
    assert entries[d.pk].rating == 1760
    assert pool_ledgers([march])[0].balanced


def test_only_officials_see_the_adjustments_admin(db, client, admin_client):
    _, adjustment = federation()
    page = admin_client.get(f"/admin/ratings/ratingadjustment/{adjustment.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Who moves most" in html
    assert "+200" in html
    from django.contrib.auth import get_user_model

    clerk = get_user_model().objects.create_user("clerk", password="x", is_staff=True)
    client.force_login(clerk)
    assert client.get("/admin/ratings/ratingadjustment/").status_code == 403


def test_officials_edit_an_adjustment_until_a_published_list_applies_it(db, client):
    from django.contrib.auth import get_user_model

    from tests.events.test_admin_roles import client_for, make_arbiter

    _, adjustment = federation()
    official = client_for(get_user_model().objects.create_superuser("officer", "o@example.org", "pw-x-1234567"))
    change = f"/admin/ratings/ratingadjustment/{adjustment.pk}/change/"
    delete = f"/admin/ratings/ratingadjustment/{adjustment.pk}/delete/"
    assert client_for(make_arbiter()).get(change).status_code == 403  # not an official
    page = official.get(change).content.decode()
    assert 'name="_save"' in page  # editable before it is applied
    assert official.get(delete).status_code == 200

    rating_list_publish("standard", MAR)
    page = official.get(change).content.decode()
    assert 'name="_save"' not in page  # frozen: the list's rules keep it
    assert official.get(delete).status_code == 403
