"""Fixtures, match cards (errors, board order, eligibility, defaults), captains' confirmation and the table."""

import datetime

import pytest
from django.core.exceptions import ValidationError

from audit.models import AuditEvent
from leagues import rules
from leagues.models import Board, LeagueRound, Match, MatchStatus, Penalty, SquadEntry
from leagues.rules import CardLine
from leagues.selectors import division_tables
from leagues.services import division_fixtures_generate, match_card_check, match_card_save, match_confirm
from tests.leagues.conftest import schedule

pytestmark = pytest.mark.django_db
D = datetime.date


def test_fixtures_are_a_home_and_away_berger_season_one_round_a_week(league):
    matches = division_fixtures_generate(league.division, user=league.user, first_date=D(2025, 9, 10))
    rounds = list(LeagueRound.objects.filter(division=league.division).order_by("number"))
    assert [r.date for r in rounds] == [D(2025, 9, 10) + datetime.timedelta(days=7 * i) for i in range(6)]
    assert len(matches) == 12
    t = {team.pk: n for n, team in enumerate(league.teams, 1)}
    assert [(t[m.home_id], t[m.away_id]) for m in matches[:2]] == [(1, 4), (2, 3)]
    met = {(t[m.home_id], t[m.away_id]) for m in matches}
    assert all((b, a) in met for a, b in met)  # each pair meets at home and away
    with pytest.raises(ValidationError, match="already has its rounds"):
        division_fixtures_generate(league.division, user=league.user, first_date=D(2025, 9, 10))


def test_a_card_is_saved_with_colours_by_the_rule_and_the_match_entered(league):
    match = schedule(league, [D(2025, 9, 10), D(2025, 9, 17), D(2025, 9, 24)])[0][0]
    match_card_save(match, league.card(match, ["1-0", "1/2-1/2"]), user=league.user)
    boards = list(Board.objects.filter(match=match).order_by("number"))
    assert [(b.result, b.home_white) for b in boards] == [("1-0", True), ("1/2-1/2", False)]
    match.refresh_from_db()
    assert match.status == MatchStatus.ENTERED
    assert AuditEvent.objects.filter(action="league.match_card").count() == 1


def test_card_errors_are_named_and_nothing_is_written(league):
    match = schedule(league, [D(2025, 9, 10), D(2025, 9, 17), D(2025, 9, 24)])[0][0]
    home = league.squads[match.home_id]
    lines = [
        CardLine(1, home[0].id_number, 99_999_999, "1-0"),
        CardLine(1, home[1].id_number, None, "1-0"),
        CardLine(3, home[0].id_number, None, "-+"),
    ]
    with pytest.raises(ValidationError) as refused:
        match_card_save(match, lines, user=league.user)
    messages = refused.value.messages
    assert "Board 1: no player has the ID number 99999999 (away)." in messages
    assert "Board 1 is entered twice." in messages
    assert any(m.startswith("Board 1: the result 1-0 needs both players") for m in messages)
    assert any(m.startswith("Board 3: a match of Metropolitan League has boards 1 to 2") for m in messages)
    assert any(m.startswith(f"Board 3: ID {home[0].id_number} already plays on board 1") for m in messages)
    assert any(m.startswith("Board 3: the default -+ goes to the away player") for m in messages)
    assert not Board.objects.exists()


def test_board_order_breach_is_named_and_saved_only_when_accepted(league):
    match = schedule(league, [D(2025, 9, 10), D(2025, 9, 17), D(2025, 9, 24)])[0][0]
    home, away = league.squads[match.home_id], league.squads[match.away_id]
    lines = [
        CardLine(1, home[2].id_number, away[0].id_number, "1-0"),
        CardLine(2, home[0].id_number, away[1].id_number, "0-1"),
    ]
    check = match_card_check(match, lines)
    assert check.errors == []
    assert check.breaches == [
        f"Board order ({match.home.name}): {home[2].name} on board 1 is 3 in the squad order, above "
        f"{home[0].name} on board 2 (1); tolerance 0."
    ]
    with pytest.raises(ValidationError):
        match_card_save(match, lines, user=league.user)
    assert not Board.objects.exists()
    league.competition.board_order_tolerance = 2
    league.competition.save()
    match = Match.objects.get(pk=match.pk)
    assert match_card_check(match, lines).breaches == []
    match_card_save(match, lines, user=league.user)
    assert Board.objects.count() == 2


def test_eligibility_breaches_squad_date_transfer_and_two_teams_of_a_division(league):
    rounds = schedule(league, [D(2025, 9, 10), D(2025, 9, 17), D(2025, 9, 24)])
    first, later = rounds[0][0], rounds[1][0]
    home, away = league.squads[first.home_id], league.squads[first.away_id]
    SquadEntry.objects.filter(player=home[0]).update(registered_on=D(2025, 9, 11))
    SquadEntry.objects.filter(player=away[1]).update(left_on=D(2025, 9, 1))
    breaches = match_card_check(first, league.card(first, ["1-0", "0-1"])).breaches
    assert (
        f"Board 1: {home[0].name} ({home[0].id_number}, {first.home.name}) is not in the team's squad on 2025-09-10."
        in breaches
    )
    assert (
        f"Board 2: {away[1].name} ({away[1].id_number}, {first.away.name}) is not in the team's squad on 2025-09-10."
        in breaches
    )
    # a player of the first match's home team turns out for another team of the division
    match_card_save(first, league.card(first, ["1-0", "0-1"]), user=league.user, accept_breaches=True)
    outsider_team = next(t for t in (later.home, later.away) if t.pk not in (first.home_id, first.away_id))
    lines = [
        CardLine(
            1,
            home[1].id_number if later.home == outsider_team else league.squads[later.home_id][0].id_number,
            home[1].id_number if later.away == outsider_team else league.squads[later.away_id][0].id_number,
            "1-0",
        ),
    ]
    breaches = match_card_check(later, lines).breaches
    assert any("is also in the squad of" in b for b in breaches)
    assert any("has played for another team of the same division this season" in b for b in breaches)


