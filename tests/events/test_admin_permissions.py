"""An arbiter sees and edits only the events assigned to them, through every admin URL and action.

Two arbiters: Ann is chief arbiter of "Ann Open"; Bob is an (assistant) arbiter of "Bob Cup". Every test
checks that Ann cannot see, change or delete Bob's event, its participants or games — and that nothing of
Bob's event (its name) shows up in what she is served.
"""

from dataclasses import dataclass

import pytest
from django.urls import reverse

from events.models import Event, EventCorrection, EventStatus, Game, Participant, Result
from tests.events.test_admin_roles import change_page_data, client_for, make_arbiter, make_officer, make_staff
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db

SECRET = "Bob Cup"


@dataclass
class Scene:
    ann: object
    bob: object
    officer: object
    ann_event: Event
    bob_event: Event
    ann_games: list[Game]
    bob_games: list[Game]
    bob_participants: list[Participant]


@pytest.fixture
def scene():
    ann, bob, officer = make_arbiter("ann"), make_arbiter("bob"), make_officer("olga")
    ann_event = make_event(name="Ann Open", chief_arbiter=ann)
    bob_event = make_event(name=SECRET)
    bob_event.arbiters.add(bob)
    ann_people = make_participants(ann_event, [make_player() for _ in range(4)])
    bob_people = make_participants(bob_event, [make_player() for _ in range(4)])
    ann_games = [
        make_game(ann_event, 1, ann_people[0], ann_people[1]),
        make_game(ann_event, 1, ann_people[2], ann_people[3]),
    ]
    bob_games = [make_game(bob_event, 1, bob_people[0], bob_people[1], result=Result.WHITE_WIN)]
    return Scene(ann, bob, officer, ann_event, bob_event, ann_games, bob_games, bob_people)


def url(name: str, *args) -> str:
    return reverse(f"admin:{name}", args=args)


def assert_not_served(response) -> None:
    """Refused or redirected to the admin index (Django's answer for an object that does not exist)."""
    assert response.status_code in (302, 403, 404), response.status_code
    if response.status_code == 302:
        assert response["Location"] in (url("index"), "/admin/"), response["Location"]


# --- events --------------------------------------------------------------------------------------------


def test_event_changelist_lists_only_the_arbiters_own_events(scene):
    ann_page = client_for(scene.ann).get(url("events_event_changelist"))
    assert ann_page.status_code == 200
    assert list(ann_page.context["cl"].result_list) == [scene.ann_event]
    assert SECRET.encode() not in ann_page.content
    bob_page = client_for(scene.bob).get(url("events_event_changelist"))
    assert list(bob_page.context["cl"].result_list) == [scene.bob_event]  # assigned through Event.arbiters
    officer_page = client_for(scene.officer).get(url("events_event_changelist"))
    assert set(officer_page.context["cl"].result_list) == {scene.ann_event, scene.bob_event}


def test_an_arbiter_with_no_assignment_sees_no_events(scene):
    page = client_for(make_arbiter("nobody")).get(url("events_event_changelist"))
    assert page.status_code == 200
    assert list(page.context["cl"].result_list) == []


@pytest.mark.parametrize("view", ["change", "delete", "history"])
def test_another_arbiters_event_pages_are_not_served(scene, view):
    response = client_for(scene.ann).get(url(f"events_event_{view}", scene.bob_event.pk))
    assert_not_served(response)
    followed = client_for(scene.ann).get(url(f"events_event_{view}", scene.bob_event.pk), follow=True)
    assert SECRET.encode() not in followed.content


def test_posting_a_change_to_another_arbiters_event_changes_nothing(scene):
    response = client_for(scene.ann).post(
        url("events_event_change", scene.bob_event.pk),
        {
            "name": "Hijacked",
            "start_date": "2026-01-10",
            "end_date": "2026-01-12",
            "rating_type": "standard",
            "system": "swiss",
            "rounds": "5",
        },
    )
    assert_not_served(response)
    scene.bob_event.refresh_from_db()
    assert scene.bob_event.name == SECRET


def test_deleting_another_arbiters_event_through_the_delete_page_changes_nothing(scene):
    response = client_for(scene.ann).post(url("events_event_delete", scene.bob_event.pk), {"post": "yes"})
    assert_not_served(response)
    assert Event.objects.filter(pk=scene.bob_event.pk).exists()


@pytest.mark.parametrize("action", ["delete_selected", "submit_for_rating", "return_to_draft"])
def test_changelist_actions_ignore_another_arbiters_events(scene, action):
    client_for(scene.ann).post(
        url("events_event_changelist"),
        {
            "action": action,
            "_selected_action": [scene.bob_event.pk],
            "index": "0",
            "post": "yes",
        },
    )
    scene.bob_event.refresh_from_db()
    assert scene.bob_event.status == EventStatus.DRAFT
    assert Game.objects.filter(event=scene.bob_event).count() == 1


