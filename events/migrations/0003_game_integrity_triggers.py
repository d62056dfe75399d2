"""Database-level integrity for games that a single-table constraint cannot express.

A participant plays at most once per round, whether as white or black, and only in games of their own
event. The unique constraints of 0001 catch "white twice" and "black twice"; these triggers catch the
cross-column case (white in one game, black in another) and participants from another event. They exist for
PostgreSQL and SQLite so both databases refuse the same things.
"""
from django.db import migrations

PG_FORWARD = """
CREATE OR REPLACE FUNCTION events_game_integrity() RETURNS trigger AS $$
BEGIN
    IF (SELECT event_id FROM events_participant WHERE id = NEW.white_id) IS DISTINCT FROM NEW.event_id
       OR (NEW.black_id IS NOT NULL
           AND (SELECT event_id FROM events_participant WHERE id = NEW.black_id) IS DISTINCT FROM NEW.event_id)
    THEN
        RAISE EXCEPTION 'game_participant_of_event: a game''s players must be participants of its event'
            USING ERRCODE = 'check_violation';
    END IF;
    IF EXISTS (
        SELECT 1 FROM events_game g
        WHERE g.round = NEW.round AND g.id <> NEW.id
          AND (g.white_id IN (NEW.white_id, NEW.black_id) OR g.black_id IN (NEW.white_id, NEW.black_id))
    ) THEN
        RAISE EXCEPTION USING ERRCODE = 'unique_violation',
            MESSAGE = 'game_participant_once_per_round: a participant plays at most once in round ' || NEW.round;
    END IF;
    RETURN NEW;
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER events_game_integrity BEFORE INSERT OR UPDATE ON events_game
    FOR EACH ROW EXECUTE FUNCTION events_game_integrity();
"""
PG_REVERSE = """
DROP TRIGGER IF EXISTS events_game_integrity ON events_game;
DROP FUNCTION IF EXISTS events_game_integrity();
"""

_SQLITE_CHECKS = """
BEGIN
    SELECT RAISE(ABORT, 'game_participant_of_event: a game''s players must be participants of its event')
    WHERE (SELECT event_id FROM events_participant WHERE id = NEW.white_id) IS NOT NEW.event_id
       OR (NEW.black_id IS NOT NULL
           AND (SELECT event_id FROM events_participant WHERE id = NEW.black_id) IS NOT NEW.event_id);
    SELECT RAISE(ABORT, 'game_participant_once_per_round: a participant plays at most once per round')
    WHERE EXISTS (
        SELECT 1 FROM events_game g
        WHERE g.round = NEW.round AND g.id IS NOT NEW.id
          AND (g.white_id IN (NEW.white_id, NEW.black_id) OR g.black_id IN (NEW.white_id, NEW.black_id))
    );
END;
"""
SQLITE_FORWARD = [
    "CREATE TRIGGER events_game_integrity_insert BEFORE INSERT ON events_game FOR EACH ROW " + _SQLITE_CHECKS,
    "CREATE TRIGGER events_game_integrity_update BEFORE UPDATE ON events_game FOR EACH ROW " + _SQLITE_CHECKS,
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS events_game_integrity_insert;",
    "DROP TRIGGER IF EXISTS events_game_integrity_update;",
]


def forward(apps, schema_editor):
    statements = [PG_FORWARD] if schema_editor.connection.vendor == "postgresql" else SQLITE_FORWARD
    for sql in statements:
        schema_editor.execute(sql)


def reverse(apps, schema_editor):
    statements = [PG_REVERSE] if schema_editor.connection.vendor == "postgresql" else SQLITE_REVERSE
    for sql in statements:
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("events", "0002_initial")]
    operations = [migrations.RunPython(forward, reverse)]
