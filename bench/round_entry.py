"""Benchmark: the arbiter's desk on a 300-player Swiss (targets: each page < 300 ms and < 500 KB on SQLite).

Run from the repository root (a fresh SQLite file under /tmp unless DATABASE_URL is set):

    python bench/round_entry.py                 # 300 players, 9 rounds, 5 repeats
    python bench/round_entry.py --players 284 --repeat 10

Builds one event with its participants and eight rounds of results, then times through the whole Django stack
(django.test.Client, signed in as the event's arbiter): the event's admin page, the round entry page of
round 9, and saving round 9 (every board's result, one POST, as the screen sends it). Prints the best and
median time and the size of each page.
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_database import prepare_database  # noqa: E402

TARGET_MS, TARGET_KB = 300.0, 500.0


def build(players: int, rounds: int):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from events.models import Event, Game, Participant, Result
    from events.roles import ARBITERS
    from players.models import Federation, Player

    arbiter = get_user_model().objects.create_user("bench-arbiter", password="x", is_staff=True)
    arbiter.groups.add(Group.objects.get(name=ARBITERS))
    federation, _ = Federation.objects.get_or_create(code="ESP", defaults={"name": "Spain"})
    start = datetime.date(2026, 3, 1)
    event = Event.objects.create(
        name="Bench Swiss",
        start_date=start,
        end_date=start + datetime.timedelta(days=8),
        rounds=rounds,
        chief_arbiter=arbiter,
    )
    people = Player.objects.bulk_create(
        Player(id_number=9_100_000 + n, surname=f"Bench{n:03d}", given_names="Player", sex="M", federation=federation)
        for n in range(1, players + 1)
    )
    parts = Participant.objects.bulk_create(
        Participant(event=event, player=p, start_rank=n, rating=2400 - 3 * n) for n, p in enumerate(people, 1)
    )
    results = [Result.WHITE_WIN, Result.DRAW, Result.BLACK_WIN]
    games = []
    for round_ in range(1, rounds):  # the last round is the one entered
        shift = round_ * 7 % (players - 1) + 1
        order = [parts[0], *parts[1:][shift:], *parts[1:][:shift]]
        for board in range(players // 2):
            games.append(
                Game(
                    event=event,
                    round=round_,
                    board=board + 1,
                    white=order[board],
                    black=order[-1 - board],
                    result=results[(board + round_) % 3],
                )
            )
    Game.objects.bulk_create(games)
    pairs = [(parts[board], parts[-1 - board]) for board in range(players // 2)]
    Game.objects.bulk_create(
        Game(event=event, round=rounds, board=n, white=w, black=b) for n, (w, b) in enumerate(pairs, 1)
    )
    return arbiter, event


def timed(call, repeat: int) -> tuple[list[float], object]:
    times, response = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        response = call()
        times.append((time.perf_counter() - started) * 1000)
    return times, response


def report(label: str, times: list[float], size: int | None) -> None:
    """One line per measure; pages are held to the targets, the save (no target set) is only reported."""
    kb = f"{size / 1024:7.1f} KB" if size is not None else "          "
    verdict = ""
    if size is not None:
        verdict = "ok" if min(times) < TARGET_MS and size / 1024 < TARGET_KB else "OVER TARGET"
    print(f"{label:<38} best {min(times):7.1f} ms  median {statistics.median(times):7.1f} ms  {kb}  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    url = prepare_database("bench_round_entry_")
    from django.conf import settings
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.urls import reverse

    from events.models import Game

    settings.ALLOWED_HOSTS = ["testserver"]
    setup_test_environment()
    arbiter, event = build(args.players, args.rounds)
    client = Client()
    client.force_login(arbiter)
    print(f"{url}: {args.players} players, {args.rounds} rounds, {Game.objects.filter(event=event).count()} games")
    change = reverse("admin:events_event_change", args=[event.pk])
    round_url = reverse("admin:events_event_round", args=[event.pk, args.rounds])
    client.get(change), client.get(round_url)  # warm up (templates, first queries)
    times, response = timed(lambda: client.get(change), args.repeat)
    report("event admin page (GET)", times, len(response.content))
    times, response = timed(lambda: client.get(round_url), args.repeat)
    report(f"round {args.rounds} entry page (GET)", times, len(response.content))

    codes = ["1-0", "1/2-1/2", "0-1"]
    save_times = []
    for attempt in range(args.repeat):
        page = client.get(round_url)
        data = {"rows": str(len(page.context["rows"])), "known": page.context["sheet"].known, "_save": "Save"}
        for row in page.context["rows"]:
            board, i = row["board"], row["index"]
            data.update(
                {
                    f"b{i}-meta": board.meta,
                    f"b{i}-white": board.white or "",
                    f"b{i}-black": board.black or "",
                    f"b{i}-result": codes[(i + attempt) % 3] if board.white else "*",
                }
            )
        started = time.perf_counter()
        saved = client.post(round_url, data)
        save_times.append((time.perf_counter() - started) * 1000)
        if saved.status_code != 302:
            raise SystemExit(f"save refused: {[p.message for p in saved.context['problems']]}")
    report(f"save round {args.rounds} ({args.players // 2} boards, POST)", save_times, None)


if __name__ == "__main__":
    main()
