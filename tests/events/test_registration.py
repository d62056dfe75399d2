"""Registration before play (issue 15): deadlines per rating type (FIDE's by default), late registrations
accepted and flagged with the rule, officials confirm or refuse, the arbiter is e-mailed."""

import datetime as dt

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from events.deadlines import registration_flag, submission_flags
from events.models import Event, EventStatus, EventStatusChange
from events.services import Registration, event_refuse, event_register, event_registration_approve
from events.tasks import send_event_email, send_events_email
from outbox.models import PendingTask
from ratings.services import rating_list_publish
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.ratings.scenarios import MAR, build_federation

pytestmark = pytest.mark.django_db

START = dt.date(2026, 6, 1)


def registration(**fields):
    values = {
        "name": "June Open",
        "start_date": START,
        "end_date": START + dt.timedelta(days=4),
        "rounds": 9,
        "rating_type": "standard",
        "system": "swiss",
        "city": "Bilbao",
        **fields,
    }
    return Registration(**values)


def run_queued_emails() -> None:
    """What a worker does with the e-mail tasks the outbox queued."""
    for task in PendingTask.objects.filter(name="events.tasks.send_event_email"):
        send_event_email(*task.args)


@pytest.mark.parametrize(
    ("strong", "days_before", "late"),
    [(True, 30, False), (True, 29, True), (False, 3, False), (False, 2, True)],
)
def test_fide_registration_deadlines(strong, days_before, late):
    flag = registration_flag("standard", START, strong, START - dt.timedelta(days=days_before))
    assert (flag is not None) == late
    if strong and late:
        assert flag.rule == (
            "registration at least 30 days before the start (a player rated over 2700 or a woman over 2500 takes part)"
        )
        assert (
            flag.detail
            == "registered on 2026-05-03, 29 day(s) before the start 2026-06-01; the deadline was 2026-05-02"
        )


def test_deadlines_are_configurable_per_rating_type(settings):
    settings.EVENT_DEADLINES = {**settings.EVENT_DEADLINES, "blitz": {**settings.EVENT_DEADLINES["blitz"]}}
    settings.EVENT_DEADLINES["blitz"]["registration_days"] = 1
    day_before = START - dt.timedelta(days=2)
    assert registration_flag("blitz", START, False, day_before) is None
    assert registration_flag("standard", START, False, day_before) is not None


def test_report_and_upload_deadlines_after_the_end():
    end = dt.date(2026, 6, 5)
    assert submission_flags("standard", end, end + dt.timedelta(days=7)) == []
    assert [f.rule for f in submission_flags("standard", end, end + dt.timedelta(days=8))] == [
        "the chief arbiter's report within 7 days of the end"
    ]
    assert len(submission_flags("standard", end, end + dt.timedelta(days=31))) == 2


def test_a_late_registration_is_accepted_and_flagged_and_starts_the_timeline():
    arbiter = make_arbiter()
    event = event_register(registration(strong_field=True), user=arbiter, today=START - dt.timedelta(days=10))
    assert event.status == EventStatus.REGISTERED
    assert event.chief_arbiter == arbiter
    assert [flag["rule"] for flag in event.deadline_flags] == [
        "registration at least 30 days before the start (a player rated over 2700 or a woman over 2500 takes part)"
    ]
    step = EventStatusChange.objects.get(event=event)
    assert (step.from_status, step.to_status, step.user) == ("", "registered", arbiter)
    assert step.reason.startswith("registered late: registration at least 30 days")


def test_the_arbiter_registers_in_the_admin_and_the_official_confirms_with_an_email(settings):
    arbiter = make_arbiter()
    arbiter.email = "arbiter@example.org"
    arbiter.save()
    client = client_for(arbiter)
    start = timezone.localdate() + dt.timedelta(days=60)
    response = client.post(
        reverse("admin:events_event_register"),
        {
            "name": "Autumn Open",
            "city": "Cork",
            "start_date": start.isoformat(),
            "end_date": (start + dt.timedelta(days=2)).isoformat(),
            "rounds": "5",
            "rating_type": "rapid",
            "system": "swiss",
            "organiser": "Cork Chess Club",
            "expected_players": "80",
        },
        follow=True,
    )
    event = Event.objects.get(name="Autumn Open")
    assert "Autumn Open: registered" in next(str(m) for m in response.context["messages"])
    assert (event.status, event.chief_arbiter, event.deadline_flags, event.organiser) == (
        EventStatus.REGISTERED,
        arbiter,
        [],
        "Cork Chess Club",
    )
    change = reverse("admin:events_event_change", args=[event.pk])
    approve = reverse("admin:events_event_approve_registration", args=[event.pk])
    assert b"Confirm registration" not in client.get(change).content
    assert client.post(approve).status_code == 403  # arbiters do not confirm their own registrations
    officer = client_for(make_officer())
    assert b"Confirm registration" in officer.get(change).content
    officer.post(approve)
    event.refresh_from_db()
    assert event.registration_approved_at is not None
    assert EventStatusChange.objects.filter(event=event).last().reason == "registration approved"
    run_queued_emails()
    assert [(m.subject, m.to) for m in mail.outbox] == [
        ("Registration confirmed: Autumn Open", ["arbiter@example.org"])
    ]


def test_a_registration_with_dates_the_wrong_way_round_is_a_form_error():
    client = client_for(make_arbiter())
    response = client.post(
        reverse("admin:events_event_register"),
        {
            "name": "X",
            "city": "Y",
            "start_date": "2030-05-03",
            "end_date": "2030-05-01",
            "rounds": "5",
            "rating_type": "standard",
            "system": "swiss",
        },
    )
    assert response.status_code == 200
    assert b"The event ends (2030-05-01) before it starts (2030-05-03)." in response.content
    assert not Event.objects.exists()


def test_a_refusal_is_mailed_with_its_reason():
    arbiter = make_arbiter()
    arbiter.email = "arbiter@example.org"
    arbiter.save()
    event = event_register(registration(), user=arbiter, today=START - dt.timedelta(days=40))
    event_refuse(event, user=make_officer(), reason="The organiser is not affiliated.")
    run_queued_emails()
    assert mail.outbox[0].subject == "Event refused: June Open"
    assert "Reason: The organiser is not affiliated." in mail.outbox[0].body


def test_a_registration_is_confirmed_once():
    event = event_register(registration(), user=make_arbiter(), today=START - dt.timedelta(days=40))
    officer = make_officer()
    event_registration_approve(event, user=officer)
    with pytest.raises(Exception, match="not a registration waiting for approval"):
        event_registration_approve(event, user=officer)


def test_the_arbiters_are_mailed_when_their_events_are_rated():
    _, _, (winter, cup) = build_federation()
    arbiter = make_arbiter()
    arbiter.email = "arbiter@example.org"
    arbiter.save()
    Event.objects.filter(pk=winter.pk).update(chief_arbiter=arbiter)
    rating_list_publish("standard", MAR)
    (task,) = PendingTask.objects.filter(name="events.tasks.send_events_email")
    assert sorted(task.args[0]) == sorted([winter.pk, cup.pk])
    assert send_events_email(*task.args) == 1  # the cup's chief arbiter has no address
    assert mail.outbox[0].subject == "Event rated: Winter Open"
    assert "rated on the" in mail.outbox[0].body
