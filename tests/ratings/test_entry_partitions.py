"""PostgreSQL keeps each list's entries in a partition of its own (ratings 0014, ratings.services.entry_storage);
SQLite keeps one plain table, and both show the same lists."""

import importlib
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from players.models import Player
from ratings.models import PlayerRating, RatingList, RatingListEntry
from ratings.services.entry_storage import entry_table
from ratings.services.publication import rating_list_publish
from tests.ratings.scenarios import MAR, build_federation

migration = importlib.import_module("ratings.migrations.0014_entries_partitioned_by_list")

pytestmark = pytest.mark.django_db


def _entries_by_list() -> dict[int, list[tuple]]:
    rows = RatingListEntry.objects.order_by("rating_list_id", "player_id").values_list(
        "rating_list_id", "player_id", "rating", "games", "k_factor", "position", "rank", "federation"
    )
    out: dict[int, list[tuple]] = {}
    for row in rows:
        out.setdefault(row[0], []).append(row[1:])
    return out


def _scalar(sql: str, params=()) -> object:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def _partitions() -> dict[str, str]:
    """Each partition of the entries table -> its bound (FOR VALUES IN (..) / DEFAULT)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i JOIN pg_class c ON c.oid = "
            "i.inhrelid WHERE i.inhparent = 'ratings_ratinglistentry'::regclass"
        )
        return dict(cursor.fetchall())


def _publish_march() -> RatingList:
    build_federation()
    rating_list_publish("standard", MAR)
    return RatingList.objects.get(list_date=MAR)


def test_sqlite_keeps_one_table_and_the_migration_does_nothing_there():
    if connection.vendor == "postgresql":
        pytest.skip("the SQLite side of the storage; PostgreSQL's partitions are tested below")
    march = _publish_march()
    assert entry_table(march.pk) == "ratings_ratinglistentry"
    before = _entries_by_list()
    editor = SimpleNamespace(connection=connection)  # (both return before using anything else)
    migration.forwards(apps, editor)
    migration.backwards(apps, editor)
    assert _entries_by_list() == before


def test_a_published_list_is_a_partition_of_its_own_with_compact_indexes():
    if connection.vendor != "postgresql":
        pytest.skip("partitions are PostgreSQL's storage of the entries; SQLite keeps one table")
    march = _publish_march()
    january = RatingList.objects.exclude(pk=march.pk).get()
    name = f"ratings_ratinglistentry_{march.pk}"
    # every list has its partition and nothing else does: no default partition (attaching would lock it)
    assert _partitions() == {
        name: f"FOR VALUES IN ({march.pk})",
        f"ratings_ratinglistentry_{january.pk}": f"FOR VALUES IN ({january.pk})",
    }
    # the January list was created and written row by row by the test (the ORM): its partition came with it
    assert _scalar(f"SELECT count(*) FROM ratings_ratinglistentry_{january.pk}") == 5
    assert _scalar(f"SELECT count(*) FROM {name}") == march.entry_count == 7
    # the partition's indexes are the entries table's own (adopted at attach, not built twice), plus the
    # unique player per list, and none of them carries the list id
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_indexdef(x.indexrelid), EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = "
            "x.indexrelid) FROM pg_index x WHERE x.indrelid = %s::regclass ORDER BY 1",
            [name],
        )
        indexes = cursor.fetchall()
    filled = " WITH (fillfactor='100')"  # written once: full index pages
    assert sorted((d.split(" USING ")[1], a) for d, a in indexes) == sorted(
        [
            (f'btree ("position"){filled}', True),
            (f"btree (change){filled} WHERE ((change > 0) OR (change < 0))", True),
            (f'btree (federation, "position"){filled}', True),
            # the list's share of the entries' primary key (ratings 0017)
            (f"btree (player_id, rating_list_id){filled}", True),
        ]
    )
    # an entry has no id of its own; its list and player take 4 bytes each (ratings 0017)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = %s::regclass "
            "AND attname IN ('id', 'rating_list_id', 'player_id') AND NOT attisdropped ORDER BY 1",
            [name],
        )
        assert cursor.fetchall() == [("player_id", "integer"), ("rating_list_id", "integer")]
    # a page of the list reads its partition alone
    with connection.cursor() as cursor:
        cursor.execute(
            "EXPLAIN SELECT * FROM ratings_ratinglistentry WHERE rating_list_id = %s AND position > 0 "
            "ORDER BY position LIMIT 50",
            [march.pk],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert name in plan, plan
    assert f"ratings_ratinglistentry_{january.pk}" not in plan, plan
    # current ratings (the view) follow the new list through the partition
    assert PlayerRating.objects.filter(rating_list=march).count() == 7


def test_the_migration_moves_every_list_into_its_partition_and_back():
    if connection.vendor != "postgresql":
        pytest.skip("partitions are PostgreSQL's storage of the entries; SQLite keeps one table")
    march = _publish_march()
    before = _entries_by_list()
    current = sorted(PlayerRating.objects.values_list("player_id", "rating", "rank"))
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("ratings")
    with connection.cursor() as cursor:  # the publication's deferred checks now: a table they name is dropped below
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    MigrationExecutor(connection).migrate([("ratings", "0013_entry_list_federation_index")])
    assert _scalar("SELECT relkind FROM pg_class WHERE oid = 'ratings_ratinglistentry'::regclass") == "r"
    assert _entries_by_list() == before
    # the view as it was then (the manager's bound checks the lists marker, a table of a later migration)
    assert sorted(PlayerRating._base_manager.values_list("player_id", "rating", "rank")) == current
    MigrationExecutor(connection).migrate(latest)
    assert _scalar("SELECT relkind FROM pg_class WHERE oid = 'ratings_ratinglistentry'::regclass") == "p"
    assert _entries_by_list() == before
    assert sorted(PlayerRating.objects.values_list("player_id", "rating", "rank")) == current
    assert set(_partitions()) == {
        f"ratings_ratinglistentry_{pk}" for pk in RatingList.objects.values_list("pk", flat=True)
    }
    # the ORM still writes one entry, keyed by its player and list
    entry = RatingListEntry.objects.filter(rating_list=march).first()
    assert entry is not None
    entry.player_id += 10**6  # (no database constraint on derived rows: ratings.models DERIVED_ROWS)
    entry.save()
    assert RatingListEntry.objects.get(pk=(entry.player_id, march.pk)).rating == entry.rating


@pytest.mark.django_db(transaction=True)
def test_the_empty_partition_of_a_deleted_draft_is_dropped_by_the_beat_task():
    if connection.vendor != "postgresql":
        pytest.skip("partitions are PostgreSQL's storage of the entries; SQLite keeps one table")
    from ratings.services.publication import rating_list_compute_preview
    from ratings.tasks import prune_entry_partitions_task

    build_federation()
    draft = rating_list_compute_preview("standard", MAR)
    name = f"ratings_ratinglistentry_{draft.pk}"
    assert name in _partitions()
    assert name not in prune_entry_partitions_task()  # the draft still exists: its partition stays
    draft.delete()  # as the publication does when a draft is replaced
    assert _scalar(f"SELECT count(*) FROM {name}") == 0
    assert name in _partitions()
    assert prune_entry_partitions_task.apply().get() == [name]
    assert name not in _partitions()
    assert _scalar("SELECT to_regclass(%s) IS NULL", [name])
    rating_list_publish("standard", MAR)  # a publication after the pruning gets a partition of its own
    march = RatingList.objects.get(list_date=MAR, status="published")
    assert f"ratings_ratinglistentry_{march.pk}" in _partitions()


def _plan(queryset) -> str:
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


def test_current_ratings_read_only_the_partitions_of_the_newest_lists():
    """The PlayerRating view's queries carry a constant bound on the list (ratings.models.current_lists_bound):
    the planner reads the newest list's partition, not one per list kept; a bound read before a publication
    still finds the list it publishes."""
    if connection.vendor != "postgresql":
        pytest.skip("partitions are PostgreSQL's storage of the entries; SQLite keeps one table")
    from ratings import models as ratings_models

    build_federation()
    january = RatingList.objects.get()
    ratings_models.current_lists_bound(connection.alias)  # read by a process before the publication
    held = ratings_models._current_lists_bounds[connection.alias]  # (the lists marker's token then, the bound)
    rating_list_publish("standard", MAR)
    march = RatingList.objects.get(list_date=MAR)
    ratings_models._current_lists_bounds[connection.alias] = held  # still held by that process
    assert set(PlayerRating.objects.values_list("rating_list_id", flat=True)) == {march.pk}
    # once lists are made well past the lookback, only the newest list's partition and the newer lists' are
    # planned, however many lists are kept: January's is left out
    player = RatingListEntry.objects.filter(rating_list=march).values_list("player_id", flat=True).first()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT setval('ratings_ratinglist_id_seq', (SELECT max(id) FROM ratings_ratinglist) + %s)",
            [ratings_models.CURRENT_LISTS_LOOKBACK],
        )
    later = RatingList.objects.create(
        rating_type="rapid", list_date=MAR, closing_date=MAR, status="draft", rules_preset="fide-2024", rules={}
    )
    plan = _plan(PlayerRating.objects.filter(player_id=player))
    assert f"ratings_ratinglistentry_{march.pk}" in plan, plan
    assert f"ratings_ratinglistentry_{later.pk}" in plan, plan
    assert plan.count("ratings_ratinglistentry_") == 2, plan
    assert f"ratings_ratinglistentry_{january.pk} " not in plan, plan
    assert PlayerRating.objects.get(player_id=player).rating_list_id == march.pk


def test_the_bound_names_the_newest_lists_the_drafts_and_the_ids_not_committed_yet():
    """ratings.models.current_lists_bound: in a steady state one list a type, whatever the lists kept; a draft
    (published in place, keeping its id) and an id drawn but not committed yet (a publication of another type in
    its transaction) are named too; a published list no longer the newest is not."""
    if connection.vendor != "postgresql":
        pytest.skip("partitions are PostgreSQL's storage of the entries; SQLite keeps one table")
    from ratings import models as ratings_models

    build_federation()
    january = RatingList.objects.get()
    rating_list_publish("standard", MAR)
    march = RatingList.objects.get(list_date=MAR)

    def bound() -> tuple[list[int], int, list[int]]:
        """The lists named, the id above which every list is, and the ids named that are no list (ids drawn
        and never committed: here by earlier tests' rolled-back transactions too, as sequences do not roll back)."""
        ratings_models.current_lists_bound_forget()
        held = ratings_models.current_lists_bound(connection.alias)
        named, above = list(held.ids), held.above
        lists = set(RatingList.objects.values_list("pk", flat=True))
        return [pk for pk in named if pk in lists], above, [pk for pk in named if pk not in lists]

    named, above, unseen = bound()
    lookback = ratings_models.CURRENT_LISTS_LOOKBACK
    assert named == [march.pk]
    assert above == march.pk
    assert all(march.pk - lookback < pk < march.pk for pk in unseen)
    in_flight = _scalar("SELECT nextval('ratings_ratinglist_id_seq')")  # drawn, not committed
    draft = RatingList.objects.create(
        rating_type="rapid", list_date=MAR, closing_date=MAR, status="draft", rules_preset="fide-2024", rules={}
    )
    named, above, unseen = bound()
    assert named == [march.pk, draft.pk], (named, above, unseen)
    assert above == draft.pk, (named, above, unseen)
    assert in_flight in unseen, (named, above, unseen)
    assert january.pk not in named
    player = RatingListEntry.objects.filter(rating_list=march).values_list("player_id", flat=True).first()
    plan = _plan(PlayerRating.objects.filter(player_id=player))
    assert plan.count(" on ratings_ratinglistentry_") == 2, plan  # March's and the draft's (empty) partitions


def test_prepared_reads_of_the_newest_lists_are_planned_once_however_many_lists_are_kept():
    """The lists a read of current ratings (ratings.models.current_lists_bound) and the profile's recent lines
    (public.selectors.ratings.player_lines) are bounded to are written into the SQL (ratings.models.ListsNamed),
    not passed as parameters: a web process's prepared statement then gets one generic plan, made once and
    pruned to the lists named. With the lists as parameters the generic plan names every partition, costs more
    than planning each run, and PostgreSQL plans every run again, a cost that grows with the lists kept (26
    lists: 0.38 ms a run for current ratings; 1.6 against 2.6 ms for the profile's lines)."""
    if connection.vendor != "postgresql":
        pytest.skip("partitions and prepared statements are PostgreSQL's")
    if not connection.settings_dict["OPTIONS"].get("prepare_threshold"):
        pytest.skip("DATABASE_PREPARED_STATEMENTS=0: statements are not prepared")
    from public.selectors.ratings import player_lines, recent_lists
    from ratings import models as ratings_models

    build_federation()
    january = RatingList.objects.get()
    columns = [field.column for field in RatingListEntry._meta.concrete_fields]
    for year in range(1990, 2020):  # thirty older lists kept, each a partition of its own with January's lines
        older = RatingList.objects.create(
            rating_type="standard",
            list_date=january.list_date.replace(year=year),
            closing_date=january.list_date.replace(year=year),
            status="published",
            rules_preset="fide-2024",
            rules={},
        )
        with connection.cursor() as cursor:
            values = ", ".join("%s" if column == "rating_list_id" else column for column in columns)
            cursor.execute(
                f"INSERT INTO ratings_ratinglistentry ({', '.join(columns)}) SELECT {values} "
                "FROM ratings_ratinglistentry WHERE rating_list_id = %s",
                [older.pk, january.pk],
            )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE ratings_ratinglistentry")  # the planner sees thirty partitions with rows
    ratings_models.current_lists_bound_forget()
    players = list(RatingListEntry.objects.filter(rating_list=january).values_list("player_id", flat=True))
    window, _ = recent_lists()
    marker = "prepared-plan-test"  # a shape of its own on this connection: no other test prepared it
    current = PlayerRating.objects.filter(player__given_names__gt=marker)
    _sql, params = current.filter(player_id=players[0]).query.sql_with_params()
    assert params == (marker, players[0]), params  # the lists are in the SQL: no parameter names them
    for run in range(12):
        player = Player.objects.get(pk=players[run % len(players)])
        list(current.filter(player_id=player.pk).values_list("rating", flat=True))
        assert len(player_lines(player, rating_list_ids=window)) == 12

    def plans(pattern: str) -> list[tuple[int, int]]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE %s", [pattern]
            )
            return cursor.fetchall()

    named = ", ".join(map(str, sorted(window)))  # unique to this test: list ids are never drawn twice
    # psycopg prepares each on its 6th run (prepare_threshold 5); PostgreSQL plans a prepared statement's first
    # five runs each time, then compares: here it keeps the generic plan for every later run
    for found in (plans("%ratings_playerrating%given_names%"), plans(f"%IN ({named})%")):
        assert len(found) == 1, found
        assert found[0][0] >= 1, found
        assert found[0][1] <= 5, found
