"""Importing a FIDE rating-list download as a published, imported rating list (``fide_list_import``).

A federation starts from FIDE's ratings: every row of the file creates or updates the player (matched by
``id_number`` = FIDE ID), and each rating type present in the file becomes a published ``RatingList``
(``is_imported=True``, the ``fide-2024`` rules frozen in ``rules``) with one entry per player *rated* in that
type (the players' current ratings, ``PlayerRating``, follow the newest current list). Players without a
rating of a type get no entry of that type (FIDE's combined list has 1.1 million players with no rating at
all; they are still registered).

Reading is ``ratings.fide_list`` (pure, streaming); this module writes in batches of ``BATCH_ROWS`` rows
(bulk upserts, a fixed number of queries per batch), so memory stays bounded whatever the file size. The
whole import is one transaction: a refused or failed import leaves nothing behind.

State the list cannot tell, set by documented rules (B.02 8.3.3, rating-rules.md):

- ``rated_games_total``: FIDE publishes only the games of the period. K 20 or 10 means the player has
  completed at least 30 rated games (K 40 applies "until he has completed events with at least 30 games"),
  so it is recorded as ``max(30, games)``; otherwise (K 40 or no K) as the period's games.
- ``ever_2400``: K 10 is given once a player "has reached 2400", and stays; so ``K == 10 or rating >= 2400``.
- ``ever_2300`` (the junior K 40 stops at 2300): ``ever_2400 or rating >= 2300``.
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

import datetime
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import IO

import numpy as np
from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, connection, transaction
from django.utils import timezone

from audit.models import AuditAction
from audit.services import Actor, acting_user, audit_record
from core.bulk import BatchWriter
from events.models import RatingType
from players.models import Federation, Player, Title, WomenTitle
from players.registry import CONTROL_CHARACTERS, federations_ensure
from ratings.engine import get_preset
from ratings.fide_list import (
    FideListFormatError,
    FideListProblem,
    FideListReader,
    FideListRow,
)
from ratings.models import RatingList, RatingListEntry, RatingListStatus
from ratings.services.list_order import list_order_store

__all__ = [
    "BATCH_ROWS",
    "FideListImportOutcome",
    "PROGRESS_EVERY",
    "fide_list_import",
]

BATCH_ROWS = 5_000
PROGRESS_EVERY = 100_000
IMPORT_RULES_PRESET = "fide-2024"
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

    reader = FideListReader(stream, rating_type=single_type, on_problem=outcome.problem_add)
    rows = iter(reader)
    try:
        first = next(rows, None)
    except FideListFormatError as exc:
        raise ValidationError(_named(source_name, exc)) from None
    layout = reader.layout
    present = layout.rating_types if layout is not None else ()
    if first is not None and layout is not None and layout.kind == "xml":
        present = tuple(t for t in RatingType.values if first.rating(t) is not None)
    types = tuple(t for t in present if wanted is None or t in wanted)
    where = source_name or "the file"
    if first is None:
        raise ValidationError(f"{where}: no player rows after the header; nothing imported")
    if not types:
        what = f"ratings of type {', '.join(wanted)}" if wanted else "any rating column"
        has = ", ".join(present) or "none"
        raise ValidationError(f"{where}: no players with {what} (the file has {has})")
    try:
        with transaction.atomic():
            _import(chain([first], rows), types, outcome, progress, user)
    except FideListFormatError as exc:
        raise ValidationError(_named(source_name, exc)) from None
    except (IntegrityError, DataError) as exc:
        raise ValidationError(
            f"{source_name or 'the file'}: the database refused the import, nothing was saved ({exc})"
        ) from None
    return outcome


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


def _batches(rows: Iterator[FideListRow], size: int) -> Iterator[list[FideListRow]]:
    while batch := list(islice(rows, size)):
        yield batch


_PLAYER_FIELDS = [
    "id_number",
    "surname",
    "given_names",
    "search_name",
    "sex",
    "birth_year",
    "federation",
    "title",
    "women_title",
    "other_titles",
    "created_at",
    "updated_at",
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


def _player_keys(id_numbers: list[int]) -> dict[int, int]:
    """id_number -> primary key of the registered players among ``id_numbers`` (SQLite; one query; raw SQL
    because the ORM spends longer preparing 5,000 parameters than the database spends answering)."""
    if not id_numbers:
        return {}
    quote = connection.ops.quote_name
    sql = (
        f"SELECT {quote('id_number')}, {quote('id')} FROM {quote(Player._meta.db_table)} "
        f"WHERE {quote('id_number')} IN ({', '.join(['%s'] * len(id_numbers))})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, id_numbers)
        return dict(cursor.fetchall())


def _players_write(
    players: BatchWriter, rows: list[tuple[object, ...]], id_numbers: list[int], outcome: FideListImportOutcome
) -> dict[int, int]:
    """Upsert one batch of players; id_number -> primary key of each, counted as created or updated.

    PostgreSQL: the upsert returns the keys (RETURNING; ``xmax = 0`` marks a row it inserted), so no look-up
    is needed — a look-up per batch in a table growing faster than its statistics would be planned as a scan
    of the whole table, batch after batch. SQLite: one indexed look-up before and one after."""
    if connection.vendor == "postgresql":
        written = players.write(rows, returning=("id_number", "id"))
        created = sum(1 for *_, inserted in written if inserted)
        outcome.players_created += created
        outcome.players_updated += len(written) - created
        return {id_number: pk for id_number, pk, _ in written}
    pk_by_id = _player_keys(id_numbers)
    players.write(rows)
    outcome.players_updated += len(pk_by_id)
    outcome.players_created += len(id_numbers) - len(pk_by_id)
    if len(pk_by_id) < len(id_numbers):
        pk_by_id.update(_player_keys([fide_id for fide_id in id_numbers if fide_id not in pk_by_id]))
    return pk_by_id


def _player_row(row: FideListRow, federations: set[str], now: object) -> tuple[object, ...]:
    """The values of _PLAYER_FIELDS for one list row (what FIDE publishes about the player)."""
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
        row.sex if row.sex in ("M", "F") else "",
        row.birth_year,
        row.federation if row.federation in federations else None,
        title,
        women_title,
        ",".join(row.other_titles).translate(CONTROL_CHARACTERS)[:40],
        now,
        now,
    )


def _import(
    rows: Iterator[FideListRow],
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
    # Merged duplicates are few: one query for all of them, followed to the record that was kept.
    merged = dict(Player.objects.filter(merged_into__isnull=False).values_list("pk", "merged_into_id"))
    counts = {t: {"entries": 0, "games": 0} for t in types}
    list_ids = {rating_type: rating_list.pk for rating_type, rating_list in lists.items()}
    # Rows of merged records, written at the end unless the kept record has its own row on the list.
    redirected: list[tuple[int, FideListRow]] = []
    players = BatchWriter(
        Player,
        _PLAYER_FIELDS,
        conflict=("id_number",),
        update=tuple(f for f in _PLAYER_FIELDS if f not in ("id_number", "created_at")),
    )
    list_entries = BatchWriter(RatingListEntry, _ENTRY_FIELDS)
    next_progress = PROGRESS_EVERY
    first_lines = _FirstLines()
    for batch in _batches(rows, BATCH_ROWS):
        by_id = _first_row_of_each_player(batch, outcome, first_lines)
        created = federations_ensure((row.federation for row in by_id.values()), known_federations)
        outcome.federations_created += sorted(created)
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        player_rows = [_player_row(row, known_federations, now) for row in by_id.values()]
        pk_by_id = _players_write(players, player_rows, list(by_id), outcome)
        entries: list[tuple[object, ...]] = []
        for fide_id, row in by_id.items():
            player_id = pk_by_id[fide_id]
            if player_id in merged:
                while player_id in merged:
                    player_id = merged[player_id]
                redirected.append((player_id, row))
                continue
            _add_lines(player_id, row, types, list_ids, counts, entries)
        list_entries.write(entries)
        outcome.rows += len(batch)
        if progress is not None and outcome.rows >= next_progress:
            progress(outcome.rows)
            next_progress = (outcome.rows // PROGRESS_EVERY + 1) * PROGRESS_EVERY
    if redirected:
        on_list = set(
            RatingListEntry.objects.filter(
                rating_list__in=lists.values(), player_id__in=[pk for pk, _ in redirected]
            ).values_list("rating_list__rating_type", "player_id")
        )
        entries = []
        for player_id, row in redirected:
            kept_types = tuple(t for t in types if (t, player_id) not in on_list)
            on_list |= {(t, player_id) for t in kept_types}
            _add_lines(player_id, row, kept_types, list_ids, counts, entries)
        list_entries.write(entries)
    # positions (list pages) and ranks (profiles), as a published list stores them
    list_order_store(list_ids.values())
    _lists_complete(lists, counts, outcome, user)
    if connection.vendor == "postgresql":
        # Statistics for the planner after a bulk load: without them it guesses, e.g., that few players
        # exist and scans the whole table for the TRF import's duplicate search.
        quote = connection.ops.quote_name
        with connection.cursor() as cursor:
            for model in (Player, RatingListEntry):
                cursor.execute(f"ANALYZE {quote(model._meta.db_table)}")
    if progress is not None and next_progress - PROGRESS_EVERY < outcome.rows:  # not reported yet
        progress(outcome.rows)


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
    batch: list[FideListRow], outcome: FideListImportOutcome, first_lines: _FirstLines
) -> dict[int, FideListRow]:
    """FIDE ID -> the batch's row of each player not on an earlier line of the file. One rule whatever the
    batches: the first row of an ID is used, each repeat is a warning naming its line and the first one."""
    by_id: dict[int, FideListRow] = {}
    again: list[FideListRow] = []  # rows whose ID came on an earlier line of this batch
    for row in batch:
        if row.fide_id in by_id:
            again.append(row)
        else:
            by_id[row.fide_id] = row
    first_line = {fide_id: row.line for fide_id, row in by_id.items()}
    fide_ids = np.fromiter(by_id, dtype=np.int64, count=len(by_id))
    earlier = first_lines.find(fide_ids)
    repeats: list[tuple[FideListRow, int]] = []
    for fide_id, line in zip(fide_ids[earlier > 0].tolist(), earlier[earlier > 0].tolist(), strict=True):
        first_line[fide_id] = line  # in an earlier batch
        repeats.append((by_id.pop(fide_id), line))
    repeats += [(row, first_line[row.fide_id]) for row in again]
    first_lines.add(
        np.fromiter(by_id, dtype=np.int64, count=len(by_id)),
        np.fromiter((row.line for row in by_id.values()), dtype=np.int64, count=len(by_id)),
    )
    for row, first in sorted(repeats, key=lambda repeat: repeat[0].line):
        outcome.problem_add(
            FideListProblem(
                row.line, 1, "warning", f"FIDE ID {row.fide_id} repeated (first on line {first}); the first row is used"
            )
        )
    return by_id


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
    title = row.title if row.title in _TITLES else ""
    women_title = row.women_title if row.women_title in _WOMEN_TITLES else ""
    other_titles = ",".join(row.other_titles).translate(CONTROL_CHARACTERS)[:40]
    federation = row.federation.translate(CONTROL_CHARACTERS)[:3]
    sex = row.sex if row.sex in ("M", "F") else ""
    inactive = row.inactive
    for rating_type in types:
        rating = row.rating(rating_type)
        if rating is None or rating.rating is None:
            continue  # unrated in this type: registered, no line on the list
        value, games, k_factor = rating.rating, rating.games, rating.k_factor
        # B.02 8.3.3: K 20/10 only after 30 rated games; K 10 once 2400 has been reached (and it stays).
        rated_games_total = max(30, games) if k_factor in (20, 10) else games
        ever_2400 = k_factor == 10 or value >= 2400
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
                rated_games_total,
                ever_2400,
                ever_2400 or value >= 2300,  # ever_2300: the junior K 40 stops at 2300
            )
        )
        counts[rating_type]["entries"] += 1
        counts[rating_type]["games"] += games
