"""The two screens an arbiter lives in run a fixed number of queries whatever the size of the event:
the event page (a page of participants, links to the rounds) and the round entry page (boards, standings)."""

import pytest
from django.db import connection
from django.urls import reverse

from events.models import Game, Participant, Result
from players.models import Player
from tests.events.test_admin_roles import client_for, make_arbiter
from tests.factories import make_event, make_federation

pytestmark = pytest.mark.django_db

# Session, user, permissions (user and group), the event, the participant count, the participant pages,
# a page of participants and their players, the rounds summary, corrections; the lifecycle's status
# timeline, integrity flags and what a draft still lacks (issue 15): measured.
EVENT_PAGE_QUERIES = 16
# Session, user, permissions (user and group), the event, participants, games, whether the user is an
# official (core.roles.is_official, for who may edit the results): measured.
ROUND_PAGE_QUERIES = 8
# The projected rating changes, fetched by the round page afterwards: session, user, permissions (2), the event,
# then ratings.services.projection (policy, lists, the publication's bulk reads), participants: measured. Per
# database: on PostgreSQL two of the bulk reads are COPY statements, which the query counter does not see.
PROJECTION_QUERIES = {"sqlite": 16, "postgresql": 14}


def swiss(players: int, rounds: int = 5):
    arbiter = make_arbiter(f"arbiter{players}")
    event = make_event(name=f"Swiss {players}", chief_arbiter=arbiter, rounds=rounds)
    federation = make_federation()
    people = Player.objects.bulk_create(
        Player(
            id_number=7_000_000 + players * 1000 + n,
            surname=f"S{n:03d}",
            given_names="T",
            sex="M",
            federation=federation,
        )
        for n in range(players)
    )
    parts = Participant.objects.bulk_create(
        Participant(event=event, player=p, start_rank=n) for n, p in enumerate(people, 1)
    )
    Game.objects.bulk_create(
        Game(
            event=event,
            round=r,
            board=b + 1,
            white=parts[(b + r) % players],
            black=parts[(players - 1 - b + r) % players],
            result=Result.DRAW,
        )
        for r in range(1, rounds)
        for b in range(players // 2)
    )
    return arbiter, event


@pytest.mark.parametrize("players", [12, 120])
def test_the_event_page_runs_the_same_queries_for_twelve_or_a_hundred_and_twenty_players(
    players, django_assert_num_queries
):
    arbiter, event = swiss(players)
    client = client_for(arbiter)
    url = reverse("admin:events_event_change", args=[event.pk])
    client.get(url)  # the session is warm, as at the venue
    with django_assert_num_queries(EVENT_PAGE_QUERIES):
        response = client.get(url)
    assert response.status_code == 200


@pytest.mark.parametrize("players", [12, 120])
def test_the_round_page_runs_the_same_queries_for_twelve_or_a_hundred_and_twenty_players(
    players, django_assert_num_queries
):
    arbiter, event = swiss(players)
    client = client_for(arbiter)
    url = reverse("admin:events_event_round", args=[event.pk, 5])
    client.get(url)
    with django_assert_num_queries(ROUND_PAGE_QUERIES):
        response = client.get(url)
    assert response.status_code == 200
    assert len(response.context["sheet"].standings.rows) == players


@pytest.mark.parametrize("players", [12, 120])
def test_the_projection_runs_the_same_queries_for_twelve_or_a_hundred_and_twenty_players(
    players, django_assert_num_queries
):
    arbiter, event = swiss(players)
    client = client_for(arbiter)
    url = reverse("admin:events_event_round_projection", args=[event.pk, 5])
    client.get(url)
    with django_assert_num_queries(PROJECTION_QUERIES[connection.vendor]):
        response = client.get(url)
    assert len(response.json()["projection"]) == players
