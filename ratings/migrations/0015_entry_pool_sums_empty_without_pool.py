"""An entry without a newcomer pool stores its pool sums empty (NULL, read as 0): 16 bytes less per entry of
every list kept (ratings.services.publication.POOL_SUMS). Rows already written keep their zeros: both read alike.

SQLite rebuilds the table to change a column, and refuses while the view of current ratings (0009) refers to
it: the view is dropped first and created again after, with 0014's SQL (a migration does not follow the model).
"""

import importlib

from django.db import migrations, models

VIEW = importlib.import_module("ratings.migrations.0014_entries_partitioned_by_list").CURRENT_ENTRIES


def drop_view(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute("DROP VIEW ratings_playerrating")


def create_view(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(f"CREATE VIEW ratings_playerrating AS {VIEW}")


def zeros_back(apps, schema_editor):
    """(backwards) the columns become NOT NULL again: empty sums are zeros first."""
    drop_view(apps, schema_editor)
    for column in ("pool_opponent_sum", "pool_score"):
        schema_editor.execute(f"UPDATE ratings_ratinglistentry SET {column} = 0 WHERE {column} IS NULL")


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0014_entries_partitioned_by_list'),
    ]

    operations = [
        migrations.RunPython(drop_view, create_view),
        migrations.AlterField(
            model_name='ratinglistentry',
            name='pool_opponent_sum',
            field=models.FloatField(blank=True, help_text='Empty: no pool (0)', null=True),
        ),
        migrations.AlterField(
            model_name='ratinglistentry',
            name='pool_score',
            field=models.FloatField(blank=True, help_text='Empty: no pool (0)', null=True),
        ),
        migrations.RunPython(create_view, zeros_back),
    ]
