"""events.trf_services writes a TRF file's event in bulk (issue 36): participants, games and their history
records as django-simple-history would write them one by one, in a number of queries that does not grow with
the games.

The history test states what simple_history's ``bulk_create_with_history`` wrote before the import moved to
``core.bulk`` (one "+" record per row, every tracked column equal to the row, the uploader as history user, no
change reason); it passes on the code before the change and after it.
"""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from events.models import Event, EventStatus, Game, Participant
from events.trf import TrfPlayer, TrfRoundEntry
from events.trf_services import event_import_trf
from tests.events.test_admin_roles import make_arbiter
from tests.events.test_trf_import import build_trf, four_players
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def swiss(players: int, rounds: int, known: int = 0) -> bytes:
    """A Swiss where player i meets i + 1 + r (mod the field) in round r, white the lower rank; the first
    ``known`` players carry ID numbers 7_000_001... (registered by the test), the others none."""
    field = [
        TrfPlayer(
            start_rank=rank,
            name=f"Bulk{rank:04d}, Player",
            sex="mw"[rank % 2],
            rating=1500 + rank,
            federation="ESP",
            fide_id=str(7_000_000 + rank) if rank <= known else "",
            birth_year=1990,
        )
        for rank in range(1, players + 1)
    ]
    codes = ["1", "=", "0", "+"]
    mirror = {"1": "0", "=": "=", "0": "1", "+": "-"}
    for r in range(1, rounds + 1):
        order = [(i + r * 2) % players for i in range(players)]
        seen: set[int] = set()
        for a in range(players):
            if a in seen:
                continue
            b = order[a] if order[a] not in seen and order[a] != a else None
            if b is None:
                b = next((x for x in range(players) if x not in seen and x != a), None)
            if b is None:  # the last one left: a half-point bye
                field[a].rounds.append(TrfRoundEntry(r, None, "-", "H"))
                seen.add(a)
                continue
            seen.update((a, b))
            white, black = sorted((a, b))
            code = codes[(a + b + r) % 4]
            field[white].rounds.append(TrfRoundEntry(r, black + 1, "w", code))
            field[black].rounds.append(TrfRoundEntry(r, white + 1, "b", mirror[code]))
    for player in field:
        player.rounds.sort(key=lambda entry: entry.round)
        player.points = None
    start = dt.date(2026, 2, 1)
    return build_trf(
        field,
        start_date=start,
        end_date=start + dt.timedelta(days=rounds),
        round_dates=[start + dt.timedelta(days=r) for r in range(rounds)],
    )


def history_of(model, event: Event) -> list[dict]:
    """The history records of ``event``'s rows of ``model``, in the order they were written."""
    history = model.history.model
    return list(history.objects.filter(event_id=event.pk).order_by("history_id").values())


def test_history_records_are_those_simple_history_writes_one_per_row():
    arbiter = make_arbiter("ann")
    began = timezone.now()

    outcome = event_import_trf(build_trf(four_players()), file_name="o.trf", user=arbiter)

    ended = timezone.now()
    event = outcome.event
    for model, tracked in (
        (Game, ["id", "event_id", "round", "board", "white_id", "black_id", "result", "date", "version"]),
        (Participant, ["id", "event_id", "player_id", "start_rank", "rating", "club"]),
    ):
        rows = list(model.objects.filter(event=event).order_by("id").values(*tracked))
        records = history_of(model, event)
        assert len(records) == len(rows) == {Game: 4, Participant: 4}[model]
        assert [{key: record[key] for key in tracked} for record in records] == rows  # written in the rows' order
        for record in records:
            assert record["history_type"] == "+"
            assert record["history_user_id"] == arbiter.pk
            assert record["history_change_reason"] is None
            assert began <= record["history_date"] <= ended
    games = list(Game.objects.filter(event=event).order_by("id").values_list("round", "result", "date", "version"))
    assert games == [
        (1, "1-0", None, 1),
        (1, "+-", None, 1),
        (2, "1/2-1/2", None, 1),
        (2, "H", None, 1),
    ]


