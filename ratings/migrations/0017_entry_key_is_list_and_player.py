"""An entry's key is its player and list (a composite primary key): the surrogate ``id`` goes, and on PostgreSQL
the list and player columns take 4 bytes each (issue 17, <= 150 bytes an entry including indexes).

Why: a partition of two million lines paid 8 bytes a line for ``id`` (and a sequence value drawn for each row a
publication writes), and 16 for two 8-byte keys where list ids and player ids stay below 2**31. PostgreSQL pads
each row to 8 bytes: either change alone takes a typical line's tuple from 104 to 96 bytes (about 158 bytes an
entry with indexes), both to 88, under 150 (docs/architecture.md, "Entries: one partition per list"). The unique
index on (player) each partition had becomes the partition's share of the primary key (player_id,
rating_list_id): the same 20 bytes an entry.

What else changes:

- ``ratings_ratinglistentry_row``, a view of the entries with a single key for each (list id * 2**32 + player id,
  ratings.models.entry_key): Django's admin cannot register a model with a composite key, so the admin reads
  the entries through it (RatingListEntryRow).
- The view of current ratings (0009) takes the same key as its ``id``.
- Merge records (players.PlayerMerge.moved) named the entries they moved by ``id``; they now name them by list
  (players.services.PlayerRows ``identity``: an entry's player changes in a merge, its list does not).

PostgreSQL rebuilds every list's partition (columns in alignment order, as 0014); SQLite rebuilds the table.
Both ways, the rows are kept; reversing gives every entry a new ``id``.
"""

import importlib

from django.db import migrations, models

TABLE = "ratings_ratinglistentry"
SEQUENCE = "ratings_ratinglistentry_id_seq"
ROW_VIEW = "ratings_ratinglistentry_row"
_0014 = importlib.import_module("ratings.migrations.0014_entries_partitioned_by_list")
KEY = "rating_list_id * 4294967296 + player_id"  # (ratings.models.entry_key, as of this migration)

# (as in 0014, the list and player in 4 bytes among the 4-byte values, without id)
COLUMNS = f"""
    pool_opponent_sum double precision,
    pool_score double precision,
    deviation double precision,
    volatility double precision,
    player_id integer NOT NULL,
    rating_list_id integer NOT NULL,
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
    sex varchar(1) NOT NULL,
    PRIMARY KEY (player_id, rating_list_id)
"""
NAMES = _0014.NAMES.removeprefix("id, ")
# the old layout (0014 to 0016): 0014's columns; 0016's federation index
OLD_COLUMNS = _0014.COLUMNS.replace("pool_opponent_sum double precision NOT NULL", "pool_opponent_sum double precision")
OLD_COLUMNS = OLD_COLUMNS.replace("pool_score double precision NOT NULL", "pool_score double precision")  # (0015)
# a list's partition indexes (ratings.services.entry_storage, as of this migration), and the parent's
PARTITION_INDEXES = (('"position"', ""), ('federation, "position"', ""), ("change", " WHERE change > 0 OR change < 0"))
PARENT_INDEXES = ("entry_position", "entry_federation", "entry_change")

CURRENT_ENTRIES = _0014.CURRENT_ENTRIES.replace(
    "SELECT e.id,", "SELECT e.rating_list_id * 4294967296 + e.player_id AS id,"  # (KEY, on the entries' alias)
)
ROW = f"SELECT {KEY} AS id, {NAMES} FROM {TABLE}"


