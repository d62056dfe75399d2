"""Print a fingerprint of the database (rows and highest id per table, rating sums) to compare a restore
with its source: the two outputs must be identical (docs/operations.md, "Verify a restore")."""

from django.apps import apps
from django.core.management.base import BaseCommand
from django.db.models import CompositePrimaryKey, Count, Max, Sum

PROJECT_APPS = ("players", "events", "ratings", "audit", "outbox", "auth", "django_celery_beat")
# Sums over these columns catch a restore that has the right number of rows but not the right values.
SUMMED = {
    "ratings.RatingListEntry": ("rating", "games", "player_id"),
    "ratings.RatingChange": ("games",),
    "events.Game": ("white_id", "round"),
}


class Command(BaseCommand):
    help = "Print row counts, highest ids and rating sums per table; compare source and restored databases."

    def handle(self, *args, **options):
        for model in sorted(apps.get_models(), key=lambda m: m._meta.label):
            if model._meta.app_label not in PROJECT_APPS or not model._meta.managed or model._meta.proxy:
                continue
            label = model._meta.label
            aggregates = {"rows": Count("*")}
            if isinstance(model._meta.pk, CompositePrimaryKey):  # (the entries: player and list)
                aggregates |= {f"max_{field.attname}": Max(field.attname) for field in model._meta.pk.fields}
            else:
                aggregates["max_id"] = Max("pk")
            for column in SUMMED.get(label, ()):
                aggregates[f"sum_{column}"] = Sum(column)
            values = model._default_manager.aggregate(**aggregates)
            self.stdout.write(f"{label} " + " ".join(f"{key}={values[key]}" for key in aggregates))
