"""Shadow lists: a second preset computed beside each published list from the same games, stored apart, shown
as unofficial on profiles and in the API; the official lists are the same with or without them."""

import numpy as np
import pytest

from events.models import Game
from ratings.engine import get_preset
from ratings.engine.glicko2 import Glicko2Spec, glicko2_list
from ratings.models import RatingList, RatingListEntry, RatingPolicy, ShadowRatingEntry, ShadowRatingList
from ratings.services import rating_list_publish
from ratings.services.backtest import backtest_rules, rating_backtest_run
from ratings.services.schedule import rating_policy_for
from ratings.services.simulation import federation_simulate
from tests.ratings.simulated_federation import TODAY

SCORES = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}


def publish_with_shadow(shadow: str, seed: int = 21):
    summary = federation_simulate(300, 6, seed, today=TODAY)
    policy = rating_policy_for("standard")
    policy.shadow_preset = shadow
    policy.full_clean()
    policy.save()
    for list_date in summary.list_dates:
        rating_list_publish("standard", list_date, today=TODAY)
    return summary


def official_lists():
    return list(RatingList.objects.current("standard").order_by("list_date"))


def test_a_glicko2_shadow_beside_every_published_list(db, client):
    publish_with_shadow("glicko2")
    lists = official_lists()
    assert not hasattr(lists[0], "shadow") or not ShadowRatingList.objects.filter(rating_list=lists[0]).exists()
    shadows = [rl.shadow for rl in lists[1:]]
    assert all(s.rules_preset == "glicko2" and s.rules["glicko2"]["tau"] == 0.5 for s in shadows)
    # the first shadow list, from first principles: the official starting ratings with RD 350 / 0.06, and
    # every played game of the events the list rated
    start = dict(lists[0].entries.filter(rating__isnull=False).values_list("player_id", "rating"))
    ids = np.array(sorted(start), dtype=np.int64)
    games = Game.objects.filter(event__rated_on=lists[1], result__in=SCORES, black__isnull=False)
    rows = list(games.values_list("white__player_id", "black__player_id", "result"))
    expected = glicko2_list(
        ids,
        np.array([start[i] for i in ids], dtype=float),
        np.full(ids.size, 350.0),
        np.full(ids.size, 0.06),
        np.array([r[0] for r in rows]),
        np.array([r[1] for r in rows]),
        np.array([SCORES[r[2]] for r in rows]),
        Glicko2Spec(),
    )
    stored = {e.player_id: e for e in ShadowRatingEntry.objects.filter(shadow_list=shadows[0])}
    assert sorted(stored) == expected.player_id.tolist()
    for i, pid in enumerate(expected.player_id.tolist()):
        assert stored[pid].rating == pytest.approx(expected.rating[i])
        assert stored[pid].deviation == pytest.approx(expected.deviation[i])
        assert stored[pid].volatility == pytest.approx(expected.volatility[i])
    # the chain continues: a player without games on a later list keeps the rating, the deviation grows
    second = {e.player_id: e for e in ShadowRatingEntry.objects.filter(shadow_list=shadows[1])}
    idle = [pid for pid, e in second.items() if e.games == 0 and pid in stored]
    assert idle
    for p in idle:  # Glickman 2013 step 6: phi* = sqrt(phi^2 + sigma^2), capped at the unrated RD 350
        grown = np.hypot(stored[p].deviation, stored[p].volatility * 173.7178)
        assert second[p].rating == stored[p].rating
        assert second[p].deviation == pytest.approx(min(350.0, grown))
    assert any(second[p].deviation > stored[p].deviation for p in idle)
    # the Glicko-2 backtest replays the same first period (later ones continue from printed whole ratings, as
    # a published Glicko-2 list does, where a shadow keeps the exact ones)
    report = rating_backtest_run("standard", get_preset("glicko2"), keep_ratings=True)
    replayed = report.lists[0].replayed
    rated = ~np.isnan(replayed["rating"])
    assert {int(p): float(r) for p, r in zip(replayed["player_id"][rated], replayed["rating"][rated], strict=True)} == {
        p: float(np.floor(e.rating + 0.5)) for p, e in stored.items()
    }
    # never mixed: the official ratings are whole numbers from the official rules
    assert all(float(r).is_integer() for r in lists[-1].entries.exclude(rating=None).values_list("rating", flat=True))
    # profile and API: labelled unofficial, rating +- 2 RD
    player_id = next(pid for pid, e in second.items() if e.games > 0)
    entry = ShadowRatingEntry.objects.get(shadow_list=lists[-1].shadow, player_id=player_id)
    player = entry.player
    html = client.get(f"/players/{player.id_number}/").content.decode()
    assert "Shadow ratings (unofficial)" in html
    assert "unofficial" in html
    assert f"± {round(2 * entry.deviation)}" in html
    data = client.get(f"/api/v1/players/{player.id_number}/shadow-ratings/").json()
    assert data[0]["official"] is False
    assert data[0]["rules"] == "glicko2"
    assert data[0]["rating"] == round(entry.rating, 2)
    assert data[0]["deviation"] == round(entry.deviation, 2)
    low, high = data[0]["interval"]
    assert low == pytest.approx(entry.rating - 2 * entry.deviation, abs=0.01)
    assert high == pytest.approx(entry.rating + 2 * entry.deviation, abs=0.01)
    spanish = client.get(f"/players/{player.id_number}/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "no oficial" in spanish


def test_an_elo_shadow_equals_the_backtest_of_that_preset_and_leaves_the_official_lists_alone(db):
    publish_with_shadow("elo-logistic")
    lists = official_lists()
    report = rating_backtest_run("standard", backtest_rules("elo-logistic"), keep_ratings=True)
    for rating_list, score in zip(lists[1:], report.lists, strict=True):
        shadow = dict(
            ShadowRatingEntry.objects.filter(shadow_list=rating_list.shadow).values_list("player_id", "rating")
        )
        replayed = score.replayed
        mine = {
            int(pid): float(r)
            for pid, r in zip(replayed["player_id"], replayed["rating"], strict=True)
            if not np.isnan(r)
        }
        assert {pid: r for pid, r in shadow.items() if r is not None} == mine
    # the official lists are exactly what the official rules give (the shadow changed nothing)
    assert rating_backtest_run("standard", get_preset("fide-2024")).summary["differences"] == 0


def test_the_shadow_preset_is_checked(db):
    policy = rating_policy_for("standard")
    policy.shadow_preset = "fide-1850"
    with pytest.raises(Exception, match="unknown rules preset"):
        policy.full_clean()
    policy.shadow_preset = policy.rules_preset
    with pytest.raises(Exception, match="must differ"):
        policy.full_clean()
    assert RatingPolicy.objects.get(pk=policy.pk).shadow_preset == ""
    assert not RatingListEntry.objects.exists()


def test_glicko2_as_the_official_preset_publishes_lists_that_keep_deviation_and_volatility(db, client):
    summary = federation_simulate(300, 6, 21, today=TODAY)
    policy = rating_policy_for("standard")
    policy.rules_preset = "glicko2"
    policy.full_clean()
    policy.save()
    for list_date in summary.list_dates:
        rating_list_publish("standard", list_date, today=TODAY)
    lists = official_lists()
    assert [rl.rules_preset for rl in lists[1:]] == ["glicko2"] * 3
    # the first Glicko-2 list from first principles: the imported ratings with RD 350 / 0.06 and the games
    start = dict(lists[0].entries.filter(rating__isnull=False).values_list("player_id", "rating"))
    ids = np.array(sorted(start), dtype=np.int64)
    games = Game.objects.filter(event__rated_on=lists[1], result__in=SCORES, black__isnull=False)
    rows = list(games.values_list("white__player_id", "black__player_id", "result"))
    expected = glicko2_list(
        ids,
        np.array([start[i] for i in ids], dtype=float),
        np.full(ids.size, 350.0),
        np.full(ids.size, 0.06),
        np.array([r[0] for r in rows]),
        np.array([r[1] for r in rows]),
        np.array([SCORES[r[2]] for r in rows]),
        Glicko2Spec(),
    )
    entries = {e.player_id: e for e in lists[1].entries.filter(rating__isnull=False)}
    assert sorted(entries) == expected.player_id.tolist()
    for i, pid in enumerate(expected.player_id.tolist()):
        assert entries[pid].rating == np.floor(expected.rating[i] + 0.5)
        assert entries[pid].deviation == pytest.approx(expected.deviation[i])
        assert entries[pid].volatility == pytest.approx(expected.volatility[i])
        assert entries[pid].k_factor is None
    assert all(e.deviation is not None and e.volatility is not None for e in lists[-1].entries.exclude(rating=None))
    # replaying the Glicko-2 lists under glicko2 is exact; the pool ledger balances; pages show the lists
    assert rating_backtest_run("standard", get_preset("glicko2")).summary["differences"] == 0
    from ratings.services.pool import pool_ledgers

    assert all(ledger.balanced for ledger in pool_ledgers(lists))
    assert client.get(f"/lists/{lists[-1].list_date}/standard/").status_code == 200
    api = client.get(f"/api/v1/rating-lists/{lists[-1].list_date}/standard/entries/").json()
    first = api["results"][0]
    assert first["deviation"] > 0
    assert first["volatility"] > 0
    assert first["k_factor"] is None
    player = lists[-1].entries.exclude(rating=None).first().player
    assert client.get(f"/players/{player.id_number}/").status_code == 200
