"""Benchmark: the title-norm reports of a 300-player, 11-round open (target < 1 s) and of a simulated year's events.

Run from the repository root:  python bench/norms.py [--players 300] [--rounds 11] [--events 400] [--repeat 3]
Prints the best wall time of ratings.engine.norms.check_norms over every player of the open (all four titles for
women, GM and IM for men; 1.4.1e/f's subsets searched in the Swiss) and over every player of ``--events`` events of
40-120 players and 7-11 rounds. The data is generated (the service adds five queries per event to read it).
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings.engine.norms import NormEvent, NormGame, NormPlayer, check_norms

FEDERATIONS = ("ESP", "FRA", "GER", "ITA", "NED", "ENG", "USA", "IND", "FID")
TITLES = ("GM", "IM", "WGM", "WIM", "FM", "WFM", "CM", "WCM", "")


def make_open(players: int, rounds: int, rng: np.random.Generator, strong: bool = True):
    """A Swiss: players paired by score groups approximately (random within a window), results by Elo odds."""
    mean = 2350 if strong else 1900
    ratings = np.clip(np.rint(rng.normal(mean, 180, players)), 1400, 2800).astype(int)
    unrated = rng.random(players) < 0.03
    titles = [TITLES[min(int(max(0, 2650 - r) // 70), len(TITLES) - 1)] if rng.random() < 0.8 else "" for r in ratings]
    feds = [FEDERATIONS[i] for i in rng.integers(0, len(FEDERATIONS), players)]
    sexes = ["F" if x else "M" for x in rng.random(players) < 0.2]
    games: list[list[NormGame]] = [[] for _ in range(players)]
    score = np.zeros(players)
    for rnd in range(1, rounds + 1):
        order = np.lexsort((rng.random(players), -score))
        for a, b in zip(order[0::2], order[1::2], strict=False):
            expected = 1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))
            u = rng.random()
            result_a = "1" if u < expected - 0.15 else "0.5" if u < expected + 0.15 else "0"
            result_b = {"1": "0", "0.5": "0.5", "0": "1"}[result_a]
            for own, other, result in ((a, b, result_a), (b, a, result_b)):
                games[own].append(
                    NormGame(
                        round=rnd,
                        result=result,
                        opponent=str(other),
                        opponent_rating=None if unrated[other] else int(ratings[other]),
                        opponent_title=titles[other],
                        opponent_federation=feds[other],
                    )
                )
            score[a] += {"1": 1, "0.5": 0.5, "0": 0}[result_a]
            score[b] += {"1": 1, "0.5": 0.5, "0": 0}[result_b]
    return [(NormPlayer(feds[i], sexes[i]), games[i]) for i in range(players)]


def report(event: NormEvent, field) -> int:
    return sum(r.norm for player, games in field for r in check_norms(player, event, games))


def best_of(repeat: int, run) -> tuple[float, int]:
    times, value = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        value = run()
        times.append(time.perf_counter() - started)
    return min(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    field = make_open(args.players, args.rounds, rng)
    event = NormEvent(rounds=args.rounds, system="swiss")
    seconds, norms = best_of(args.repeat, lambda: report(event, field))
    print(
        f"open: {args.players} players, {args.rounds} rounds: {seconds:.3f} s for every norm report "
        f"({norms} norms; target < 1 s)"
    )
    year = []
    for _ in range(args.events):
        rounds = int(rng.integers(7, 12))
        year.append((NormEvent(rounds=rounds), make_open(int(rng.integers(40, 121)) // 2 * 2, rounds, rng, False)))
    players = sum(len(f) for _, f in year)
    seconds, norms = best_of(args.repeat, lambda: sum(report(e, f) for e, f in year))
    print(f"a simulated year: {args.events} events, {players} players: {seconds:.3f} s ({norms} norms)")


if __name__ == "__main__":
    main()
