"""The participants' (player) index becomes (player, event) (issue 17): the live rating reads a player's
participations from the first event awaiting rating on in the index alone, not every participation of the
player's history; every read of a player's participations uses it as it used (player).

The foreign key's own index is dropped by name rather than by AlterField: on SQLite AlterField rebuilds the
table, and the games' integrity triggers (0003), which name events_participant, refuse the rename."""

import django.db.models.deletion
from django.db import migrations, models

PLAYER_INDEX = "events_participant_player_id_9bdf8591"  # Django's name for the foreign key's index (0001)


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0007_event_results_without_opponent"),
        ("players", "0005_club"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="participant",
            index=models.Index(fields=["player", "event"], name="participant_player_event"),
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="participant",
                    name="player",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="participations",
                        to="players.player",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f"DROP INDEX IF EXISTS {PLAYER_INDEX}",
                    reverse_sql=f"CREATE INDEX {PLAYER_INDEX} ON events_participant (player_id)",
                ),
            ],
        ),
    ]
