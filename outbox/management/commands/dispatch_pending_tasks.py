from django.core.management.base import BaseCommand, CommandError

from outbox.services import pending_tasks_dispatch


class Command(BaseCommand):
    help = (
        "Send the queued Celery tasks that could not reach the broker when their change was saved "
        "(the periodic task outbox.dispatch_pending_tasks does the same every minute)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--min-age",
            type=int,
            default=None,
            metavar="SECONDS",
            help="only tasks queued at least this long ago (default: OUTBOX_RETRY_AFTER_SECONDS)",
        )
        parser.add_argument("--limit", type=int, default=500, help="at most this many tasks (default 500)")

    def handle(self, *args, min_age, limit, **options):
        if limit < 1 or (min_age is not None and min_age < 0):
            raise CommandError("--limit must be at least 1 and --min-age at least 0")
        report = pending_tasks_dispatch(min_age_seconds=min_age, limit=limit)
        if report.failed:
            raise CommandError(
                f"broker unreachable after sending {report.sent}: {report.error}; "
                f"{report.pending} task(s) still pending"
            )
        self.stdout.write(f"sent {report.sent} task(s); {report.pending} still pending")
