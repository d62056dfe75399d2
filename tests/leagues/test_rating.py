"""A season longer than 30 days rated in slices (or game by game in the periods of their dates) through the
real path: slices written as events, submitted, published on monthly lists; which list each game used."""

import datetime

import pytest
from django.core.exceptions import ValidationError

from events.models import Event, EventStatus, EventSystem, Game
from leagues import rules
from leagues.models import Board, Match
from leagues.services import match_card_save
from leagues.services_rating import division_rate_ready, match_correct
from ratings.models import RatingChange, RatingListEntry
from ratings.services import rating_list_publish
from tests.leagues.conftest import build_league, schedule
from tests.ratings.scenarios import bimonthly_policy, starting_list

pytestmark = pytest.mark.django_db
D = datetime.date
FEB, MAR, APR = D(2026, 2, 1), D(2026, 3, 1), D(2026, 4, 1)


def played_season(policy: str, dates: list[datetime.date]):
    """4 teams, 2 boards, one round robin on ``dates``; every card entered: board 1 home wins, board 2 a
    default win for home (never rated)."""
    league = build_league(policy=policy, slug=policy)
    bimonthly_policy(months="1,2,3,4,5,6,7,8,9,10,11,12", closing_days=3)
    everyone = [p for squad in league.squads.values() for p in squad]
    starting_list(D(2026, 1, 1), dict.fromkeys(everyone, 2000))
    rounds = schedule(league, dates)
    for matches in rounds:
        for match in matches:
            home, away = league.squads[match.home_id], league.squads[match.away_id]
            lines = [
                rules.CardLine(1, home[0].id_number, away[0].id_number, rules.HOME_WIN),
                rules.CardLine(2, home[1].id_number, None, rules.HOME_DEFAULT_WIN),
            ]
            match_card_save(match, lines, user=league.user)
    return league, rounds


def test_fide_slices_are_events_of_at_most_30_days_rated_with_the_list_in_force_at_their_start():
    league, rounds = played_season("fide-slices", [D(2026, 1, 8), D(2026, 1, 22), D(2026, 2, 12)])
    outcomes = division_rate_ready(league.division, user=league.user)
    assert [(o.event.start_date, o.event.end_date, o.matches, o.games, o.submitted) for o in outcomes] == [
        (D(2026, 1, 8), D(2026, 1, 22), 4, 4, True),  # defaults are not games
        (D(2026, 2, 12), D(2026, 2, 12), 2, 2, True),
    ]
    first, second = (o.event for o in outcomes)
    assert first.system == EventSystem.TEAM
    assert first.rounds == 2
    assert first.name.endswith("rounds 1–2")
    assert not Game.objects.filter(event__in=[first, second]).exclude(result__in=["1-0", "0-1"]).exists()
    assert Board.objects.filter(result=rules.HOME_DEFAULT_WIN, game__isnull=False).count() == 0

    feb = rating_list_publish("standard", FEB).rating_list
    mar = rating_list_publish("standard", MAR).rating_list
    first.refresh_from_db(), second.refresh_from_db()
    assert (first.rated_on, second.rated_on) == (feb, mar)
    # slice 2 starts on 12 Feb: the February list is in force, and it moved the winners of slice 1
    winner = Board.objects.filter(match__in=rounds[0]).select_related("home_player").first().home_player
    feb_rating = RatingListEntry.objects.get(rating_list=feb, player=winner).rating
    assert feb_rating != 2000
    assert RatingChange.objects.get(event=second, player=winner).rating_before == feb_rating
    used = {change.rating_before for change in RatingChange.objects.filter(event=first)}
    assert used == {2000}  # the January list, in force on 8 January, for both rounds of slice 1
    second_used = RatingChange.objects.filter(event=second).values_list("player_id", "rating_before")
    assert {before for _, before in second_used} == {
        RatingListEntry.objects.get(rating_list=feb, player_id=player_id).rating for player_id, _ in second_used
    }
    assert any(before != 2000 for _, before in second_used)


