"""Rating change details on PostgreSQL: json instead of jsonb (ratings.fields.GameLinesField.db_type says why).

Other databases keep the text column they had. Reversible."""

from django.db import migrations


def column_type(type_name):
    def alter(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(
                f"ALTER TABLE ratings_ratingchange ALTER COLUMN details TYPE {type_name} USING details::{type_name}"
            )

    return alter


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0009_current_ratings_view'),
    ]

    operations = [
        migrations.RunPython(column_type("json"), column_type("jsonb")),
    ]