def _rebuild_postgresql(cursor, columns: str, names: str, key: str) -> None:
    """Every list's partition written again into a new entries table of ``columns`` (``key``: the partition's
    share of the key, added to it before it is attached)."""
    cursor.execute(f"DROP VIEW IF EXISTS {ROW_VIEW}")
    cursor.execute("DROP VIEW ratings_playerrating")
    cursor.execute(f"ALTER TABLE {TABLE} RENAME TO {TABLE}_old")
    for index in PARENT_INDEXES:
        cursor.execute(f"ALTER INDEX {index} RENAME TO {index}_old")
    cursor.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        f"WHERE i.inhparent = '{TABLE}_old'::regclass ORDER BY 1"
    )
    partitions = [name for (name,) in cursor.fetchall()]
    if "id bigint" in columns:
        cursor.execute(f"CREATE SEQUENCE {SEQUENCE}")
    cursor.execute(f"CREATE TABLE {TABLE} ({columns}) PARTITION BY LIST (rating_list_id)")
    if "id bigint" in columns:
        cursor.execute(f"ALTER SEQUENCE {SEQUENCE} OWNED BY {TABLE}.id")
    for index, (expression, where) in zip(PARENT_INDEXES, PARTITION_INDEXES, strict=True):
        cursor.execute(f"CREATE INDEX {index} ON {TABLE} ({expression}){where}")
    for name in partitions:
        list_id = int(name.rsplit("_", 1)[1])
        cursor.execute(f"CREATE TABLE {name}_new (LIKE {TABLE} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
        cursor.execute(
            f"INSERT INTO {name}_new ({names}) SELECT {names} FROM {name} "
            'ORDER BY "position" NULLS LAST, player_id'
        )
        cursor.execute(f"DROP TABLE {name}")
        cursor.execute(f"ALTER TABLE {name}_new RENAME TO {name}")
        for number, (expression, where) in enumerate(PARTITION_INDEXES):
            cursor.execute(f"CREATE INDEX {name}_{number} ON {name} ({expression}) WITH (fillfactor = 100){where}")
        cursor.execute(f"ALTER TABLE {name} ADD CONSTRAINT {name}_{key[0]} {key[1]} WITH (fillfactor = 100)")
        cursor.execute(f"ALTER TABLE {name} ADD CONSTRAINT {name}_list CHECK (rating_list_id = {list_id})")
        cursor.execute(f"ALTER TABLE {TABLE} ATTACH PARTITION {name} FOR VALUES IN ({list_id})")
        cursor.execute(f"ANALYZE {name}")
    cursor.execute(f"DROP TABLE {TABLE}_old")


def _rebuild_sqlite(apps, schema_editor, names: str) -> None:
    """The entries table created again from the model as ``apps`` has it, with every row."""
    model = apps.get_model("ratings", "RatingListEntry")
    schema_editor.execute(f"DROP VIEW IF EXISTS {ROW_VIEW}")
    schema_editor.execute("DROP VIEW ratings_playerrating")
    schema_editor.execute(f"ALTER TABLE {TABLE} RENAME TO {TABLE}_old")
    for index in ("entry_list_position", "entry_list_federation", "entry_list_change", "entry_once_per_list"):
        schema_editor.execute(f"DROP INDEX IF EXISTS {index}")
    schema_editor.create_model(model)
    schema_editor.execute(f"INSERT INTO {TABLE} ({names}) SELECT {names} FROM {TABLE}_old")
    schema_editor.execute(f"DROP TABLE {TABLE}_old")


def to_key(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            _rebuild_postgresql(cursor, COLUMNS, NAMES, ("pkey", "PRIMARY KEY (player_id, rating_list_id)"))
    else:
        _rebuild_sqlite(apps, schema_editor, NAMES)
    schema_editor.execute(f"CREATE VIEW ratings_playerrating AS {CURRENT_ENTRIES}")
    schema_editor.execute(f"CREATE VIEW {ROW_VIEW} AS {ROW}")


def to_id(apps, schema_editor):
    """(backwards) the 0016 layout: an ``id`` from a new sequence, 8-byte keys, UNIQUE (player) a partition."""
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            _rebuild_postgresql(cursor, OLD_COLUMNS, NAMES, ("player", "UNIQUE (player_id)"))
    else:
        _rebuild_sqlite(apps, schema_editor, NAMES)
    schema_editor.execute(f"CREATE VIEW ratings_playerrating AS {_0014.CURRENT_ENTRIES}")


def _entries_moved(merge) -> list[tuple[list, str]]:
    """(ids, player) of each list of entries a merge record names: those moved (now the kept player's, or the
    merged one's again if reversed) and those left on the merged player."""
    moved = merge.moved or {}
    holder = "merged" if merge.reversed_at else "kept"
    found = []
    if isinstance(moved.get("list_entries"), list):
        found.append((moved["list_entries"], holder))
    left = moved.get("left_on_merged") or {}
    if isinstance(left.get("list_entries"), list):
        found.append((left["list_entries"], "merged"))
    return found


def _merge_records(apps, schema_editor, forwards: bool) -> None:
    """Merge records name moved entries by list (forwards) or by id (backwards)."""
    merges = apps.get_model("players", "PlayerMerge").objects.using(schema_editor.connection.alias)
    with schema_editor.connection.cursor() as cursor:
        for merge in merges.all():
            for ids, holder in _entries_moved(merge):
                player = getattr(merge, f"{holder}_id")
                if not ids:
                    continue
                marks = ", ".join(["%s"] * len(ids))
                if forwards:
                    cursor.execute(f"SELECT id, rating_list_id FROM {TABLE} WHERE id IN ({marks})", ids)
                else:
                    cursor.execute(
                        f"SELECT rating_list_id, id FROM {TABLE} WHERE player_id = %s AND rating_list_id IN ({marks})",
                        [player, *ids],
                    )
                new = dict(cursor.fetchall())
                ids[:] = sorted(new.get(value, value) for value in ids)
            merge.save(update_fields=["moved"])


def merges_by_list(apps, schema_editor):
    _merge_records(apps, schema_editor, forwards=True)


def merges_by_id(apps, schema_editor):
    _merge_records(apps, schema_editor, forwards=False)


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0016_entry_federation_index_without_inactive"),
        ("players", "0005_club"),
    ]

    operations = [
        # forwards: merge records first (the ids still exist); backwards: last (the ids exist again)
        migrations.RunPython(merges_by_list, merges_by_id),
        # backwards only: the table as the model was before (this operation's state)
        migrations.RunPython(migrations.RunPython.noop, to_id),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="RatingListEntryRow",
                    fields=[],
                    options={
                        "verbose_name": "rating list entry",
                        "verbose_name_plural": "rating list entries",
                        "db_table": ROW_VIEW,
                        "ordering": ["rating_list", "position", "player_id"],
                        "managed": False,
                    },
                ),
                migrations.RemoveConstraint(model_name="ratinglistentry", name="entry_once_per_list"),
                migrations.RemoveField(model_name="ratinglistentry", name="id"),
                migrations.AddField(
                    model_name="ratinglistentry",
                    name="pk",
                    field=models.CompositePrimaryKey(
                        "player_id", "rating_list_id", blank=True, editable=False, primary_key=True, serialize=False
                    ),
                ),
            ]
        ),
        # forwards only: the table as the model is now
        migrations.RunPython(to_key, migrations.RunPython.noop),
    ]
