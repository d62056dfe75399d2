"""Benchmark: rating_backtest (and the pool ledgers) over a year of a simulated federation (six bimonthly lists).

    python bench/backtest.py                                   # small: 3,000 players, 1,500 games a month
    python bench/backtest.py --players 2000000 --games 1000000 # FIDE scale (PostgreSQL via DATABASE_URL;
                                                               # building it takes long: do not run casually)

The federation is simulated (ratings.services.simulation) into a fresh database (bench_database: SQLite under
/tmp unless DATABASE_URL is set) and every list is published under fide-2024 (not timed). Then the backtest is
run under --rules (default fide-2024, which must report 0 differences) and each --also preset: wall time,
peak traced Python memory (tracemalloc, NumPy arrays included) and the process's peak RSS are printed.
"""

from __future__ import annotations

import argparse
import datetime
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_database import prepare_database  # noqa: E402

TODAY = datetime.date(2026, 11, 1)
MONTHS = 12
SEED = 14


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=3000)
    parser.add_argument("--games", type=int, default=1500, help="games a month (default 1500)")
    parser.add_argument("--rules", default="fide-2024")
    parser.add_argument("--also", action="append", default=[], help="another preset to backtest, repeatable")
    args = parser.parse_args()
    url = prepare_database("bench_backtest_")
    print(f"database: {url.split('@')[-1]}")

    from ratings.services import rating_list_publish
    from ratings.services.backtest import backtest_rules, measure, rating_backtest_run
    from ratings.services.simulation import federation_simulate

    began = time.perf_counter()
    summary = federation_simulate(args.players, MONTHS, SEED, today=TODAY, games_per_month=args.games)
    for list_date in summary.list_dates:
        rating_list_publish(summary.rating_type, list_date, today=TODAY)
    print(
        f"built {summary.players:,} players, {summary.games:,} games, {len(summary.list_dates)} lists "
        f"in {time.perf_counter() - began:.1f} s (not timed below)"
    )
    from ratings.services.pool import pool_history

    ledgers, cost = measure(lambda: pool_history(summary.rating_type))
    print(
        f"pool ledgers of {len(ledgers)} lists: {cost.seconds:.2f} s wall, peak traced memory "
        f"{cost.peak_bytes / 2**20:.1f} MB; every ledger balances: {all(ledger.balanced for ledger in ledgers)}"
    )
    for slug in [args.rules, *args.also]:
        rules = backtest_rules(slug)
        report, cost = measure(lambda rules=rules: rating_backtest_run(summary.rating_type, rules))
        games = sum(item.games for item in report.lists)
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        s = report.summary
        print(
            f"{slug}: {len(report.lists)} lists, {games:,} scored games: {cost.seconds:.2f} s wall, "
            f"peak traced memory {cost.peak_bytes / 2**20:.1f} MB, process peak RSS {rss_mb:.0f} MB; "
            f"log_loss {s['log_loss']}, brier {s['brier']}, rmse {s['rmse']}, differences {s['differences']}"
        )


if __name__ == "__main__":
    main()
