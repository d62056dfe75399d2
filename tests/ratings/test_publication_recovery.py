"""The recovery's decisions, on every database (the worker deaths themselves: test_publication_worker.py):
a publication sent long ago and never finished is sent again, a finished or published one never, and a due
list nobody asked for is requested once."""

import datetime
from types import SimpleNamespace

import pytest
from django.utils import timezone

from outbox.models import PendingTask
from outbox.services import enqueue_after_commit
from ratings.models import RatingList
from ratings.services import rating_list_publish
from ratings.services.recovery import PUBLISH_TASK, rating_list_publications_recover
from ratings.tasks import publish_rating_list_task
from tests.ratings.scenarios import MAR, build_federation

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    """Tasks handed to the broker (recorded instead of sent)."""
    from federation.celery import app

    calls = []

    def send_task(name, args=None, **options):
        calls.append((name, tuple(args)))
        return SimpleNamespace(id=f"task-{len(calls)}")

    monkeypatch.setattr(app, "send_task", send_task)
    return calls


def requested(list_date: datetime.date, sent_ago: float, django_capture_on_commit_callbacks) -> PendingTask:
    with django_capture_on_commit_callbacks(execute=True):
        row = enqueue_after_commit(PUBLISH_TASK, "standard", list_date.isoformat(), None)
    row.refresh_from_db()
    assert row.sent_at is not None
    PendingTask.objects.filter(pk=row.pk).update(sent_at=timezone.now() - datetime.timedelta(seconds=sent_ago))
    row.refresh_from_db()
    return row


def test_recovery_resends_a_publication_sent_long_ago_and_never_finished(sent, django_capture_on_commit_callbacks):
    build_federation()
    row = requested(MAR, 600, django_capture_on_commit_callbacks)
    report = rating_list_publications_recover()
    assert report["resent"] == ["standard 2026-03-01"]
    assert sent[-1] == (PUBLISH_TASK, ("standard", "2026-03-01", None))
    row.refresh_from_db()
    assert (row.attempts, row.task_id, row.finished_at) == (2, "task-2", None)
    # sent again just now: the next sweeps leave it alone for PUBLICATION_RECOVERY_AFTER_SECONDS
    assert rating_list_publications_recover()["resent"] == []
    assert len(sent) == 2


def test_recovery_leaves_a_recent_or_finished_publication_alone_and_closes_a_published_one(
    sent, settings, django_capture_on_commit_callbacks
):
    build_federation()
    recent = requested(MAR, settings.PUBLICATION_RECOVERY_AFTER_SECONDS / 2, django_capture_on_commit_callbacks)
    assert rating_list_publications_recover() == {
        "resent": [],
        "closed": [],
        "requested": [],
        "running": [],
        "given_up": [],
    }
    PendingTask.objects.filter(pk=recent.pk).update(sent_at=timezone.now() - datetime.timedelta(hours=1))
    rating_list_publish("standard", MAR)  # published by someone else meanwhile
    assert rating_list_publications_recover()["closed"] == ["standard 2026-03-01"]
    recent.refresh_from_db()
    assert recent.finished_at is not None
    assert len(sent) == 1
    assert rating_list_publications_recover()["closed"] == []


@pytest.mark.parametrize("outcome", ["published", "refused"])
def test_the_publication_task_marks_its_row_finished_when_it_ends(sent, outcome, django_capture_on_commit_callbacks):
    if outcome == "published":
        build_federation()
    row = requested(MAR, 600, django_capture_on_commit_callbacks)
    result = publish_rating_list_task.apply(("standard", MAR.isoformat(), None), task_id=row.task_id)
    assert result.successful() == (outcome == "published")
    row.refresh_from_db()
    assert row.finished_at is not None
    report = rating_list_publications_recover()
    assert report["resent"] == []
    assert len(sent) == 1  # never sent again: nothing would change


def test_a_due_list_nobody_asked_for_is_requested_once(sent, settings, django_capture_on_commit_callbacks):
    build_federation()
    now = timezone.make_aware(datetime.datetime(2026, 3, 1, 0, 10))  # noqa: DTZ001 (local time, made aware)
    assert RatingList.objects.filter(list_date=MAR).count() == 0
    early = now.replace(minute=0) + datetime.timedelta(seconds=settings.PUBLICATION_RECOVERY_AFTER_SECONDS / 2)
    with django_capture_on_commit_callbacks(execute=True):
        assert rating_list_publications_recover(early)["requested"] == []  # beat's own run is on its way
        assert rating_list_publications_recover(now)["requested"] == ["standard 2026-03-01"]
        assert rating_list_publications_recover(now)["requested"] == []
    assert sent == [(PUBLISH_TASK, ("standard", "2026-03-01", None))]
    assert rating_list_publications_recover(now.replace(day=2))["requested"] == []  # not a list date


def test_recovery_gives_up_on_a_publication_that_never_finishes_after_max_sends(
    sent, django_capture_on_commit_callbacks
):
    from ratings.services.recovery import MAX_SENDS

    build_federation()
    row = requested(MAR, 600, django_capture_on_commit_callbacks)
    PendingTask.objects.filter(pk=row.pk).update(attempts=MAX_SENDS)
    report = rating_list_publications_recover()
    assert report["given_up"] == ["standard 2026-03-01"]
    assert report["resent"] == []
    assert len(sent) == 1
