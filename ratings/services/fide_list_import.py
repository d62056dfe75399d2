"""Importing a FIDE rating-list download as a published, imported rating list (``fide_list_import``).

A federation starts from FIDE's ratings: every row of the file creates or updates the player (matched by
``id_number`` = FIDE ID), and each rating type present in the file becomes a published ``RatingList``
(``is_imported=True``, the ``fide-2024`` rules frozen in ``rules``) with one entry per player *rated* in that
type (the players' current ratings, ``PlayerRating``, follow the newest current list). Players without a
rating of a type get no entry of that type (FIDE's combined list has 1.1 million players with no rating at
all; they are still registered).

Reading is ``ratings.fide_list`` (pure, streaming, ``BATCH_ROWS`` rows at a time as NumPy columns; the next
batch is read in a thread while the database stages the one before). Players are staged batch by batch from
the columns into a temporary table (binary COPY on PostgreSQL) and upserted as a whole once the file is read
(``core.bulk.StagedUpsert``: one join updates the players whose record differs, one statement inserts the new
ones, one join gives every player's key). When the list brings at least ``_REBUILD_INDEXES_AT`` new players and
at least as many as are registered (a federation's first load), the players' indexes (and on PostgreSQL their
unique and foreign-key constraints) are dropped before the insert and built again after it: on PostgreSQL this
locks the players table against readers until the import commits (docs/operations.md §6); a monthly list,
a few thousand new players, never does. The entries are held as NumPy columns (about 100 bytes each: some
130 MB for FIDE's 1.3 million rated entries) and written once at the end with their position and ranks,
computed as the publication computes them (``list_order``), so that no entry is written twice. The whole
import is one transaction: a refused or failed import leaves nothing behind.

State the list cannot tell, set by documented rules (B.02 8.3.3, rating-rules.md):

- ``rated_games_total``, ``ever_2400``, ``ever_2300``: inferred from the published K by the engine
  (``ratings.engine.k_factor.k_status_from_published_k``, under the import's fide-2024 K scheme): K 20 or 10
  means at least 30 rated games, K 10 that 2400 was reached; the same rule for the rows read by columns and
  those read line by line.
- ``inactive``: the row's flag contains ``i``; the combined list has one flag column for all three types.
- ``last_game_date``, newcomer pools: unknown, left empty.
- A FIDE ID on more than one row (FIDE's list has one row per player: a repeat is an editing or transfer
  accident): the first row is imported and each repeat is a warning naming its line and the first one's,
  whatever the write batches the rows fall in (``_FirstLines`` remembers every ID read).

Players' records are updated with what FIDE publishes (name, federation, sex, titles, birth year) through
bulk upserts; these bypass the per-row model history, and one audit record per imported list says what was
done. A player merged into another (``merged_into``) gets the entry on the kept record.
"""

from __future__ import annotations

import contextlib
import datetime
import queue
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import IO

import numpy as np
from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, connection, transaction
from django.utils import timezone

from audit.models import AuditAction
from audit.services import Actor, acting_user, audit_record
from core.bulk import StagedUpsert, copy_columns
from events.models import RatingType
from players.models import Federation, Player, Title, TitleAward, TitleMethod, WomenTitle
from players.names import ASCII_KEY_DELETE, ASCII_KEY_TABLE, name_search_key
from players.registry import CONTROL_CHARACTERS, federations_ensure
from ratings.engine import get_preset
from ratings.engine.classes import OPEN_TITLE_ORDER, WOMEN_TITLE_ORDER, title_covers
from ratings.engine.k_factor import k_status_from_published_k
from ratings.engine.list_state import list_order
from ratings.fide_list import (
    FideListColumns,
    FideListFormatError,
    FideListProblem,
    FideListReader,
    FideListRow,
)
from ratings.models import RatingList, RatingListEntry, RatingListStatus
from ratings.services.entry_storage import (
    entry_storage_attach,
    entry_storage_bulk,
    entry_storage_prepare,
    entry_table,
)

__all__ = [
    "BATCH_ROWS",
    "PROGRESS_EVERY",
    "FideListImportOutcome",
    "fide_list_import",
]

BATCH_ROWS = 20_000  # rows read, written and reported at a time
_WRITE_ROWS = 100_000  # entries per write at the end
# A first load (at least this many new players, and at least as many as registered) builds the players' indexes
# after inserting them (see _PlayerUpsert; on PostgreSQL it locks the table until commit, docs/operations.md
# §6); a monthly list brings some thousands of new players, which go into the indexes as they are.
_REBUILD_INDEXES_AT = 100_000
_SQLITE_CACHE_KIB = 128 * 1024  # 1.93 M rows: 256 MB took 20% off the first import but peak RSS to 874 MB
PROGRESS_EVERY = 100_000
IMPORT_RULES_PRESET = "fide-2024"
_IMPORT_K_FACTOR = get_preset(IMPORT_RULES_PRESET).k_factor  # the K scheme the list's K is read back under
_KEPT_PROBLEMS = 200  # the outcome keeps the first problems; ``problem_count`` counts them all

