"""Officials preview a list as a draft, publish it with one admin action (a Celery task queued after commit),
and find the publication schedule in the admin (django-celery-beat)."""

import datetime
import json
from types import SimpleNamespace

import pytest
from django.db import transaction
from django.urls import reverse
from django_celery_beat.models import PeriodicTask

from events.models import EventStatus
from outbox.models import PendingTask
from ratings.models import PlayerRating, RatingList, RatingListStatus, RatingPolicy
from ratings.services import (
    RatingListRefused,
    rating_list_compute_preview,
    rating_list_publish,
    rating_list_publish_preview,
    rating_list_publish_scheduled,
    rating_policy_for,
)
from tests.ratings.scenarios import JAN, MAR, build_federation, event_with_games, list_snapshot

pytestmark = pytest.mark.django_db


def direct_snapshot() -> dict:
    with transaction.atomic():
        snapshot = list_snapshot(rating_list_publish("standard", MAR).rating_list)
        transaction.set_rollback(True)
    return snapshot


def test_a_draft_changes_nothing_but_itself_and_publishing_it_unchanged_promotes_it():
    _everyone, _, events = build_federation()
    expected = direct_snapshot()
    draft = rating_list_compute_preview("standard", MAR)
    assert draft.status == RatingListStatus.DRAFT
    assert {e.status for e in events[0].__class__.objects.all()} == {EventStatus.SUBMITTED}
    assert set(PlayerRating.objects.values_list("rating_list__list_date", flat=True)) == {JAN}
    assert draft.new_rating_count == 1

    outcome = rating_list_publish_preview(draft)
    assert outcome.created
    assert outcome.promoted_draft
    assert outcome.rating_list.pk == draft.pk
    assert list_snapshot(outcome.rating_list) == {**expected}
    assert not RatingList.objects.filter(status=RatingListStatus.DRAFT).exists()


def test_a_draft_made_stale_by_a_new_submission_is_recomputed_to_what_a_direct_publication_gives():
    everyone, _, _events = build_federation()
    draft = rating_list_compute_preview("standard", MAR)
    event_with_games(everyone[:2], [(0, 1, 0.0)], start=datetime.date(2026, 2, 10), name="Late entry")
    expected = direct_snapshot()
    outcome = rating_list_publish_preview(draft)
    assert outcome.created
    assert not outcome.promoted_draft
    assert not RatingList.objects.filter(pk=draft.pk).exists()
    assert list_snapshot(outcome.rating_list) == expected
    assert outcome.rating_list.event_count == 3


def test_a_published_list_cannot_be_previewed_again():
    build_federation()
    rating_list_publish("standard", MAR)
    with pytest.raises(RatingListRefused, match="already published"):
        rating_list_compute_preview("standard", MAR)


@pytest.fixture
def sent(monkeypatch):
    """Tasks handed to the broker by the outbox (recorded instead of sent)."""
    from federation.celery import app

    calls = []

    def send_task(name, args=None, **options):
        calls.append((name, tuple(args)))
        return SimpleNamespace(id=f"task-{len(calls)}")

    monkeypatch.setattr(app, "send_task", send_task)
    return calls


def test_the_publish_action_on_a_draft_queues_the_task_only_after_commit(
    admin_client, admin_user, sent, django_capture_on_commit_callbacks
):
    build_federation()
    draft = rating_list_compute_preview("standard", MAR)
    url = reverse("admin:ratings_ratinglist_changelist")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = admin_client.post(url, {"action": "publish_drafts", "_selected_action": [draft.pk]})
    assert response.status_code == 302
    assert sent == []  # nothing sent before the transaction commits ...
    pending = PendingTask.objects.get()
    assert (pending.name, pending.args) == (
        "ratings.publish_rating_list",
        ["standard", "2026-03-01", admin_user.pk],
    )
    for callback in callbacks:
        callback()
    assert sent == [("ratings.publish_rating_list", ("standard", "2026-03-01", admin_user.pk))]  # ... then once
    pending.refresh_from_db()
    assert pending.sent_at is not None


