"""One status with a timeline (issue 15): every transition goes through events_status_change and leaves a row
(who, when, from, to, why, list); the admin, the public page and the API show it; permissions hold."""

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse

from audit.models import AuditEvent
from events.models import Event, EventStatus, EventStatusChange, Game, Result
from events.services import (
    GameEdit,
    event_check,
    event_correct,
    event_games_update,
    event_refuse,
    event_return_to_draft,
    event_submit,
    events_status_change,
)
from ratings.services import rating_list_publish, rating_list_republish_from
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player
from tests.ratings.scenarios import MAR, build_federation

pytestmark = pytest.mark.django_db


@pytest.fixture
def arbiter():
    return make_arbiter()


@pytest.fixture
def event(arbiter):
    event = make_event(name="Autumn Open", rounds=2, chief_arbiter=arbiter)
    a, b, c, d = make_participants(event, [make_player(surname=s) for s in ("Ames", "Baker", "Cole", "Drew")])
    make_game(event, 1, a, b, result=Result.WHITE_WIN, board=1)
    make_game(event, 1, c, d, result=Result.DRAW, board=2)
    make_game(event, 2, d, a, result=Result.BLACK_WIN, board=1)
    make_game(event, 2, b, c, result=Result.BLACK_WIN, board=2)
    return event


def steps(event):
    return list(
        EventStatusChange.objects.filter(event=event).order_by("at", "id").values_list("from_status", "to_status")
    )


def url(name, *args):
    return reverse(f"admin:events_event_{name}", args=args)


# --- services ------------------------------------------------------------------------------------------


def test_submission_passes_through_checked_and_records_who_and_when(event, arbiter):
    event_submit(event, user=arbiter)
    assert steps(event) == [("draft", "checked"), ("checked", "submitted")]
    change = EventStatusChange.objects.filter(event=event).last()
    assert change.user == arbiter
    assert change.at == Event.objects.get(pk=event.pk).submitted_at
    assert event.status == EventStatus.SUBMITTED


def test_a_check_with_a_game_without_result_names_it_and_leaves_the_draft(event, arbiter):
    Game.objects.filter(event=event, round=2, board=2).update(result=Result.PENDING)
    problems = event_check(event, user=arbiter)
    assert problems == [
        "Autumn Open cannot be submitted: 1 game(s) have no result — round 2 board 2: Baker, Test – Cole, Test."
    ]
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT
    assert steps(event) == []


def test_changing_a_checked_event_undoes_the_check(event, arbiter):
    assert event_check(event, user=arbiter) == []
    game = Game.objects.get(event=event, round=1, board=1)
    event_games_update(
        event,
        user=arbiter,
        edits=[
            GameEdit(
                game_id=game.pk,
                round=1,
                board=1,
                white_id=game.white_id,
                black_id=game.black_id,
                result=Result.DRAW,
                expected_version=game.version,
            )
        ],
    )
    assert steps(event) == [("draft", "checked"), ("checked", "draft")]
    assert EventStatusChange.objects.filter(event=event).last().reason == "results changed after the check"


def test_results_entered_for_a_registered_event_mean_results_received(arbiter):
    event = make_event(name="Spring Open", rounds=1, chief_arbiter=arbiter, status=EventStatus.REGISTERED)
    a, b = make_participants(event, [make_player(surname="Ames"), make_player(surname="Baker")])
    event_games_update(
        event, user=arbiter, edits=[GameEdit(round=1, board=1, white_id=a.pk, black_id=b.pk, result=Result.DRAW)]
    )
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT
    assert steps(event) == [("registered", "draft")]


def test_an_official_refuses_with_a_reason_and_can_reopen(event, arbiter):
    officer = make_officer()
    event_submit(event, user=arbiter)
    with pytest.raises(ValidationError, match="A refusal needs a reason"):
        event_refuse(event, user=officer, reason="  ")
    event_refuse(event, user=officer, reason="Round 2 was played after the declared end date.")
    refusal = EventStatusChange.objects.filter(event=event).last()
    assert (refusal.to_status, refusal.user, refusal.reason) == (
        "refused",
        officer,
        "Round 2 was played after the declared end date.",
    )
    assert AuditEvent.objects.filter(action="event.refuse", object_id=str(event.pk)).exists()
    event_return_to_draft(event, user=officer)
    assert steps(event)[-1] == ("refused", "draft")


def test_a_status_that_may_not_follow_is_refused_and_nothing_is_written(event, arbiter):
    Event.objects.filter(pk=event.pk).update(status=EventStatus.RATED)
    event.refresh_from_db()
    with (
        pytest.raises(ValidationError, match="Autumn Open is rated; it cannot become submitted for rating"),
        transaction.atomic(),
    ):
        events_status_change([event], EventStatus.SUBMITTED, user=arbiter)
    assert Event.objects.get(pk=event.pk).status == EventStatus.RATED
    assert steps(event) == []


def test_publication_rates_through_the_timeline_and_a_republication_re_rates():
    _, _, (winter, cup) = build_federation()
    march = rating_list_publish("standard", MAR).rating_list
    for event in (winter, cup):
        change = EventStatusChange.objects.get(event=event)
        assert (change.from_status, change.to_status, change.rating_list_id) == ("submitted", "rated", march.pk)
        assert Event.objects.get(pk=event.pk).rated_on_id == march.pk
    officer = make_officer()
    game = Game.objects.filter(event=winter, round=1).select_related("white", "black").get()
    event_correct(
        winter,
        user=officer,
        reason="result reported reversed",
        edits=[
            GameEdit(
                game_id=game.pk,
                round=1,
                board=game.board,
                white_id=game.white_id,
                black_id=game.black_id,
                result=Result.BLACK_WIN,
                expected_version=game.version,
            )
        ],
    )
    (republished,) = rating_list_republish_from("standard", MAR, user=officer, reason="Winter Open corrected")
    assert steps(winter) == [("submitted", "rated"), ("rated", "corrected"), ("corrected", "rated")]
    last = EventStatusChange.objects.filter(event=winter).last()
    assert last.is_rerating
    assert last.rating_list_id == republished.pk
    assert last.user == officer