def test_games_keep_their_round_dates_and_the_import_without_a_user_records_none():
    outcome = event_import_trf(swiss(6, 3), file_name="s.trf", user=None)

    event = outcome.event
    dates = dict(Game.objects.filter(event=event).values_list("round", "date").distinct())
    assert dates == {1: dt.date(2026, 2, 1), 2: dt.date(2026, 2, 2), 3: dt.date(2026, 2, 3)}
    records = history_of(Game, event)
    assert len(records) == outcome.games == 9
    assert {record["history_user_id"] for record in records} == {None}
    # the rows refer to each other as the ORM would have written them: every game's players are the event's
    assert not Game.objects.filter(event=event).exclude(white__event=event).exists()
    assert not Game.objects.filter(event=event, black__isnull=False).exclude(black__event=event).exists()


def import_queries(data: bytes) -> int:
    with CaptureQueriesContext(connection) as queries:
        outcome = event_import_trf(data, file_name="q.trf", user=None, rating_type="standard")
    assert outcome.event is not None, outcome.refusal_message()
    return len(queries)


def test_the_import_s_queries_do_not_grow_with_the_games():
    for rank in range(1, 7):  # six of the twenty players registered: matched; the others created
        make_player(id_number=7_000_000 + rank, surname=f"Bulk{rank:04d}", given_names="Player")
    small = swiss(20, 2, known=6)
    large = swiss(20, 60, known=6)  # 600 games: more than one batch of the bulk_create before issue 36

    counts = (import_queries(small), import_queries(large))
    assert Game.objects.count() == 20 + 600

    # the same queries for 20 games as for 600 (one statement per table, whatever the rows); PostgreSQL takes
    # the reserved keys in one query per table (nextval), SQLite in three (core.bulk.reserve_ids) and sets its page
    # cache (three PRAGMAs)
    pinned = {"sqlite": 26, "postgresql": 18}[connection.vendor]
    assert counts == (pinned, pinned), counts


GAME_COLUMNS = ["id", "event_id", "round", "board", "white_id", "black_id", "result", "date", "version"]
PARTICIPANT_COLUMNS = ["id", "event_id", "player_id", "start_rank", "rating", "club"]


def test_a_file_onto_an_event_in_entry_replaces_its_rows_and_records_each_deletion():
    """The upload onto an event being entered (issue 32) deletes its games and participants with a "-" history
    record each, as simple_history writes on a deletion: every tracked column as it was, the acting user (the
    row-by-row deletion before issue 36 named the request's user, so none outside a request)."""
    arbiter = make_arbiter("ann")
    first = event_import_trf(swiss(6, 2), file_name="s.trf", user=arbiter).event
    old = {
        Game: list(Game.objects.filter(event=first).order_by("id").values(*GAME_COLUMNS)),
        Participant: list(Participant.objects.filter(event=first).order_by("id").values(*PARTICIPANT_COLUMNS)),
    }
    began = timezone.now()

    outcome = event_import_trf(swiss(8, 3), file_name="t.trf", user=arbiter, into=first)

    assert outcome.event is not None, outcome.refusal_message()
    event = Event.objects.get(pk=first.pk)
    assert event.status == EventStatus.DRAFT
    assert Participant.objects.filter(event=event).count() == 8
    assert Game.objects.filter(event=event).count() == outcome.games == 12
    for model, columns in ((Game, GAME_COLUMNS), (Participant, PARTICIPANT_COLUMNS)):
        deleted = [record for record in history_of(model, event) if record["history_type"] == "-"]
        as_they_were = sorted(({key: record[key] for key in columns} for record in deleted), key=lambda r: r["id"])
        assert as_they_were == old[model]
        assert {record["history_user_id"] for record in deleted} == {arbiter.pk}
        assert {record["history_change_reason"] for record in deleted} == {None}
        assert all(began <= record["history_date"] <= timezone.now() for record in deleted)
        current = set(model.objects.filter(event=event).values_list("pk", flat=True))
        added = {record["id"] for record in history_of(model, event) if record["history_type"] == "+"}
        assert current <= added


def test_replacing_an_event_s_rows_takes_the_same_queries_whatever_its_games():
    counts = []
    for rounds in (2, 40):
        event = event_import_trf(swiss(20, rounds), file_name="s.trf", user=None).event
        with CaptureQueriesContext(connection) as queries:
            outcome = event_import_trf(swiss(20, 2), file_name="t.trf", user=None, into=event)
        assert outcome.event is not None, outcome.refusal_message()
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
