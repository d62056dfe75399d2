"""PlayerRating pages keep room for a new version of each row (PostgreSQL fillfactor), so a publication updates
the rows of two million players in place without touching an index (HOT updates) instead of rewriting the
table and its indexes. Other databases have no such setting."""

from django.db import migrations

FILLFACTOR = 45  # a page holds each row and its next version until vacuum reclaims the old one


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE ratings_playerrating SET (fillfactor = {FILLFACTOR})")


def reverse(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE ratings_playerrating RESET (fillfactor)")


class Migration(migrations.Migration):
    dependencies = [("ratings", "0005_derived_rows_lean_writes")]
    operations = [migrations.RunPython(forward, reverse)]
