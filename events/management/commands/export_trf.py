"""export_trf: write an event as TRF-2026 (a thin wrapper over event_export_trf).

manage.py export_trf 42 -o open2026.trf
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core.cli import number
from events.models import Event
from events.trf_services import event_export_trf


class Command(BaseCommand):
    help = "Write an event (by its number, as in /events/<pk>/) as a TRF-2026 file, to stdout or -o FILE."

    def add_arguments(self, parser):
        parser.add_argument("event", type=number, help="the event's number (primary key)")
        parser.add_argument("-o", "--output", help="write to this file instead of stdout")

    def handle(self, *args, **options):
        event = Event.objects.filter(pk=options["event"]).first()
        if event is None:
            raise CommandError(f"event {options['event']}: no such event")
        text = event_export_trf(event)
        if options["output"]:
            try:
                Path(options["output"]).write_bytes(text.encode("utf-8"))
            except OSError as exc:
                raise CommandError(f"{options['output']}: cannot write ({exc.strerror})") from None
            self.stderr.write(f"{event.name}: written to {options['output']}")
        else:
            self.stdout.write(text, ending="")