_TITLES = frozenset(Title.values)
_WOMEN_TITLES = frozenset(WomenTitle.values)


@dataclass
class FideListImportOutcome:
    list_date: datetime.date
    rating_lists: dict[str, RatingList] = field(default_factory=dict)  # rating type -> the published list
    rows: int = 0  # player rows read (rows skipped for a bad ID are problems, not rows)
    players_created: int = 0
    players_updated: int = 0
    entries: dict[str, int] = field(default_factory=dict)  # rating type -> entries written
    federations_created: list[str] = field(default_factory=list)
    problems: list[FideListProblem] = field(default_factory=list)  # the first few hundred
    problem_count: int = 0
    current_ratings_skipped: list[str] = field(default_factory=list)  # types with a later list already
    titles_awarded: int = 0  # TitleAward rows written: titles the list gives that the registry did not hold

    def problem_add(self, problem: FideListProblem) -> None:
        """Count every problem; keep the first ``_KEPT_PROBLEMS``."""
        self.problem_count += 1
        if len(self.problems) < _KEPT_PROBLEMS:
            self.problems.append(problem)

    def summary(self) -> str:
        lists = ", ".join(f"{t} {self.entries.get(t, 0):,} entries" for t in self.rating_lists)
        text = (
            f"FIDE list of {self.list_date:%Y-%m-%d}: {self.rows:,} players read "
            f"({self.players_created:,} created, {self.players_updated:,} updated); {lists}"
        )
        if self.titles_awarded:
            text += f"; {self.titles_awarded:,} title(s) recorded as awards"
        if self.federations_created:
            text += f"; federations created: {' '.join(self.federations_created)}"
        if self.problem_count:
            text += f"; {self.problem_count:,} problem(s) in the file"
        return text


def _single_type_from_name(source_name: str) -> str | None:
    """``rapid_rating_list.txt``, ``blitz_sep26frl.zip``: the type a month-headed single-type list has."""
    name = source_name.lower().rsplit("/", 1)[-1]
    found = [t for t in RatingType.values if t in name]
    return found[0] if len(found) == 1 else None


def fide_list_import(
    stream: IO[bytes] | IO[str] | Iterable[str] | Iterable[bytes],
    *,
    list_date: datetime.date,
    rating_types: Iterable[str] | None = None,
    progress: Callable[[int], None] | None = None,
    user: Actor = None,
    source_name: str = "",
) -> FideListImportOutcome:
    """Load a FIDE list download (combined TXT with or without FOA, single-type TXT, XML) as the published,
    imported list of ``list_date`` for each rating type it carries.

    ``rating_types``: import only these types (default: every type in the file). Naming exactly one type
    also tells the type of a single-type list, whose header names only the month (``OCT26``); without it
    the type is taken from ``source_name`` (``rapid_rating_list.txt``) or is standard.
    ``progress(rows)`` is called every ``PROGRESS_EVERY`` rows and once at the end.

    Raises ``ValidationError`` (nothing written) when the file is not a FIDE list, when a current published
    list of that date and type exists, or when the database refuses a row.
    """
    wanted = tuple(dict.fromkeys(rating_types)) if rating_types else None
    for rating_type in wanted or ():
        if rating_type not in RatingType.values:
            raise ValidationError(f"rating type {rating_type!r}: expected one of {', '.join(RatingType.values)}")
    single_type = wanted[0] if wanted and len(wanted) == 1 else _single_type_from_name(source_name)
    outcome = FideListImportOutcome(list_date=list_date)

    found: list[FideListProblem] = []  # the reader's problems, until the batch they came with is taken
    reader = FideListReader(stream, rating_type=single_type, on_problem=found.append)
    batches = reader.column_batches(BATCH_ROWS)
    try:
        first = next(batches, None)
    except FideListFormatError as exc:
        raise ValidationError(_named(source_name, exc)) from None
    for problem in found:
        outcome.problem_add(problem)
    found.clear()
    layout = reader.layout
    present = layout.rating_types if layout is not None else ()
    if first is not None and layout is not None and layout.kind == "xml":
        present = tuple(t for t in RatingType.values if first.row(0).rating(t) is not None)
    types = tuple(t for t in present if wanted is None or t in wanted)
    where = source_name or "the file"
    if first is None:
        raise ValidationError(f"{where}: no player rows after the header; nothing imported")
    if not types:
        what = f"ratings of type {', '.join(wanted)}" if wanted else "any rating column"
        has = ", ".join(present) or "none"
        raise ValidationError(f"{where}: no players with {what} (the file has {has})")
    ahead = _read_ahead(batches, found, outcome)
    try:
        with _sqlite_page_cache(), transaction.atomic():
            _import(chain([first], ahead), types, outcome, progress, user)
    except FideListFormatError as exc:
        raise ValidationError(_named(source_name, exc)) from None
    except (IntegrityError, DataError) as exc:
        raise ValidationError(
            f"{source_name or 'the file'}: the database refused the import, nothing was saved ({exc})"
        ) from None
    finally:
        ahead.close()  # the reading thread stops (at once when the import failed)
    return outcome


