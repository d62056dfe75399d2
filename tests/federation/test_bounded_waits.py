"""Every PostgreSQL session waits a bounded time: lock, idle-in-transaction and statement timeouts and TCP
keepalives are set on the connections (docs/operations.md §5), and the environment can change them."""

import subprocess
import sys

import pytest
from django.db import connection

from tests.conftest import ROOT, database_url_for

SHOW = (
    "from django.db import connection; c = connection.cursor(); "
    "print([c.execute('SHOW ' + n) and c.fetchone()[0] for n in "
    "('lock_timeout', 'idle_in_transaction_session_timeout', 'statement_timeout', 'tcp_keepalives_idle')])"
)


@pytest.fixture
def postgresql(db):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL settings: SQLite has no server session to bound (CI runs this on PostgreSQL)")


def show(code: str = SHOW, **env: str) -> str:
    """The last line ``code`` prints in ``manage.py shell`` on this database with the environment ``env`` (the
    run's own database variables left out)."""
    import os

    inherited = {name: value for name, value in os.environ.items() if not name.startswith("DATABASE_")}
    environment = {**inherited, "DATABASE_URL": database_url_for(connection.settings_dict), **env}
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip().splitlines()[-1]


def test_postgresql_sessions_have_bounded_waits(postgresql):
    with connection.cursor() as cursor:
        values = []
        for name in ("lock_timeout", "idle_in_transaction_session_timeout", "statement_timeout"):
            cursor.execute(f"SHOW {name}")
            values.append(cursor.fetchone()[0])
    assert values == ["1min", "1min", "5min"]
    options = connection.settings_dict["OPTIONS"]
    assert (options["keepalives"], options["keepalives_idle"]) == (1, 30)


def test_the_environment_sets_each_wait_and_zero_turns_one_off(postgresql):
    assert (
        show(
            DATABASE_LOCK_TIMEOUT="2",
            DATABASE_IDLE_IN_TRANSACTION_TIMEOUT="8",
            DATABASE_STATEMENT_TIMEOUT="0",
            DATABASE_TCP_KEEPALIVE_SECONDS="45",
        )
        == "['2s', '8s', '0', '45']"
    )


def test_a_lock_wait_gives_up_with_an_error_instead_of_waiting_for_ever(postgresql, transactional_db):
    import threading

    from django.db import OperationalError, connections, transaction

    from ratings.services.publication import LOCK_IDS, LOCK_NAMESPACE, rating_list_publication_running

    held, release = threading.Event(), threading.Event()

    def holder():
        try:
            with transaction.atomic(), connections["default"].cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, LOCK_IDS["standard"]])
                held.set()
                release.wait(30)
        finally:
            connections["default"].close()

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert held.wait(30)
        assert rating_list_publication_running("standard") is True
        # PT012: the lock is taken by the second statement, under the timeout the first one sets
        with (  # noqa: PT012
            pytest.raises(OperationalError, match="lock timeout"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute("SET LOCAL lock_timeout = '500ms'")
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, LOCK_IDS["standard"]])
    finally:
        release.set()
        thread.join(30)
    assert rating_list_publication_running("standard") is False


CONNECTION = (
    "from django.db import connections; "
    "print([(alias, s['CONN_MAX_AGE'], s['CONN_HEALTH_CHECKS'], s['OPTIONS'].get('server_side_binding'), "
    "s['OPTIONS'].get('prepare_threshold')) for alias, s in connections.settings.items()])"
)


def test_web_processes_keep_their_postgresql_connection_and_prepare_its_statements(postgresql):
    """A connection per request paid a new server process and its catalogue of every list's partition on
    every page, and planning a read across the partitions grew with the lists (docs/operations.md §1.4): the
    default keeps a connection 60 s, checked before reuse, and prepares a statement run five times on it."""
    assert show(CONNECTION) == "[('default', 60, True, True, 5)]"
    assert show(CONNECTION, DATABASE_CONN_MAX_AGE="0") == "[('default', 0, True, True, 5)]"
    assert show(CONNECTION, DATABASE_PREPARED_STATEMENTS="0") == "[('default', 60, True, None, None)]"
    replica = show(
        CONNECTION, DATABASE_REPLICA_URL=database_url_for(connection.settings_dict), DATABASE_CONN_MAX_AGE="300"
    )
    assert replica == "[('default', 300, True, True, 5), ('replica', 300, True, True, 5)]"


def test_a_statement_run_five_times_on_a_connection_is_prepared(postgresql):
    """A query of a shape no other test runs (so not prepared before on this connection): prepared by its sixth
    run. (DEALLOCATE would empty the server's statements behind psycopg's back: its next run would fail.)"""
    from players.models import Player

    def prepared() -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            return [row[0] for row in cursor.fetchall()]

    def shape(statement: str) -> bool:
        return '"players_player"."given_names" = $' in statement and '"players_player"."id_number" = $' in statement

    assert not [statement for statement in prepared() if shape(statement)]
    for _ in range(6):
        list(Player.objects.filter(id_number=1, given_names="prepared-statement-test").values_list("pk"))
    assert [statement for statement in prepared() if shape(statement)], prepared()
