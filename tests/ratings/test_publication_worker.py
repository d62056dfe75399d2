"""Publication end to end through a real Celery worker process, checked number by number with the engine."""

import math
import uuid

import numpy as np
import pytest
from django.db import transaction

from events.models import Event, EventStatus
from outbox.services import enqueue_after_commit
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
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(value)


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
        assert entry.rating == as_int(result.players.list_rating[i]), player
        assert entry.games == result.players.games[i]
        assert entry.k_factor == as_int(result.players.next_k_factor[i])
        assert entry.rated_games_total == result.players.rated_games_total[i]
        assert entry.pool_games == result.players.pool_games[i]
        # (stored empty without a pool: ratings.services.publication.POOL_SUMS)
        assert (entry.pool_opponent_sum or 0.0) == pytest.approx(result.players.pool_opponent_sum[i], abs=0)
        assert (entry.pool_score or 0.0) == result.players.pool_score[i]
        assert (entry.pool_score is None) == (entry.pool_opponent_sum is None) == (result.players.pool_games[i] == 0)
        if player in jan_ratings:
            assert entry.change == as_int(result.players.rounded_change[i])
            assert entry.rating == jan_ratings[player] + entry.change
        assert entry.is_new_rating == (player not in jan_ratings and entry.rating is not None)
    # the newcomer f has 5 games against rated opponents in the Winter Open alone: a first rating (B.02 7.1.4)
    assert entries[everyone[5].pk].is_new_rating

    changes = {(c.player_id, c.event_id): c for c in RatingChange.objects.filter(rating_list=published)}
    assert len(changes) == result.player_events.player.size
    for row in range(result.player_events.player.size):
        player, event = everyone[result.player_events.player[row]], events[result.player_events.event[row]]
        change = changes[(player.pk, event.pk)]
        assert change.games == result.player_events.games[row]
        assert change.score == result.player_events.score[row]
        assert change.expected_score == result.player_events.expected_score[row]
        assert change.change == result.player_events.change[row]
        k = result.player_events.k_factor[row]
        assert change.k_factor == (None if math.isnan(k) else k)
        # per-game detail: D, PD and K x dR exactly as the engine computed them
        sides = [
            (g, "white")
            for g in range(len(games))
            if games.white[g] == result.player_events.player[row] and games.event[g] == result.player_events.event[row]
        ]
        sides += [
            (g, "black")
            for g in range(len(games))
            if games.black[g] == result.player_events.player[row] and games.event[g] == result.player_events.event[row]
        ]
        by_round = {line["round"]: line for line in change.details}
        for g, colour in sides:
            line = by_round[rounds[g]]
            expected = getattr(result, colour).expected_score[g]
            assert line["colour"] == colour
            assert line["expected_score"] == (None if math.isnan(expected) else expected)
            assert line["weighted_change"] == getattr(result, colour).change[g]
            assert line["capped"] == bool(getattr(result, colour).capped[g])
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
    assert first["created"]
    assert not second["created"]
    assert second["rating_list_id"] == first["rating_list_id"]
    assert (
        RatingList.objects.count(),
        RatingListEntry.objects.count(),
        RatingChange.objects.count(),
        Event.history.count(),
    ) == counts


# ------------------------------------------------------------------------------- recovery (issue 20)


def needs_postgresql_and_redis(settings):
    from django.db import connection

    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip(
            "needs PostgreSQL + Redis: kombu's filesystem transport has no acknowledgements (a task taken by a "
            "worker that dies is gone, not held unacknowledged) and SQLite has no advisory lock to observe; "
            "the recovery's decisions are tested on every database in tests/ratings/test_publication_recovery.py"
        )


def launch_beat(tmp_path, **env_overrides):
    """A Celery beat process with the static schedule (CELERY_BEAT_SCHEDULE) only, on the test database."""
    import os
    import subprocess
    import sys

    from django.db import connection

    from tests.conftest import ROOT, WorkerProcess, database_url_for

    env = {**os.environ, **env_overrides, "PYTHONUNBUFFERED": "1"}
    env["DATABASE_URL"] = database_url_for(connection.settings_dict)
    log = tmp_path / "beat.log"
    command = [sys.executable, "-m", "celery", "-A", "federation", "beat", "--loglevel", "INFO"]
    command += ["-S", "celery.beat:PersistentScheduler", "-s", str(tmp_path / "beat-schedule")]
    with open(log, "wb") as handle:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
    return WorkerProcess(process, "", log)


