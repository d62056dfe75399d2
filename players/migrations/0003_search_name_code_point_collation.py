"""Name searches are prefix searches ordered by name ("MARI" -> the first 50 names starting with it). On
PostgreSQL a btree under a linguistic collation (en_US.UTF-8, even C.UTF-8) cannot serve LIKE 'MARI%' as a
range, so the planner walked the name index from "A" filtering 850,000 rows for a prefix half-way down a
two-million-player register (1.3 s). Under the "C" collation (code-point order) the same index gives the range
and the order: a prefix search reads just its 50 rows. Names then sort by code point ("MARINO" before "MARIÑO"
before "MARTÍNEZ"), as SQLite's BINARY comparison already does. Django's model state is unchanged (the
collation is a PostgreSQL detail, not a field option other databases have)."""

from django.db import migrations

COLUMNS = [("players_player", "search_name")]  # the history table is not searched by name


def code_point_collation(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table, column in COLUMNS:
        schema_editor.execute(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE varchar(210) COLLATE "C"')


def default_collation(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table, column in COLUMNS:
        schema_editor.execute(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE varchar(210) COLLATE "default"')


class Migration(migrations.Migration):
    dependencies = [("players", "0002_player_merge_permission")]

    operations = [migrations.RunPython(code_point_collation, default_collation)]
