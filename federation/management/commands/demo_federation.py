"""Fill an empty database with a simulated federation for newcomers (called by `dev.py run`)."""

from django.core.management import call_command
from django.core.management.base import BaseCommand

from events.models import RatingType
from players.models import Player
from ratings.services import rating_policy_for


class Command(BaseCommand):
    help = (
        "Make sure every rating type has its policy and beat schedule; if the database has no players, "
        "simulate a small federation (300 players, 12 months; standard, rapid and blitz; a few federations "
        "and clubs), publish its lists through Celery, and add a league with two divisions and a season of matches."
    )

    def handle(self, *args, **options):
        for rating_type in RatingType.values:
            rating_policy_for(rating_type)  # created from settings with its schedule on first use
        if Player.objects.exists():
            self.stdout.write("database already has players; no demo data added")
            return
        try:
            call_command(
                "simulate_federation",
                players=300,
                months=12,
                seed=1,
                rating_types="standard,rapid,blitz",  # every page shows all three types on a fresh install
                publish=True,
                stdout=self.stdout,
            )
            # a league on the same players: two divisions, a season under way, its complete slices submitted and
            # rated by the next publication (issue 34)
            call_command("demo_league", stdout=self.stdout)
        except Exception as exc:  # the demo must never stop the product from starting
            self.stderr.write(f"demo data not created: {exc}")
