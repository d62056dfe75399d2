"""Benchmark: one rate_period of 1,000,000 games among 500,000 players (target < 2 s on 2 cores).

Run from the repository root:  python bench/engine.py [--games N] [--players N] [--events N] [--repeat R]
Prints the best wall time of ``rate_period`` (data generation excluded) and the peak memory it allocates
(tracemalloc, measured in a separate run) plus the process's peak RSS.
"""

import argparse
import datetime
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings.engine import PeriodGames, PeriodPlayers, get_preset, rate_period


def make_period(num_players: int, num_games: int, num_events: int, seed: int = 2026):
    rng = np.random.default_rng(seed)
    rating = np.clip(np.rint(rng.normal(1750, 280, num_players)), 1400, 2850)
    unrated = rng.random(num_players) < 0.05
    rating[unrated] = np.nan
    k_factor = np.where(unrated, np.nan, rng.choice([10.0, 20.0, 40.0], num_players, p=[0.1, 0.7, 0.2]))
    players = PeriodPlayers(
        rating=rating,
        k_factor=k_factor,
        pool_games=np.where(unrated, rng.integers(0, 4, num_players), 0).astype(np.int64),
        pool_opponent_sum=np.zeros(num_players),
        pool_score=np.zeros(num_players),
        birth_year=rng.integers(1950, 2015, num_players).astype(np.int64),
        rated_games_total=rng.integers(0, 500, num_players).astype(np.int64),
        ever_2400=rating >= 2400,
    )
    players.pool_opponent_sum[:] = players.pool_games * 1700.0
    players.pool_score[:] = players.pool_games * 0.5
    white = rng.integers(0, num_players, num_games)
    black = (white + rng.integers(1, num_players, num_games)) % num_players
    # the list in force at the event's start: mostly the previous list, a few events from an older one
    older = rng.random(num_games) < 0.02
    games = PeriodGames(
        event=np.sort(rng.integers(0, num_events, num_games)),
        white=white,
        black=black,
        white_score=rng.choice([0.0, 0.5, 1.0], num_games, p=[0.35, 0.3, 0.35]),
        white_rating=np.where(older, rating[white] - 5, rating[white]),
        black_rating=rating[black],
    )
    return players, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=500_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", default="fide-2024")
    args = parser.parse_args()

    rules = get_preset(args.rules)
    list_date = datetime.date(2026, 1, 1)
    players, games = make_period(args.players, args.games, args.events)

    rate_period(players, games, rules, list_date)  # warm-up (imports, page faults)
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = rate_period(players, games, rules, list_date)
        times.append(time.perf_counter() - start)

    tracemalloc.start()
    rate_period(players, games, rules, list_date)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    print(f"rate_period [{rules.slug}]: {args.games:,} games, {args.players:,} players, {args.events:,} events")
    print(f"  best of {args.repeat}: {min(times):.3f} s (all: {', '.join(f'{t:.3f}' for t in times)})")
    print(f"  peak memory allocated by rate_period: {peak / 2**20:.0f} MiB; process peak RSS: {rss_mb:.0f} MiB")
    print(
        f"  rated players changed: {int(np.count_nonzero(result.players.rounded_change)):,}; "
        f"new initial ratings: {int(result.players.initial_published.sum()):,}"
    )


if __name__ == "__main__":
    main()