@pytest.mark.parametrize("name", ["submit", "return_to_draft", "correct"])
def test_status_urls_of_another_arbiters_event_are_not_served(scene, name):
    client = client_for(scene.ann)
    assert_not_served(client.post(url(f"events_event_{name}", scene.bob_event.pk), {"reason": "x"}))
    scene.bob_event.refresh_from_db()
    assert scene.bob_event.status == EventStatus.DRAFT
    assert not EventCorrection.objects.exists()


def test_event_autocomplete_offers_only_the_arbiters_own_events(scene):
    response = client_for(scene.ann).get(
        url("autocomplete"),
        {
            "app_label": "events",
            "model_name": "game",
            "field_name": "event",
            "term": "",
        },
    )
    assert response.status_code == 200
    ids = {int(result["id"]) for result in response.json()["results"]}
    assert ids == {scene.ann_event.pk}
    searched = client_for(scene.ann).get(
        url("autocomplete"),
        {
            "app_label": "events",
            "model_name": "game",
            "field_name": "event",
            "term": "Bob",
        },
    )
    assert searched.json()["results"] == []


# --- participants and games through the event page (inlines) ------------------------------------------


def test_an_inline_cannot_reach_a_participant_or_game_of_another_event(scene):
    client = client_for(scene.ann)
    data = change_page_data(client.get(url("events_event_change", scene.ann_event.pk)))
    # Swap in the primary keys of Bob's participant and game, as a forged request would.
    data["participants-0-id"] = str(scene.bob_participants[0].pk)
    data["participants-0-rating"] = "2999"
    data["games-0-id"] = str(scene.bob_games[0].pk)
    data["games-0-result"] = Result.BLACK_WIN
    response = client.post(url("events_event_change", scene.ann_event.pk), data)
    assert response.status_code == 200  # the form is refused, not saved
    assert response.context["errors"]
    scene.bob_participants[0].refresh_from_db()
    scene.bob_games[0].refresh_from_db()
    assert scene.bob_participants[0].rating is None
    assert scene.bob_games[0].result == Result.WHITE_WIN


def test_the_event_page_of_a_submitted_event_is_read_only_for_its_arbiter(scene):
    Event.objects.filter(pk=scene.ann_event.pk).update(status=EventStatus.SUBMITTED)
    client = client_for(scene.ann)
    page = client.get(url("events_event_change", scene.ann_event.pk))
    assert page.status_code == 200
    assert not page.context["has_change_permission"]
    response = client.post(url("events_event_change", scene.ann_event.pk), {"name": "Changed"})
    assert response.status_code == 403


def test_a_rated_event_is_read_only_even_for_the_rating_officer(scene):
    Event.objects.filter(pk=scene.ann_event.pk).update(status=EventStatus.RATED)
    client = client_for(scene.officer)
    page = client.get(url("events_event_change", scene.ann_event.pk))
    assert page.status_code == 200
    assert not page.context["has_change_permission"]
    assert b"Correct results" in page.content
    assert client.post(url("events_event_change", scene.ann_event.pk), {"name": "Changed"}).status_code == 403
    assert client.post(url("events_game_change", scene.ann_games[0].pk), {"result": "0-1"}).status_code == 403


def test_an_arbiter_deletes_an_own_draft_event_but_not_a_submitted_one(scene):
    client = client_for(scene.ann)
    Event.objects.filter(pk=scene.ann_event.pk).update(status=EventStatus.SUBMITTED)
    assert client.post(url("events_event_delete", scene.ann_event.pk), {"post": "yes"}).status_code == 403
    Event.objects.filter(pk=scene.ann_event.pk).update(status=EventStatus.DRAFT)
    response = client.post(url("events_event_delete", scene.ann_event.pk), {"post": "yes"})
    assert response.status_code == 302
    assert not Event.objects.filter(pk=scene.ann_event.pk).exists()


