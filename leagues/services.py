"""Writes to leagues: fixtures, match cards and their confirmation (issue 34). Rating a season's slices and
correcting a rated match: leagues/services_rating.py.

Every function is one transaction and refuses bad requests with ``ValidationError`` naming the match, board
and player; nothing is written when it refuses.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from simple_history.utils import bulk_create_with_history, bulk_update_with_history

from audit.services import Actor, acting_user, audit_record
from leagues import rules
from leagues.models import Board as BoardRow
from leagues.models import (
    BoardColours,
    Division,
    LeagueRound,
    Match,
    MatchStatus,
    SquadEntry,
    Team,
)
from players.models import Player

# Results that need both players at the board (a game was started): played, adjudicated, unfinished.
_BOTH_PLAYERS = (*rules.PLAYED, *rules.ADJUDICATED, rules.UNFINISHED)
# Defaults: the side that must be named (the one that turned up) and the side that must not be.
_DEFAULT_SIDES = {
    rules.HOME_DEFAULT_WIN: ("home", None),
    rules.AWAY_DEFAULT_WIN: ("away", None),
    rules.HOME_UNNAMED_DEFAULT: ("home", "away"),
    rules.AWAY_UNNAMED_DEFAULT: ("away", "home"),
}


def division_fixtures_generate(
    division: Division,
    *,
    user: Actor,
    first_date: datetime.date,
    days_between: int = 7,
    home_and_away: bool = True,
) -> list[Match]:
    """All-play-all fixtures for the division's teams by the Berger tables (``rules.berger_rounds``), home and
    away unless told otherwise: one round every ``days_between`` days from ``first_date``, teams numbered in
    the order they were entered. Refused when the division already has rounds."""
    with transaction.atomic():
        division = Division.objects.select_for_update().get(pk=division.pk)
        if LeagueRound.objects.filter(division=division).exists():
            raise ValidationError(f"{division} already has its rounds; delete them first to draw new fixtures.")
        teams = list(Team.objects.filter(division=division).order_by("pk"))
        if len(teams) < 2:
            raise ValidationError(f"{division} has {len(teams)} team(s); fixtures need at least two.")
        table = rules.double_round_robin(len(teams)) if home_and_away else rules.berger_rounds(len(teams))
        author = acting_user(user)
        rounds = bulk_create_with_history(
            [
                LeagueRound(division=division, number=n, date=first_date + datetime.timedelta(days=days_between * i))
                for i, n in enumerate(range(1, len(table) + 1))
            ],
            LeagueRound,
            default_user=author,
        )
        rounds = list(LeagueRound.objects.filter(division=division).order_by("number"))
        matches = [
            Match(round=league_round, home=teams[home - 1], away=teams[away - 1], date=league_round.date)
            for league_round, pairs in zip(rounds, table, strict=True)
            for home, away in pairs
        ]
        bulk_create_with_history(matches, Match, default_user=author)
        audit_record(user, "league.fixtures", division, after={"rounds": len(rounds), "matches": len(matches)})
    return list(Match.objects.filter(round__division=division).order_by("round__number", "pk"))


@dataclass
class CardCheck:
    """What entering a card would do: ``errors`` stop it; ``breaches`` (board order, eligibility) are saved
    only when the arbiter accepts them, each named."""

    errors: list[str] = field(default_factory=list)
    breaches: list[str] = field(default_factory=list)
    players: dict[int, Player] = field(default_factory=dict)


def match_card_check(match: Match, lines: list[rules.CardLine]) -> CardCheck:
    """Every problem of a match card before it is saved, in a fixed number of queries whatever its size."""
    competition = match.round.division.season.competition
    check = CardCheck()
    ids = {i for line in lines for i in (line.home_id, line.away_id) if i is not None}
    check.players = {p.id_number: p for p in Player.objects.filter(id_number__in=ids)}
    seen_boards: set[int] = set()
    seen_players: dict[int, int] = {}
    for line in lines:
        place = f"Board {line.board}"
        if not 1 <= line.board <= competition.boards_per_match:
            check.errors.append(f"{place}: a match of {competition} has boards 1 to {competition.boards_per_match}.")
        if line.board in seen_boards:
            check.errors.append(f"{place} is entered twice.")
        seen_boards.add(line.board)
        for side, id_number in (("home", line.home_id), ("away", line.away_id)):
            if id_number is None:
                continue
            if id_number not in check.players:
                check.errors.append(f"{place}: no player has the ID number {id_number} ({side}).")
            if id_number in seen_players:
                check.errors.append(f"{place}: ID {id_number} already plays on board {seen_players[id_number]}.")
            seen_players[id_number] = line.board
        check.errors += _result_problems(line, place)
    if not check.errors:
        check.breaches = (
            _squad_size_breaches(match)
            + _eligibility_breaches(match, lines, check.players)
            + _board_order_breaches(match, lines, check.players)
        )
    return check


def _squad_size_breaches(match: Match) -> list[str]:
    """A squad larger than the competition allows (4NCL: 16 for an 8-board team, reference §4), counted on the
    match date (transfers out no longer count): one query, none without a maximum."""
    maximum = match.round.division.season.competition.max_squad_size
    if maximum is None:
        return []
    sizes = dict(
        SquadEntry.objects.filter(team__in=(match.home_id, match.away_id), registered_on__lte=match.date)
        .exclude(left_on__lte=match.date)
        .values("team_id")
        .annotate(size=Count("pk"))
        .values_list("team_id", "size")
    )
    return [
        f"{team.name} has {sizes[team.pk]} players in its squad on {match.date:%Y-%m-%d}; "
        f"at most {maximum} are allowed."
        for team in (match.home, match.away)
        if sizes.get(team.pk, 0) > maximum
    ]


def _result_problems(line: rules.CardLine, place: str) -> list[str]:
    named = {"home": line.home_id is not None, "away": line.away_id is not None}
    if line.result in _BOTH_PLAYERS and not all(named.values()):
        return [f"{place}: the result {line.result} needs both players; a board without a player is a default."]
    if line.result in _DEFAULT_SIDES:
        present, absent = _DEFAULT_SIDES[line.result]
        if not named[present]:
            return [f"{place}: the default {line.result} goes to the {present} player; name them."]
        if absent is not None and named[absent]:
            return [f"{place}: {line.result} is an unnamed default, yet a {absent} player is named."]
    return []


def _squads(match: Match, ids: set[int]) -> dict[int, list[SquadEntry]]:
    """Squad entries of ``ids`` in the match's division (every team), by ID number: one query."""
    entries: dict[int, list[SquadEntry]] = {}
    for entry in SquadEntry.objects.filter(
        team__division_id=match.round.division_id, player__id_number__in=ids
    ).select_related("player", "team__club"):
        entries.setdefault(entry.player.id_number, []).append(entry)
    return entries


