"""The entries' federation index loses its ``inactive`` column: (federation, position) per list.

A federation's active lines (top lists, the federation page) walk the index in position order and skip the
inactive ones on the rows they read anyway; the index is 7 bytes an entry smaller for it (28 -> 21 on the
bench/history.py federation: a fifth of the entries' indexes; issue 17, <= 150 bytes an entry). SQLite's index
(rating_list, federation, inactive, position) becomes (rating_list, federation, position) the same way; on
PostgreSQL the partitioned index ``entry_federation`` (ratings 0014) is built again on every list's partition.
"""

from django.db import migrations, models

OLD = models.Index(fields=["rating_list", "federation", "inactive", "position"], name="entry_list_federation")
NEW = models.Index(fields=["rating_list", "federation", "position"], name="entry_list_federation")
TABLE = "ratings_ratinglistentry"


def _swap(apps, schema_editor, old: models.Index, new: models.Index, columns: str) -> None:
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("DROP INDEX IF EXISTS entry_federation")
            cursor.execute(f"CREATE INDEX entry_federation ON {TABLE} ({columns}) WITH (fillfactor = 100)")
        return
    model = apps.get_model("ratings", "RatingListEntry")
    schema_editor.remove_index(model, old)
    schema_editor.add_index(model, new)


def forwards(apps, schema_editor):
    _swap(apps, schema_editor, OLD, NEW, 'federation, "position"')


def backwards(apps, schema_editor):
    _swap(apps, schema_editor, NEW, OLD, 'federation, inactive, "position"')


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0015_entry_pool_sums_empty_without_pool"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex(model_name="ratinglistentry", name="entry_list_federation"),
                migrations.AddIndex(model_name="ratinglistentry", index=NEW),
            ],
            database_operations=[migrations.RunPython(forwards, backwards)],
        )
    ]
