"""import_trf: create an event from a TRF16 / TRF-2026 file (a thin wrapper over event_import_trf).

    manage.py import_trf open2026.trf --rating-type rapid --submit

Problems are printed one a line (``file:line:column: severity: message``); a refused file imports nothing
and the command exits non-zero with the first reason. A file larger than the upload's limit
(TRF_UPLOAD_MAX_BYTES, 2 MiB) is refused after reading no more than the limit.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from events.models import RatingType
from events.trf_services import event_import_trf


class Command(BaseCommand):
    help = (
        "Create an event from a FIDE tournament report file (TRF16, TRF-2026, TRF06; any encoding and line "
        "ending). Players are matched by the ID number column, others are created for review. A file with "
        "any error imports nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the TRF file (.trf, .txt, .tab)")
        parser.add_argument(
            "--rating-type",
            choices=RatingType.values,
            help=(
                "standard, rapid or blitz (default: as the file says in 092/012/122; a file that names none is "
                "imported as a draft without one, with a warning, until the rating type is chosen in the event)"
            ),
        )
        parser.add_argument("--submit", action="store_true", help="submit the event for rating at once")

    def handle(self, *args, **options):
        path = Path(options["file"])
        limit = settings.TRF_UPLOAD_MAX_BYTES  # the upload's limit (events/admin/upload.py)
        try:
            with open(path, "rb") as handle:
                data = handle.read(limit + 1)  # never more than the limit: one byte more tells "too large"
        except OSError as exc:
            raise CommandError(f"{path}: cannot read the file ({exc.strerror})") from None
        if len(data) > limit:
            raise CommandError(
                f"{path.name} has more than {limit:,} bytes; a TRF file may have at most {limit:,} bytes "
                "(TRF_UPLOAD_MAX_BYTES); nothing imported"
            )
        outcome = event_import_trf(
            data, file_name=path.name, user=None, rating_type=options["rating_type"], submit=options["submit"]
        )
        for problem in outcome.problems:
            where = f"{path.name}:{problem.line}" + (f":{problem.column}" if problem.column else "")
            self.stderr.write(f"{where}: {problem.severity}: {problem.message}")
        if outcome.event is None:
            raise CommandError(f"{path.name}: {outcome.refusal_message()}")
        for suggestion in outcome.likely_duplicates:
            candidates = "; ".join(f"{candidate} ({reason})" for candidate, reason in suggestion.matches)
            self.stderr.write(f"likely duplicate: new player {suggestion.player} may be {candidates}")
        self.stdout.write(f"{path.name}: {outcome.summary()}")
