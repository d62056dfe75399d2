"""Benchmark: a season of a FIDE-scale federation's leagues (target: tabled and rated in minutes; a division table
and a match card < 50 ms).

Run from the repository root (a fresh SQLite file under /tmp unless DATABASE_URL is set):

    python bench/league.py                       # 2,000 teams in 200 divisions of 10, 6 boards: 18,000 matches,
                                                 # 108,000 board games, home and away over 18 weeks
    python bench/league.py --teams 200 --repeat 5

Builds the season with the leagues' own fixtures service (Berger tables, home and away) and writes every board's
result in bulk (the input), then times: the tables of every division (``division_tables``, the read the pages and
the API share), rating the season (``division_rate_ready`` for every division: each complete slice of ≤ 30 days
written as an event through events' services and submitted, with the checks and integrity screening), and the
pages of one division table and one match card through the whole Django stack (median of ``--repeat``).
"""

from __future__ import annotations

import argparse
import datetime
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_database import prepare_database

TARGET_MS = 50.0


def build(teams: int, per_division: int, boards: int, seed: int):
    from django.contrib.auth.models import User

    from leagues import rules
    from leagues.models import Board, Competition, Division, Match, MatchStatus, Season, SquadEntry, Team
    from leagues.services import division_fixtures_generate
    from players.models import Club, Federation, Player

    user = User.objects.create_superuser("bench-secretary")
    federation = Federation.objects.get_or_create(code="BEN", defaults={"name": "Bench"})[0]
    competition = Competition.objects.create(
        name="National League", slug="national", federation=federation, boards_per_match=boards
    )
    start = datetime.date(2026, 1, 7)
    season = Season.objects.create(
        competition=competition,
        name="2026",
        slug="2026",
        start_date=start,
        end_date=start + datetime.timedelta(days=7 * 2 * per_division),
    )
    squad = boards + 2
    players = Player.objects.bulk_create(
        (
            Player(
                id_number=9_000_000 + n,
                surname=f"Bench{n:06d}",
                given_names="X",
                sex="M",
                birth_year=1990,
                federation=federation,
            )
            for n in range(teams * squad)
        ),
        batch_size=5000,
    )
    clubs = Club.objects.bulk_create(Club(name=f"Club {n:04d}", federation=federation) for n in range(teams))
    divisions = Division.objects.bulk_create(
        Division(season=season, name=f"Division {n + 1}", level=n + 1) for n in range(teams // per_division)
    )
    team_rows = Team.objects.bulk_create(
        Team(club=clubs[n], designation="1", division=divisions[n // per_division]) for n in range(teams)
    )
    SquadEntry.objects.bulk_create(
        (
            SquadEntry(team=team, player=players[n * squad + i], board_order=i + 1, registered_on=start)
            for n, team in enumerate(team_rows)
            for i in range(squad)
        ),
        batch_size=5000,
    )
    for division in divisions:
        division_fixtures_generate(division, user=user, first_date=start)
    draw = random.Random(seed)
    members = {team.pk: [players[n * squad + i].pk for i in range(squad)] for n, team in enumerate(team_rows)}
    codes = [rules.HOME_WIN, rules.DRAW, rules.AWAY_WIN]
    Board.objects.bulk_create(
        (
            Board(
                match_id=pk,
                number=b,
                home_player_id=members[home][b - 1],
                away_player_id=members[away][b - 1],
                home_white=b % 2 == 1,
                result=draw.choice(codes),
            )
            for pk, home, away in Match.objects.values_list("pk", "home_id", "away_id").iterator()
            for b in range(1, boards + 1)
        ),
        batch_size=5000,
    )
    Match.objects.update(status=MatchStatus.ENTERED)
    return user, competition, season


def timed(label: str, action):
    started = time.perf_counter()
    value = action()
    print(f"{label}: {time.perf_counter() - started:.1f} s", flush=True)
    return value


def page_ms(client, url: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--teams", type=int, default=2000)
    parser.add_argument("--per-division", type=int, default=10)
    parser.add_argument("--boards", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="profile one request of the last page")
    options = parser.parse_args()
    url = prepare_database("bench-league-")
    print(f"database: {url.split('@')[-1]}")

    from django.conf import settings
    from django.test import Client

    from leagues.models import Board, Division, Match
    from leagues.selectors import division_tables
    from leagues.services_rating import division_rate_ready

    user, competition, season = timed(
        "build the season (input, bulk)",
        lambda: build(options.teams, options.per_division, options.boards, options.seed),
    )
    print(f"{Division.objects.count()} divisions, {Match.objects.count()} matches, {Board.objects.count()} board games")
    divisions = list(Division.objects.filter(season=season).select_related("season__competition"))
    timed("table every division", lambda: division_tables(divisions, competition))
    outcomes = timed(
        "rate the season (slices written and submitted)",
        lambda: [o for d in divisions for o in division_rate_ready(d, user=user)],
    )
    games, submitted = sum(o.games for o in outcomes), sum(o.submitted for o in outcomes)
    print(f"{len(outcomes)} slices, {games} rated games, {submitted} submitted")
    settings.ALLOWED_HOSTS = ["testserver"]
    client = Client()
    division = divisions[len(divisions) // 2]
    match = Match.objects.filter(round__division=division).order_by("pk").first()
    for label, page in (
        ("division table", f"/leagues/national/2026/?division={division.pk}"),
        ("match card", f"/matches/{match.pk}/"),
    ):
        ms = page_ms(client, page, options.repeat)
        verdict = "within" if ms < TARGET_MS else "OVER"
        print(f"{label} page: {ms:.1f} ms median ({verdict} the {TARGET_MS:.0f} ms target)")
    if options.profile:
        import cProfile
        import pstats

        cProfile.runctx("client.get(page)", globals(), {"client": client, "page": page}, "/tmp/league-page.prof")
        pstats.Stats("/tmp/league-page.prof").sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
