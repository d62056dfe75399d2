"""The Event and Game changelists run a fixed number of queries, however many rows they show."""

import pytest
from django.urls import reverse

from events.models import Result
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db

# Session, user, the user's and the group's permissions, the counts, the page, the federation filter's
# choices, the date hierarchy: measured, and the same for 6 or 600 rows.
EVENT_CHANGELIST_QUERIES = 11
GAME_CHANGELIST_QUERIES = 7
# Those, plus participants (one query for their players), games, standings (2), rounds summary, corrections,
# the status timeline, the new players still missing birth year or sex and the integrity flags (issue 15).
EVENT_PAGE_QUERIES = 21


@pytest.fixture
def many_events():
    arbiter = make_arbiter()
    events = [make_event(name=f"Open {n}", chief_arbiter=arbiter) for n in range(60)]
    people = make_participants(events[0], [make_player() for _ in range(40)])
    for round_ in (1, 2, 3):
        for board in range(20):
            white, black = people[(board + round_) % 40], people[(board + round_ + 20) % 40]
            make_game(events[0], round_, white, black, result=Result.DRAW, board=board + 1)
    return arbiter


@pytest.mark.parametrize("role", ["arbiter", "officer"])
def test_event_changelist_queries_do_not_grow_with_rows(many_events, role, django_assert_max_num_queries):
    user = many_events if role == "arbiter" else make_officer()
    client = client_for(user)
    with django_assert_max_num_queries(EVENT_CHANGELIST_QUERIES):
        response = client.get(reverse("admin:events_event_changelist"))
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == 60


@pytest.mark.parametrize("role", ["arbiter", "officer"])
def test_game_changelist_queries_do_not_grow_with_rows(many_events, role, django_assert_max_num_queries):
    user = many_events if role == "arbiter" else make_officer()
    client = client_for(user)
    with django_assert_max_num_queries(GAME_CHANGELIST_QUERIES):
        response = client.get(reverse("admin:events_game_changelist"))
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == 60


@pytest.mark.parametrize("query", ["", "?round=2"])
def test_the_event_page_with_forty_players_and_sixty_games_runs_a_bounded_number_of_queries(
    many_events, query, django_assert_max_num_queries
):
    event = many_events.events_chief.get(name="Open 0")
    client = client_for(many_events)
    with django_assert_max_num_queries(EVENT_PAGE_QUERIES):
        response = client.get(reverse("admin:events_event_change", args=[event.pk]) + query)
    assert response.status_code == 200
    participants = next(i for i in response.context["inline_admin_formsets"] if i.formset.prefix == "participants")
    assert len(participants.formset.forms) == 25  # a page of start ranks (events/admin/participants.py)
