"""An incomplete event does not pass Check or Submit (issue 32): five rounds declared and round 1 entered was
"ready for submission". Declared rounds without pairings, boards without a result and holes in a player's rounds
are named and block the submission — in the services, the admin, the API and the TRF command — and an official
may submit it anyway with a reason, which the timeline shows and the audit trail keeps."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.authtoken.models import Token

from audit.models import AuditEvent
from events.models import Event, EventStatus, EventStatusChange, EventSystem, Result
from events.services import event_check, event_problems, event_submit
from events.services_completeness import event_incomplete, rounds_label
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db

MISSING_3_TO_5 = (
    "Five Rounds Open: rounds 3–5 of the 5 declared have no pairings; enter them on the round entry screen, or "
    "correct the number of rounds."
)


@pytest.fixture
def arbiter():
    return make_arbiter()


@pytest.fixture
def event(arbiter):
    """Five rounds declared; rounds 1 and 2 entered, every board with a result; four players."""
    event = make_event(name="Five Rounds Open", rounds=5, chief_arbiter=arbiter)
    a, b, c, d = make_participants(event, [make_player(surname=s) for s in ("Ames", "Baker", "Cole", "Drew")])
    make_game(event, 1, a, b, result=Result.WHITE_WIN, board=1)
    make_game(event, 1, c, d, result=Result.DRAW, board=2)
    make_game(event, 2, d, a, result=Result.BLACK_WIN, board=1)
    make_game(event, 2, b, c, result=Result.DRAW, board=2)
    return event


def url(name, *args):
    return reverse(f"admin:events_event_{name}", args=args)


# --- what is named ---------------------------------------------------------------------------------------


def test_declared_rounds_without_pairings_are_named_and_block_check_and_submit(event, arbiter):
    assert event_problems(event) == [MISSING_3_TO_5]
    assert event_check(event, user=arbiter) == [MISSING_3_TO_5]
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT
    with pytest.raises(ValidationError) as refused:
        event_submit(event, user=arbiter)
    assert refused.value.messages == [MISSING_3_TO_5]
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT


def test_the_example_of_the_issue_one_round_of_five_with_a_board_unfinished(arbiter):
    event = make_event(name="Spring Open", rounds=5, chief_arbiter=arbiter)
    a, b, c, d = make_participants(event, [make_player(surname=s) for s in ("Ames", "Baker", "Cole", "Drew")])
    make_game(event, 1, a, b, result=Result.WHITE_WIN, board=1)
    make_game(event, 1, c, d, result=Result.PENDING, board=2)
    assert event_problems(event) == [
        "Spring Open: rounds 2–5 of the 5 declared have no pairings; enter them on the round entry screen, or "
        "correct the number of rounds.",
        "Spring Open cannot be submitted: 1 game(s) have no result — round 1 board 2: Cole, Test – Drew, Test.",
    ]


def test_a_hole_in_a_players_rounds_is_named_a_withdrawal_is_not(arbiter):
    event = make_event(name="Holes Open", rounds=3, chief_arbiter=arbiter)
    a, b, c, d, e, _f = make_participants(event, [make_player(surname=f"P{n}") for n in range(1, 7)])
    make_game(event, 1, a, b, board=1)
    make_game(event, 1, c, d, board=2)  # e: nothing in round 1, plays in round 2 → a hole
    make_game(event, 2, a, c, board=1)
    make_game(event, 2, e, b, board=2)  # d: nothing in rounds 2 and 3 → withdrew; f never played
    make_game(event, 3, b, a, board=1)
    make_game(event, 3, c, e, board=2)
    assert event_incomplete(event) == [
        "Player 5, P5, Test, has neither a game nor a bye in round 1 but plays later; enter the game, or a bye "
        "(a zero-point bye for an absent player)."
    ]
    # a zero-point bye fills the hole
    make_game(event, 1, e, None, result=Result.ZERO_POINT_BYE)
    assert event_incomplete(event) == []


def test_team_events_leave_reserves_out_and_are_not_asked_for_every_player(arbiter):
    event = make_event(name="Team Open", rounds=2, chief_arbiter=arbiter, system=EventSystem.TEAM)
    a, b, c, _d, e = make_participants(event, [make_player(surname=f"T{n}") for n in range(1, 6)])
    make_game(event, 1, a, b, board=1)
    make_game(event, 2, e, c, board=1)  # c, d, e sat out round 1; a, b, d round 2
    assert event_incomplete(event) == []


def test_rounds_are_written_as_runs():
    assert rounds_label([2, 3, 4, 5, 7]) == "2–5, 7"
    assert rounds_label([4]) == "4"


def test_the_check_reads_a_fixed_number_of_queries(event, django_assert_num_queries):
    # new players' data, the rounds' counts, the participants' count; then the boards without a result; then,
    # when a round seats fewer players than the event has, every pairing and the participants
    with django_assert_num_queries(3):
        assert event_problems(event) == [MISSING_3_TO_5]
    make_game(event, 3, *event.participants.order_by("start_rank")[:2], result=Result.PENDING, board=1)
    with django_assert_num_queries(6):
        assert len(event_problems(event)) == 2


# --- the official's override -------------------------------------------------------------------------------


def test_an_official_submits_it_as_it_stands_with_a_reason_on_the_timeline_and_in_the_audit(event):
    officer = make_officer()
    with pytest.raises(ValidationError, match="no pairings"):
        event_submit(event, user=officer)  # no reason: refused like anyone else
    event_submit(event, user=officer, override_reason="  Stopped after round 2: the venue closed.  ")
    assert Event.objects.get(pk=event.pk).status == EventStatus.SUBMITTED
    step = EventStatusChange.objects.filter(event=event).last()
    assert (step.to_status, step.user, step.reason) == (
        "submitted",
        officer,
        "submitted incomplete, an official's decision: Stopped after round 2: the venue closed.",
    )
    audit = AuditEvent.objects.get(action="event.submit_incomplete", object_id=str(event.pk))
    assert audit.reason == "Stopped after round 2: the venue closed."
    assert audit.before["incomplete"] == [MISSING_3_TO_5]
    assert audit.actor == officer


def test_an_arbiter_cannot_override(event, arbiter):
    with pytest.raises(ValidationError) as refused:
        event_submit(event, user=arbiter, override_reason="We stopped early.")
    assert refused.value.messages[-1] == (
        "Only an official (permission: approve or refuse events) may submit an incomplete event."
    )
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT
    assert not AuditEvent.objects.filter(action="event.submit_incomplete").exists()


def test_nobody_overrides_what_rating_needs(event):
    Event.objects.filter(pk=event.pk).update(rating_type="")
    with pytest.raises(ValidationError, match="the rating type is not given"):
        event_submit(event, user=make_officer(), override_reason="Stopped after round 2.")
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT


def test_a_complete_event_needs_no_reason_and_records_none(event, arbiter):
    Event.objects.filter(pk=event.pk).update(rounds=2)
    event.refresh_from_db()
    event_submit(event, user=arbiter)
    assert EventStatusChange.objects.filter(event=event).last().reason == ""


# --- the admin ---------------------------------------------------------------------------------------------


def test_check_and_submit_in_the_admin_name_what_is_missing(event, arbiter):
    client = client_for(arbiter)
    checked = client.post(url("check", event.pk), follow=True).content.decode()
    assert "rounds 3–5 of the 5 declared have no pairings" in checked
    assert "ready for submission" not in checked
    submitted = client.post(url("submit", event.pk), follow=True).content.decode()
    assert "rounds 3–5 of the 5 declared have no pairings" in submitted
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT
    # the arbiter is not offered the override, and may not reach it
    assert url("submit_incomplete", event.pk) not in client.get(url("change", event.pk)).content.decode()
    assert client.get(url("submit_incomplete", event.pk)).status_code == 403
    assert client.post(url("submit_incomplete", event.pk), {"reason": "early"}).status_code == 403
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT


def test_an_official_submits_it_incomplete_from_the_admin(event):
    client = client_for(make_officer())
    page = client.get(url("change", event.pk)).content.decode()
    assert url("submit_incomplete", event.pk) in page
    form = client.get(url("submit_incomplete", event.pk)).content.decode()
    assert 'id="submit-incomplete"' in form
    assert "rounds 3–5 of the 5 declared have no pairings" in form
    empty = client.post(url("submit_incomplete", event.pk), {"reason": "  "})
    assert empty.status_code == 200
    assert "This field is required." in empty.content.decode()  # a reason, or nothing is written
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT
    done = client.post(url("submit_incomplete", event.pk), {"reason": "Stopped after round 2."}, follow=True)
    assert "submitted for rating as it stands" in done.content.decode()
    assert Event.objects.get(pk=event.pk).status == EventStatus.SUBMITTED
    timeline = client.get(url("change", event.pk)).content.decode()
    assert "submitted incomplete, an official&#x27;s decision: Stopped after round 2." in timeline


def test_the_override_page_refuses_what_nobody_may_override(event):
    Event.objects.filter(pk=event.pk).update(rating_type="")
    client = client_for(make_officer())
    page = client.get(url("submit_incomplete", event.pk)).content.decode()
    assert 'id="submit-blocking"' in page
    assert "<textarea" not in page
    client.post(url("submit_incomplete", event.pk), {"reason": "Stopped after round 2."})
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT


# --- the API -----------------------------------------------------------------------------------------------


def move(user, event, action, reason=""):
    from django.test import Client

    client = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client.post(
        f"/api/v1/events/{event.pk}/transitions/",
        {"action": action, "reason": reason},
        content_type="application/json",
    )


def test_the_api_names_what_is_missing_and_takes_an_officials_reason(event, arbiter):
    checked = move(arbiter, event, "check").json()
    assert (checked["status"], checked["problems"]) == ("draft", [MISSING_3_TO_5])
    refused = move(arbiter, event, "submit")
    assert refused.status_code == 400
    assert refused.json()["errors"] == [MISSING_3_TO_5]
    assert move(arbiter, event, "submit", reason="We stopped early.").status_code == 400
    submitted = move(make_officer(), event, "submit", reason="Stopped after round 2.")
    assert submitted.status_code == 200
    assert submitted.json()["status"] == "submitted"
    assert submitted.json()["timeline"][-1]["reason"] == (
        "submitted incomplete, an official's decision: Stopped after round 2."
    )


def test_the_schema_says_what_the_reason_does():
    from django.test import Client

    schema = Client().get("/api/v1/schema/", HTTP_ACCEPT="application/json").content.decode()
    assert "an official's reason for submitting an event whose play is incomplete" in schema
