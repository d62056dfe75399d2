"""A publication is all or nothing, and single-flight: failures and killed workers leave nothing half-written,
concurrent triggers publish once, and a retry publishes exactly what an undisturbed run publishes."""

import os
import signal
import threading
import time

import pytest
from celery.result import AsyncResult
from django.db import close_old_connections, connection, transaction

from events.models import Event, EventStatus
from ratings.models import PlayerRating, RatingChange, RatingList, RatingListEntry
from ratings.selectors import rating_list_current
from ratings.services import rating_list_publish
from ratings.services.publication import write
from ratings.tasks import publish_rating_list_task
from tests.ratings.conftest import wait_for
from tests.ratings.pausing_worker import PAUSED
from tests.ratings.scenarios import JAN, MAR, build_federation, list_snapshot


def undisturbed_snapshot() -> dict:
    """What an undisturbed publication writes, computed and then rolled back."""
    with transaction.atomic():
        snapshot = list_snapshot(rating_list_publish("standard", MAR).rating_list)
        transaction.set_rollback(True)
    assert not RatingList.objects.filter(list_date=MAR).exists()
    return snapshot


def assert_nothing_published():
    assert not RatingList.objects.filter(list_date=MAR).exists()
    assert not RatingChange.objects.exists()
    assert RatingListEntry.objects.exclude(rating_list__list_date=JAN).count() == 0
    assert set(Event.objects.values_list("status", flat=True)) == {EventStatus.SUBMITTED}
    assert set(PlayerRating.objects.values_list("rating_list__list_date", flat=True)) == {JAN}


@pytest.mark.django_db
def test_a_failure_in_the_middle_of_writing_leaves_no_list_and_the_retry_equals_an_undisturbed_run(
    monkeypatch,
):
    build_federation()
    expected = undisturbed_snapshot()

    def fail(*args, **kwargs):
        raise RuntimeError("disk full (injected after the entries were written)")

    monkeypatch.setattr(write, "_write_changes", fail)
    with pytest.raises(RuntimeError, match="injected"):
        rating_list_publish("standard", MAR)
    assert_nothing_published()

    monkeypatch.undo()
    retried = rating_list_publish("standard", MAR)
    assert retried.created
    assert list_snapshot(retried.rating_list) == expected


@pytest.mark.django_db
def test_a_failure_while_marking_events_rated_rolls_back_entries_and_changes(monkeypatch):
    build_federation()

    def fail(*args, **kwargs):
        raise RuntimeError("injected while updating events")

    monkeypatch.setattr(write, "_write_events", fail)
    with pytest.raises(RuntimeError, match="injected"):
        rating_list_publish("standard", MAR)
    assert_nothing_published()


@pytest.mark.django_db(transaction=True)
def test_concurrent_triggers_of_one_list_publish_it_once():
    build_federation()
    outcomes, errors = [], []
    start = threading.Barrier(3)

    def trigger():
        try:
            start.wait()
            outcomes.append(rating_list_publish("standard", MAR))
        except Exception as exc:  # collected: the assertion below shows it
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=trigger) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    assert sorted(o.created for o in outcomes) == [False, False, True]
    assert len({o.rating_list.pk for o in outcomes}) == 1
    assert RatingList.objects.filter(list_date=MAR).count() == 1


@pytest.mark.worker
def test_a_worker_killed_mid_publication_leaves_nothing_and_the_redelivered_task_publishes_the_same_list(
    transactional_db, settings, start_worker
):
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip(
            "needs PostgreSQL + Redis: kombu's filesystem transport has no acknowledgements, so a task "
            "taken by a worker that dies is not redelivered; the all-or-nothing transaction itself is "
            "covered on SQLite by the injected-failure tests above"
        )
    build_federation()
    expected = undisturbed_snapshot()

    # The first worker pauses 60 s inside the publication transaction (after the entries); Redis hands an
    # unacknowledged task to another worker 5 s after its worker vanished.
    pausing = start_worker(
        settings.CELERY_TASK_DEFAULT_QUEUE,
        app="tests.ratings.pausing_worker",
        CELERY_VISIBILITY_TIMEOUT="5",
        TEST_PUBLICATION_PAUSE_SECONDS="60",
    )
    task = publish_rating_list_task.delay("standard", MAR.isoformat())
    wait_for(lambda: PAUSED in pausing.output(), pausing, what="the publication to pause")
    # entries are written inside the worker's open transaction: invisible here
    assert_nothing_published()
    os.kill(pausing.process.pid, signal.SIGKILL)
    pausing.process.wait(timeout=30)
    time.sleep(1)  # PostgreSQL rolls back the dead connection's transaction and frees the advisory lock
    assert_nothing_published()

    time.sleep(6)  # older than the visibility timeout: the next worker's first sweep redelivers it
    second = start_worker(settings.CELERY_TASK_DEFAULT_QUEUE, CELERY_VISIBILITY_TIMEOUT="5")
    outcome = AsyncResult(task.id).get(timeout=120)
    assert outcome["created"], second.output()[-2000:]
    wait_for(
        lambda: f"Task ratings.publish_rating_list[{task.id}] succeeded" in second.output(),
        second,
        what="the redelivered task's log line",
    )
    published = rating_list_current("standard", MAR)
    assert list_snapshot(published) == expected
    assert RatingList.objects.filter(list_date=MAR).count() == 1