def _eligibility_breaches(match: Match, lines: list[rules.CardLine], players: dict[int, Player]) -> list[str]:
    """Each player in their team's squad on the match date, and in no other squad of the division, and not
    fielded by another team of the division in the season (reference §4: squads, transfers)."""
    ids = {i for line in lines for i in (line.home_id, line.away_id) if i is not None}
    squads = _squads(match, ids)
    elsewhere = {
        (home_id, away_id, home_team, away_team)
        for home_id, away_id, home_team, away_team in BoardRow.objects.filter(
            match__round__division_id=match.round.division_id
        )
        .exclude(match=match)
        .filter(Q(home_player__id_number__in=ids) | Q(away_player__id_number__in=ids))
        .values_list("home_player__id_number", "away_player__id_number", "match__home_id", "match__away_id")
    }
    fielded: dict[int, set[int]] = {}
    for home_id, away_id, home_team, away_team in elsewhere:
        fielded.setdefault(home_id, set()).add(home_team)
        fielded.setdefault(away_id, set()).add(away_team)
    breaches = []
    for line in lines:
        for team, id_number in ((match.home, line.home_id), (match.away, line.away_id)):
            if id_number is None:
                continue
            name = f"Board {line.board}: {players[id_number].name} ({id_number}, {team.name})"
            own = [e for e in squads.get(id_number, []) if e.team_id == team.pk]
            if not own or own[0].registered_on > match.date or (own[0].left_on and own[0].left_on <= match.date):
                breaches.append(f"{name} is not in the team's squad on {match.date:%Y-%m-%d}.")
            others = sorted({e.team.name for e in squads.get(id_number, []) if e.team_id != team.pk})
            if others:
                breaches.append(f"{name} is also in the squad of {', '.join(others)} in the same division.")
            if fielded.get(id_number, set()) - {team.pk}:
                breaches.append(f"{name} has played for another team of the same division this season.")
    return breaches


def _board_order_breaches(match: Match, lines: list[rules.CardLine], players: dict[int, Player]) -> list[str]:
    competition = match.round.division.season.competition
    order = {
        (team_id, id_number): place
        for team_id, id_number, place in SquadEntry.objects.filter(team__in=(match.home_id, match.away_id)).values_list(
            "team_id", "player__id_number", "board_order"
        )
    }
    breaches = []
    for team, side in ((match.home, "home_id"), (match.away, "away_id")):
        by_board = sorted(lines, key=lambda line: line.board)
        ids = [getattr(line, side) for line in by_board]
        places = [order.get((team.pk, i)) if i is not None else None for i in ids]
        for upper, lower in rules.board_order_breaches(places, competition.board_order_tolerance):
            high, low = ids[upper - 1], ids[lower - 1]
            assert high is not None
            assert low is not None
            breaches.append(
                f"Board order ({team.name}): {players[high].name} on board {by_board[upper - 1].board} is "
                f"{places[upper - 1]} in the squad order, above {players[low].name} on board "
                f"{by_board[lower - 1].board} ({places[lower - 1]}); tolerance {competition.board_order_tolerance}."
            )
    return breaches


