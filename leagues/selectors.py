"""Reads of leagues shared by the public pages, the API and the admin: a fixed number of queries each, whatever
the size of the division (pinned in tests/leagues/test_pages.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db.models import Count, Prefetch, QuerySet
from django.http import Http404

from leagues import rules
from leagues.models import (
    Board,
    Competition,
    Division,
    LeagueRound,
    Match,
    MatchStatus,
    Penalty,
    Season,
    SquadEntry,
    Team,
    UnfinishedGames,
)

# A match counts in the table once its card is complete (entered or confirmed).
COUNTED = (MatchStatus.ENTERED, MatchStatus.CONFIRMED)


@dataclass
class MatchLine:
    match: Match
    home_points: float | None = None  # game points; None while the card is not complete
    away_points: float | None = None


@dataclass
class TableLine:
    team: Team
    row: rules.TableRow
    zone: str = ""  # "promoted" / "relegated"
    # the crosstable's row: game points against each team in table order, None against itself
    cells: list[list[float] | None] = field(default_factory=list)


@dataclass
class DivisionTable:
    division: Division
    lines: list[TableLine] = field(default_factory=list)
    crosstable: list[list[list[float]]] = field(default_factory=list)
    rounds: list[tuple[LeagueRound, list[MatchLine]]] = field(default_factory=list)

    @property
    def matches(self) -> list[MatchLine]:
        return [line for _, lines in self.rounds for line in lines]


def season_get(competition_slug: str, season_slug: str) -> Season:
    try:
        return Season.objects.select_related("competition").get(competition__slug=competition_slug, slug=season_slug)
    except Season.DoesNotExist:
        raise Http404("No such season") from None


# A season with more divisions than this shows one at a time (a national league's hundreds of divisions would
# make one page of megabytes); the others are links.
DIVISIONS_ON_ONE_PAGE = 6


def season_divisions(season: Season) -> list[Division]:
    divisions = list(Division.objects.filter(season=season).order_by("level", "name"))
    for division in divisions:
        division.season = season
    return divisions


def season_tables(
    season: Season, divisions: list[Division] | None = None, *, division_pk: int | None = None
) -> list[DivisionTable]:
    """The divisions of a season with their tables, crosstables and fixtures — all of them, or only
    ``division_pk`` (the first when that is not one of the season's) when there are more than
    DIVISIONS_ON_ONE_PAGE: five queries."""
    divisions = season_divisions(season) if divisions is None else divisions
    if len(divisions) > DIVISIONS_ON_ONE_PAGE or division_pk is not None:
        chosen = [d for d in divisions if d.pk == division_pk] or divisions[:1]
        return division_tables(chosen, season.competition)
    return division_tables(divisions, season.competition)


def division_tables(divisions: Sequence[Division], competition: Competition) -> list[DivisionTable]:
    """Tables of ``divisions`` (one competition): teams, rounds with matches, boards' results, penalties — four
    queries for all of them."""
    ids = [division.pk for division in divisions]
    teams = list(Team.objects.filter(division__in=ids).select_related("club").order_by("pk"))
    rounds = list(LeagueRound.objects.filter(division__in=ids).order_by("number"))
    matches = list(Match.objects.filter(round__division__in=ids).order_by("round__number", "date", "pk"))
    points = _match_points(matches, competition)
    penalties = defaultdict(list)
    for team_id, division_id, mp, gp in Penalty.objects.filter(team__division__in=ids).values_list(
        "team_id", "team__division_id", "match_points", "game_points"
    ):
        penalties[division_id].append(rules.Penalty(team_id, float(mp), float(gp)))
    by_team = {team.pk: team for team in teams}
    tables = []
    for division in divisions:
        own_teams = [team for team in teams if team.division_id == division.pk]
        own_rounds = [r for r in rounds if r.division_id == division.pk]
        round_ids = {r.pk for r in own_rounds}
        lines = [
            MatchLine(match, *points.get(match.pk, (None, None))) for match in matches if match.round_id in round_ids
        ]
        for line in lines:
            line.match.home, line.match.away = by_team[line.match.home_id], by_team[line.match.away_id]
        scores = [
            rules.MatchScore(line.match.home_id, line.match.away_id, line.home_points, line.away_points)
            for line in lines
            if line.home_points is not None and line.away_points is not None
        ]
        ranked = rules.division_table(
            [team.pk for team in own_teams],
            scores,
            competition.scoring,
            penalties=penalties[division.pk],
            tie_breaks=competition.tie_break_order,
        )
        table = DivisionTable(division, crosstable=rules.crosstable(ranked))
        table.lines = [
            TableLine(
                by_team[row.team],
                row,
                _zone(division, row.rank, len(ranked)),
                [None if i == j else cell for j, cell in enumerate(table.crosstable[i])],
            )
            for i, row in enumerate(ranked)
        ]
        table.rounds = [(r, [line for line in lines if line.match.round_id == r.pk]) for r in own_rounds]
        tables.append(table)
    return tables


def _zone(division: Division, rank: int, teams: int) -> str:
    if rank <= division.promotion_count:
        return "promoted"
    if rank > teams - division.relegation_count:
        return "relegated"
    return ""


def _match_points(matches: list[Match], competition: Competition) -> dict[int, tuple[float, float]]:
    """Game points of every complete match: one query, counting each match's boards by result in the database
    (a few rows a match, whatever the boards)."""
    counted = {match.pk for match in matches if match.status in COUNTED}
    draw = competition.unfinished_games == UnfinishedGames.DRAW
    totals: dict[int, list[float]] = {pk: [0.0, 0.0] for pk in counted}
    rows = (
        Board.objects.filter(match__in=counted)
        .values("match_id", "result")
        .annotate(boards=Count("pk"))
        .values_list("match_id", "result", "boards")
        .order_by()
    )
    for match_id, result, boards in rows:
        home, away = rules.board_points(result, unfinished_as_draw=draw)
        totals[match_id][0] += home * boards
        totals[match_id][1] += away * boards
    return {pk: (home, away) for pk, (home, away) in totals.items()}


def match_card(pk: int) -> tuple[Match, list[Board], tuple[float, float] | None]:
    """A match with its boards and, when complete, the game points: two queries."""
    try:
        match = Match.objects.select_related(
            "round__division__season__competition", "home__club", "away__club", "rated_event"
        ).get(pk=pk)
    except Match.DoesNotExist:
        raise Http404("No such match") from None
    boards = list(Board.objects.filter(match=match).select_related("home_player", "away_player").order_by("number"))
    if match.status not in COUNTED:
        return match, boards, None
    draw = match.round.division.season.competition.unfinished_games == UnfinishedGames.DRAW
    home = sum(rules.board_points(b.result, unfinished_as_draw=draw)[0] for b in boards)
    away = sum(rules.board_points(b.result, unfinished_as_draw=draw)[1] for b in boards)
    return match, boards, (home, away)


@dataclass
class SquadLine:
    entry: SquadEntry
    games: int = 0
    points: float = 0.0
    boards: list[int] = field(default_factory=list)


def team_page(pk: int) -> tuple[Team, list[SquadLine], list[MatchLine]]:
    """A team, its squad with each player's games, points and boards this season, and its matches: four
    queries."""
    try:
        team = Team.objects.select_related("club", "division__season__competition", "captain").get(pk=pk)
    except Team.DoesNotExist:
        raise Http404("No such team") from None
    squad = [SquadLine(entry) for entry in SquadEntry.objects.filter(team=team).select_related("player")]
    matches = list(
        team_matches(team).select_related("round", "home__club", "away__club").order_by("round__number", "date")
    )
    points = _match_points(matches, team.division.season.competition)
    by_player = {line.entry.player_id: line for line in squad}
    draw = team.division.season.competition.unfinished_games == UnfinishedGames.DRAW
    for board in Board.objects.filter(match__in=[m.pk for m in matches if m.status in COUNTED]).select_related("match"):
        home_side = board.match.home_id == team.pk
        player_id = board.home_player_id if home_side else board.away_player_id
        line = by_player.get(player_id) if player_id is not None else None
        if line is not None and board.result not in (rules.PENDING,):
            line.games += 1
            line.points += rules.board_points(board.result, unfinished_as_draw=draw)[0 if home_side else 1]
            line.boards.append(board.number)
    return team, squad, [MatchLine(m, *points.get(m.pk, (None, None))) for m in matches]


def team_matches(team: Team) -> QuerySet[Match]:
    return Match.objects.filter(round__division=team.division_id).filter(home=team) | Match.objects.filter(
        round__division=team.division_id, away=team
    )


def competitions() -> list[Competition]:
    """Every competition with its seasons, newest first: two queries."""
    return list(
        Competition.objects.select_related("federation").prefetch_related(
            Prefetch("seasons", queryset=Season.objects.order_by("-start_date"))
        )
    )


def competition_get(slug: str) -> Competition:
    try:
        return (
            Competition.objects.select_related("federation")
            .prefetch_related(Prefetch("seasons", queryset=Season.objects.order_by("-start_date")))
            .get(slug=slug)
        )
    except Competition.DoesNotExist:
        raise Http404("No such competition") from None
