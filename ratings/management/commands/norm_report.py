"""norm_report: every player's title-norm checks in an event (B.01 1.4), a thin wrapper over event_norm_report.

manage.py norm_report 42 [--player 2200001] [--json]
"""

from django.core.management.base import BaseCommand, CommandError

from core.cli import number
from events.models import Event
from ratings.services.norms import event_norm_report, event_norm_report_json


class Command(BaseCommand):
    help = "Check every player of an event (by its number, as in /events/<pk>/) for FIDE title norms (B.01 1.4)."

    def add_arguments(self, parser):
        parser.add_argument("event", type=number, help="the event's number (primary key)")
        parser.add_argument("--player", type=number, help="only this player (ID number)")
        parser.add_argument("--json", action="store_true", help="the report as JSON, as GET /api/v1/events/<pk>/norms/")

    def handle(self, *args, **options):
        event = Event.objects.filter(pk=options["event"]).first()
        if event is None:
            raise CommandError(f"event {options['event']}: no such event")
        id_number = options["player"]
        if options["json"]:
            self.stdout.write(event_norm_report_json(event, id_number))
            return
        report = event_norm_report(event, id_number)
        if id_number is not None and not report:
            raise CommandError(f"--player {id_number}: not a participant of {event.name}")
        for line in report:
            for norm in line.norms:
                verdict = "NORM" if norm.norm else "no norm"
                self.stdout.write(
                    f"{line.id_number} {line.name}: {norm.title} {verdict} — {norm.score:g}/{len(norm.games_used)}, "
                    f"Ra {norm.average_rating}, Rp {norm.performance}"
                )
                for check in norm.checks:
                    if not check.ok:
                        self.stdout.write(f"    {check.rule}: {check.required}; has {check.actual}")
