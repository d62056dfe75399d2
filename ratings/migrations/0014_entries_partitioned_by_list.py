"""PostgreSQL: the entries table becomes partitioned by list (one partition per rating list), so that what a
publication writes, what a page reads and what a list costs on disk do not grow with the number of lists kept
(issue 17; docs/architecture.md, "Entries: one partition per list"). SQLite is left as it is: the model's state
does not change, only PostgreSQL's storage of it.

What changes on PostgreSQL:

- ``ratings_ratinglistentry`` is ``PARTITION BY LIST (rating_list_id)``, one partition per list and no default
  partition; a publication or an import writes a list into a table of its own and attaches it when complete, a
  list the ORM creates gets an empty partition at once (ratings.services.entry_storage).
- Columns in alignment order (8-byte, 4-byte, 2-byte, 1-byte values, then text): no padding between them.
- Indexes per partition without the list id in their keys (a partition holds one list): (position),
  (federation, inactive, position), (change) where it moved, and UNIQUE (player_id) on each list's partition
  (the model's ``entry_once_per_list``). There is no index on ``id``: nothing looks an entry up by its key alone on a page; the admin reaches an entry through
  its list.
- ``id`` keeps its sequence (PostgreSQL 15 has no identity columns on partitioned tables).

Every existing list gets its partition, filled from the old table in position order. The view of current ratings
(0009) depends on the table: it is dropped and created again with the SQL copied from 0009. Reversing builds the
plain table from the model's state and copies every row back.
"""

from django.db import migrations

TABLE = "ratings_ratinglistentry"
SEQUENCE = "ratings_ratinglistentry_id_seq"

# (as in 0009; a migration must not follow later changes of the model)
CURRENT_ENTRIES = """
SELECT e.id, e.player_id, l.rating_type, e.rating, e.k_factor, e.games, e.inactive, e.rated_games_total,
    e.rating_list_id, e.last_game_date, e.rank, e.federation_rank
FROM ratings_ratinglistentry AS e
JOIN ratings_ratinglist AS l ON l.id = e.rating_list_id
WHERE l.status = 'published' AND l.superseded_by_id IS NULL
    AND NOT EXISTS (
        SELECT 1 FROM ratings_ratinglist AS n
        WHERE n.rating_type = l.rating_type AND n.status = 'published' AND n.superseded_by_id IS NULL
            AND n.list_date > l.list_date
    )
"""

# Alignment order: PostgreSQL pads each value to its type's alignment, so widest first wastes nothing.
COLUMNS = f"""
    id bigint NOT NULL DEFAULT nextval('{SEQUENCE}'),
    rating_list_id bigint NOT NULL,
    player_id bigint NOT NULL,
    pool_opponent_sum double precision NOT NULL,
    pool_score double precision NOT NULL,
    deviation double precision,
    volatility double precision,
    rated_games_total integer NOT NULL CONSTRAINT {TABLE}_rated_games_total_check CHECK (rated_games_total >= 0),
    "position" integer CONSTRAINT {TABLE}_position_check CHECK ("position" >= 0),
    rank integer CONSTRAINT {TABLE}_rank_check CHECK (rank >= 0),
    federation_rank integer CONSTRAINT {TABLE}_federation_rank_check CHECK (federation_rank >= 0),
    pool_since date,
    last_game_date date,
    rating smallint CONSTRAINT {TABLE}_rating_check CHECK (rating >= 0),
    games smallint NOT NULL CONSTRAINT {TABLE}_games_check CHECK (games >= 0),
    k_factor smallint CONSTRAINT {TABLE}_k_factor_check CHECK (k_factor >= 0),
    change smallint,
    birth_year smallint CONSTRAINT {TABLE}_birth_year_check CHECK (birth_year >= 0),
    pool_games smallint NOT NULL CONSTRAINT {TABLE}_pool_games_check CHECK (pool_games >= 0),
    pool_events smallint NOT NULL CONSTRAINT {TABLE}_pool_events_check CHECK (pool_events >= 0),
    adjustment smallint,
    inactive boolean NOT NULL,
    ever_2400 boolean NOT NULL,
    ever_2300 boolean NOT NULL,
    is_new_rating boolean NOT NULL,
    dropped_below_floor boolean NOT NULL,
    title varchar(3) NOT NULL,
    women_title varchar(3) NOT NULL,
    other_titles varchar(40) NOT NULL,
    federation varchar(3) NOT NULL,
    sex varchar(1) NOT NULL
"""
NAMES = (
    "id, rating_list_id, player_id, pool_opponent_sum, pool_score, deviation, volatility, rated_games_total, "
    '"position", rank, federation_rank, pool_since, last_game_date, rating, games, k_factor, change, birth_year, '
    "pool_games, pool_events, adjustment, inactive, ever_2400, ever_2300, is_new_rating, dropped_below_floor, "
    "title, women_title, other_titles, federation, sex"
)
# The partitioned indexes (each partition gets its own; ratings.services.entry_storage builds them on a list's
# table before attaching it, with these definitions).
PARENT_INDEXES = (
    f'CREATE INDEX entry_position ON {TABLE} ("position")',
    f'CREATE INDEX entry_federation ON {TABLE} (federation, inactive, "position")',
    f"CREATE INDEX entry_change ON {TABLE} (change) WHERE change > 0 OR change < 0",
)