@contextlib.contextmanager
def _sqlite_page_cache() -> Iterator[None]:
    """SQLite: a page cache of ``_SQLITE_CACHE_KIB`` while the import runs (the default, 2 MB, holds little of
    the indexes of two million players: each insert would read its pages again), then the one it had."""
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        (previous,) = cursor.fetchone()
        cursor.execute(f"PRAGMA cache_size = -{_SQLITE_CACHE_KIB}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA cache_size = {int(previous)}")


def _read_ahead(
    batches: Iterator[FideListColumns], found: list[FideListProblem], outcome: FideListImportOutcome
) -> Generator[FideListColumns, None, None]:
    """``batches``, the next one read in a thread while the database writes the one before (NumPy and the
    database driver let go of the GIL: the two cores work at once). The problems the reader finds while reading
    a batch (into ``found``) are added to the outcome when that batch is taken, so they come in the order
    they would without the thread. A refusal (FideListFormatError) is raised where the batch would have been."""
    ahead: queue.Queue[tuple[FideListColumns | None, list[FideListProblem], BaseException | None]] = queue.Queue(1)
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            error: BaseException | None = None
            try:
                batch = next(batches, None)
            except BaseException as exc:  # handed to the importing thread, raised there
                batch, error = None, exc
            item = (batch, found[:], error)
            found.clear()
            while not stop.is_set():
                try:
                    ahead.put(item, timeout=0.1)
                    break
                except queue.Full:
                    continue
            if batch is None:
                return

    reader = threading.Thread(target=read, name="fide-list-reader", daemon=True)
    reader.start()
    try:
        while True:
            batch, problems, error = ahead.get()
            for problem in problems:
                outcome.problem_add(problem)
            if error is not None:
                raise error
            if batch is None:
                return
            yield batch
    finally:  # done, or the import failed: the reader stops at its next batch
        stop.set()
        reader.join()


def _named(source_name: str, refusal: FideListFormatError) -> str:
    """The reader's refusal, prefixed with the file's name unless it names it already (an archive member)."""
    where = source_name or "the file"
    return str(refusal) if where in str(refusal) else f"{where}: {refusal}"


def _refuse_existing_lists(list_date: datetime.date, types: tuple[str, ...]) -> None:
    existing = list(
        RatingList.objects.current()
        .filter(list_date=list_date, rating_type__in=types)
        .values_list("rating_type", "is_imported")
    )
    if existing:
        described = ", ".join(f"{t} ({'imported' if imported else 'computed'})" for t, imported in existing)
        raise ValidationError(
            f"a published rating list of {list_date:%Y-%m-%d} already exists for {described}; "
            "nothing was imported (a published list is never replaced by an import)"
        )


def _new_lists(list_date: datetime.date, types: tuple[str, ...], user: Actor) -> dict[str, RatingList]:
    preset = get_preset(IMPORT_RULES_PRESET)
    versions: dict[str, int] = {}
    same_date = RatingList.objects.filter(list_date=list_date, rating_type__in=types)
    for rating_type, version in same_date.values_list("rating_type", "version"):
        versions[rating_type] = max(versions.get(rating_type, 0), version)
    now = timezone.now()
    lists = {}
    for rating_type in types:
        with entry_storage_bulk():  # written and attached by _entries_write (entry_storage)
            lists[rating_type] = RatingList.objects.create(
                rating_type=rating_type,
                list_date=list_date,
                # 1 unless a draft preview of that date holds version 1 (drafts are not replaced by an import).
                version=versions.get(rating_type, 0) + 1,
                closing_date=list_date,
                status=RatingListStatus.PUBLISHED,
                rules_preset=IMPORT_RULES_PRESET,
                rules=preset.to_json(),
                is_imported=True,
                published_at=now,
                published_by=acting_user(user),
            )
    return lists


_PLAYER_FIELDS = [
    "id_number",
    "surname",
    "given_names",
    "search_name",
    "search_key",
    "sex",
    "birth_year",
    "federation",
    "title",
    "women_title",
    "other_titles",
]
_ENTRY_FIELDS = [
    "rating_list",
    "player",
    "rating",
    "games",
    "k_factor",
    "inactive",
    "title",
    "women_title",
    "other_titles",
    "federation",
    "sex",
    "birth_year",
    "rated_games_total",
    "ever_2400",
    "ever_2300",
]


