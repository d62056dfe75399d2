"""Each transition through the API (issue 15), with refusals and permissions: an arbiter moves only their own
events; officials refuse and approve registrations."""

import datetime as dt

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from events.models import Event, EventStatus, Game, Result
from events.services import Registration, event_register
from tests.events.test_admin_roles import make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db


def api(user) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")


def move(client, event, action, reason=""):
    return client.post(
        f"/api/v1/events/{event.pk}/transitions/",
        {"action": action, "reason": reason},
        content_type="application/json",
    )


@pytest.fixture
def arbiter():
    return make_arbiter()


@pytest.fixture
def event(arbiter):
    event = make_event(name="Api Open", rounds=1, chief_arbiter=arbiter)
    a, b = make_participants(event, [make_player(surname="Ames"), make_player(surname="Baker")])
    make_game(event, 1, a, b, result=Result.DRAW)
    return event


def test_the_arbiter_checks_submits_and_returns_to_draft_through_the_api(event, arbiter):
    client = api(arbiter)
    checked = move(client, event, "check").json()
    assert (checked["status"], checked["problems"]) == ("checked", [])
    submitted = move(client, event, "submit").json()
    assert submitted["status"] == "submitted"
    assert [(s["from_status"], s["to_status"]) for s in submitted["timeline"]] == [
        ("draft", "checked"),
        ("checked", "submitted"),
    ]
    assert move(client, event, "return_to_draft").json()["status"] == "draft"


def test_a_refused_transition_is_a_400_naming_why(event, arbiter):
    Game.objects.filter(event=event).update(result=Result.PENDING)
    client = api(arbiter)
    assert move(client, event, "check").json()["problems"][0].startswith("Api Open cannot be submitted: 1 game(s)")
    response = move(client, event, "submit")
    assert response.status_code == 400
    assert "have no result" in response.json()["errors"][0]
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT
    assert move(client, event, "fly").status_code == 400


def test_another_arbiter_gets_a_404_and_an_arbiter_may_not_refuse(event, arbiter):
    assert move(api(make_arbiter("other")), event, "submit").status_code == 404
    response = move(api(arbiter), event, "refuse", "no")
    assert response.status_code == 403
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT
    assert Client().post(f"/api/v1/events/{event.pk}/transitions/", {"action": "check"}).status_code == 401


def test_officials_refuse_with_a_reason_and_approve_registrations(event, arbiter):
    officer = api(make_officer())
    assert move(officer, event, "refuse").status_code == 400  # a reason is needed
    refused = move(officer, event, "refuse", "Not a rated event.").json()
    assert refused["status"] == "refused"
    assert refused["timeline"][-1]["reason"] == "Not a rated event."
    registered = event_register(
        Registration(
            name="Later Open",
            start_date=dt.date(2030, 5, 1),
            end_date=dt.date(2030, 5, 3),
            rounds=5,
            rating_type="standard",
            system="swiss",
        ),
        user=arbiter,
        today=dt.date(2030, 1, 1),
    )
    assert move(api(arbiter), registered, "approve_registration").status_code == 403
    approved = move(officer, registered, "approve_registration").json()
    assert approved["timeline"][-1]["reason"] == "registration approved"
    assert move(officer, registered, "approve_registration").status_code == 403  # once
