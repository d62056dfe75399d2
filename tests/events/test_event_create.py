"""events.services.event_create: the one place where "an arbiter's new event is theirs" is written."""

import datetime as dt

import pytest
from django.db import transaction

from events.models import Event, EventStatus, EventStatusChange
from events.services import event_create
from tests.events.test_admin_roles import make_arbiter, make_officer

pytestmark = pytest.mark.django_db


def new_event(**fields) -> Event:
    values = {"name": "Create Open", "start_date": dt.date(2026, 3, 1), "end_date": dt.date(2026, 3, 2), "rounds": 5}
    return Event(**{**values, **fields})


def create(event: Event, **kwargs) -> Event:
    with transaction.atomic():
        return event_create(event, **kwargs)


def test_an_arbiters_new_event_is_theirs():
    arbiter = make_arbiter()
    event = create(new_event(), user=arbiter)
    assert Event.objects.get(pk=event.pk).chief_arbiter == arbiter


def test_an_arbiter_cannot_name_another_chief_arbiter_for_a_new_event():
    arbiter, officer = make_arbiter(), make_officer()
    event = create(new_event(chief_arbiter=officer), user=arbiter)
    assert Event.objects.get(pk=event.pk).chief_arbiter == arbiter


def test_a_rating_officers_new_event_keeps_the_chief_arbiter_they_chose():
    officer, arbiter = make_officer(), make_arbiter()
    assert create(new_event(), user=officer).chief_arbiter is None
    assert create(new_event(chief_arbiter=arbiter), user=officer).chief_arbiter == arbiter


def test_whoever_registers_an_event_is_its_chief_arbiter_officials_included():
    officer = make_officer()
    event = create(new_event(status=EventStatus.REGISTERED), user=officer)
    assert Event.objects.get(pk=event.pk).chief_arbiter == officer


def test_a_job_creates_an_event_without_a_chief_arbiter():
    assert create(new_event(), user=None).chief_arbiter is None


def test_the_creator_authors_the_first_history_row_and_the_timeline_when_asked():
    arbiter = make_arbiter()
    quiet = create(new_event(), user=arbiter)
    assert not EventStatusChange.objects.filter(event=quiet).exists()
    assert quiet.history.get().history_user == arbiter
    event = create(new_event(), user=arbiter, timeline_reason="results received: imported from x.trf")
    step = EventStatusChange.objects.get(event=event)
    assert (step.user, step.from_status, step.to_status, step.reason) == (
        arbiter,
        "",
        EventStatus.DRAFT,
        "results received: imported from x.trf",
    )


def test_event_create_saves_new_events_only():
    event = create(new_event(), user=make_arbiter())
    with pytest.raises(AssertionError):
        create(event, user=None)
