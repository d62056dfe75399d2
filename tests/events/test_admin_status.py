"""Status flow in the admin: draft → submitted (button and action) → rated → corrected (with the record)."""

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from events.models import Event, EventCorrection, EventStatus, Game, Result
from tests.events.test_admin_roles import client_for, formset_data, make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    arbiter = make_arbiter()
    event = make_event(name="Autumn Open", rounds=2, chief_arbiter=arbiter)
    a, b, c, d = make_participants(event, [make_player(surname=s) for s in ("Ames", "Baker", "Cole", "Drew")])
    make_game(event, 1, a, b, result=Result.WHITE_WIN, board=1)
    make_game(event, 1, c, d, result=Result.DRAW, board=2)
    make_game(event, 2, d, a, result=Result.BLACK_WIN, board=1)
    make_game(event, 2, b, c, result=Result.BLACK_WIN, board=2)
    return event


def url(name, *args):
    return reverse(f"admin:events_event_{name}", args=args)


def test_the_arbiter_submits_the_event_for_rating_with_the_button(event):
    client = client_for(event.chief_arbiter)
    page = client.get(url("change", event.pk))
    assert b"Submit for rating" in page.content
    response = client.post(url("submit", event.pk), follow=True)
    assert response.status_code == 200
    event.refresh_from_db()
    assert event.status == EventStatus.SUBMITTED
    assert event.submitted_at is not None
    assert "Autumn Open: submitted for rating." in [str(m) for m in response.context["messages"]]
    assert AuditEvent.objects.filter(action="event.submit", object_id=str(event.pk)).exists()


def test_submission_is_refused_while_a_game_has_no_result(event):
    Game.objects.filter(event=event, round=2, board=2).update(result=Result.PENDING)
    response = client_for(event.chief_arbiter).post(url("submit", event.pk), follow=True)
    messages = [str(m) for m in response.context["messages"]]
    assert messages == [
        "Autumn Open cannot be submitted: 1 game(s) have no result — round 2 board 2: Baker, Test – Cole, Test."
    ]
    event.refresh_from_db()
    assert event.status == EventStatus.DRAFT


def test_the_submit_url_only_accepts_post(event):
    assert client_for(event.chief_arbiter).get(url("submit", event.pk)).status_code == 405


def test_the_submit_action_submits_the_selected_draft_events(event):
    client = client_for(event.chief_arbiter)
    client.post(url("changelist"), {"action": "submit_for_rating", "_selected_action": [event.pk], "index": "0"})
    event.refresh_from_db()
    assert event.status == EventStatus.SUBMITTED


def test_the_rating_officer_returns_a_submitted_event_to_draft(event):
    Event.objects.filter(pk=event.pk).update(status=EventStatus.SUBMITTED)
    response = client_for(make_officer()).post(url("return_to_draft", event.pk))
    assert response.status_code == 302
    event.refresh_from_db()
    assert (event.status, event.submitted_at) == (EventStatus.DRAFT, None)


def test_a_submitted_event_cannot_be_submitted_again(event):
    Event.objects.filter(pk=event.pk).update(status=EventStatus.SUBMITTED)
    assert client_for(event.chief_arbiter).post(url("submit", event.pk)).status_code == 403


# --- corrections ---------------------------------------------------------------------------------------


def correction_data(client, event, reason: str = "") -> dict:
    page = client.get(url("correct", event.pk))
    assert page.status_code == 200
    return {"reason": reason, **formset_data(page.context["formset"])}


def test_the_rating_officer_corrects_a_rated_event_and_the_change_is_recorded(event):
    Event.objects.filter(pk=event.pk).update(status=EventStatus.RATED)
    officer = make_officer()
    client = client_for(officer)
    data = correction_data(client, event, reason="Round 1 board 2 reported as a draw; Cole won")
    game = Game.objects.get(event=event, round=1, board=2)
    index = next(i for i in range(4) if data[f"games-{i}-id"] == str(game.pk))
    data[f"games-{index}-result"] = Result.WHITE_WIN

    response = client.post(url("correct", event.pk), data)

    assert response.status_code == 302, response.context["form"].errors
    event.refresh_from_db()
    assert event.status == EventStatus.CORRECTED
    game.refresh_from_db()
    assert (game.result, game.version) == (Result.WHITE_WIN, 2)
    correction = EventCorrection.objects.get(event=event)
    assert correction.user == officer
    assert correction.reason == "Round 1 board 2 reported as a draw; Cole won"
    assert correction.status_before == EventStatus.RATED
    (change,) = correction.changes["games"]
    assert change["game"] == game.pk
    assert change["action"] == "changed"
    assert (change["before"]["result"], change["after"]["result"]) == (Result.DRAW, Result.WHITE_WIN)
    assert (change["before"]["white_rank"], change["before"]["black_rank"]) == (3, 4)
    audit = AuditEvent.objects.get(action="event.correct")
    assert audit.reason == correction.reason


def test_a_correction_without_a_reason_changes_nothing(event):
    Event.objects.filter(pk=event.pk).update(status=EventStatus.RATED)
    client = client_for(make_officer())
    data = correction_data(client, event)
    data["games-0-result"] = Result.BLACK_WIN
    response = client.post(url("correct", event.pk), data)
    assert response.status_code == 200
    assert "reason" in response.context["form"].errors
    assert not EventCorrection.objects.exists()
    event.refresh_from_db()
    assert event.status == EventStatus.RATED


def test_a_correction_that_changes_nothing_is_refused(event):
    Event.objects.filter(pk=event.pk).update(status=EventStatus.RATED)
    client = client_for(make_officer())
    response = client.post(url("correct", event.pk), correction_data(client, event, reason="checking"))
    assert response.status_code == 200
    assert "Nothing to correct" in str(response.context["form"].non_field_errors())


def test_a_correction_is_validated_like_entry(event):
    Event.objects.filter(pk=event.pk).update(status=EventStatus.RATED)
    client = client_for(make_officer())
    data = correction_data(client, event, reason="fix pairing")
    data["games-0-black_rank"] = "3"  # Ames would play Cole, but Cole already plays board 2 in round 1
    response = client.post(url("correct", event.pk), data)
    assert response.status_code == 200
    assert "Round 1: Cole, Test (rank 3) is paired 2 times" in str(response.context["formset"].non_form_errors())
    assert not EventCorrection.objects.exists()


def test_the_arbiter_cannot_correct_a_rated_event(event):
    Event.objects.filter(pk=event.pk).update(status=EventStatus.RATED)
    client = client_for(event.chief_arbiter)
    assert client.get(url("correct", event.pk)).status_code == 403
    assert url("correct", event.pk).encode() not in client.get(url("change", event.pk)).content


def test_a_draft_event_has_no_correction_page(event):
    assert client_for(make_officer()).get(url("correct", event.pk)).status_code == 403


def test_a_corrected_event_can_be_corrected_again_and_both_records_stay(event):
    Event.objects.filter(pk=event.pk).update(status=EventStatus.RATED)
    client = client_for(make_officer())
    for reason, result in (("first", Result.BLACK_WIN), ("second", Result.DRAW)):
        data = correction_data(client, event, reason=reason)
        data["games-0-result"] = result
        assert client.post(url("correct", event.pk), data).status_code == 302
    assert list(EventCorrection.objects.order_by("created_at", "id").values_list("reason", "status_before")) == [
        ("first", EventStatus.RATED),
        ("second", EventStatus.CORRECTED),
    ]