def test_officials_browse_a_draft_new_ratings_and_players_below_the_floor(admin_client):
    build_federation()
    draft = rating_list_compute_preview("standard", MAR)
    page = admin_client.get(reverse("admin:ratings_ratinglist_changelist"))
    assert page.status_code == 200
    entries_url = reverse("admin:ratings_ratinglistentryrow_changelist")
    html = page.content.decode()
    assert f"{entries_url}?rating_list__id__exact={draft.pk}&amp;is_new_rating__exact=1" in html
    new_players = admin_client.get(entries_url, {"rating_list__id__exact": draft.pk, "is_new_rating__exact": 1})
    assert new_players.status_code == 200
    assert new_players.context["cl"].result_count == 1
    dropped = admin_client.get(entries_url, {"rating_list__id__exact": draft.pk, "dropped_below_floor__exact": 1})
    assert dropped.context["cl"].result_count == 0
    changes = admin_client.get(reverse("admin:ratings_ratingchange_changelist"), {"rating_list__id__exact": draft.pk})
    assert changes.status_code == 200
    assert changes.context["cl"].result_count == draft.changes.count()


def test_publish_now_and_preview_actions_on_a_policy_queue_the_due_list(
    admin_client, admin_user, sent, django_capture_on_commit_callbacks
):
    build_federation()
    policy = rating_policy_for("standard")
    url = reverse("admin:ratings_ratingpolicy_changelist")
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(url, {"action": "publish_now", "_selected_action": [policy.pk]})
        admin_client.post(url, {"action": "compute_preview", "_selected_action": [policy.pk]})
    assert sent == [
        ("ratings.publish_rating_list", ("standard", "2026-03-01", admin_user.pk)),
        ("ratings.compute_rating_list_preview", ("standard", "2026-03-01", admin_user.pk)),
    ]


def test_the_beat_schedule_is_in_the_admin_and_follows_the_policy_months(admin_client):
    # migration 0003 created one periodic task per rating type, on day 1 of the list months
    scheduled = PeriodicTask.objects.filter(task="ratings.publish_scheduled_rating_list")
    assert sorted(json.loads(t.kwargs)["rating_type"] for t in scheduled) == ["blitz", "rapid", "standard"]
    policy = rating_policy_for("rapid")
    task = scheduled.get(name__contains="rapid")
    assert (task.crontab.day_of_month, task.crontab.month_of_year) == ("1", "1,3,5,7,9,11")
    response = admin_client.post(
        reverse("admin:ratings_ratingpolicy_change", args=[policy.pk]),
        {
            "rating_type": "rapid",
            "rules_preset": "fide-2024",
            "list_months": "1,2,3,4,5,6,7,8,9,10,11,12",
            "closing_days": 3,
        },
    )
    assert response.status_code == 302
    task.refresh_from_db()
    assert task.crontab.month_of_year == "1,2,3,4,5,6,7,8,9,10,11,12"
    assert admin_client.get(reverse("admin:django_celery_beat_periodictask_changelist")).status_code == 200
    refused = admin_client.post(
        reverse("admin:ratings_ratingpolicy_change", args=[policy.pk]),
        {
            "rating_type": "rapid",
            "rules_preset": "no-such-rules",
            "list_months": "1,13",
            "closing_days": 3,
        },
    )
    assert refused.status_code == 200
    assert "13" in str(refused.context["adminform"].form.errors["list_months"])
    # presets are chosen from a list by name (ratings/admin.py, RatingPolicyForm): an unknown slug is not offered
    assert "no-such-rules is not one of the available choices" in str(
        refused.context["adminform"].form.errors["rules_preset"]
    )


def test_the_scheduled_task_publishes_on_a_list_date_and_skips_other_days():
    build_federation()
    assert "not a standard list date" in rating_list_publish_scheduled("standard", datetime.date(2026, 2, 1))["skipped"]
    result = rating_list_publish_scheduled("standard", MAR)
    assert result["created"]
    assert result["list_date"] == "2026-03-01"
    assert rating_list_publish_scheduled("standard", MAR)["created"] is False
    assert "nothing to publish" in rating_list_publish_scheduled("blitz", MAR)["skipped"]


def test_a_policy_is_created_on_demand_from_the_settings(settings):
    settings.RATING_LIST_MONTHS = [2, 8]
    settings.RATING_LIST_CLOSING_DAYS = 3
    settings.RATING_RULES_PRESET = "fide-2014"
    policy = rating_policy_for("blitz")
    assert (policy.list_months, policy.closing_days, policy.rules_preset) == ("2,8", 3, "fide-2014")
    assert RatingPolicy.objects.count() == 1
    assert PeriodicTask.objects.get(name__contains="blitz").crontab.month_of_year == "2,8"
