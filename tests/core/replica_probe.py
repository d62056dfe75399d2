"""Run by tests/core/test_read_replica.py in a process of its own, with DATABASE_URL naming a primary and
DATABASE_REPLICA_URL its streaming replica (both started by the test). Prints one JSON object of what it saw."""

from __future__ import annotations

import datetime
import json
import os
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "federation.settings")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402
from django.test import Client  # noqa: E402

TODAY = datetime.date(2026, 11, 1)


class Counter:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        return execute(sql, params, many, context)


def queries_per_alias(do) -> dict[str, int]:
    counters = {alias: Counter() for alias in ("default", "replica")}
    wrappers = [connections[alias].execute_wrapper(counter) for alias, counter in counters.items()]
    for wrapper in wrappers:
        wrapper.__enter__()
    try:
        do()
    finally:
        for wrapper in wrappers:
            wrapper.__exit__(None, None, None)
    return {alias: counter.count for alias, counter in counters.items()}


def raw(alias: str, sql: str):
    with connections[alias].cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()[0] if cursor.description else None


def wait_for_replay() -> None:
    target = raw("default", "SELECT pg_current_wal_lsn()::text")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        caught_up = raw("replica", f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn")
        if caught_up:
            return
        time.sleep(0.1)
    raise SystemExit("the replica did not catch up within 60 s")


def main() -> None:
    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    from ratings.models import RatingList, RatingListEntry
    from ratings.services import rating_list_publish
    from ratings.services.simulation import federation_simulate

    summary = federation_simulate(150, 6, 11, today=TODAY)
    *earlier, last = summary.list_dates
    for list_date in earlier:
        rating_list_publish("standard", list_date, today=TODAY)
    entry = (
        RatingListEntry.objects.filter(rating_list__list_date=earlier[-1], rating__isnull=False, games__gt=0)
        .select_related("player")
        .order_by("player_id")
        .first()
    )
    id_number = entry.player.id_number
    wait_for_replay()
    client = Client()
    seen: dict = {"player": id_number, "earlier": earlier[-1].isoformat(), "last": last.isoformat()}
    seen["profile_queries"] = queries_per_alias(lambda: client.get(f"/players/{id_number}/"))
    seen["api_queries"] = queries_per_alias(lambda: client.get(f"/api/v1/players/{id_number}/"))

    official = get_user_model().objects.create_superuser("official", "o@example.org", "pw-not-used-x9")
    admin_client = Client()
    admin_client.force_login(official)
    seen["admin_queries"] = queries_per_alias(lambda: admin_client.get("/admin/ratings/ratinglist/"))
    seen["calculator_post_status"] = client.post(
        "/api/v1/calculator/",
        {"rules": "fide-2024", "rating": 1800, "k_factor": 20, "games": [{"opponent_rating": 1900, "score": 1}]},
        content_type="application/json",
    ).status_code

    # Replication lag: the replica stops replaying while the next list is published on the primary.
    raw("replica", "SELECT pg_wal_replay_pause()")
    rating_list_publish("standard", last, today=TODAY)
    new_entry = RatingListEntry.objects.get(player=entry.player, rating_list__list_date=last)
    seen["primary_now"] = {"list_date": last.isoformat(), "rating": new_entry.rating}
    seen["previous"] = {"list_date": earlier[-1].isoformat(), "rating": entry.rating}
    seen["during_lag"] = client.get(f"/api/v1/players/{id_number}/").json()["ratings"]["standard"]
    seen["lists_on_replica_during_lag"] = RatingList.objects.using("replica").filter(list_date=last).count()
    raw("replica", "SELECT pg_wal_replay_resume()")
    wait_for_replay()
    seen["after_replay"] = client.get(f"/api/v1/players/{id_number}/").json()["ratings"]["standard"]
    print(json.dumps(seen, default=str))


if __name__ == "__main__":
    main()