def match_card_save(
    match: Match, lines: list[rules.CardLine], *, user: Actor, accept_breaches: bool = False
) -> CardCheck:
    """Save a match card: every board as entered (board colours by the competition's rule), the status
    ``entered`` once no board is pending, the captains' confirmations cleared (the card changed). Refused with
    its errors, or with its breaches unless ``accept_breaches``; a rated match changes only by a correction
    (``services_rating.match_correct``)."""
    with transaction.atomic():
        match = match_for_update(match)
        if match.rated_event_id is not None:
            raise ValidationError(
                f"{match} is rated in {match.rated_event}; its card changes only through a correction (with a reason)."
            )
        check = match_card_check(match, lines)
        if check.errors:
            raise ValidationError(check.errors)
        if check.breaches and not accept_breaches:
            raise ValidationError(check.breaches)
        before = _card_snapshot(match)
        boards_write(match, lines, check.players, user=user)
        match.status = (
            MatchStatus.ENTERED
            if lines and all(line.result != rules.PENDING for line in lines)
            else MatchStatus.SCHEDULED
        )
        match.home_confirmed_at = match.away_confirmed_at = None
        match._history_user = acting_user(user)  # type: ignore[attr-defined]
        match.save(update_fields=["status", "home_confirmed_at", "away_confirmed_at"])
        audit_record(
            user,
            "league.match_card",
            match,
            reason="; ".join(check.breaches),
            before={"boards": before},
            after={"boards": _card_snapshot(match), "status": match.status},
        )
    return check


def boards_write(match: Match, lines: list[rules.CardLine], players: dict[int, Player], *, user: Actor) -> None:
    """Write the card's boards in bulk: changed boards updated, new ones created, boards left off deleted."""
    competition = match.round.division.season.competition
    home_white_on_odd = competition.board_colours == BoardColours.HOME_WHITE_ODD
    existing = {board.number: board for board in BoardRow.objects.filter(match=match)}
    author = acting_user(user)
    to_create: list[BoardRow] = []
    to_update: list[BoardRow] = []
    for line in lines:
        board = existing.pop(line.board, None) or BoardRow(match=match, number=line.board)
        board.home_player = players.get(line.home_id) if line.home_id is not None else None
        board.away_player = players.get(line.away_id) if line.away_id is not None else None
        board.result = line.result
        board.home_white = rules.home_has_white(line.board, home_white_on_odd=home_white_on_odd)
        (to_update if board.pk else to_create).append(board)
    for board in existing.values():
        board._history_user = author  # type: ignore[attr-defined]
        board.delete()
    if to_update:
        bulk_update_with_history(
            to_update, BoardRow, ["home_player", "away_player", "result", "home_white"], default_user=author
        )
    if to_create:
        bulk_create_with_history(to_create, BoardRow, default_user=author)


def match_confirm(match: Match, *, user: User, side: str) -> Match:
    """The home or away captain confirms an entered card; confirmed by both, the match is ``confirmed``. A team's
    captain confirms for their side only; a league official (who may change matches) for either."""
    if side not in ("home", "away"):
        raise ValidationError(f"Confirm for the home or the away team, not {side!r}.")
    with transaction.atomic():
        match = match_for_update(match)
        team = match.home if side == "home" else match.away
        if team.captain_id != user.pk and not user.has_perm("leagues.change_match"):
            raise ValidationError(f"Only the captain of {team.name} confirms its card.")
        if match.status not in (MatchStatus.ENTERED, MatchStatus.CONFIRMED):
            raise ValidationError(f"{match}: the card is not complete yet; enter every board before confirming.")
        setattr(match, f"{side}_confirmed_at", timezone.now())
        if match.home_confirmed_at and match.away_confirmed_at:
            match.status = MatchStatus.CONFIRMED
        match._history_user = user  # type: ignore[attr-defined]
        match.save(update_fields=["status", "home_confirmed_at", "away_confirmed_at"])
        audit_record(user, "league.match_confirm", match, after={"side": side, "status": match.status})
    return match


def match_for_update(match: Match) -> Match:
    """The match locked for one writer at a time (a card, a confirmation, a correction), with what they read."""
    return (
        Match.objects.select_for_update(of=("self",))
        .select_related("round__division__season__competition", "home__club", "away__club", "rated_event")
        .get(pk=match.pk)
    )


def _card_snapshot(match: Match) -> list[list[object]]:
    return [
        [number, home, away, result]
        for number, home, away, result in BoardRow.objects.filter(match=match)
        .order_by("number")
        .values_list("number", "home_player__id_number", "away_player__id_number", "result")
    ]
