"""``demo_league``: the demo league on a database that has players (``leagues.demo.league_demo_create``)."""

import datetime

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from core.cli import iso_date
from leagues.demo import league_demo_create


class Command(BaseCommand):
    help = (
        "Create a demo league on the registry's players: two divisions of six teams, a home-and-away season that "
        "started six weeks before TODAY, the cards played so far entered and the complete slices submitted for "
        "rating."
    )

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=1, help="seed of the drawn results (default 1)")
        parser.add_argument("--today", type=iso_date, default=None, help="YYYY-MM-DD (default: today)")

    def handle(self, *args, seed: int, today: datetime.date | None, **options):
        try:
            demo = league_demo_create(user=None, today=today or timezone.localdate(), seed=seed)
        except ValidationError as refusal:
            raise CommandError(" ".join(refusal.messages)) from None
        self.stdout.write(
            f"{demo.competition.name}: {demo.matches_entered} match cards entered, "
            f"{demo.slices_submitted} slice(s) submitted for rating"
        )
