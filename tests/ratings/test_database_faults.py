"""The database connection lost in the middle of a publication (the backend terminated from another
connection while the publication's transaction is open and has written) leaves nothing partial, and a retry
publishes exactly what an undisturbed run publishes."""

import threading
import time

import pytest
from django.db import connection, transaction
from django.db.utils import InterfaceError, OperationalError

from events.models import Event, EventStatus
from ratings.models import PlayerRating, RatingChange, RatingList, RatingListEntry
from ratings.services import rating_list_publish
from ratings.services.publication import write
from tests.ratings.scenarios import JAN, MAR, build_federation, list_snapshot

pytestmark = pytest.mark.django_db(transaction=True)


def publication_state() -> dict:
    return {
        "lists": list(RatingList.objects.values_list("list_date", "status").order_by("list_date")),
        "entries": RatingListEntry.objects.count(),
        "changes": RatingChange.objects.count(),
        "event_statuses": sorted(Event.objects.values_list("status", flat=True)),
        "player_ratings_from": set(PlayerRating.objects.values_list("rating_list__list_date", flat=True)),
    }


def publishing_backend(timeout: float = 30) -> int:
    """The server process of the other connection once its publication transaction holds the rating-type lock
    and has written rows (it has a transaction id) and is waiting inside that transaction."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                """
                SELECT a.pid FROM pg_stat_activity a
                JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'advisory' AND l.granted
                WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
                  AND a.state = 'idle in transaction' AND a.backend_xid IS NOT NULL
                """
            )
            row = cursor.fetchone()
            if row:
                return row[0]
            time.sleep(0.05)
    raise AssertionError("the publication never paused inside its transaction")


def test_connection_terminated_mid_publication_leaves_nothing_and_the_retry_publishes_the_same_list(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip(
            "needs PostgreSQL: pg_terminate_backend ends a server process; SQLite runs inside this process, "
            "so its connection cannot be cut from outside (all-or-nothing on SQLite: tests/ratings/"
            "test_publication_atomicity.py injects failures mid-write)"
        )
    build_federation()
    before = publication_state()
    with transaction.atomic():  # what an undisturbed publication writes, then rolled back
        expected = list_snapshot(rating_list_publish("standard", MAR).rating_list)
        transaction.set_rollback(True)
    assert publication_state() == before

    # The publication pauses after writing its entries, inside its transaction, before the rating changes.
    write_changes = write._write_changes

    def pausing(*args, **kwargs):
        time.sleep(3)
        write_changes(*args, **kwargs)

    monkeypatch.setattr(write, "_write_changes", pausing)
    outcome: dict = {}

    def publish():
        try:
            outcome["result"] = rating_list_publish("standard", MAR)
        except Exception as exc:  # collected: asserted below
            outcome["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=publish)
    thread.start()
    pid = publishing_backend()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        assert cursor.fetchone()[0] is True
    thread.join(60)
    assert not thread.is_alive()
    assert "result" not in outcome, "the publication survived the loss of its connection?"
    assert isinstance(outcome["error"], (OperationalError, InterfaceError)), repr(outcome["error"])

    # Nothing partial: no list, no entries or changes, events still submitted, ratings still January's.
    assert publication_state() == before
    assert before["event_statuses"] == [EventStatus.SUBMITTED] * len(before["event_statuses"])
    assert before["player_ratings_from"] == {JAN}

    monkeypatch.undo()
    retried = rating_list_publish("standard", MAR)
    assert retried.created
    assert list_snapshot(retried.rating_list) == expected
    assert RatingList.objects.filter(list_date=MAR).count() == 1