def test_publication_writes_one_timeline_row_per_rated_event():
    build_federation()
    baseline = EventStatusChange.objects.count()
    rating_list_publish("standard", MAR)
    assert EventStatusChange.objects.count() == baseline + 2


# --- admin ---------------------------------------------------------------------------------------------


def test_the_arbiter_sees_the_timeline_in_the_admin(event, arbiter):
    client = client_for(arbiter)
    client.post(url("submit", event.pk))
    page = client.get(url("change", event.pk)).content.decode()
    assert 'id="event-timeline"' in page
    assert "<td>Draft</td>" in page
    assert "<td>Checked</td>" in page
    assert "<td>Submitted for rating</td>" in page


def test_the_arbiter_checks_their_event_with_the_button(event, arbiter):
    client = client_for(arbiter)
    assert b">Check</button>" in client.get(url("change", event.pk)).content
    response = client.post(url("check", event.pk), follow=True)
    assert "Autumn Open: checked, ready for submission." in [str(m) for m in response.context["messages"]]
    assert Event.objects.get(pk=event.pk).status == EventStatus.CHECKED


def test_another_arbiter_neither_sees_nor_moves_the_event(event):
    other = client_for(make_arbiter("other"))
    assert other.get(url("change", event.pk)).status_code == 302  # "does not exist" redirect, as for the page
    other.post(url("check", event.pk))
    other.post(url("submit", event.pk))
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT
    assert steps(event) == []


def test_an_arbiter_may_not_refuse(event, arbiter):
    client = client_for(arbiter)
    assert b"Refuse</a>" not in client.get(url("change", event.pk)).content
    assert client.post(url("refuse", event.pk), {"reason": "no"}).status_code == 403
    assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT


def test_an_official_refuses_through_the_admin_with_a_reason(event, arbiter):
    client_for(arbiter).post(url("submit", event.pk))
    officer = client_for(make_officer())
    assert b"Refuse</a>" in officer.get(url("change", event.pk)).content
    page = officer.post(url("refuse", event.pk), {"reason": "   "})
    assert page.status_code == 200
    assert b"This field is required." in page.content
    assert Event.objects.get(pk=event.pk).status == EventStatus.SUBMITTED
    response = officer.post(url("refuse", event.pk), {"reason": "Duplicate of event 12"}, follow=True)
    assert "Autumn Open: refused." in [str(m) for m in response.context["messages"]]
    assert steps(event)[-1] == ("submitted", "refused")
    # the arbiter sees why on the timeline; they cannot reopen it themselves
    page = client_for(arbiter).get(url("change", event.pk)).content.decode()
    assert "Duplicate of event 12" in page
    assert client_for(arbiter).post(url("return_to_draft", event.pk)).status_code == 403


# --- public page and API -------------------------------------------------------------------------------


def test_the_public_page_and_the_api_say_where_the_event_stands(client, event, arbiter):
    event_submit(event, user=arbiter)
    page = client.get(reverse("events:detail", args=[event.pk])).content.decode()
    assert "Where the event stands" in page
    assert "Submitted for rating" in page
    data = client.get(reverse("api-event", args=[event.pk])).json()
    assert data["status"] == "submitted"
    assert [(s["from_status"], s["to_status"]) for s in data["timeline"]] == [
        ("draft", "checked"),
        ("checked", "submitted"),
    ]
    assert data["timeline"][1]["by"] == "arbiter"
    assert data["timeline"][1]["rating_list"] is None


def test_rated_events_page_per_list_and_awaiting_rating_page(client):
    _, _, (winter, cup) = build_federation()
    awaiting = client.get(reverse("events:awaiting")).content.decode()
    assert winter.name in awaiting
    assert cup.name in awaiting
    rating_list_publish("standard", MAR)
    rated = client.get(reverse("ratings:rated-events", args=[MAR, "standard"]))
    assert rated.status_code == 200
    assert winter.name in rated.content.decode()
    assert cup.name in rated.content.decode()
    assert winter.name not in client.get(reverse("events:awaiting")).content.decode()
    api = client.get(reverse("api-event", args=[winter.pk])).json()
    assert api["status"] == "rated"
    assert api["timeline"][-1]["rating_list"] == {"list_date": MAR.isoformat(), "rating_type": "standard", "version": 1}
    assert client.get(reverse("ratings:rated-events", args=["2031-01-01", "standard"])).status_code == 404


def test_the_spanish_pages_translate_the_timeline(client, event, arbiter):
    event_submit(event, user=arbiter)
    page = client.get(reverse("events:detail", args=[event.pk]), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Dónde está el torneo" in page
    assert (
        "Torneos pendientes de valoración"
        in client.get(reverse("events:awaiting"), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    )


def test_lifecycle_pages_take_a_fixed_number_of_queries(client, django_assert_num_queries):
    build_federation()
    with django_assert_num_queries(2):  # count, page
        assert client.get(reverse("events:awaiting")).status_code == 200
    rating_list_publish("standard", MAR)
    with django_assert_num_queries(3):  # list, count, page
        assert client.get(reverse("ratings:rated-events", args=[MAR, "standard"])).status_code == 200