def test_an_arbiter_who_registers_an_event_becomes_its_chief_arbiter(scene):
    client = client_for(scene.ann)
    response = client.post(
        url("events_event_add"),
        {
            "name": "New Swiss",
            "start_date": "2026-02-01",
            "end_date": "2026-02-03",
            "rating_type": "standard",
            "system": "swiss",
            "rounds": "7",
            "participants-TOTAL_FORMS": "0",
            "participants-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302, response.content
    event = Event.objects.get(name="New Swiss")
    assert event.chief_arbiter == scene.ann
    assert event.status == EventStatus.DRAFT


def test_an_arbiter_cannot_assign_arbiters_or_set_the_status(scene):
    client = client_for(scene.ann)
    page = client.get(url("events_event_change", scene.ann_event.pk))
    data = change_page_data(page)
    data.update({"status": EventStatus.RATED, "chief_arbiter": str(scene.bob.pk), "arbiters": [str(scene.bob.pk)]})
    response = client.post(url("events_event_change", scene.ann_event.pk), data)
    assert response.status_code == 302
    scene.ann_event.refresh_from_db()
    assert scene.ann_event.status == EventStatus.DRAFT
    assert scene.ann_event.chief_arbiter == scene.ann
    assert not scene.ann_event.arbiters.exists()


# --- the Game admin ------------------------------------------------------------------------------------


def test_game_changelist_lists_only_games_of_the_arbiters_events(scene):
    page = client_for(scene.ann).get(url("events_game_changelist"))
    assert page.status_code == 200
    assert set(page.context["cl"].result_list) == set(scene.ann_games)
    assert SECRET.encode() not in page.content


@pytest.mark.parametrize("view", ["change", "delete", "history"])
def test_another_arbiters_game_pages_are_not_served(scene, view):
    response = client_for(scene.ann).get(url(f"events_game_{view}", scene.bob_games[0].pk), follow=True)
    assert SECRET.encode() not in response.content
    assert_not_served(client_for(scene.ann).get(url(f"events_game_{view}", scene.bob_games[0].pk)))


def test_posting_to_another_arbiters_game_changes_nothing(scene):
    game = scene.bob_games[0]
    client = client_for(scene.ann)
    assert_not_served(
        client.post(
            url("events_game_change", game.pk),
            {
                "round": "1",
                "white_rank": "1",
                "black_rank": "2",
                "result": Result.BLACK_WIN,
                "expected_version": "1",
            },
        )
    )
    assert_not_served(client.post(url("events_game_delete", game.pk), {"post": "yes"}))
    client.post(
        url("events_game_changelist"),
        {
            "action": "delete_selected",
            "_selected_action": [game.pk],
            "index": "0",
            "post": "yes",
        },
    )
    game.refresh_from_db()
    assert game.result == Result.WHITE_WIN


def test_adding_a_game_to_another_arbiters_event_is_refused_without_naming_it(scene):
    client = client_for(scene.ann)
    response = client.post(
        url("events_game_add"),
        {
            "event": str(scene.bob_event.pk),
            "round": "2",
            "white_rank": "1",
            "black_rank": "2",
            "result": "1-0",
        },
    )
    assert response.status_code == 200
    assert "event" in response.context["adminform"].form.errors
    assert SECRET.encode() not in response.content
    assert Game.objects.filter(event=scene.bob_event).count() == 1


def test_an_arbiter_adds_a_game_to_an_own_event_through_the_game_admin(scene):
    client = client_for(scene.ann)
    response = client.post(
        url("events_game_add"),
        {
            "event": str(scene.ann_event.pk),
            "round": "2",
            "board": "1",
            "white_rank": "3",
            "black_rank": "1",
            "result": Result.DRAW,
        },
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    game = Game.objects.get(event=scene.ann_event, round=2)
    assert (game.white.start_rank, game.black.start_rank, game.result) == (3, 1, Result.DRAW)


def test_corrections_of_another_arbiters_event_are_not_listed_or_served(scene):
    correction = EventCorrection.objects.create(
        event=scene.bob_event, user=scene.officer, reason="typo", status_before=EventStatus.RATED
    )
    client = client_for(scene.ann)
    page = client.get(url("events_eventcorrection_changelist"))
    assert page.status_code == 200
    assert list(page.context["cl"].result_list) == []
    assert_not_served(client.get(url("events_eventcorrection_change", correction.pk)))


def test_staff_without_a_role_cannot_open_the_event_admin(scene):
    client = client_for(make_staff("visitor"))
    assert client.get(url("events_event_changelist")).status_code == 403
    assert client.get(url("events_game_changelist")).status_code == 403


def test_the_delete_action_deletes_an_own_draft_event_with_its_participants_and_games(scene):
    client_for(scene.ann).post(
        url("events_event_changelist"),
        {
            "action": "delete_selected",
            "_selected_action": [scene.ann_event.pk, scene.bob_event.pk],
            "post": "yes",
        },
    )
    assert not Event.objects.filter(pk=scene.ann_event.pk).exists()
    assert not Game.objects.filter(event_id=scene.ann_event.pk).exists()
    assert Event.objects.filter(pk=scene.bob_event.pk).exists()  # not hers: silently out of the selection
