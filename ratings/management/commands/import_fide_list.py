"""import_fide_list: load a FIDE rating-list download as the published list of a date.

    manage.py import_fide_list players_list_foa.txt --list-date 2026-10-01
    manage.py import_fide_list players_list.zip --list-date 2026-10-01          (the ZIP as downloaded)
    manage.py import_fide_list rapid_rating_list.txt --list-date 2026-10-01 --rating-type rapid

A file (or a ZIP's member) larger than FIDE_LIST_MAX_BYTES (2 GiB) or a damaged ZIP is refused, naming it.

A thin wrapper over ratings.services.fide_list_import.fide_list_import. Progress goes to stderr every 100,000
rows: on a terminal (stdout and stderr both a TTY) as one bar redrawn in place with the share of the file read,
rows, rows per second and the time left; otherwise (a log, a pipe) as one line each time. --quiet: none.
"""

import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from core.cli import DATE_FORM, iso_date
from events.models import RatingType
from ratings.fide_list import FideListFormatError, fide_list_source
from ratings.services.fide_list_import import fide_list_import

BAR_WIDTH = 30


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds + 0.5), 60)
    return f"{minutes}:{seconds:02d}"


class CountingReader:
    """A binary stream that counts the bytes read, for the progress bar."""

    def __init__(self, stream, total: int):
        self.stream = stream
        self.total = total
        self.done = 0

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.done += len(data)
        return data


class Command(BaseCommand):
    help = (
        "Load a FIDE rating-list download (combined TXT with or without FOA, single-type TXT, XML, or the "
        "ZIP holding one of them; recognised by content) as the published list of --list-date for each "
        "rating type it carries: players created or updated by FIDE ID, ratings, games and K recorded."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the downloaded list: .txt, .xml, or the .zip as FIDE serves it")
        parser.add_argument(
            "--list-date", type=iso_date, required=True, metavar=DATE_FORM, help="the list's date (e.g. 2026-10-01)"
        )
        parser.add_argument(
            "--rating-type",
            action="append",
            choices=RatingType.values,
            dest="rating_types",
            help="import only this rating type (repeatable; default: every type in the file). For a "
            "single-type list, whose header names only the month, this names its type (else it is taken "
            "from the file name, or standard).",
        )
        parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")

    def handle(self, *args, **options):
        list_date = options["list_date"]
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        started = time.monotonic()
        with open(path, "rb") as handle:
            try:  # a ZIP's one member, or the file; damage and size are refused while it is read
                source_name, size, raw = fide_list_source(handle, path.name, max_bytes=settings.FIDE_LIST_MAX_BYTES)
            except FideListFormatError as exc:
                raise CommandError(str(exc)) from None
            stream = CountingReader(raw, size)

            on_terminal = self.stdout.isatty() and self.stderr.isatty()
            bar_open = False  # a bar drawn and not yet ended by a newline

            def progress(rows: int) -> None:
                nonlocal bar_open
                if options["quiet"]:
                    return
                share = min(stream.done / stream.total, 1.0) if stream.total else 1.0
                filled = int(BAR_WIDTH * share)
                elapsed = max(time.monotonic() - started, 1e-9)
                line = (
                    f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {share:4.0%} {rows:>10,} rows "
                    f"{rows / elapsed:>9,.0f} rows/s"
                )
                if on_terminal:  # one bar, redrawn in place; the summary starts on the next line
                    left = elapsed * (1 - share) / share if share else 0
                    sys.stderr.write(f"\r{line}  {_duration(left)} left\x1b[K")
                    bar_open = True
                else:
                    sys.stderr.write(line + "\n")
                sys.stderr.flush()

            try:
                outcome = fide_list_import(
                    stream,
                    list_date=list_date,
                    rating_types=options["rating_types"],
                    progress=progress,
                    source_name=source_name,
                )
            except ValidationError as exc:
                raise CommandError(" ".join(exc.messages)) from None
            finally:
                if bar_open:
                    sys.stderr.write("\n")
        for problem in outcome.problems[:20]:
            self.stderr.write(f"{source_name}: {problem}")
        if outcome.problem_count > 20:
            self.stderr.write(f"{source_name}: ... {outcome.problem_count - 20:,} more problem(s)")
        for rating_type in outcome.current_ratings_skipped:
            self.stderr.write(
                f"{rating_type}: a later {rating_type} list is already published; players' current ratings "
                "were left as they are"
            )
        elapsed = time.monotonic() - started
        self.stdout.write(f"{outcome.summary()} in {elapsed:.1f} s")