def _partition(cursor, list_id: int) -> None:
    """One list's partition, filled from the old table in position order (what a publication writes)."""
    name = f"{TABLE}_{list_id}"
    cursor.execute(f"CREATE TABLE {name} (LIKE {TABLE} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
    cursor.execute(
        f"INSERT INTO {name} ({NAMES}) SELECT {NAMES} FROM {TABLE}_old WHERE rating_list_id = %s "
        'ORDER BY "position" NULLS LAST, player_id',
        [list_id],
    )
    cursor.execute(f"ALTER TABLE {name} ADD CONSTRAINT {name}_list CHECK (rating_list_id = {int(list_id)})")
    cursor.execute(f"ALTER TABLE {name} ADD CONSTRAINT {name}_player UNIQUE (player_id) WITH (fillfactor = 100)")
    cursor.execute(f"ALTER TABLE {TABLE} ATTACH PARTITION {name} FOR VALUES IN ({int(list_id)})")


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("DROP VIEW ratings_playerrating")
        cursor.execute(f"ALTER TABLE {TABLE} RENAME TO {TABLE}_old")
        cursor.execute(f"ALTER TABLE {TABLE}_old ALTER COLUMN id DROP IDENTITY")
        cursor.execute(f"CREATE SEQUENCE {SEQUENCE}")
        cursor.execute(f"CREATE TABLE {TABLE} ({COLUMNS}) PARTITION BY LIST (rating_list_id)")
        cursor.execute(f"ALTER SEQUENCE {SEQUENCE} OWNED BY {TABLE}.id")
        cursor.execute(f"SELECT setval('{SEQUENCE}', COALESCE((SELECT max(id) FROM {TABLE}_old), 0) + 1, false)")
        for statement in PARENT_INDEXES:
            cursor.execute(statement)
        cursor.execute(
            f"SELECT id FROM ratings_ratinglist UNION SELECT DISTINCT rating_list_id FROM {TABLE}_old ORDER BY 1"
        )
        for (list_id,) in cursor.fetchall():
            _partition(cursor, list_id)
        cursor.execute(f"DROP TABLE {TABLE}_old")
        cursor.execute(f"CREATE VIEW ratings_playerrating AS {CURRENT_ENTRIES}")


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("DROP VIEW ratings_playerrating")
        cursor.execute(f"ALTER TABLE {TABLE} RENAME TO {TABLE}_partitioned")
        cursor.execute(f"ALTER SEQUENCE {SEQUENCE} OWNED BY NONE")
        cursor.execute(f"ALTER SEQUENCE {SEQUENCE} RENAME TO {SEQUENCE}_partitioned")
    # the plain table exactly as the model's state describes it (columns, identity, constraints, indexes)
    schema_editor.create_model(apps.get_model("ratings", "RatingListEntry"))
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {TABLE} ({NAMES}) OVERRIDING SYSTEM VALUE SELECT {NAMES} FROM {TABLE}_partitioned")
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{TABLE}', 'id'), COALESCE(max(id), 0) + 1, false) FROM {TABLE}"
        )
        cursor.execute(f"DROP TABLE {TABLE}_partitioned CASCADE")
        cursor.execute(f"DROP SEQUENCE {SEQUENCE}_partitioned")
        cursor.execute(f"CREATE VIEW ratings_playerrating AS {CURRENT_ENTRIES}")


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0013_entry_list_federation_index"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
