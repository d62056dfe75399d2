"""Games lose their own indexes on event, white and black (issue 36): game_event_round (event, round) and the
unique constraints (white, round) and (black, round) begin with the same columns and serve the same look-ups,
and a TRF import of 103,896 games spent half of its inserts keeping the three extra copies.

The indexes are dropped by name, not by AlterField: on SQLite AlterField rebuilds the table, which would drop the
integrity triggers of migration 0003 with it.

SQLite's triggers of 0003 ask "is one of the game's players in another game of the round" as one OR of two IN
lists, which SQLite answers with a multi-index OR (a temporary row set per insert); the same question as four
look-ups, one per column and player, each a probe of a unique index, refuses exactly the same rows in half the
time. PostgreSQL's function is unchanged.
"""

import django.db.models.deletion
from django.db import migrations, models

_SQLITE_ONCE_PER_ROUND_BEFORE = """
    SELECT RAISE(ABORT, 'game_participant_once_per_round: a participant plays at most once per round')
    WHERE EXISTS (
        SELECT 1 FROM events_game g
        WHERE g.round = NEW.round AND g.id IS NOT NEW.id
          AND (g.white_id IN (NEW.white_id, NEW.black_id) OR g.black_id IN (NEW.white_id, NEW.black_id))
    );"""
_SQLITE_ONCE_PER_ROUND = """
    SELECT RAISE(ABORT, 'game_participant_once_per_round: a participant plays at most once per round')
    WHERE EXISTS (SELECT 1 FROM events_game g WHERE g.white_id = NEW.white_id AND g.round = NEW.round
                  AND g.id IS NOT NEW.id)
       OR EXISTS (SELECT 1 FROM events_game g WHERE g.black_id = NEW.white_id AND g.round = NEW.round
                  AND g.id IS NOT NEW.id)
       OR EXISTS (SELECT 1 FROM events_game g WHERE g.white_id = NEW.black_id AND g.round = NEW.round
                  AND g.id IS NOT NEW.id)
       OR EXISTS (SELECT 1 FROM events_game g WHERE g.black_id = NEW.black_id AND g.round = NEW.round
                  AND g.id IS NOT NEW.id);"""
_SQLITE_OF_EVENT = """
    SELECT RAISE(ABORT, 'game_participant_of_event: a game''s players must be participants of its event')
    WHERE (SELECT event_id FROM events_participant WHERE id = NEW.white_id) IS NOT NEW.event_id
       OR (NEW.black_id IS NOT NULL
           AND (SELECT event_id FROM events_participant WHERE id = NEW.black_id) IS NOT NEW.event_id);"""


def _sqlite_triggers(once_per_round: str) -> list[str]:
    body = f"BEGIN{_SQLITE_OF_EVENT}{once_per_round}\nEND;"
    return [
        "DROP TRIGGER IF EXISTS events_game_integrity_insert;",
        "DROP TRIGGER IF EXISTS events_game_integrity_update;",
        f"CREATE TRIGGER events_game_integrity_insert BEFORE INSERT ON events_game FOR EACH ROW {body}",
        f"CREATE TRIGGER events_game_integrity_update BEFORE UPDATE ON events_game FOR EACH ROW {body}",
    ]


def _triggers(once_per_round: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "sqlite":
            for statement in _sqlite_triggers(once_per_round):
                schema_editor.execute(statement)

    return run


INDEXES = {
    "event_id": "events_game_event_id_b8663115",
    "white_id": "events_game_white_id_77810843",
    "black_id": "events_game_black_id_6e0a26bd",
}


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0011_integrity_checks_of_membership"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{name}"', reverse_sql=f'CREATE INDEX "{name}" ON "events_game" ("{column}")'
                )
                for column, name in INDEXES.items()
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="game",
                    name="black",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="games_black",
                        to="events.participant",
                    ),
                ),
                migrations.AlterField(
                    model_name="game",
                    name="event",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="games",
                        to="events.event",
                    ),
                ),
                migrations.AlterField(
                    model_name="game",
                    name="white",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="games_white",
                        to="events.participant",
                    ),
                ),
            ],
        ),
        migrations.RunPython(_triggers(_SQLITE_ONCE_PER_ROUND), _triggers(_SQLITE_ONCE_PER_ROUND_BEFORE)),
    ]
