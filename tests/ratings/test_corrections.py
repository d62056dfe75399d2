"""A corrected event republishes its list and every later list of the type as new versions; nothing is edited
in place and the old versions stay readable."""

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction

from events.models import Event, EventStatus, Game, Result
from ratings.models import PlayerRating, RatingList, RatingListStatus
from ratings.selectors import rating_list_current
from ratings.services import RatingListRefused, rating_list_publish, rating_list_republish_from
from tests.ratings.scenarios import MAR, MAY, build_federation, event_with_games, list_snapshot

pytestmark = pytest.mark.django_db


def spring_event(everyone):
    a, b, c = everyone[:3]
    return event_with_games(
        [a, b, c], [(0, 1, 0.5), (1, 2, 1.0), (2, 0, 0.5)], start=datetime.date(2026, 3, 10), name="Spring"
    )


def publish_march_and_may(first_result: float):
    everyone, _, events = build_federation(first_result=first_result)
    rating_list_publish("standard", MAR)
    spring_event(everyone)
    rating_list_publish("standard", MAY)
    return everyone, events


def correct_first_game(event, result):
    game = Game.objects.get(event=event, round=1)
    game.result = result
    game.version += 1
    game.save()
    Event.objects.filter(pk=event.pk).update(status=EventStatus.CORRECTED)


def fresh_snapshots(first_result: float) -> dict:
    """The lists a federation whose Winter Open had the corrected result from the start would publish."""
    with transaction.atomic():
        everyone, _ = publish_march_and_may(first_result)
        labels = {p: i for i, p in enumerate(everyone)}
        snapshots = {d: list_snapshot(rating_list_current("standard", d), labels) for d in (MAR, MAY)}
        transaction.set_rollback(True)
    return snapshots


def test_a_correction_republishes_its_list_and_every_later_list_as_new_versions():
    expected = fresh_snapshots(first_result=0.0)
    everyone, (winter, _cup) = publish_march_and_may(first_result=1.0)
    labels = {p: i for i, p in enumerate(everyone)}
    old_mar, old_may = rating_list_current("standard", MAR), rating_list_current("standard", MAY)
    old_snapshots = {rl.pk: list_snapshot(rl, labels) for rl in (old_mar, old_may)}
    official = get_user_model().objects.create(username="officer")

    correct_first_game(winter, Result.BLACK_WIN)  # the arbiter had entered 1-0; it was 0-1
    new_mar, new_may = rating_list_republish_from("standard", MAR, "Winter Open round 1 was 0-1", official)

    assert (new_mar.list_date, new_mar.version, new_may.list_date, new_may.version) == (MAR, 2, MAY, 2)
    assert new_may.previous == new_mar
    assert new_mar.previous == old_mar.previous
    for old, new in ((old_mar, new_mar), (old_may, new_may)):
        old.refresh_from_db()
        assert old.superseded_by == new
        assert old.superseded_at is not None
        assert old.status == RatingListStatus.PUBLISHED
        assert not old.is_current
        assert list_snapshot(old, labels) == old_snapshots[old.pk]  # never edited in place
        assert new.correction_reason == "Winter Open round 1 was 0-1"
        assert new.published_by == official
        assert new.rules == old.rules
    # the new versions are exactly what the corrected data gives when published from scratch
    for new in (new_mar, new_may):
        assert list_snapshot(new, labels) == expected[new.list_date]
    assert list_snapshot(new_mar, labels) != old_snapshots[old_mar.pk]

    assert set(Event.objects.values_list("name", "status", "rated_on")) == {
        ("Winter Open", EventStatus.RATED, new_mar.pk),
        ("February Cup", EventStatus.RATED, new_mar.pk),
        ("Spring", EventStatus.RATED, new_may.pk),
    }
    assert set(PlayerRating.objects.values_list("rating_list", flat=True)) == {new_may.pk}
    assert rating_list_current("standard", MAR) == new_mar
    assert RatingList.objects.filter(list_date=MAR).count() == 2


def test_a_second_republication_of_the_same_correction_is_refused_and_changes_nothing():
    _everyone, (winter, _cup) = publish_march_and_may(first_result=1.0)
    correct_first_game(winter, Result.DRAW)
    rating_list_republish_from("standard", MAR, "round 1 was a draw")
    count = RatingList.objects.count()
    with pytest.raises(RatingListRefused, match="no corrected standard event is waiting"):
        rating_list_republish_from("standard", MAR, "round 1 was a draw")
    assert RatingList.objects.count() == count


def test_republishing_from_after_the_list_of_a_corrected_event_is_refused():
    _everyone, (winter, _cup) = publish_march_and_may(first_result=1.0)
    correct_first_game(winter, Result.DRAW)
    with pytest.raises(RatingListRefused, match="rated on the list of 2026-03-01; republish from that list"):
        rating_list_republish_from("standard", MAY, "round 1 was a draw")
    with pytest.raises(RatingListRefused, match="needs a reason"):
        rating_list_republish_from("standard", MAR, "  ")