class _PlayerUpsert:
    """The players of the list, upserted (created, or updated with what FIDE publishes): staged batch by batch
    and written at the end as a whole (core.bulk.StagedUpsert): the rows that differ are updated by one join,
    the new ones inserted by one statement; on a first load (at least ``_REBUILD_INDEXES_AT`` new players,
    and at least as many as the table had) the players' indexes (and on PostgreSQL their constraints) are
    built again after the insert instead of being maintained row by row."""

    def __init__(self) -> None:
        self.title_changes: list[tuple[int, str]] = []  # (id_number, title) the list awards (_title_changes)
        # created_at / updated_at: the writer's defaults, the time the import began; a player whose record
        # says what the list says is left as it is (most of a monthly list: nothing rewritten)
        self.staged = StagedUpsert(
            Player,
            _PLAYER_FIELDS,
            key="id_number",
            update=(*_PLAYER_FIELDS[1:], "updated_at"),
            compare=_PLAYER_FIELDS[1:],
            rebuild_at=_REBUILD_INDEXES_AT,
        )

    def add(self, columns: list[np.ndarray]) -> None:
        """One batch of players (columns of _PLAYER_FIELDS; an id_number at most once in the import)."""
        self.staged.add_columns(columns)

    def finish(self, outcome: FideListImportOutcome) -> tuple[np.ndarray, np.ndarray]:
        """Write the players; every player's (id_number, primary key), sorted by id_number. The titles the
        list raises (``title_changes``) are read from the stage first, while the registry still holds the old."""
        self.title_changes = _title_changes(self.staged) if self.staged.staged else []
        keys, ids, created = self.staged.finish()
        outcome.players_created += created
        outcome.players_updated += self.staged.staged - created
        order = np.argsort(keys, kind="stable")
        return keys[order], ids[order]


def _title_changes(staged: StagedUpsert) -> list[tuple[int, str]]:
    """(id_number, title) of every title on the staged list that is new to the registry or higher than the one
    it holds in that title's track (ratings.engine.classes: GM..CM in ``title``, WGM..WCM in ``women_title``):
    one query joining the stage to the players, before the upsert overwrites their titles. The rows it returns
    are those whose titles differ from the registry's (a monthly list: a few dozen)."""
    quote = connection.ops.quote_name
    stage, table = quote(staged.staging), quote(Player._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT s.id_number, s.title, s.women_title, t.title, t.women_title FROM {stage} AS s "
            f"LEFT JOIN {table} AS t ON t.id_number = s.id_number "
            "WHERE (s.title <> '' AND (t.title IS NULL OR t.title <> s.title)) "
            "OR (s.women_title <> '' AND (t.women_title IS NULL OR t.women_title <> s.women_title))"
        )
        rows = cursor.fetchall()
    changes = []
    for id_number, title, women_title, held, held_women in rows:
        for new, old, track in ((title, held, OPEN_TITLE_ORDER), (women_title, held_women, WOMEN_TITLE_ORDER)):
            new = new.decode() if isinstance(new, bytes) else new
            old = old.decode() if isinstance(old, bytes) else old
            if new in track and not title_covers(old, new):  # B.01 0.3: a new title, or a higher one
                changes.append((int(id_number), new))
    return changes


def _title_awards_write(
    changes: list[tuple[int, str]], keys: np.ndarray, ids: np.ndarray, list_date: datetime.date, user: Actor
) -> int:
    """The list's title changes as TitleAward rows ("imported", dated the list's date), in one bulk write; the
    players' current titles were set by the upsert itself (what FIDE publishes)."""
    if not changes:
        return 0
    id_numbers = np.array([id_number for id_number, _ in changes], dtype=np.int64)
    count = len(changes)
    recorded_by = acting_user(user)
    return copy_columns(
        TitleAward,
        {
            "player_id": _key_of(id_numbers, keys, ids),
            "title": np.array([title for _, title in changes], dtype=object),
            "date": np.full(count, np.datetime64(list_date, "D")),
            "method": np.full(count, TitleMethod.IMPORTED, dtype=object),
            "reference": np.full(count, f"FIDE rating list {list_date:%Y-%m-%d}", dtype=object),
            "recorded_by_id": np.full(count, recorded_by.pk if recorded_by is not None else None, dtype=object),
        },
    )


