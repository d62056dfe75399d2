"""``import_memberships FILE [--federation CODE]``: memberships from CSV, refused as a whole with every bad line
named (issue 35). Thin: membership.services.imports does the work."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from membership.services.imports import memberships_import_csv


class Command(BaseCommand):
    help = (
        "Import memberships from a CSV file with the columns id_number, category, start (YYYY-MM-DD) and "
        "optionally end. Any bad line refuses the whole file (nothing is written) and is named by number."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="The CSV file (UTF-8)")
        parser.add_argument(
            "--federation", default="", help="The federation whose categories the file names (default: FEDERATION_CODE)"
        )

    def handle(self, *args, file: Path, federation: str, **options):
        try:
            data = file.read_bytes()
        except OSError as error:
            raise CommandError(f"{file}: cannot be read ({error.strerror})")
        result = memberships_import_csv(data, user=None, federation=federation, file_name=file.name)
        if result.refused:
            for problem in result.problems:
                self.stderr.write(f"{file.name}: {problem}")
            raise CommandError(f"{file.name}: refused, nothing imported ({len(result.problems)} problem(s) listed)")
        self.stdout.write(f"{file.name}: {result.written} memberships imported")
