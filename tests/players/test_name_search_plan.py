"""A name search reads a range of the name index, not the index from "A" with a filter (migration
players 0003: the "C" collation on PostgreSQL, where LIKE 'MARI%' is otherwise no index range)."""

import pytest
from django.db import connection

from players.models import Player
from players.selectors import _word_anywhere, players_matching, search_players
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
    # the search itself folds accents (issue 32): "Marín" starts with "mari" too, in name order
    assert [p.surname for p in search_players("mari")] == ["Marino", "Mariño", "Marín"]


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="PostgreSQL only: the trigram index (migration players 0007, where pg_trgm can be created)",
)
def test_a_word_anywhere_in_a_name_reads_the_trigram_index():
    # A search word may start any word of the name (issue 32): LIKE '% mari%' is served by the trigram index
    # on search_key, not by reading the table.
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = 'player_search_key_trgm'")
        if cursor.fetchone() is None:
            pytest.skip("pg_trgm could not be created on this server: word searches read the key column")
    for i, surname in enumerate(["Marino", "Mariño"]):
        make_player(id_number=9_000_101 + i, surname=surname)
    Player.objects.bulk_create(
        Player(id_number=9_100_000 + i, surname=f"Z{i:04d}", search_name=f"Z{i:04d}", search_key=f"z{i:04d}")
        for i in range(3000)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE players_player")
        cursor.execute("SET LOCAL enable_seqscan = off")
        # the word condition alone (on a few thousand rows the planner may start from merged_into's index
        # instead; at two million it cannot afford to)
        query = Player.objects.filter(_word_anywhere("mari")).order_by()
        sql, params = query.values("id").query.sql_with_params()
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "player_search_key_trgm" in plan, plan
    assert players_matching("mari").order_by()[:10_001].count() == 2
