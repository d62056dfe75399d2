"""The projection on the round entry screen is the publication's own computation: the changes it shows for a
draft event are exactly those the list gives once the event is submitted and published."""

import datetime

import pytest
from django.urls import reverse

from events.models import EventStatus, RatingType
from events.selectors_rounds import event_projection
from ratings.models import RatingChange
from ratings.services import rating_list_publish
from ratings.services.projection import event_rating_projection
from tests.events.test_admin_roles import client_for, make_arbiter
from tests.ratings.scenarios import JAN, MAR, bimonthly_policy, event_with_games, players, starting_list

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft():
    bimonthly_policy()
    people = players(4)
    starting_list(JAN, {people[0]: 2000, people[1]: 1800, people[2]: 1900, people[3]: None})
    event = event_with_games(
        people,
        [(0, 1, 1.0), (2, 0, 0.5), (1, 2, 0.0), (3, 0, 0.0)],
        start=datetime.date(2026, 1, 10),
        status=EventStatus.DRAFT,
    )
    return event, people


def test_the_projection_equals_the_published_changes(draft):
    event, people = draft
    projection = event_rating_projection(event, today=datetime.date(2026, 1, 20))
    by_player = {p.player_id: projection[p.pk] for p in event.participants.all()}
    assert by_player[people[0].pk] == pytest.approx(2.0)  # 2000 beat 1800, drew 1900, beat an unrated player

    event.status, event.submitted_at = EventStatus.SUBMITTED, datetime.datetime(2026, 1, 20, tzinfo=datetime.UTC)
    event.save()
    rating_list_publish(RatingType.STANDARD, MAR, today=MAR)
    published = dict(RatingChange.objects.filter(event=event).values_list("player_id", "change"))
    assert published  # the publication rated the event
    for player_id, change in published.items():
        assert by_player[player_id] == pytest.approx(change)
    assert {pid for pid, change in by_player.items() if change is not None} == set(published)


def test_the_ratings_app_registers_the_projection_for_the_round_screen(draft):
    event, _ = draft
    assert event_projection(event) is not None


def test_the_round_page_shows_the_projection_labelled_as_such(draft):
    event, _people = draft
    arbiter = make_arbiter()
    event.chief_arbiter = arbiter
    event.save()
    response = client_for(arbiter).get(reverse("admin:events_event_round", args=[event.pk, 1]))
    assert response.status_code == 200
    assert response.context["has_projection"] is True
    assert "a projection, not a published rating" in response.content.decode()
    projection_url = reverse("admin:events_event_round_projection", args=[event.pk, 1])
    assert projection_url in response.content.decode()
    shown = client_for(arbiter).get(projection_url).json()["projection"]
    expected = event_rating_projection(event)
    assert shown == {str(pk): None if change is None else round(change, 1) for pk, change in expected.items()}
    assert any(change is not None for change in shown.values())


def test_nothing_to_project_without_games(draft):
    event, _ = draft
    event.games.all().delete()
    projection = event_rating_projection(event, today=datetime.date(2026, 1, 20))
    assert set(projection.values()) == {None}