def _key_of(id_numbers: np.ndarray, keys: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The primary key of each of ``id_numbers`` among the sorted (keys, ids) pairs of _PlayerUpsert.finish."""
    at = np.minimum(np.searchsorted(keys, id_numbers), max(len(keys) - 1, 0))
    if not len(keys) or not (keys[at] == id_numbers).all():
        raise RuntimeError("fide_list_import: a player of the list was not written")  # (never: a bug)
    return ids[at]


def _player_row(row: FideListRow, federations: set[str]) -> tuple[object, ...]:
    """The values of _PLAYER_FIELDS for one list row (what FIDE publishes about the player), for a row the
    reader read line by line; ``_player_columns`` gives the same for the rows it read by columns."""
    surname = (row.surname or row.name).translate(CONTROL_CHARACTERS)[:100] or f"FIDE {row.fide_id}"
    given = row.given_names.translate(CONTROL_CHARACTERS)[:100]
    title = row.title if row.title in _TITLES else ""
    women_title = row.women_title if row.women_title in _WOMEN_TITLES else ""
    if not women_title and title in _WOMEN_TITLES:
        women_title = title
    return (
        row.fide_id,
        surname,
        given,
        # Player.save() keeps search_name in step; bulk writes bypass save().
        (f"{surname}, {given}" if given else surname).upper(),
        name_search_key(f"{surname}, {given}" if given else surname),
        row.sex if row.sex in ("M", "F") else "",
        row.birth_year,
        row.federation if row.federation in federations else None,
        title,
        women_title,
        ",".join(row.other_titles).translate(CONTROL_CHARACTERS)[:40],
    )


def _valid(values: np.ndarray, allowed: frozenset[str] | tuple[str, ...]) -> np.ndarray:
    """``values`` (an S array) where they are one of ``allowed``, else empty."""
    return np.where(np.isin(values, np.array(sorted(allowed), dtype="S")), values, b"")


def _cut(values: np.ndarray, width: int) -> np.ndarray:
    """The first ``width`` bytes of each value (characters: the rows read by columns are ASCII)."""
    return values.astype(f"S{min(width, values.dtype.itemsize)}")


def _nullable(values: np.ndarray) -> np.ndarray:
    """An integer column with 0 for none as floats with NaN (NULL, copy_columns' convention)."""
    return np.where(values == 0, np.nan, values.astype(np.float64))


def _overwrite(column: np.ndarray, positions: list[int], values: list[object]) -> np.ndarray:
    """``column`` with the values at ``positions`` replaced (text widened to fit, UTF-8)."""
    if not positions:
        return column
    if column.dtype.kind == "S":
        encoded = [str(value).encode() for value in values]
        column = column.astype(f"S{max(column.dtype.itemsize, *map(len, encoded), 1)}")
        column[positions] = encoded
    elif column.dtype.kind == "f":
        column = column.copy()
        column[positions] = [np.nan if value is None else value for value in values]
    else:
        column = column.copy()
        column[positions] = values
    return column


def _player_columns(batch: FideListColumns, keep: np.ndarray, federations: set[str]) -> list[np.ndarray]:
    """The columns of _PLAYER_FIELDS for the rows at ``keep``: the same values as _player_row, vectorised for
    the rows read by columns (printable ASCII: CONTROL_CHARACTERS never occur, a character is a byte)."""
    text = {key: values[keep] for key, values in batch.text.items()}
    surname = _cut(np.where(text["surname"] != b"", text["surname"], text["name"]), 100)
    given = _cut(text["given_names"], 100)
    full = np.where(given != b"", np.strings.add(np.strings.add(surname, b", "), given), surname)
    title = _valid(text["title"], _TITLES)
    women_title = _valid(text["women_title"], _WOMEN_TITLES)
    women_title = np.where(
        (women_title == b"") & np.isin(title, np.array(sorted(_WOMEN_TITLES), dtype="S")), title, women_title
    )
    codes, inverse = np.unique(text["federation"], return_inverse=True)
    known = np.array([code if code in federations else None for code in np.char.decode(codes, "ascii")], dtype=object)
    columns = [
        batch.fide_ids[keep],
        surname,
        given,
        np.strings.upper(full),
        _search_keys(full),
        _valid(text["sex"], ("M", "F")),
        _nullable(batch.birth_years[keep]),
        known[inverse.reshape(-1)] if len(codes) else np.zeros(len(keep), dtype=object),
        title,
        women_title,
        _cut(text["other_titles"], 40),
    ]
    fallback = [i for i, at in enumerate(keep.tolist()) if at in batch.rows]
    if fallback:
        rows = [_player_row(batch.rows[int(keep[i])], federations) for i in fallback]
        columns = [
            _overwrite(column, fallback, list(values))
            for column, values in zip(columns, zip(*rows, strict=True), strict=True)
        ]
    return columns


def _search_keys(names: np.ndarray) -> np.ndarray:
    """players.names.name_search_key of ASCII names (an S array), vectorised: the same folding table, then the
    spaces between words collapsed to one."""
    keys = np.char.translate(names, ASCII_KEY_TABLE, ASCII_KEY_DELETE)  # type: ignore[call-overload]  # S arrays take bytes
    while len(keys) and (np.strings.find(keys, b"  ") >= 0).any():
        keys = np.strings.replace(keys, b"  ", b" ")
    return np.strings.strip(keys)


def _entry_text(row: FideListRow) -> tuple[str, str, str, str, str]:
    """title, women_title, other_titles, federation, sex of a row's entries, as published."""
    return (
        row.title if row.title in _TITLES else "",
        row.women_title if row.women_title in _WOMEN_TITLES else "",
        ",".join(row.other_titles).translate(CONTROL_CHARACTERS)[:40],
        row.federation.translate(CONTROL_CHARACTERS)[:3],
        row.sex if row.sex in ("M", "F") else "",
    )


def _entry_columns(
    batch: FideListColumns,
    positions: np.ndarray,
    player_ids: np.ndarray,
    types: tuple[str, ...],
    list_ids: dict[str, int],
    counts: dict[str, dict[str, int]],
) -> list[np.ndarray]:
    """The columns of _ENTRY_FIELDS: the entries of the rows at ``positions`` (of players ``player_ids``) in
    every type they have a rating in; the same values as _add_lines, vectorised."""
    text = {key: values[positions] for key, values in batch.text.items()}
    texts = [
        _valid(text["title"], _TITLES),
        _valid(text["women_title"], _WOMEN_TITLES),
        _cut(text["other_titles"], 40),
        _cut(text["federation"], 3),
        _valid(text["sex"], ("M", "F")),
    ]
    fallback = [i for i, at in enumerate(positions.tolist()) if at in batch.rows]
    if fallback:
        rows = [_entry_text(batch.rows[int(positions[i])]) for i in fallback]
        texts = [
            _overwrite(column, fallback, list(values))
            for column, values in zip(texts, zip(*rows, strict=True), strict=True)
        ]
    inactive = batch.inactive[positions]
    birth_years = _nullable(batch.birth_years[positions])
    parts: list[list[np.ndarray]] = []
    for rating_type in types:
        ratings, games, k_factors = (values[positions] for values in batch.ratings[rating_type])
        rated = np.flatnonzero(ratings > 0)  # unrated in this type: registered, no line on the list
        value, played, k_factor = ratings[rated], games[rated], k_factors[rated]
        status = k_status_from_published_k(_IMPORT_K_FACTOR, value, played, k_factor)  # B.02 8.3.3
        parts.append(
            [
                np.full(len(rated), list_ids[rating_type], dtype=np.int64),
                player_ids[rated],
                value,
                played,
                _nullable(k_factor),
                inactive[rated],
                *(column[rated] for column in texts),
                birth_years[rated],
                status.rated_games_total,
                status.ever_2400,
                status.ever_2300,
            ]
        )
        counts[rating_type]["entries"] += len(rated)
        counts[rating_type]["games"] += int(played.sum())
    return [np.concatenate(columns) for columns in zip(*parts, strict=True)]


def _entry_columns_of(entries: list[tuple[object, ...]]) -> list[np.ndarray]:
    """Entries as _add_lines gives them (tuples of _ENTRY_FIELDS' values) as the columns of _entry_columns."""
    columns = []
    for name, values in zip(_ENTRY_FIELDS, zip(*entries, strict=True), strict=True):
        if name in ("k_factor", "birth_year"):
            columns.append(np.array([np.nan if v is None else v for v in values], dtype=np.float64))
        elif name in ("title", "women_title", "other_titles", "federation", "sex"):
            columns.append(np.array([str(v).encode() for v in values], dtype="S"))
        elif name in ("inactive", "ever_2400", "ever_2300"):
            columns.append(np.array(values, dtype=bool))
        else:
            columns.append(np.array(values, dtype=np.int64))
    return columns


def _entries_write(list_ids: list[int], held: list[list[np.ndarray]]) -> None:
    """Write every entry of the imported lists once, with its position, rank and federation rank (computed as
    the publication does, ratings.engine.list_state.list_order), each list in its order into its own table,
    indexed and attached as the list's partition once written on PostgreSQL (ratings.services.entry_storage):
    no entry is rewritten to store its order afterwards, and no index is maintained row by row."""
    entry_storage_prepare(list_ids)
    columns = [np.concatenate(parts) for parts in zip(*held, strict=True)] if held else []
    held.clear()
    fields = [*_ENTRY_FIELDS, "position", "rank", "federation_rank"]
    for each in list_ids if columns else []:
        at = np.flatnonzero(columns[0] == each)
        if not at.size:
            continue
        of_list = [column[at] for column in columns]
        federation = np.char.decode(of_list[_ENTRY_FIELDS.index("federation")], "utf-8")
        player_id, rating, inactive = of_list[1], of_list[2].astype(np.float64), of_list[5]
        position, rank, federation_rank = list_order(player_id, rating, inactive, federation)
        order = np.argsort(position, kind="stable")
        values = [column[order] for column in (*of_list, position, rank, federation_rank)]
        for start in range(0, len(order), _WRITE_ROWS):  # bounded memory on SQLite (a tuple per row)
            copy_columns(
                RatingListEntry,
                {name: column[start : start + _WRITE_ROWS] for name, column in zip(fields, values, strict=True)},
                table=entry_table(each),
            )
    entry_storage_attach(list_ids)  # (and the planner's statistics of those partitions alone)


def _import(
    batches: Iterator[FideListColumns],
    types: tuple[str, ...],
    outcome: FideListImportOutcome,
    progress: Callable[[int], None] | None,
    user: Actor,
) -> None:
    list_date = outcome.list_date
    _refuse_existing_lists(list_date, types)
    lists = _new_lists(list_date, types, user)
    outcome.rating_lists = lists
    # Current ratings (the PlayerRating view) follow the newest current list: an older list imported later
    # leaves them alone; the outcome names those types.
    newer = set(
        RatingList.objects.current()
        .filter(rating_type__in=types, list_date__gt=list_date)
        .values_list("rating_type", flat=True)
    )
    outcome.current_ratings_skipped = [t for t in types if t in newer]
    known_federations = set(Federation.objects.values_list("code", flat=True))
    kept_of, merged_fide_ids = _merged_players()
    counts = {t: {"entries": 0, "games": 0} for t in types}
    list_ids = {rating_type: rating_list.pk for rating_type, rating_list in lists.items()}
    # Rows of merged records, written at the end unless the kept record has its own row on the list.
    redirected: list[tuple[int, FideListRow]] = []
    players = _PlayerUpsert()
    # Entries are held (as NumPy columns, the player's FIDE ID in place of the key until the players are
    # written) and written once, with their order, at the end.
    held: list[list[np.ndarray]] = []
    next_progress = PROGRESS_EVERY
    first_lines = _FirstLines()
    for batch in batches:
        keep = _first_row_of_each_player(batch, outcome, first_lines)
        codes = {code.decode() for code in np.unique(batch.text["federation"][keep]).tolist()}
        codes |= {batch.rows[at].federation for at in keep.tolist() if at in batch.rows}
        outcome.federations_created += sorted(federations_ensure(codes, known_federations))
        players.add(_player_columns(batch, keep, known_federations))
        fide_ids = batch.fide_ids[keep]
        redirect = np.isin(fide_ids, merged_fide_ids) if len(merged_fide_ids) else np.zeros(len(keep), dtype=bool)
        for at, fide_id in zip(keep[redirect].tolist(), fide_ids[redirect].tolist(), strict=True):
            redirected.append((kept_of(fide_id), batch.row(at)))
        held.append(_entry_columns(batch, keep[~redirect], fide_ids[~redirect], types, list_ids, counts))
        outcome.rows += len(batch)
        if progress is not None and outcome.rows >= next_progress:
            progress(outcome.rows)
            next_progress = (outcome.rows // PROGRESS_EVERY + 1) * PROGRESS_EVERY
    keys, ids = players.finish(outcome)
    outcome.titles_awarded = _title_awards_write(players.title_changes, keys, ids, list_date, user)
    for columns in held:
        columns[1] = _key_of(columns[1], keys, ids)
    del keys, ids
    if redirected:
        _redirected_entries_add(redirected, held, types, list_ids, counts)
    # positions (list pages) and ranks (profiles), as a published list stores them
    _entries_write(list(list_ids.values()), held)
    _lists_complete(lists, counts, outcome, user)
    if connection.vendor == "postgresql":
        # Statistics for the planner after a bulk load: without them it guesses, e.g., that few players
        # exist and scans the whole table for the TRF import's duplicate search.
        quote = connection.ops.quote_name
        with connection.cursor() as cursor:  # (the entries' partitions: entry_storage_attach)
            cursor.execute(f"ANALYZE {quote(Player._meta.db_table)}")
    if progress is not None and next_progress - PROGRESS_EVERY < outcome.rows:  # not reported yet
        progress(outcome.rows)


def _merged_players() -> tuple[Callable[[int], int], np.ndarray]:
    """The records merged into another: a function from such a record's FIDE ID to the primary key of the
    record that was kept (a chain of merges followed to its end), and their FIDE IDs as an array."""
    # Merged duplicates are few: one query for all of them, followed to the record that was kept.
    merged_records = list(
        Player.objects.filter(merged_into__isnull=False).values_list("pk", "id_number", "merged_into_id")
    )
    merged = {pk: kept for pk, _, kept in merged_records}
    merged_numbers = {id_number: pk for pk, id_number, _ in merged_records}  # the list names records by FIDE ID

    def kept_of(fide_id: int) -> int:
        player_id = merged_numbers[fide_id]
        while player_id in merged:
            player_id = merged[player_id]
        return player_id

    return kept_of, np.fromiter(merged_numbers, dtype=np.int64, count=len(merged_numbers))


def _redirected_entries_add(
    redirected: list[tuple[int, FideListRow]],
    held: list[list[np.ndarray]],
    types: tuple[str, ...],
    list_ids: dict[str, int],
    counts: dict[str, dict[str, int]],
) -> None:
    """The entries of the rows of merged records (``redirected``: kept record, row) added to ``held``, unless
    the kept record has its own row on the list (in ``held`` already) or an earlier merged row in that type."""
    type_of = {pk: rating_type for rating_type, pk in list_ids.items()}
    kept_ids = np.array(sorted({pk for pk, _ in redirected}), dtype=np.int64)
    on_list = set()
    for columns in held:
        found = np.isin(columns[1], kept_ids)
        on_list |= {
            (type_of[list_id], p)
            for list_id, p in zip(columns[0][found].tolist(), columns[1][found].tolist(), strict=True)
        }
    entries: list[tuple[object, ...]] = []
    for player_id, row in redirected:
        kept_types = tuple(t for t in types if (t, player_id) not in on_list)
        on_list |= {(t, player_id) for t in kept_types}
        _add_lines(player_id, row, kept_types, list_ids, counts, entries)
    if entries:
        held.append(_entry_columns_of(entries))


class _FirstLines:
    """FIDE ID -> line of its first row, over the whole file, in 16 bytes a row: sorted NumPy runs merged
    like a binary counter (a run merges with the one before while that is not larger), so that n rows cost
    O(n log n) and a look-up searches at most log2(n / batch) runs."""

    def __init__(self) -> None:
        self.runs: list[tuple[np.ndarray, np.ndarray]] = []  # (sorted FIDE IDs, their first lines)

    def find(self, fide_ids: np.ndarray) -> np.ndarray:
        """The first line of each ID seen before, 0 for the others."""
        found = np.zeros(len(fide_ids), dtype=np.int64)
        for keys, lines in self.runs:
            at = np.minimum(np.searchsorted(keys, fide_ids), len(keys) - 1)
            hit = keys[at] == fide_ids
            found[hit] = lines[at[hit]]
        return found

    def add(self, fide_ids: np.ndarray, lines: np.ndarray) -> None:
        """Record IDs not seen before (each once)."""
        if not len(fide_ids):
            return
        order = np.argsort(fide_ids)
        keys, values = fide_ids[order], lines[order]
        while self.runs and len(self.runs[-1][0]) <= len(keys):
            earlier_keys, earlier_values = self.runs.pop()
            keys, values = np.concatenate([earlier_keys, keys]), np.concatenate([earlier_values, values])
            order = np.argsort(keys, kind="stable")
            keys, values = keys[order], values[order]
        self.runs.append((keys, values))


def _first_row_of_each_player(
    batch: FideListColumns, outcome: FideListImportOutcome, first_lines: _FirstLines
) -> np.ndarray:
    """The positions in the batch of the rows of players not on an earlier line of the file. One rule whatever
    the batches: the first row of an ID is used, each repeat is a warning naming its line and the first one."""
    fide_ids, lines = batch.fide_ids, batch.lines
    distinct, first_at, inverse = np.unique(fide_ids, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    earlier = first_lines.find(distinct)  # the line in an earlier batch, 0: none
    first_line = np.where(earlier > 0, earlier, lines[first_at])
    position = np.arange(len(fide_ids))
    repeat = (first_at[inverse] != position) | (earlier[inverse] > 0)
    keep = np.sort(first_at[earlier == 0])
    first_lines.add(fide_ids[keep], lines[keep])
    for at in np.flatnonzero(repeat).tolist():  # positions follow the lines
        outcome.problem_add(
            FideListProblem(
                int(lines[at]),
                1,
                "warning",
                f"FIDE ID {int(fide_ids[at])} repeated (first on line {int(first_line[inverse[at]])}); "
                "the first row is used",
            )
        )
    return keep


def _lists_complete(
    lists: dict[str, RatingList],
    counts: dict[str, dict[str, int]],
    outcome: FideListImportOutcome,
    user: Actor,
) -> None:
    """Store each imported list's counts and record the import in the audit log (one record per list)."""
    list_date = outcome.list_date
    for rating_type, rating_list in lists.items():
        rating_list.entry_count = rating_list.rated_count = counts[rating_type]["entries"]
        rating_list.game_count = counts[rating_type]["games"]
        rating_list.save(update_fields=["entry_count", "rated_count", "game_count"])
        outcome.entries[rating_type] = counts[rating_type]["entries"]
        audit_record(
            user,
            AuditAction.FIDE_LIST_IMPORT,
            rating_list,
            after={
                "list_date": list_date,
                "rating_type": rating_type,
                "entries": counts[rating_type]["entries"],
                "rows": outcome.rows,
                "players_created": outcome.players_created,
                "players_updated": outcome.players_updated,
                "titles_awarded": outcome.titles_awarded,
                "problems": outcome.problem_count,
            },
        )


def _add_lines(
    player_id: int,
    row: FideListRow,
    types: tuple[str, ...],
    list_ids: dict[str, int],
    counts: dict[str, dict[str, int]],
    entries: list[tuple[object, ...]],
) -> None:
    """The list entries (values of _ENTRY_FIELDS) of one row, for each type it has a rating in."""
    title, women_title, other_titles, federation, sex = _entry_text(row)
    inactive = row.inactive
    for rating_type in types:
        rating = row.rating(rating_type)
        if rating is None or rating.rating is None:
            continue  # unrated in this type: registered, no line on the list
        value, games, k_factor = rating.rating, rating.games, rating.k_factor
        status = k_status_from_published_k(_IMPORT_K_FACTOR, value, games, k_factor or 0)  # B.02 8.3.3
        entries.append(
            (
                list_ids[rating_type],
                player_id,
                value,
                games,
                k_factor,
                inactive,
                title,
                women_title,
                other_titles,
                federation,
                sex,
                row.birth_year,
                int(status.rated_games_total),
                bool(status.ever_2400),
                bool(status.ever_2300),
            )
        )
        counts[rating_type]["entries"] += 1
        counts[rating_type]["games"] += games
