"""The demo league: two divisions, a season half played, rated through the real path."""

import datetime

import pytest
from django.core.management import CommandError, call_command

from events.models import Event, EventStatus, EventSystem
from leagues.models import Board, Division, Match, MatchStatus
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def test_the_demo_league_enters_the_rounds_played_and_submits_complete_slices(capsys):
    with pytest.raises(CommandError, match="needs 72 players; the registry has 0"):
        call_command("demo_league", "--today", "2026-11-27")
    for _ in range(72):
        make_player(birth_year=1990)
    call_command("demo_league", "--today", "2026-11-27")
    assert "slice(s) submitted for rating" in capsys.readouterr().out
    assert Division.objects.count() == 2
    played = Match.objects.filter(date__lte=datetime.date(2026, 11, 27))
    assert played.count() == 2 * 3 * 7  # 7 weekly rounds from 16 Oct, 3 matches each, in both divisions
    assert not played.exclude(status=MatchStatus.ENTERED).exists()
    assert Match.objects.filter(status=MatchStatus.SCHEDULED).count() == 2 * 3 * 10 - played.count()
    slices = Event.objects.filter(system=EventSystem.TEAM)
    # slices of at most 30 days: 16 Oct – 13 Nov is complete in each division; 20 Nov – 18 Dec waits for its
    # last three rounds
    assert list(set(slices.values_list("start_date", "end_date"))) == [
        (datetime.date(2026, 10, 16), datetime.date(2026, 11, 13))
    ]
    assert slices.count() == 2
    assert Match.objects.filter(date__gte=datetime.date(2026, 11, 20), rated_event__isnull=True).count() == 2 * 3 * 5
    assert set(slices.values_list("status", flat=True)) == {EventStatus.SUBMITTED}
    assert not Board.objects.filter(result__in=["+-", "-+"], game__isnull=False).exists()
    with pytest.raises(CommandError, match="exists already"):
        call_command("demo_league", "--today", "2026-11-27")
