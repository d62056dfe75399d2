"""The lists marker (issue 36): one row whose token changes whenever the rating lists change, so the current
lists' bound a process keeps (ratings.models.current_lists_bound) checks itself on each use instead of trusting
itself for five minutes.

On PostgreSQL a statement trigger on ratings_ratinglist sets a new random token for every INSERT, UPDATE, DELETE
or TRUNCATE, whoever runs it (the ORM, raw SQL, a restore), in the writer's transaction: readers see the new
token when they see the new lists. SQLite keeps no bound (entries are one table): the row only exists there.
"""

import uuid

from django.db import migrations, models

PG_FORWARD = """
CREATE FUNCTION ratings_lists_marker_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE ratings_listsmarker SET token = gen_random_uuid();
    RETURN NULL;
END
$$;
CREATE TRIGGER ratings_lists_marker_rows AFTER INSERT OR UPDATE OR DELETE ON ratings_ratinglist
    FOR EACH STATEMENT EXECUTE FUNCTION ratings_lists_marker_touch();
CREATE TRIGGER ratings_lists_marker_truncate AFTER TRUNCATE ON ratings_ratinglist
    FOR EACH STATEMENT EXECUTE FUNCTION ratings_lists_marker_touch();
"""
PG_REVERSE = """
DROP TRIGGER IF EXISTS ratings_lists_marker_rows ON ratings_ratinglist;
DROP TRIGGER IF EXISTS ratings_lists_marker_truncate ON ratings_ratinglist;
DROP FUNCTION IF EXISTS ratings_lists_marker_touch();
"""


def forward(apps, schema_editor):
    apps.get_model("ratings", "ListsMarker").objects.using(schema_editor.connection.alias).create(token=uuid.uuid4())
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PG_FORWARD)


def reverse(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PG_REVERSE)


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0020_norm_records"),
    ]

    operations = [
        migrations.CreateModel(
            name="ListsMarker",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("token", models.UUIDField(default=uuid.uuid4)),
            ],
        ),
        migrations.RunPython(forward, reverse),
    ]
