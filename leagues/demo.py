"""A demo league for a fresh database (``demo_league``; the simulated federation's players): a competition with
two divisions of six clubs' teams, a home-and-away season started six weeks ago, the cards of the rounds played
so far entered and the complete slices submitted for rating — all through the leagues' services, the real path."""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction

from audit.services import Actor
from leagues import rules
from leagues.models import Competition, Division, Match, Season, SquadEntry, Team
from leagues.services import division_fixtures_generate, match_card_save
from leagues.services_rating import division_rate_ready
from players.models import Club, Player

DIVISIONS, TEAMS, BOARDS, SQUAD = 2, 6, 4, 6
# Results of a board, drawn with these weights (home side first): a default now and then, never rated.
_RESULTS = (
    (rules.HOME_WIN, 38),
    (rules.DRAW, 26),
    (rules.AWAY_WIN, 33),
    (rules.HOME_DEFAULT_WIN, 2),
    (rules.AWAY_DEFAULT_WIN, 1),
)


@dataclass
class DemoLeague:
    competition: Competition
    matches_entered: int
    slices_submitted: int


def league_demo_create(*, user: Actor, today: datetime.date, seed: int = 1) -> DemoLeague:
    """Create the demo league (refused when it exists or the registry has too few players)."""
    if Competition.objects.filter(slug="demo-league").exists():
        raise ValidationError("The demo league exists already (competition demo-league).")
    players = list(Player.objects.order_by("id_number")[: DIVISIONS * TEAMS * SQUAD])
    if len(players) < DIVISIONS * TEAMS * SQUAD:
        raise ValidationError(
            f"The demo league needs {DIVISIONS * TEAMS * SQUAD} players; the registry has {len(players)}."
        )
    start = today - datetime.timedelta(days=42)  # seven weekly rounds played, three to come
    with transaction.atomic():
        competition = Competition.objects.create(
            name="Demo League", slug="demo-league", federation=players[0].federation, boards_per_match=BOARDS
        )
        season = Season.objects.create(
            competition=competition,
            name=f"{start.year}-{str(start.year + 1)[2:]}",
            slug=f"{start.year}-{str(start.year + 1)[2:]}",
            start_date=start,
            end_date=start + datetime.timedelta(days=7 * (2 * (TEAMS - 1) - 1)),
        )
        clubs = _clubs(DIVISIONS * TEAMS, players)
        for level in range(1, DIVISIONS + 1):
            division = Division.objects.create(
                season=season,
                name=f"Division {level}",
                level=level,
                promotion_count=int(level > 1),
                relegation_count=int(level < DIVISIONS),
            )
            for number in range(TEAMS):
                team = Team.objects.create(club=clubs[(level - 1) * TEAMS + number], designation="1", division=division)
                members = players[((level - 1) * TEAMS + number) * SQUAD :][:SQUAD]
                SquadEntry.objects.bulk_create(
                    SquadEntry(team=team, player=p, board_order=i, registered_on=start)
                    for i, p in enumerate(members, 1)
                )
            division_fixtures_generate(division, user=user, first_date=start)
    entered = _cards_enter(season, today, random.Random(seed), user=user)
    submitted = sum(
        outcome.submitted for division in season.divisions.all() for outcome in division_rate_ready(division, user=user)
    )
    return DemoLeague(competition, entered, submitted)


def _clubs(count: int, players: list[Player]) -> list[Club]:
    clubs = list(Club.objects.order_by("pk")[:count])
    clubs += [
        Club.objects.create(name=f"Demo Chess Club {n}", federation=players[0].federation)
        for n in range(len(clubs) + 1, count + 1)
    ]
    return clubs


def _cards_enter(season: Season, today: datetime.date, draw: random.Random, *, user: Actor) -> int:
    """Every match played by ``today``: board n is the n-th squad player of each side, results drawn."""
    squads: dict[int, list[int]] = {}
    for team_id, id_number in (
        SquadEntry.objects.filter(team__division__season=season)
        .order_by("team", "board_order")
        .values_list("team_id", "player__id_number")
    ):
        squads.setdefault(team_id, []).append(id_number)
    codes = [code for code, _ in _RESULTS]
    weights = [weight for _, weight in _RESULTS]
    matches = Match.objects.filter(round__division__season=season, date__lte=today).order_by("date", "pk")
    for match in matches:
        lines = []
        for board in range(1, BOARDS + 1):
            result = draw.choices(codes, weights)[0]
            home: int | None = squads[match.home_id][board - 1]
            away: int | None = squads[match.away_id][board - 1]
            if result == rules.HOME_DEFAULT_WIN:
                away = None  # the away player did not come
            elif result == rules.AWAY_DEFAULT_WIN:
                home = None
            lines.append(rules.CardLine(board, home, away, result))
        match_card_save(match, lines, user=user)
    return len(matches)
