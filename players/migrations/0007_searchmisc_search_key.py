"""Player.search_key: a name's words folded ("García López, Ana" -> "garcia lopez ana"), so that a search finds
"García" stored as "Garcia" (and the reverse), "Elena Moreno" and "Moreno, Elena", and any word of a name (issue
32). Filled here for the players already registered, in batches.

On PostgreSQL the column takes the "C" collation (code-point ranges, as search_name: migration 0003) and, where
the pg_trgm extension can be created, a trigram index that serves a word found anywhere in the key
(LIKE '% moreno%'). Without pg_trgm (or on SQLite, meant for small federations) such a search reads the key
column whole."""

from django.db import migrations, models, transaction

from players.names import name_search_key

BATCH = 5000


def fill_search_keys(apps, schema_editor):
    Player = apps.get_model("players", "Player")
    last = 0
    while True:
        batch = list(Player.objects.filter(pk__gt=last).order_by("pk").only("pk", "surname", "given_names")[:BATCH])
        if not batch:
            return
        for player in batch:
            name = f"{player.surname}, {player.given_names}" if player.given_names else player.surname
            player.search_key = name_search_key(name)
        Player.objects.bulk_update(batch, ["search_key"])
        last = batch[-1].pk


def code_point_collation(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute('ALTER TABLE "players_player" ALTER COLUMN "search_key" TYPE varchar(210) COLLATE "C"')


def trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    try:
        with transaction.atomic():  # a savepoint: a refused CREATE EXTENSION leaves the migration going
            schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except Exception:
        return
    schema_editor.execute(
        "CREATE INDEX IF NOT EXISTS player_search_key_trgm ON players_player USING gin (search_key gin_trgm_ops)"
    )


def drop_trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS player_search_key_trgm")


class Migration(migrations.Migration):
    dependencies = [("players", "0006_merge_record_names_entries_by_list")]

    operations = [
        migrations.AddField(
            model_name="historicalplayer",
            name="search_key",
            field=models.CharField(default="", editable=False, max_length=210),
        ),
        migrations.AddField(
            model_name="player",
            name="search_key",
            field=models.CharField(default="", editable=False, max_length=210),
        ),
        migrations.RunPython(code_point_collation, migrations.RunPython.noop),
        migrations.RunPython(fill_search_keys, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="player",
            index=models.Index(fields=["search_key"], name="player_search_key"),
        ),
        migrations.RunPython(trigram_index, drop_trigram_index),
    ]
