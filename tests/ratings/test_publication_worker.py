"""Publication end to end through a real Celery worker process, checked number by number with the engine."""

import math

import numpy as np
import pytest
from django.db import transaction

from events.models import Event, EventStatus
from ratings.engine import PeriodGames, PeriodPlayers, get_preset, rate_period
from ratings.models import PlayerRating, RatingChange, RatingList, RatingListEntry
from ratings.selectors import rating_list_current
from ratings.tasks import publish_rating_list_task, queue_publication
from tests.ratings.conftest import wait_for
from tests.ratings.scenarios import JAN, MAR, build_federation

pytestmark = pytest.mark.worker


def engine_reference(everyone, jan_ratings, events):
    """The engine run directly on the same input, built here from what the test itself entered."""
    rules = get_preset("fide-2024")
    index = {p.pk: i for i, p in enumerate(everyone)}
    jan_list = RatingList.objects.get(list_date=JAN)
    k_on_jan = dict(RatingListEntry.objects.filter(rating_list=jan_list).values_list("player_id", "k_factor"))
    rating = [float(jan_ratings[p]) if p in jan_ratings else np.nan for p in everyone]
    players_ = PeriodPlayers(
        rating=np.array(rating),
        k_factor=np.array([k_on_jan.get(p.pk, np.nan) or np.nan for p in everyone], dtype=float),
        pool_games=np.zeros(7, dtype=np.int64),
        pool_opponent_sum=np.zeros(7),
        pool_score=np.zeros(7),
        birth_year=np.array([p.birth_year or 0 for p in everyone], dtype=np.int64),
        rated_games_total=np.array([80 if p in jan_ratings else 0 for p in everyone], dtype=np.int64),
        ever_2400=np.array([jan_ratings.get(p, 0) >= 2400 for p in everyone]),
        ever_2300=np.zeros(7, dtype=bool),
        pool_events=np.zeros(7, dtype=np.int64),
    )
    rows, rounds = [], []
    for e_index, event in enumerate(events):  # ordered by end date
        for game in event.games.select_related("white__player", "black__player").order_by("round"):
            w, b = game.white.player, game.black.player
            rows.append(
                (
                    e_index,
                    index[w.pk],
                    index[b.pk],
                    {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}[game.result],
                    jan_ratings.get(w),
                    jan_ratings.get(b),
                )
            )
            rounds.append(game.round)
    games = PeriodGames.from_sequences(*zip(*rows, strict=True))
    return rate_period(players_, games, rules, MAR, rating_type="standard"), games, rounds


def as_int(value):
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else int(round(value))


def test_events_entered_are_published_by_a_worker_and_every_number_equals_the_engine(celery_worker_process):
    everyone, jan_ratings, events = build_federation()
    with transaction.atomic():
        queue_publication("standard", MAR)  # sent only when this transaction commits
    published = wait_for(lambda: rating_list_current("standard", MAR), celery_worker_process, what="the March list")
    assert "ratings.publish_rating_list[" in celery_worker_process.output()

    result, games, rounds = engine_reference(everyone, jan_ratings, events)
    entries = {e.player_id: e for e in RatingListEntry.objects.filter(rating_list=published)}
    assert set(entries) == {p.pk for p in everyone}
    for i, player in enumerate(everyone):
        entry = entries[player.pk]
        assert entry.rating == as_int(result.list_rating[i]), player
        assert entry.games == result.games[i]
        assert entry.k_factor == as_int(result.next_k_factor[i])
        assert entry.rated_games_total == result.rated_games_total[i]
        assert entry.pool_games == result.pool_games[i]
        assert entry.pool_opponent_sum == pytest.approx(result.pool_opponent_sum[i], abs=0)
        assert entry.pool_score == result.pool_score[i]
        if player in jan_ratings:
            assert entry.change == as_int(result.rounded_change[i])
            assert entry.rating == jan_ratings[player] + entry.change
        assert entry.is_new_rating == (player not in jan_ratings and entry.rating is not None)
    # the newcomer f has 5 games against rated opponents in the Winter Open alone: a first rating (B.02 7.1.4)
    assert entries[everyone[5].pk].is_new_rating

    changes = {(c.player_id, c.event_id): c for c in RatingChange.objects.filter(rating_list=published)}
    assert len(changes) == result.pe_player.size
    for row in range(result.pe_player.size):
        player, event = everyone[result.pe_player[row]], events[result.pe_event[row]]
        change = changes[(player.pk, event.pk)]
        assert change.games == result.pe_games[row]
        assert change.score == result.pe_score[row]
        assert change.expected_score == result.pe_expected[row]
        assert change.change == result.pe_change[row]
        k = result.pe_k_factor[row]
        assert change.k_factor == (None if math.isnan(k) else k)
        # per-game detail: D, PD and K x dR exactly as the engine computed them
        sides = [
            (g, "white")
            for g in range(len(games))
            if games.white[g] == result.pe_player[row] and games.event[g] == result.pe_event[row]
        ]
        sides += [
            (g, "black")
            for g in range(len(games))
            if games.black[g] == result.pe_player[row] and games.event[g] == result.pe_event[row]
        ]
        by_round = {line["round"]: line for line in change.details}
        for g, colour in sides:
            line = by_round[rounds[g]]
            expected = getattr(result, f"{colour}_expected_score")[g]
            assert line["colour"] == colour
            assert line["expected_score"] == (None if math.isnan(expected) else expected)
            assert line["weighted_change"] == getattr(result, f"{colour}_change")[g]
            assert line["capped"] == bool(getattr(result, f"{colour}_capped")[g])
    # a 2700 player keeps the real difference, his opponents see him capped (B.02 8.3.1, from 1 Oct 2025)
    d_lines = [line for c in changes.values() if c.player_id == everyone[3].pk for line in c.details]
    assert any(abs(line["difference"]) > 400 and not line["capped"] for line in d_lines if line["difference"])

    assert set(Event.objects.values_list("status", "rated_on")) == {(EventStatus.RATED, published.pk)}
    ratings = dict(PlayerRating.objects.filter(rating_type="standard").values_list("player_id", "rating"))
    assert ratings == {pk: e.rating for pk, e in entries.items()}


def test_a_second_trigger_of_the_same_list_returns_it_and_changes_nothing(celery_worker_process):
    build_federation()
    first = publish_rating_list_task.delay("standard", MAR.isoformat()).get(timeout=90)
    counts = (
        RatingList.objects.count(),
        RatingListEntry.objects.count(),
        RatingChange.objects.count(),
        Event.history.count(),
    )
    second = publish_rating_list_task.delay("standard", MAR.isoformat()).get(timeout=90)
    assert first["created"] and not second["created"]
    assert second["rating_list_id"] == first["rating_list_id"]
    assert (
        RatingList.objects.count(),
        RatingListEntry.objects.count(),
        RatingChange.objects.count(),
        Event.history.count(),
    ) == counts
