"""A name search reads a range of the name index, not the index from "A" with a filter (migration
players 0003: the "C" collation on PostgreSQL, where LIKE 'MARI%' is otherwise no index range)."""

import pytest
from django.db import connection

from players.models import Player
from players.selectors import players_matching, search_players
from tests.factories import make_player

pytestmark = pytest.mark.django_db


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="PostgreSQL only: the collation change and the plan are PostgreSQL's (migration players 0003 does "
    "nothing on the embedded SQLite default, meant for small federations)",
)
def test_a_name_prefix_is_an_index_range_in_name_order():
    for i, surname in enumerate(["Martínez", "Marín", "Marino", "Mariño", "Zapata", "Abad"]):
        make_player(id_number=9_000_001 + i, surname=surname, given_names="Ana")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a handful of rows: make the planner show its index
        query = Player.objects.filter(search_name__startswith="MARI").order_by("search_name", "id_number")[:50]
        sql, params = query.query.sql_with_params()
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Cond" in plan, plan
    assert ">= 'MARI'" in plan, plan
    assert [p.surname for p in search_players("mari")] == ["Marino", "Mariño"]  # "MARÍN" has no "MARI"


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="PostgreSQL only: covering indexes (INCLUDE) and index-only scans are PostgreSQL's; on SQLite the "
    "index is the plain name index",
)
def test_counting_the_players_a_prefix_matches_reads_the_name_index_alone():
    # The players API counts up to its window (core.api.WindowedPagination); the name index carries
    # merged_into and id, so the count needs no table row (migration players 0004).
    for i, surname in enumerate(["Marino", "Mariño"]):
        make_player(id_number=9_000_101 + i, surname=surname)
    Player.objects.bulk_create(  # a register where the prefix is a small share, as the planner knows it
        Player(id_number=9_100_000 + i, surname=f"Z{i:04d}", search_name=f"Z{i:04d}") for i in range(3000)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE players_player")
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        query = players_matching("mari").order_by()[:10_001]
        sql, params = query.values("id").query.sql_with_params()
        cursor.execute(f"EXPLAIN SELECT count(*) FROM ({sql}) AS matched", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Only Scan using player_search_name" in plan, plan
    assert players_matching("mari").order_by()[:10_001].count() == 2