def test_a_publication_whose_whole_worker_died_is_published_by_the_next_worker_without_anyone_asking(
    transactional_db, settings, start_worker, tmp_path
):
    import os
    import signal
    import time

    from outbox.models import PendingTask
    from tests.conftest import stop_worker
    from tests.ratings.pausing_worker import PAUSED
    from tests.ratings.scenarios import list_snapshot
    from tests.ratings.test_publication_atomicity import assert_nothing_published, undisturbed_snapshot

    needs_postgresql_and_redis(settings)
    build_federation()
    expected = undisturbed_snapshot()
    # Every process of this test on a queue of its own, so that the message the dead worker leaves
    # unacknowledged in Redis is never handed to a worker of another test.
    queue = f"recovery-{uuid.uuid4().hex[:8]}"
    quick = {
        "PUBLICATION_RECOVERY_INTERVAL_SECONDS": "2",
        "PUBLICATION_RECOVERY_AFTER_SECONDS": "3",
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        # Redis would hand the unacknowledged message to another worker only after an hour: not what recovers it
        "CELERY_VISIBILITY_TIMEOUT": "3600",
    }
    pausing = start_worker(queue, app="tests.ratings.pausing_worker", TEST_PUBLICATION_PAUSE_SECONDS="60", **quick)
    with transaction.atomic():  # an official's request, through the outbox (as queue_publication does)
        enqueue_after_commit(publish_rating_list_task.name, "standard", MAR.isoformat(), None, queue=queue)
    wait_for(lambda: PAUSED in pausing.output(), pausing, what="the publication to pause")
    os.kill(pausing.process.pid, signal.SIGKILL)  # the whole worker, main process: nothing acknowledges
    pausing.process.wait(timeout=30)
    row = PendingTask.objects.get(name="ratings.publish_rating_list")
    assert row.sent_at is not None
    assert row.finished_at is None
    time.sleep(1)
    assert_nothing_published()

    started = time.monotonic()
    second = start_worker(queue, **quick)
    beat = launch_beat(tmp_path, **quick)
    try:
        published = wait_for(lambda: rating_list_current("standard", MAR), second, timeout=60, what="the recovery")
    finally:
        stop_worker(beat)
    print(f"recovered {time.monotonic() - started:.1f} s after the new worker and beat were started")
    assert time.monotonic() - started < 60
    assert "ratings.recover_publications" in second.output()
    assert list_snapshot(published) == expected
    assert RatingList.objects.filter(list_date=MAR).count() == 1
    row.refresh_from_db()
    assert row.attempts == 2
    assert row.finished_at is not None  # sent once by the request, once by the recovery


def test_a_stopped_lock_holder_makes_the_waiting_retry_give_up_and_the_list_is_published_once_it_is_gone(
    transactional_db, settings, start_worker
):
    import os
    import re
    import signal
    import time

    from tests.ratings.pausing_worker import PAUSED
    from tests.ratings.scenarios import list_snapshot
    from tests.ratings.test_publication_atomicity import undisturbed_snapshot

    needs_postgresql_and_redis(settings)
    build_federation()
    expected = undisturbed_snapshot()
    # The holder pauses inside its publication transaction and is then stopped (SIGSTOP): a host that went
    # silent. The server ends its session after the idle-in-transaction timeout, which frees the lock.
    holder = start_worker(
        f"holder-{uuid.uuid4().hex[:8]}",
        app="tests.ratings.pausing_worker",
        TEST_PUBLICATION_PAUSE_SECONDS="120",
        DATABASE_IDLE_IN_TRANSACTION_TIMEOUT="8",
    )
    publish_rating_list_task.apply_async(("standard", MAR.isoformat()), queue=holder.queue)
    wait_for(lambda: PAUSED in holder.output(), holder, what="the holder to take the lock and pause")
    os.kill(holder.process.pid, signal.SIGSTOP)
    stopped_at = time.monotonic()
    try:
        waiter = start_worker(f"waiter-{uuid.uuid4().hex[:8]}", DATABASE_LOCK_TIMEOUT="2")
        asked = time.monotonic()
        task = publish_rating_list_task.apply_async(("standard", MAR.isoformat()), queue=waiter.queue)
        wait_for(lambda: "lock timeout" in waiter.output(), waiter, timeout=30, what="the waiter to give up")
        assert time.monotonic() - asked < 2 + 5  # its lock timeout, and the time to pick the task up
        gave_up = re.search(r"Retry in \d+", waiter.output())
        assert gave_up, waiter.output()[-2000:]
        assert not RatingList.objects.filter(list_date=MAR).exists()
        outcome = task.get(timeout=120)
    finally:
        os.kill(holder.process.pid, signal.SIGKILL)  # SIGKILL ends a stopped process too
        holder.process.wait(timeout=30)
    assert outcome["created"]
    assert time.monotonic() - stopped_at < 120
    assert list_snapshot(rating_list_current("standard", MAR)) == expected
    assert RatingList.objects.filter(list_date=MAR).count() == 1
