"""export_rating_list --date YYYY-MM-DD --rating-type T --format txt|csv|xml [-o FILE]."""

from django.core.management.base import BaseCommand, CommandError

from core.cli import DATE_FORM, iso_date
from events.models import RatingType
from ratings.selectors import rating_list_current
from ratings.services.export import EXPORT_FORMATS, rating_list_export


class Command(BaseCommand):
    help = (
        "Write a published rating list (its current version) in FIDE's fixed-width TXT layout, as CSV or as "
        "XML: the rated players, best first, with title, federation and birth year as published."
    )

    def add_arguments(self, parser):
        parser.add_argument("--date", type=iso_date, required=True, metavar=DATE_FORM, help="the list date")
        parser.add_argument("--rating-type", choices=RatingType.values, required=True, help="standard, rapid or blitz")
        parser.add_argument(
            "--format",
            choices=EXPORT_FORMATS,
            required=True,
            dest="fmt",
            help="txt (FIDE's layout), csv or xml",
        )
        parser.add_argument(
            "-o",
            "--output",
            metavar="FILE",
            default=None,
            help="write to FILE instead of standard output (UTF-8)",
        )

    def handle(self, *args, date, rating_type, fmt, output, **options):
        rating_list = rating_list_current(rating_type, date)
        if rating_list is None:
            raise CommandError(f"there is no published {rating_type} list of {date}")
        chunks = rating_list_export(rating_list, fmt)
        if output:
            newline = "" if fmt in ("txt", "csv") else None  # the writers already end lines with CR LF
            try:
                with open(output, "w", encoding="utf-8", newline=newline) as handle:
                    handle.writelines(chunks)
            except OSError as exc:
                raise CommandError(f"cannot write {output}: {exc.strerror}") from None
            self.stderr.write(f"wrote {rating_list} ({rating_list.rated_count} rated players) to {output}")
        else:
            for chunk in chunks:
                self.stdout.write(chunk, ending="")
