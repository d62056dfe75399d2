"""publish_rating_list --date YYYY-MM-DD [--rating-type T] [--dry-run]: the beat schedule by hand."""

from django.core.management.base import BaseCommand, CommandError
from django.db import OperationalError

from core.cli import DATE_FORM, iso_date
from events.models import RatingType
from ratings import services


class Command(BaseCommand):
    help = (
        "Compute and publish the rating list of a list date (unless --dry-run): its period runs from the "
        "previous list date to this one and it rates every submitted event that ended on or before the "
        "closing date. Publishing a list that is already published changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--date",
            type=iso_date,
            required=True,
            metavar=DATE_FORM,
            help="the list date (the 1st of a list month of the rating policy)",
        )
        parser.add_argument(
            "--rating-type",
            choices=RatingType.values,
            default=None,
            help="one rating type; default: every type that has something to publish",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="compute and report the list without writing anything"
        )

    def handle(self, *args, date, rating_type, dry_run, **options):
        types = [rating_type] if rating_type else RatingType.values
        published = 0
        for each in types:
            try:
                outcome = services.rating_list_publish(each, date, dry_run=dry_run)
            except services.NothingToPublish as exc:
                if rating_type:
                    raise CommandError(str(exc)) from None
                self.stdout.write(f"{each} {date}: {exc}")
                continue
            except services.RatingListRefused as exc:
                raise CommandError(f"{each} {date}: {exc}") from None
            except OperationalError as exc:  # a bounded wait ran out (DATABASE_LOCK_TIMEOUT, docs/operations.md §5)
                raise CommandError(
                    f"{each} {date}: the database gave up ({str(exc).strip()}); another publication of the type "
                    "may be running: run the command again later"
                ) from None
            published += 1
            self.stdout.write(f"{each} {date}: {outcome.describe()}")
        if not published:
            raise CommandError(f"nothing to publish on {date} for any rating type")
