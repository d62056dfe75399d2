"""Current ratings (PlayerRating) are the lines of the newest current list of each type (a view since migration
ratings 0009): they follow every publication, ignore drafts and older lists, and the admin shows them."""

import datetime

import pytest
from django.urls import reverse

from ratings.models import PlayerRating, RatingList, RatingListEntry, RatingListStatus
from ratings.services import rating_list_compute_preview, rating_list_publish
from tests.events.test_admin_roles import client_for, make_officer
from tests.ratings.scenarios import JAN, MAR, MAY, bimonthly_policy, players, round_robin, starting_list

pytestmark = pytest.mark.django_db


def by_player(rows) -> dict[int, tuple]:
    values = rows.values_list("player_id", "rating", "k_factor", "games", "rank", "rating_list_id")
    return {row[0]: row[1:] for row in values}


def current(rating_type: str = "standard") -> dict[int, tuple]:
    return by_player(PlayerRating.objects.filter(rating_type=rating_type))


def lines_of(rating_list: RatingList) -> dict[int, tuple]:
    return by_player(RatingListEntry.objects.filter(rating_list=rating_list))


def test_current_ratings_follow_each_published_list_and_ignore_drafts_and_older_lists():
    bimonthly_policy()
    group = players(4)
    january = starting_list(JAN, {p: 1800 + 50 * i for i, p in enumerate(group)})
    assert current() == lines_of(january)

    round_robin(group, start=datetime.date(2026, 1, 10))
    march = rating_list_publish("standard", MAR, today=MAR).rating_list
    assert current() == lines_of(march)
    assert current() != lines_of(january)

    round_robin(group, start=datetime.date(2026, 3, 10))
    draft = rating_list_compute_preview("standard", MAY)
    assert draft.status == RatingListStatus.DRAFT
    assert current() == lines_of(march)  # a preview changes nothing

    may = rating_list_publish("standard", MAY, today=MAY).rating_list
    assert current() == lines_of(may)
    assert not PlayerRating.objects.filter(rating_type="rapid").exists()  # each type has its own lists


def test_the_admin_lists_current_ratings_by_type_and_finds_a_player_by_id_number():
    bimonthly_policy()
    group = players(3)
    starting_list(JAN, {p: 2000 + 10 * i for i, p in enumerate(group)})
    client = client_for(make_officer())
    url = reverse("admin:ratings_playerrating_changelist")

    page = client.get(url, {"rating_type": "standard", "q": str(group[2].id_number)})

    assert page.status_code == 200
    assert list(page.context["cl"].result_list) == [PlayerRating.objects.get(player=group[2])]
    row = PlayerRating.objects.get(player=group[2])
    assert client.get(reverse("admin:ratings_playerrating_change", args=[row.pk])).status_code == 200
