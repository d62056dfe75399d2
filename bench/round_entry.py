"""Benchmark: the arbiter's desk on a 300-player Swiss (targets: each page < 300 ms and < 500 KB on SQLite).

Run from the repository root (a fresh SQLite file under /tmp unless DATABASE_URL is set):

    python bench/round_entry.py                 # 300 players, 9 rounds, a list of 20,000 players, 5 repeats
    python bench/round_entry.py --players 284 --repeat 10 --registry 0

Builds one event with its participants and eight rounds of results, then times through the whole Django stack
(django.test.Client, signed in as the event's arbiter): the event's admin page, the round entry page of
round 9 (with its standings), the projected rating changes the page fetches next (computed from the
published list), and saving round 9 (every board's result, one POST, as the screen sends it). Prints the best and
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
from bench_database import prepare_database

TARGET_MS, TARGET_KB = 300.0, 500.0


def starting_list(registry: int, federation, list_date: datetime.date):
    """A published (imported) standard list of ``registry`` players: what the projection reads in full."""
    from django.utils import timezone

    from players.models import Player
    from ratings.engine import get_preset
    from ratings.models import RatingList, RatingListEntry, RatingListStatus

    people = Player.objects.bulk_create(
        (
            Player(id_number=8_000_000 + n, surname=f"Reg{n:06d}", given_names="X", sex="M", federation=federation)
            for n in range(registry)
        ),
        batch_size=2000,
    )
    rating_list = RatingList.objects.create(
        rating_type="standard",
        list_date=list_date,
        closing_date=list_date - datetime.timedelta(days=7),
        status=RatingListStatus.PUBLISHED,
        rules_preset="fide-2024",
        rules=get_preset("fide-2024").to_json(),
        is_imported=True,
        published_at=timezone.now(),
        entry_count=registry,
    )
    RatingListEntry.objects.bulk_create(
        (
            RatingListEntry(
                rating_list=rating_list, player=p, rating=1400 + n % 1200, k_factor=20, rated_games_total=50
            )
            for n, p in enumerate(people)
        ),
        batch_size=2000,
    )
    return people


def build(players: int, rounds: int, registry: int):
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
    if registry:  # the event's players come from a registry with a published list (rated: projections)
        people = starting_list(max(registry, players), federation, datetime.date(2026, 1, 1))[:players]
    else:
        people = Player.objects.bulk_create(
            Player(
                id_number=9_100_000 + n, surname=f"Bench{n:03d}", given_names="Player", sex="M", federation=federation
            )
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
    parser.add_argument(
        "--registry", type=int, default=20_000, help="players on the published list the projection reads (0: none)"
    )
    args = parser.parse_args()
    url = prepare_database("bench_round_entry_")
    from django.conf import settings
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.urls import reverse

    from events.models import Game

    settings.ALLOWED_HOSTS = ["testserver"]
    setup_test_environment()
    arbiter, event = build(args.players, args.rounds, args.registry)
    client = Client()
    client.force_login(arbiter)
    games = Game.objects.filter(event=event).count()
    print(f"{url}: {args.players} players, {args.rounds} rounds, {games} games, a list of {args.registry} players")
    change = reverse("admin:events_event_change", args=[event.pk])
    round_url = reverse("admin:events_event_round", args=[event.pk, args.rounds])
    client.get(change), client.get(round_url)  # warm up (templates, first queries)
    times, response = timed(lambda: client.get(change), args.repeat)
    report("event admin page (GET)", times, len(response.content))
    times, response = timed(lambda: client.get(round_url), args.repeat)
    report(f"round {args.rounds} entry page (GET)", times, len(response.content))
    projection_url = reverse("admin:events_event_round_projection", args=[event.pk, args.rounds])
    times, response = timed(lambda: client.get(projection_url), args.repeat)
    print(
        f"{'projected rating changes (JSON)':<38} best {min(times):7.1f} ms  median {statistics.median(times):7.1f} ms"
    )

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
