"""A duplicate merged into another player is not carried onto later lists (their history belongs to the kept
player); the line left on an already published list stays there, since published lists never change."""

import datetime

import pytest
from django.contrib.auth import get_user_model

from players.services import player_merge
from ratings.models import RatingListEntry
from ratings.selectors import rating_list_current
from ratings.services import rating_list_publish
from tests.ratings.scenarios import JAN, MAR, MAY, bimonthly_policy, event_with_games, players, starting_list

pytestmark = pytest.mark.django_db


def test_a_merged_duplicate_is_not_carried_onto_later_lists():
    bimonthly_policy()
    a, b, duplicate = players(3)
    starting_list(JAN, {a: 2000, b: 1900, duplicate: 1950}, rated_games_total=80)
    event_with_games([a, b], [(0, 1, 1.0)], start=datetime.date(2026, 1, 10), name="January")
    rating_list_publish("standard", MAR)
    official = get_user_model().objects.create(username="officer", is_superuser=True, is_staff=True)
    player_merge(a, duplicate, user=official, reason="same person registered twice")

    event_with_games([a, b], [(1, 0, 0.5)], start=datetime.date(2026, 3, 10), name="March")
    rating_list_publish("standard", MAY)

    may = rating_list_current("standard", MAY)
    assert set(RatingListEntry.objects.filter(rating_list=may).values_list("player", flat=True)) == {a.pk, b.pk}
    # the March list keeps the line it was published with
    mar = rating_list_current("standard", MAR)
    assert RatingListEntry.objects.filter(rating_list=mar, player=duplicate).exists()
