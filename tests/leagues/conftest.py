"""A small league built with the ORM (the input); everything under test goes through leagues' services."""

import datetime
from dataclasses import dataclass, field

import pytest
from django.contrib.auth.models import User

from leagues.models import Competition, Division, LeagueRound, Match, Season, SquadEntry, Team
from leagues.rules import CardLine
from players.models import Club
from tests.factories import make_federation, make_player


@dataclass
class League:
    competition: Competition
    season: Season
    division: Division
    teams: list[Team]
    squads: dict[int, list] = field(default_factory=dict)  # team pk → players in board order
    user: User | None = None

    def card(self, match: Match, results: list[str]) -> list[CardLine]:
        """Board i: the home squad's i-th player against the away squad's i-th player."""
        home, away = self.squads[match.home_id], self.squads[match.away_id]
        return [CardLine(i, home[i - 1].id_number, away[i - 1].id_number, r) for i, r in enumerate(results, 1)]


def build_league(*, teams=4, boards=2, squad=3, policy="fide-slices", slug="metro", **competition_fields) -> League:
    federation = make_federation()
    competition = Competition.objects.create(
        name="Metropolitan League",
        slug=slug,
        federation=federation,
        boards_per_match=boards,
        rating_policy=policy,
        **competition_fields,
    )
    season = Season.objects.create(
        competition=competition,
        name="2025-26",
        slug="2025-26",
        start_date=datetime.date(2025, 9, 1),
        end_date=datetime.date(2026, 6, 30),
    )
    division = Division.objects.create(season=season, name="Division 1", promotion_count=1, relegation_count=1)
    league = League(competition, season, division, [])
    league.user = User.objects.create_user(f"secretary-{slug}", is_staff=True, is_superuser=True)
    for number in range(teams):
        club = Club.objects.create(name=f"Club {chr(65 + number)}", federation=federation)
        team = Team.objects.create(club=club, designation="1", division=division)
        members = [make_player() for _ in range(squad)]
        SquadEntry.objects.bulk_create(
            SquadEntry(team=team, player=p, board_order=i, registered_on=datetime.date(2025, 8, 1))
            for i, p in enumerate(members, 1)
        )
        league.teams.append(team)
        league.squads[team.pk] = members
    return league


def schedule(league: League, dates: list[datetime.date]) -> list[list[Match]]:
    """A single round robin on ``dates`` (one a round), written by the fixtures service."""
    from leagues.services import division_fixtures_generate

    division_fixtures_generate(league.division, user=league.user, first_date=dates[0], home_and_away=False)
    rounds = []
    league_rounds = LeagueRound.objects.filter(division=league.division).order_by("number")
    for league_round, day in zip(league_rounds, dates, strict=True):
        league_round.date = day
        league_round.save()
        league_round.matches.update(date=day)
        rounds.append(list(league_round.matches.order_by("pk")))
    return rounds


@pytest.fixture
def league(db) -> League:
    return build_league()
