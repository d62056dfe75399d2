"""The checks the officials' buttons make before queueing a publication, in ratings.services.schedule: a list
is published when due, a draft is published only while it is a draft, a republication starts from the current
version and needs a corrected event waiting for it."""

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from events.models import Event, EventCorrection, EventStatus
from outbox.models import PendingTask
from ratings.models import RatingListStatus
from ratings.services import (
    RatingListRefused,
    rating_list_draft_publishable,
    rating_list_due,
    rating_list_republication_reason,
)
from tests.factories import make_rated_event
from tests.ratings.scenarios import JAN, MAR, bimonthly_policy, starting_list

pytestmark = pytest.mark.django_db


def corrected_event(rating_list, name):
    event = make_rated_event(rating_list, name=name)
    Event.objects.filter(pk=event.pk).update(status=EventStatus.CORRECTED)
    return event


@pytest.fixture
def january():
    bimonthly_policy()
    return starting_list(JAN, {})


def test_the_next_list_is_due_on_its_date(january):
    assert rating_list_due("standard", MAR) == MAR
    assert rating_list_due("standard", MAR + datetime.timedelta(days=3)) == MAR


def test_a_list_is_not_published_before_its_date(january):
    with pytest.raises(RatingListRefused) as refusal:
        rating_list_due("standard", MAR - datetime.timedelta(days=1))
    assert str(refusal.value) == "Standard: the next list (2026-03-01) is not due yet; compute a preview instead."


def test_only_a_draft_is_published_as_a_draft(january):
    with pytest.raises(RatingListRefused) as refusal:
        rating_list_draft_publishable(january)
    assert str(refusal.value) == f"{january} is not a draft; skipped."
    january.status = RatingListStatus.DRAFT
    assert rating_list_draft_publishable(january) == january


def test_a_republication_names_the_corrected_events_and_their_reasons(january):
    event = corrected_event(january, "Winter Open")
    officer = get_user_model().objects.create(username="officer")
    EventCorrection.objects.create(event=event, user=officer, reason="round 1 was 0-1", status_before="rated")
    corrected_event(january, "Quiet Cup")
    reason = rating_list_republication_reason(january)
    assert reason.startswith("Corrected: ")
    assert set(reason.removeprefix("Corrected: ").split("; ")) == {"Winter Open (round 1 was 0-1)", "Quiet Cup"}


def test_a_republication_without_a_corrected_event_is_refused(january):
    make_rated_event(january, name="Winter Open")  # rated, not corrected
    with pytest.raises(RatingListRefused) as refusal:
        rating_list_republication_reason(january)
    assert str(refusal.value) == f"{january}: no corrected event waits for this list or a later one."


def test_a_republication_starts_from_the_current_version_only(january):
    corrected_event(january, "Winter Open")
    january.status = RatingListStatus.DRAFT  # a draft preview is not a published version
    january.save()
    with pytest.raises(RatingListRefused) as refusal:
        rating_list_republication_reason(january)
    assert str(refusal.value) == f"{january} is not the current published version; skipped."


def test_the_admin_shows_the_refusal_and_queues_nothing(admin_client, january):
    url = reverse("admin:ratings_ratinglist_changelist")
    response = admin_client.post(
        url, {"action": "republish_corrections", "_selected_action": [january.pk]}, follow=True
    )
    shown = [str(message) for message in response.context["messages"]]
    assert shown == [f"{january}: no corrected event waits for this list or a later one."]
    assert not PendingTask.objects.exists()
