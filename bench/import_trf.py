"""Benchmark: import a 300-player, 11-round Swiss from TRF (target < 2 s on 2 cores, DESIGN.md Targets), or with
``--big`` the 103,896-game file of issue 36 (2,000 players, 104 rounds, 2.2 MB; target < 3 s) and the same field
at a quarter and half of its rounds, to show the time grows linearly with the games.

Run from the repository root:

    python bench/import_trf.py                      # a fresh SQLite file under /tmp (migrated first)
    python bench/import_trf.py --big
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_import python bench/import_trf.py --big

The file is generated with events.trf.write_trf: random pairings, results 1/=/0 with a few forfeits and
half-point byes, half of the players with ID numbers already registered (matched), half new (created with
needs_review). Prints the wall time of ``event_import_trf`` (parsing included) for the first import (every
new player created) and for repeats (every player matched), the games written and the time per game, with the
CPU time of this process beside it (all of SQLite's work; on a machine shared with other work the wall time
counts theirs too); first, how long this machine takes for a fixed pure-Python loop, so figures from different
machines compare.
"""

import argparse
import datetime
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_database import prepare_database  # noqa: E402 (needs the repository on sys.path)


def make_trf(players: int, rounds: int, known_ids: list[int], seed: int = 2026) -> bytes:
    from events.trf import TrfPlayer, TrfRoundEntry, TrfTournament, write_trf

    rng = random.Random(seed)
    start = datetime.date(2026, 3, 1)
    field = []
    for rank in range(1, players + 1):
        registered = rank <= len(known_ids)
        field.append(
            TrfPlayer(
                start_rank=rank,
                name=f"Bench{rank:04d}, Player",
                sex=rng.choice("mw"),
                rating=rng.randint(1400, 2700) if rng.random() < 0.9 else None,
                federation=rng.choice(["ESP", "IRL", "GER", "FRA", ""]),
                fide_id=str(known_ids[rank - 1]) if registered else (str(50_000_000 + rank) if rank % 3 else ""),
                birth_year=rng.randint(1950, 2015),
            )
        )
    for round_number in range(1, rounds + 1):
        order = list(range(1, players + 1))
        rng.shuffle(order)
        byes, order = order[:2], order[2:]  # two requested half-point byes per round
        for rank in byes:
            field[rank - 1].rounds.append(TrfRoundEntry(round_number, None, "-", "H"))
        for white, black in zip(order[::2], order[1::2], strict=True):
            code = rng.choices(["1", "=", "0", "+"], weights=[40, 25, 33, 2])[0]
            mirror = {"1": "0", "=": "=", "0": "1", "+": "-"}[code]
            field[white - 1].rounds.append(TrfRoundEntry(round_number, black, "w", code))
            field[black - 1].rounds.append(TrfRoundEntry(round_number, white, "b", mirror))
    points = {"1": 1.0, "=": 0.5, "0": 0.0, "+": 1.0, "-": 0.0, "H": 0.5}
    for player in field:
        player.points = sum(points[entry.result] for entry in player.rounds)
    tournament = TrfTournament(
        name="Bench Open",
        city="Bench",
        federation="ESP",
        start_date=start,
        end_date=start + datetime.timedelta(days=rounds - 1),
        tournament_type="Swiss (standard)",
        chief_arbiter="Arbiter, Bench",
        time_control="90 min + 30 s",
        rounds_declared=rounds,
        round_dates=[start + datetime.timedelta(days=r) for r in range(rounds)],
        players=field,
    )
    return write_trf(tournament).encode("utf-8")


def machine_loop_seconds() -> float:
    """A fixed pure-Python loop (ten million additions): the machine's speed beside each figure."""
    began = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--rounds", default="11", help="rounds, or several counts (26,52,104): a file each")
    parser.add_argument("--repeat", type=int, default=3, help="imports after the first (players all matched)")
    parser.add_argument(
        "--big", action="store_true", help="2,000 players: 26, 52 and 104 rounds (103,896 games), one import each"
    )
    args = parser.parse_args()
    url = prepare_database("bench-import-trf-")

    from players.models import Player

    print(f"database: {url.split('@')[-1]}")
    print(f"machine: pure-Python loop of 10 M additions {machine_loop_seconds():.3f} s")
    if args.big:
        args.players, args.rounds, args.repeat = 2000, "26,52,104", 0
    first_id = 10_000_000 + Player.objects.count()
    known = [first_id + i for i in range(args.players // 2)]
    Player.objects.bulk_create(
        [
            Player(
                id_number=n,
                surname=f"Bench{i + 1:04d}",
                given_names="Player",
                search_name=f"BENCH{i + 1:04d}, PLAYER",
                search_key=f"bench{i + 1:04d} player",
            )
            for i, n in enumerate(known)
        ],
        ignore_conflicts=True,
    )
    for rounds in [int(count) for count in args.rounds.split(",")]:
        run(make_trf(args.players, rounds, known), args.players, rounds, args.repeat, target=3.0 if args.big else 2.0)


def run(data: bytes, players: int, rounds: int, repeat: int, target: float) -> None:
    from events.models import Game
    from events.trf_services import event_import_trf

    print(f"file: {players} players, {rounds} rounds, {len(data):,} bytes")
    timings = []
    for attempt in range(1 + repeat):
        began, began_cpu = time.perf_counter(), time.process_time()
        outcome = event_import_trf(data, file_name="bench.trf", user=None, rating_type="standard")
        elapsed, cpu = time.perf_counter() - began, time.process_time() - began_cpu
        if outcome.event is None:
            sys.exit(f"import refused: {outcome.refusal_message()}")
        games = Game.objects.filter(event=outcome.event).count()
        label = "first import (new IDs created)" if attempt == 0 else f"repeat {attempt} (IDs matched)"
        per_game = elapsed / max(games, 1) * 1e6
        created = len(outcome.created_players)
        print(
            f"{label:34} {elapsed:6.3f} s ({cpu:6.3f} s CPU here)  {created:>4} created  {games:,} games  "
            f"{per_game:.1f} µs/game"
        )
        timings.append(elapsed)
    print(
        f"event_import_trf: worst {max(timings):.3f} s, median {statistics.median(timings):.3f} s "
        f"(target < {target:g} s)"
    )


if __name__ == "__main__":
    main()
