"""simulate_federation --players N --months M --seed S [--publish]: a simulated federation for demos."""

import argparse

from celery.exceptions import TimeoutError as CeleryTimeoutError
from django.core.management.base import BaseCommand, CommandError

from events.models import RatingType
from ratings.services.errors import RatingListRefused
from ratings.services.simulation import federation_simulate
from ratings.tasks import publish_rating_list_task


def rating_type_list(text: str) -> list[str]:
    types = [item.strip() for item in text.split(",") if item.strip()]
    unknown = [item for item in types if item not in RatingType.values]
    if not types or unknown:
        raise argparse.ArgumentTypeError(
            f"expected rating types among {', '.join(RatingType.values)} separated by commas, got {text!r}"
        )
    return types


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


class Command(BaseCommand):
    help = (
        "Create a simulated federation: players with true strengths (FIDE-like spread, juniors improving, "
        "some stopping), a starting list, and M months of Swiss (30-300 players) and round-robin "
        "(10 players) events whose results follow seed 000's performance model with a draw margin; events "
        "are submitted for rating. Written with COPY on PostgreSQL (2,000,000 players in minutes). "
        "With --publish, every list date of the period is published through Celery (a worker must be "
        "running)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--players", type=positive, required=True, metavar="N", help="number of players (at least 10)"
        )
        parser.add_argument(
            "--months",
            type=positive,
            required=True,
            metavar="M",
            help="months of events, ending at the latest list date up to today",
        )
        parser.add_argument(
            "--seed",
            type=int,
            required=True,
            metavar="S",
            help="random seed: the same seed gives the same federation",
        )
        parser.add_argument(
            "--games-per-month",
            type=positive,
            metavar="G",
            help="about this many games a month (default: each playing player enters about one event "
            "in three months); e.g. 500000 for a FIDE-sized period of a million games",
        )
        parser.add_argument(
            "--rating-type",
            choices=RatingType.values,
            default="standard",
            help="rating type of the events and lists (default standard)",
        )
        parser.add_argument(
            "--rating-types",
            type=rating_type_list,
            metavar="T1,T2",
            help="several rating types played by the same players, e.g. standard,rapid,blitz (replaces --rating-type)",
        )
        parser.add_argument(
            "--publish",
            action="store_true",
            help="publish each list date in order through the Celery worker and wait for it",
        )
        parser.add_argument(
            "--timeout",
            type=positive,
            default=600,
            metavar="SECONDS",
            help="with --publish: how long to wait for each list (default 600)",
        )

    def handle(self, *args, players, months, seed, rating_type, publish, timeout, games_per_month, **options):
        if players < 10:
            raise CommandError(f"--players must be at least 10, got {players}")
        rating_types = options.get("rating_types")
        if isinstance(rating_types, str):  # call_command(rating_types="standard,rapid") skips the type
            rating_types = rating_type_list(rating_types)
        try:
            summary = federation_simulate(
                players,
                months,
                seed,
                rating_type=rating_type,
                games_per_month=games_per_month,
                rating_types=rating_types,
            )
        except RatingListRefused as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"simulated {summary.players} players, {summary.events} {'/'.join(summary.rating_types)} events, "
            f"{summary.games} games after the starting list of {summary.starting_list_date}; list dates "
            + (", ".join(d.isoformat() for d in summary.list_dates) or "none")
        )
        if not publish:
            return
        for rating_type in summary.rating_types:
            self.publish(rating_type, summary.list_dates_by_type[rating_type], timeout)

    def publish(self, rating_type: str, list_dates, timeout: int) -> None:
        for list_date in list_dates:
            result = publish_rating_list_task.delay(rating_type, list_date.isoformat())
            try:
                outcome = result.get(timeout=timeout)
            except CeleryTimeoutError:
                raise CommandError(
                    f"no Celery worker published the list of {list_date} within {timeout} s; "
                    "start one with `celery -A federation worker`"
                ) from None
            except Exception as exc:  # the task's own refusal or error, re-raised by result.get
                raise CommandError(f"publication of the {rating_type} list of {list_date} failed: {exc}") from None
            s = outcome["summary"]
            self.stdout.write(
                f"published {rating_type} {list_date}: {s['rated']} rated, {s['new_ratings']} new, "
                f"{s['events']} events, {s['games']} games"
            )