def test_a_squad_larger_than_the_maximum_is_a_breach_counted_on_the_match_date(league):
    match = schedule(league, [D(2025, 9, 10), D(2025, 9, 17), D(2025, 9, 24)])[0][0]
    league.competition.max_squad_size = 2
    league.competition.save()
    match = Match.objects.get(pk=match.pk)
    breaches = match_card_check(match, league.card(match, ["1-0", "0-1"])).breaches
    assert f"{match.home.name} has 3 players in its squad on 2025-09-10; at most 2 are allowed." in breaches
    SquadEntry.objects.filter(team=match.home, board_order=3).update(left_on=D(2025, 9, 1))  # transferred out
    breaches = match_card_check(match, league.card(match, ["1-0", "0-1"])).breaches
    assert not any(b.startswith(f"{match.home.name} has") for b in breaches)
    assert any(b.startswith(f"{match.away.name} has 3 players") for b in breaches)


def test_defaults_score_but_unnamed_and_named_defaults_are_checked(league):
    match = schedule(league, [D(2025, 9, 10), D(2025, 9, 17), D(2025, 9, 24)])[0][0]
    home, away = league.squads[match.home_id], league.squads[match.away_id]
    with pytest.raises(ValidationError, match="unnamed default, yet a away player is named"):
        match_card_save(
            match, [CardLine(1, home[0].id_number, away[0].id_number, rules.HOME_UNNAMED_DEFAULT)], user=league.user
        )
    match_card_save(
        match,
        [
            CardLine(1, home[0].id_number, None, rules.HOME_UNNAMED_DEFAULT),
            CardLine(2, None, None, rules.DOUBLE_DEFAULT),
        ],
        user=league.user,
    )
    table = division_tables([league.division], league.competition)[0]
    row = next(line.row for line in table.lines if line.team.pk == match.home_id)
    assert (row.match_points, row.game_points) == (2.0, 1.0)


def test_captains_confirm_their_own_side_and_both_make_it_confirmed(league, django_user_model):
    match = schedule(league, [D(2025, 9, 10), D(2025, 9, 17), D(2025, 9, 24)])[0][0]
    home_captain = django_user_model.objects.create_user("home-captain")
    away_captain = django_user_model.objects.create_user("away-captain")
    match.home.captain = home_captain
    match.home.save()
    match.away.captain = away_captain
    match.away.save()
    with pytest.raises(ValidationError, match="not complete yet"):
        match_confirm(match, user=home_captain, side="home")
    match_card_save(match, league.card(match, ["1-0", "0-1"]), user=league.user)
    with pytest.raises(ValidationError) as refused:
        match_confirm(match, user=home_captain, side="away")
    assert refused.value.messages == [f"Only the captain of {match.away.name} confirms its card."]
    match_confirm(match, user=home_captain, side="home")
    assert Match.objects.get(pk=match.pk).status == MatchStatus.ENTERED
    match_confirm(match, user=away_captain, side="away")
    assert Match.objects.get(pk=match.pk).status == MatchStatus.CONFIRMED
    # a changed card needs confirming again
    match_card_save(match, league.card(match, ["1-0", "1/2-1/2"]), user=league.user)
    match.refresh_from_db()
    assert (match.status, match.home_confirmed_at, match.away_confirmed_at) == (MatchStatus.ENTERED, None, None)


def test_the_division_table_from_cards_and_penalties(league):
    rounds = schedule(league, [D(2025, 9, 10), D(2025, 9, 17), D(2025, 9, 24)])
    results = iter(
        [["1-0", "1-0"], ["1/2-1/2", "1/2-1/2"], ["0-1", "1-0"], ["1-0", "1/2-1/2"], ["0-1", "0-1"], ["+-", "1-0"]]
    )
    for matches in rounds:
        for match in matches:
            match_card_save(match, league.card(match, next(results)), user=league.user)
    Penalty.objects.create(team=league.teams[0], match_points=1, reason="late card")
    table = division_tables([league.division], league.competition)[0]
    # By hand from the Berger pairs (R1 A–D 2–0, B–C 1–1; R2 D–C 1–1, A–B 1½–½; R3 B–D 0–2, C–A 2–0 with a
    # default on board 1): A 4 MP − 1 penalty, 3½ GP; B 1, 1½; C 4, 4; D 3, 3.
    a, b, c, d = (t.pk for t in league.teams)
    got = {line.team.pk: (line.row.match_points, line.row.game_points, line.row.rank) for line in table.lines}
    assert got == {c: (4, 4, 1), a: (3, 3.5, 2), d: (3, 3, 3), b: (1, 1.5, 4)}
    assert [line.zone for line in table.lines] == ["promoted", "", "", "relegated"]