def test_the_game_date_policy_rates_each_date_with_its_own_list_where_slices_would_not():
    dates = [D(2026, 1, 22), D(2026, 2, 5), D(2026, 3, 5)]
    league, _ = played_season("game-date", dates)
    outcomes = division_rate_ready(league.division, user=league.user)
    assert [(o.event.start_date, o.event.end_date) for o in outcomes] == [(d, d) for d in dates]
    feb = rating_list_publish("standard", FEB).rating_list
    mar = rating_list_publish("standard", MAR).rating_list
    apr = rating_list_publish("standard", APR).rating_list
    events = [Event.objects.get(pk=o.event.pk) for o in outcomes]
    assert [e.rated_on for e in events] == [feb, mar, apr]
    # the 5 February games are rated with February's list, not January's (a FIDE slice 22 Jan–5 Feb would)
    for event, in_force in ((events[1], feb), (events[2], mar)):
        for change in RatingChange.objects.filter(event=event):
            assert (
                change.rating_before == RatingListEntry.objects.get(rating_list=in_force, player=change.player).rating
            )
    assert any(c.rating_before != 2000 for c in RatingChange.objects.filter(event=events[1]))


def test_a_slice_waits_for_its_last_match_and_only_complete_slices_are_submitted():
    league = build_league(slug="waiting")
    rounds = schedule(league, [D(2026, 1, 8), D(2026, 1, 22), D(2026, 2, 26)])
    for matches in rounds[:2]:
        for match in matches:
            match_card_save(match, league.card(match, ["1-0", "0-1"]), user=league.user)
    open_match = rounds[1][1]
    match_card_save(open_match, league.card(open_match, ["1-0", "*"]), user=league.user)
    assert division_rate_ready(league.division, user=league.user) == []
    match_card_save(open_match, league.card(open_match, ["1-0", "1/2-1/2"]), user=league.user)
    outcomes = division_rate_ready(league.division, user=league.user)
    assert [(o.event.start_date, o.event.end_date, o.games) for o in outcomes] == [(D(2026, 1, 8), D(2026, 1, 22), 8)]
    assert division_rate_ready(league.division, user=league.user) == []  # rated once
    with pytest.raises(ValidationError, match="only through a correction"):
        match_card_save(open_match, league.card(open_match, ["1-0", "1-0"]), user=league.user)


def test_a_correction_of_one_match_rerates_only_its_slice():
    league, rounds = played_season("fide-slices", [D(2026, 1, 8), D(2026, 1, 22), D(2026, 2, 12)])
    first, second = (o.event for o in division_rate_ready(league.division, user=league.user))
    rating_list_publish("standard", FEB)
    rating_list_publish("standard", MAR)
    match = Match.objects.get(pk=rounds[0][0].pk)
    home, away = league.squads[match.home_id], league.squads[match.away_id]
    with pytest.raises(ValidationError, match="needs a reason"):
        match_correct(match, league.card(match, ["0-1", "+-"])[:1], user=league.user, reason="")
    lines = [
        rules.CardLine(1, home[0].id_number, away[0].id_number, rules.AWAY_WIN),  # the card had it the wrong way
        rules.CardLine(2, home[1].id_number, None, rules.HOME_DEFAULT_WIN),
    ]
    match_correct(match, lines, user=league.user, reason="result written the wrong way round")
    first.refresh_from_db(), second.refresh_from_db()
    assert (first.status, second.status) == (EventStatus.CORRECTED, EventStatus.RATED)
    board = Board.objects.get(match=match, number=1)
    white_wins = board.home_white  # home lost: white lost when home had white
    assert board.game.result == ("0-1" if white_wins else "1-0")
    assert first.corrections.get().changes["games"][0]["after"]["result"] == board.game.result
    # a default for another changes the match score, not a rated game: no second correction of the slice
    lines[1] = rules.CardLine(2, home[1].id_number, None, rules.DOUBLE_DEFAULT)
    match_correct(match, lines, user=league.user, reason="board 2 was a double default")
    assert Board.objects.get(match=match, number=2).result == rules.DOUBLE_DEFAULT
    assert (Game.objects.filter(event=first).count(), first.corrections.count()) == (4, 1)
    # a played game turned into a default leaves the slice
    lines[0] = rules.CardLine(1, home[0].id_number, None, rules.HOME_DEFAULT_WIN)
    match_correct(match, lines, user=league.user, reason="away player never arrived")
    assert Game.objects.filter(event=first).count() == 3
    assert Board.objects.get(match=match, number=1).game is None
    second.refresh_from_db()
    assert second.status == EventStatus.RATED
