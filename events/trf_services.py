"""Events from TRF files and back: ``event_import_trf`` (upload / ``import_trf``) and ``event_export_trf``.

The pure module ``events.trf`` reads the file once (``parse_trf``) and makes every check that needs no
database (``check_event``: dates, one ID twice, a pending game when submitting, 032's shape), naming each
problem by line and column; this module never reads the file's bytes again. It makes the checks that need the
registry, decides what the file means for it and writes it in one transaction, in bulk:

- **Refusal.** Any problem of severity ``error`` (the parser's, ``check_event``'s, or this module's: two
  lines for one registered player, a player with neither name nor registered ID) or a database refusal
  (``IntegrityError``) imports nothing; the outcome
  lists the problems. Oddities that do not change what is rated are ``warning``s (e.g. a points column that
  disagrees with the results, as Swiss-Manager writes for requested byes).
- **Players** are matched by ID number: the file's FIDE ID column (columns 58-68), which ICU/Swiss-Manager
  exports fill with national IDs — those match ``Player.id_number`` just the same. A player merged into
  another counts as the kept one. Players not found are created, marked ``needs_review``, with:
  the file's ID as ``id_number`` when it has one; otherwise an ID number allocated from the *reserved range*
  ``max(highest id_number in the registry or the file, RESERVED_ID_START) + 1, + 2, ...`` — above any FIDE ID
  in use today, so an allocated number is recognisable and never taken from a real player. Likely duplicates
  (same surname and given names, or same surname and birth year) are suggested in the outcome.
- **Federations**: a player's federation is set when the column holds a FIDE federation code (or one the
  registry knows); a column of mostly other codes (ICU exports write club codes such as KIL, DUB) is read
  as club codes: left empty, with a warning.
- **Dates** are needed to rate an event: 042/052, else the first/last round date (132); otherwise the event
  is imported as a draft without them (issue 15), as it is without a rating type or with new players lacking
  birth year or sex: each is a warning naming its place, and ``events.services.event_problems`` refuses
  the submission until it is fixed. Only an unreadable file (an ``error``) is refused whole.
- **Games**: every pairing once (``events.trf.games``): 1/=/0 are rated results, +/- forfeits, W/D/L
  unplayed results, H/F/U/Z and blank byes (blank = Z); a round with no entry creates nothing. A game's
  result (1 = 0 W D L) without an opponent creates nothing either: it is a warning naming line, column, player
  and round, kept in ``Event.results_without_opponent``, and the event stays a draft until it is entered.
"""

from __future__ import annotations

import contextlib
import datetime
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, connection, transaction
from django.db.models import Max, Model
from django.utils import timezone
from django.utils.translation import gettext as _
from simple_history.utils import bulk_create_with_history

from audit.services import Actor, acting_user, audit_record
from core.bulk import copy_rows, reserve_ids
from events.models import (
    RESULT_POINTS,
    Event,
    EventStatus,
    EventSystem,
    Game,
    Participant,
    RatingType,
    Result,
)
from events.services import event_create, event_problems, event_submit, events_status_change
from events.trf import (
    ERROR,
    WARNING,
    ProblemsBySeverity,
    TrfEventChecks,
    TrfGame,
    TrfParseResult,
    TrfPlayer,
    TrfProblem,
    TrfProblemGroup,
    TrfResultWithoutOpponent,
    TrfRoundEntry,
    TrfTournament,
    check_event,
    group_problems,
    infer_rating_type,
    infer_system,
    parse_trf,
    write_trf,
)
from players.models import Club, Federation, Player, Title, WomenTitle
from players.names import name_search_key
from players.registry import clubs_ensure, federations_ensure, is_fide_federation_code
from players.selectors import fold_name, likely_duplicates_among

__all__ = [
    "RESERVED_ID_START",
    "TRF_REPLACEABLE_STATUSES",
    "DuplicateSuggestion",
    "PlayerMatch",
    "TrfImportOutcome",
    "TrfReplacement",
    "UnratedGame",
    "event_export_trf",
    "event_import_trf",
    "trf_check_report",
]

# Players without an ID get id_number above this (and above every id_number in use); see the module doc.
RESERVED_ID_START = 900_000_000
IMPORT_ACTION = "event.import_trf"
REPLACE_ACTION = "event.replace_trf"
# An event being entered by hand may take a file's rounds and results instead (issue 32): before submission only.
TRF_REPLACEABLE_STATUSES = (EventStatus.REGISTERED, EventStatus.DRAFT, EventStatus.CHECKED)
# SQLite's page cache while an import writes (KiB): the default 2 MB holds little of the games' indexes, so a big
# file's inserts read their pages again and again (issue 36: 103,896 games, their inserts 1.5x faster with 64 MB).
_SQLITE_CACHE_KIB = 64 * 1024
_QUERY_CHUNK = 500  # ids / names per IN (...) or OR query: within SQLite's limits on variables and depth
_TITLES = frozenset(Title.values)
_WOMEN_TITLES = frozenset(WomenTitle.values)
_SYSTEM_LABELS: dict[str, str] = {
    EventSystem.SWISS: "Swiss",
    EventSystem.ROUND_ROBIN: "Round robin",
    EventSystem.MATCH: "Match",
    EventSystem.TEAM: "Team",
}
# Game result -> (white's TRF code, black's TRF code); byes -> the player's code (TRF §2.2).
_TRF_CODES: dict[str, tuple[str, str]] = {
    Result.WHITE_WIN: ("1", "0"),
    Result.DRAW: ("=", "="),
    Result.BLACK_WIN: ("0", "1"),
    Result.WHITE_FORFEIT_WIN: ("+", "-"),
    Result.BLACK_FORFEIT_WIN: ("-", "+"),
    Result.DOUBLE_FORFEIT: ("-", "-"),
    Result.WHITE_WIN_UNPLAYED: ("W", "L"),
    Result.DRAW_UNPLAYED: ("D", "D"),
    Result.BLACK_WIN_UNPLAYED: ("L", "W"),
    Result.PENDING: ("", ""),
    Result.HALF_POINT_BYE: ("H", ""),
    Result.FULL_POINT_BYE: ("F", ""),
    Result.PAIRING_BYE: ("U", ""),
    Result.ZERO_POINT_BYE: ("Z", ""),
}


@dataclass
class DuplicateSuggestion:
    """A player the import created and registered players who may be the same person."""

    player: Player
    candidates: list[Player]
    reasons: list[str]  # one per candidate: "same name" / "same surname and birth year 1990"

    @property
    def matches(self) -> list[tuple[Player, str]]:
        return list(zip(self.candidates, self.reasons, strict=True))


@dataclass(frozen=True)
class PlayerMatch:
    """How one line of the file meets the registry: a registered player (``created`` False) or a new one."""

    start_rank: int
    name: str
    file_id: str  # the ID number column as written ("" when empty)
    player: Player
    created: bool


@dataclass(frozen=True)
class UnratedGame:
    """A game of the file that is not rated, and why (B.02 1.2: only played games are rated)."""

    round: int
    white: int
    black: int | None
    result: str
    why: str
    white_name: str = ""  # the players as the file names them (issue 32: a report names people, not numbers)
    black_name: str = ""


@dataclass
class TrfReplacement:
    """What a file changes in an event being entered by hand (issue 32), shown before the arbiter confirms."""

    status: str  # the event's status before
    players_before: int
    players_after: int
    added: list[str] = field(default_factory=list)  # players in the file, not in the event
    removed: list[str] = field(default_factory=list)  # players of the event, not in the file
    games_before: int = 0
    games_after: int = 0
    rounds_before: int = 0  # the last round with a game
    rounds_after: int = 0


# Why a result is not rated (B.02 1.2: games not played, forfeits and byes included, are not rated).
UNRATED_WHY: dict[str, str] = {
    Result.WHITE_FORFEIT_WIN: "forfeit",
    Result.BLACK_FORFEIT_WIN: "forfeit",
    Result.DOUBLE_FORFEIT: "double forfeit",
    Result.WHITE_WIN_UNPLAYED: "less than one move played",
    Result.DRAW_UNPLAYED: "less than one move played",
    Result.BLACK_WIN_UNPLAYED: "less than one move played",
    Result.HALF_POINT_BYE: "bye",
    Result.FULL_POINT_BYE: "bye",
    Result.PAIRING_BYE: "bye",
    Result.ZERO_POINT_BYE: "bye",
    Result.PENDING: "no result yet",
}


@dataclass
class TrfImportOutcome(ProblemsBySeverity):
    event: Event | None
    problems: list[TrfProblem] = field(default_factory=list)
    created_players: list[Player] = field(default_factory=list)
    matched_players: list[Player] = field(default_factory=list)
    likely_duplicates: list[DuplicateSuggestion] = field(default_factory=list)
    version: str = ""  # TRF16 / TRF-2026 as read
    encoding: str = ""
    games: int = 0
    rated_games: int = 0
    unrated_games: list[UnratedGame] = field(default_factory=list)
    player_matches: list[PlayerMatch] = field(default_factory=list)
    check_only: bool = False  # the report of a check: nothing was written (event stays None)
    rating_type: str = ""  # the rating type given or read from the file ("" when neither says)
    needs_rating_type: bool = False  # the caller requires one and neither it nor the file gives it
    replacement: TrfReplacement | None = None  # set when the file goes onto an existing event

    @property
    def problem_groups(self) -> list[TrfProblemGroup]:
        """The problems, the same one on many lines said once ("lines 12, 14, 16 … (34 lines)")."""
        return group_problems(self.problems)

    @property
    def ok(self) -> bool:
        return self.event is not None

    @property
    def player_count(self) -> int:
        return len(self.matched_players) + len(self.created_players)

    def refusal_message(self) -> str:
        """One line: why the file was refused (the first error, and how many more)."""
        errors = self.errors
        if not errors:
            return ""
        more = f" (and {len(errors) - 1} more error(s))" if len(errors) > 1 else ""
        return f"refused, nothing imported: {errors[0]}{more}"

    def summary(self) -> str:
        if self.check_only and not self.errors:
            return (
                f"checked, nothing imported: {self.player_count} players ({len(self.matched_players)} matched by ID "
                f"number, {len(self.created_players)} to be created), {self.games} games ({self.rated_games} rated); "
                f"{len(self.warnings)} warning(s), {len(self.likely_duplicates)} likely duplicate(s)"
            )
        if self.event is None:
            return self.refusal_message()
        return (
            f"imported {self.event.name!r} (event {self.event.pk}, "
            f"{self.event.get_status_display().lower()}): "
            f"{self.player_count} players ({len(self.matched_players)} "
            f"matched by ID number, {len(self.created_players)} created for review), {self.event.rounds} "
            f"rounds, {self.games} games; {len(self.warnings)} warning(s), "
            f"{len(self.likely_duplicates)} likely duplicate(s)"
        )


class _Refused(Exception):
    """Raised inside the import transaction to roll it back; the problems are already in the outcome."""


class _CheckOnly(Exception):
    """Raised at the end of a check's transaction: the whole import is rolled back, the report is kept."""


# ------------------------------------------------------------------------------------------------ import


def event_import_trf(
    data: bytes,
    *,
    file_name: str,
    user: Actor,
    rating_type: str | None = None,
    submit: bool = False,
    check_only: bool = False,
    require_rating_type: bool = False,
    into: Event | None = None,
) -> TrfImportOutcome:
    """Create a draft event (submitted with ``submit``) from a TRF16 / TRF-2026 / TRF06 file.

    ``require_rating_type`` (the admin's upload, issue 32): a file that names no rating type is refused unless
    the caller chooses one (a check reports it as a warning and sets ``outcome.needs_rating_type``), instead of
    becoming a draft without one. ``into``: an event still being entered (``TRF_REPLACEABLE_STATUSES``) takes
    the file's participants, rounds and results in place of its own, in the same transaction, audited; the
    outcome's ``replacement`` says what changed (a check says what would).

    ``check_only`` (issue 15, "check before submitting"): the same import, every check and match included,
    inside a transaction that is then rolled back: the outcome is the full report (problems by line and
    column, players matched / to be created / likely duplicates, games rated and not rated with why) and
    nothing is written; ``outcome.event`` stays None.

    ``rating_type``: standard, rapid or blitz; None reads it from the file's words (092 "…(rapid)",
    "Blitz" in the name) and otherwise takes standard, with a warning saying so. ``user``: the uploader
    (None from the command line); an arbiter who cannot see every event becomes the event's chief arbiter,
    so the event is theirs to check and submit. Returns the outcome; ``outcome.event`` is None when refused.
    """
    parsed = parse_trf(data, source_name=file_name)
    outcome = TrfImportOutcome(
        event=None,
        problems=list(parsed.problems),
        version=parsed.version,
        encoding=parsed.encoding,
        check_only=check_only,
    )
    if rating_type is not None and rating_type not in RatingType.values:
        outcome.problems.append(
            TrfProblem(0, None, ERROR, f"rating type {rating_type!r}: expected one of {', '.join(RatingType.values)}")
        )
    if parsed.ok and not outcome.errors:
        plan = _Plan(parsed, file_name, rating_type, submit, outcome)
        plan.into, plan.require_rating_type = into, require_rating_type
        plan.check()
        if not outcome.errors:
            try:
                with transaction.atomic(), _sqlite_page_cache():
                    plan.write(user)
                    if check_only:
                        raise _CheckOnly
            except _CheckOnly:
                outcome.event = None  # rolled back with everything else
            except _Refused:
                pass
            except (IntegrityError, DataError) as exc:
                outcome.problems.append(
                    TrfProblem(0, None, ERROR, f"the database refused the import ({exc}); nothing was saved")
                )
            except ValidationError as exc:  # event_submit's refusals
                outcome.problems.append(TrfProblem(0, None, ERROR, " ".join(exc.messages)))
            if outcome.errors:
                outcome.event, outcome.replacement = None, None
                outcome.created_players, outcome.matched_players, outcome.likely_duplicates = [], [], []
                outcome.games = outcome.rated_games = 0
                outcome.unrated_games, outcome.player_matches = [], []
    outcome.problems.sort(key=lambda p: (p.line, p.column or 0))
    return outcome


def trf_check_report(outcome: TrfImportOutcome) -> dict[str, Any]:
    """The outcome of a check (or an import) as JSON values: what ``POST /api/v1/events/check-trf/`` answers."""

    def problem(p: TrfProblem) -> dict[str, Any]:
        return {"line": p.line or None, "column": p.column, "message": p.message}

    duplicates = {id(s.player): s for s in outcome.likely_duplicates}

    def match(m: PlayerMatch) -> dict[str, Any]:
        suggestion = duplicates.get(id(m.player))
        return {
            "start_rank": m.start_rank,
            "name": m.name,
            "id_number": int(m.file_id) if m.file_id else None,
            "status": "new" if m.created else "matched",
            "player": None if m.created else {"id_number": m.player.id_number, "name": m.player.name},
            "likely_duplicates": [
                {"id_number": candidate.id_number, "name": candidate.name, "reason": reason}
                for candidate, reason in (suggestion.matches if suggestion else [])
            ],
        }

    return {
        "errors": [problem(p) for p in outcome.errors],
        "warnings": [problem(p) for p in outcome.warnings],
        "players": outcome.player_count,
        "games": outcome.games,
        "rated_games": outcome.rated_games,
        "matches": [match(m) for m in outcome.player_matches],
        "not_rated": [
            {"round": g.round, "white": g.white, "black": g.black, "result": g.result, "why": g.why}
            for g in outcome.unrated_games
        ],
        "version": outcome.version,
    }


def _split_name(player: TrfPlayer) -> tuple[str, str]:
    return player.surname[:100], player.given_names[:100]


def _insert_with_history(model: type[Model], fields: list[str], rows: list[tuple[Any, ...]], user: Actor) -> list[int]:
    """``rows`` (values in the order of ``fields``) into ``model``'s table under new primary keys, each with the
    "+" history record simple_history's ``bulk_create_with_history`` writes (every tracked column, the acting
    user, no change reason), in row order; returns the keys.

    Bulk data moves in bulk (DESIGN.md; issue 36): one statement per table whatever the rows, keys taken ahead
    (``reserve_ids``) so games can name their participants. The ORM made an object per row and converted each
    value: 28.6 s for 103,896 games."""
    ids = [int(pk) for pk in reserve_ids(model, len(rows))]
    written = [(pk, *row) for pk, row in zip(ids, rows, strict=True)]
    _insert_rows(model, ["id", *fields], written)
    if getattr(settings, "SIMPLE_HISTORY_ENABLED", True):
        history = model.history.model  # type: ignore[attr-defined]
        # bulk_history_create: default_user, else who the request middleware names (None in jobs and commands)
        who = user or history.get_default_history_user(None)
        when = history._meta.get_field("history_date").get_db_prep_save(timezone.now(), connection)
        extra = (when, None, "+", getattr(who, "pk", None))
        names = ["id", *fields, "history_date", "history_change_reason", "history_type", "history_user_id"]
        _insert_rows(history, names, [(*row, *extra) for row in written])
    return ids


def _delete_with_history(model: type[Model], event: Event, user: Actor) -> None:
    """``event``'s rows of ``model`` deleted, each with the "-" history record simple_history writes on a
    deletion (every tracked column as it was, the acting user), in bulk: one read, one write, one delete,
    whatever the rows (``QuerySet.delete`` sent a signal and wrote a record per row). A relation to the rows
    other than games' to their participants (deleted first) would need the ORM's cascade: it gets it."""
    rows = model._default_manager.filter(event=event)
    others = [rel for rel in model._meta.related_objects if rel.related_model is not Game]
    if others or not getattr(settings, "SIMPLE_HISTORY_ENABLED", True):
        rows.delete()  # the ORM's cascade and signals, one by one
        return
    history = model.history.model  # type: ignore[attr-defined]
    fields = [field.attname for field in history.tracked_fields]
    who = user or history.get_default_history_user(None)
    when = history._meta.get_field("history_date").get_db_prep_save(timezone.now(), connection)
    extra = (when, None, "-", getattr(who, "pk", None))
    names = [*fields, "history_date", "history_change_reason", "history_type", "history_user_id"]
    _insert_rows(history, names, [(*row, *extra) for row in rows.order_by("pk").values_list(*fields)])
    rows._raw_delete(connection.alias)


@contextlib.contextmanager
def _sqlite_page_cache() -> Iterator[None]:
    """SQLite: a page cache of ``_SQLITE_CACHE_KIB`` while the import writes, then the one it had."""
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


def _insert_rows(model: type[Model], fields: list[str], rows: list[tuple[Any, ...]]) -> None:
    """Rows whose values the driver takes as they are (ints, text, None, dates; a timestamp already converted):
    a binary COPY on PostgreSQL (``core.bulk.copy_rows``), one INSERT run with executemany elsewhere, without
    the per-value field conversion ``copy_rows`` makes there (it cost more than SQLite spent storing the rows)."""
    if connection.vendor == "postgresql":
        copy_rows(model, fields, rows)
        return
    quote = connection.ops.quote_name
    column_of = {field.attname: str(field.column) for field in model._meta.concrete_fields}
    columns = ", ".join(quote(column_of[name]) for name in fields)
    marks = ", ".join(["%s"] * len(fields))
    with connection.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({marks})", rows)


class _Plan:
    """One import: ``check_event``'s checks, then the reads, checks and writes inside the transaction."""

    def __init__(
        self,
        parsed: TrfParseResult,
        file_name: str,
        rating_type: str | None,
        submit: bool,
        outcome: TrfImportOutcome,
    ):
        self.parsed = parsed
        self.t: TrfTournament = parsed.tournament
        self.file_name = file_name
        self.rating_type = rating_type
        self.submit = submit
        self.outcome = outcome
        self.games: list[TrfGame] = []
        self.start_date: datetime.date | None = None
        self.end_date: datetime.date | None = None
        self.federation = ""  # 032 when three letters
        self.without_opponent: list[TrfResultWithoutOpponent] = []
        self.club_of: dict[int, str] = {}  # start rank -> club code, when the federation column holds clubs
        self.clubs: dict[str, Club] = {}
        self.into: Event | None = None  # an event in entry that takes the file's rounds (event_import_trf)
        self.require_rating_type = False

    def error(self, line: int, column: int | None, message: str) -> None:
        self.outcome.problems.append(TrfProblem(line, column, ERROR, message))

    def warn(self, line: int, column: int | None, message: str) -> None:
        self.outcome.problems.append(TrfProblem(line, column, WARNING, message))

    # -- checks without the database

    def check(self) -> None:
        """The checks that need no database are the pure module's (``events.trf.check_event``)."""
        checks = check_event(self.parsed, submit=self.submit)
        self.outcome.problems += [self.as_draft_problem(problem, checks) for problem in checks.problems]
        self.start_date, self.end_date = checks.start_date, checks.end_date
        self.federation = checks.federation
        self.games = checks.games
        self.without_opponent = checks.without_opponent
        if not self.rating_type and self.into is not None:
            self.rating_type = self.into.rating_type  # the event's own, when it has one
        if not self.rating_type:  # read from the file's words (092, 012, 122), or left for the arbiter
            self.rating_type, problem = infer_rating_type(self.t)
            if self.rating_type or not self.require_rating_type:
                self.outcome.problems += [problem] if problem else []
            else:
                self.ask_rating_type(problem)
        self.outcome.rating_type = self.rating_type

    def ask_rating_type(self, inferred: TrfProblem | None) -> None:
        """The file names no rating type and the caller requires one (issue 32): refuse naming the choice (a
        check warns), rather than import a draft without one."""
        self.outcome.needs_rating_type = True
        message = _(
            "the file does not say whether the event is standard, rapid or blitz (record 092 names none): "
            "choose Standard, Rapid or Blitz under 'Rating type' and import it again"
        )
        line = inferred.line if inferred else 0
        self.outcome.problems.append(TrfProblem(line, None, WARNING if self.outcome.check_only else ERROR, message))

    def as_draft_problem(self, problem: TrfProblem, checks: TrfEventChecks) -> TrfProblem:
        """A missing date refuses nothing (issue 15): the event is imported as a draft without it, and its
        submission is refused until the arbiter enters it (``events.services.event_problems``)."""
        for what, value in (("start", checks.start_date), ("end", checks.end_date)):
            if problem.severity == ERROR and value is None and problem.message.startswith(f"no {what} date"):
                return TrfProblem(
                    problem.line,
                    problem.column,
                    WARNING,
                    f"{problem.message}: imported as a draft; enter the {what} date in the event before submitting",
                )
        return problem

    # -- inside the transaction

    def write(self, user: Actor) -> None:
        t, outcome = self.t, self.outcome
        matched = self.match_players()
        if outcome.errors:
            raise _Refused
        federation_of = self.player_federations(matched)
        event_federation = self.event_federation()
        # the clubs the federation column carried (player_federations), under the event's federation (032)
        self.clubs = clubs_ensure(self.club_of.values(), event_federation)
        new_players = self.new_players(matched, federation_of)
        if outcome.errors:
            raise _Refused
        duplicates = self.likely_duplicates(new_players)
        created = bulk_create_with_history(new_players, Player, batch_size=500, default_user=user)
        by_rank = dict(matched)
        unmatched = [p for p in t.players if p.start_rank not in matched]
        for trf_player, player in zip(unmatched, created, strict=True):
            by_rank[trf_player.start_rank] = player
        event = self.create_event(user, event_federation) if self.into is None else self.replace_into(user, by_rank)
        participants, games = self.write_rows(event, by_rank, user)
        replaced = outcome.replacement
        audit_record(
            user,
            IMPORT_ACTION if replaced is None else REPLACE_ACTION,
            event,
            before=None if replaced is None else {"players": replaced.players_before, "games": replaced.games_before},
            after={
                "file": self.file_name,
                "version": self.parsed.version,
                "players": len(participants),
                "players_created": len(created),
                "games": len(games),
                "submitted": self.submit,
            },
        )
        if self.submit:
            missing = event_problems(event)
            if missing:  # an incomplete file is imported as a draft, not refused (issue 15)
                for problem in missing:
                    self.warn(0, None, f"not submitted for rating: {problem}")
            else:
                event_submit(event, user=user)
        self.report(event, len(games), matched, by_rank, created, duplicates)

    def write_rows(self, event: Event, by_rank: dict[int, Player], user: Actor) -> tuple[list[int], list[int]]:
        """The file's participants and games of ``event`` with their history records, in bulk: the primary keys
        of the participants and of the games written."""
        players = self.t.players
        participant_ids = _insert_with_history(
            Participant,
            ["event_id", "player_id", "start_rank", "rating", "club"],
            [(event.pk, by_rank[p.start_rank].pk, p.start_rank, p.rating, "") for p in players],
            user,
        )
        participant_of = dict(zip((p.start_rank for p in players), participant_ids, strict=True))
        dates = self.t.round_dates
        game_ids = _insert_with_history(
            Game,
            ["event_id", "round", "board", "white_id", "black_id", "result", "date", "version"],
            [
                (
                    event.pk,
                    game.round,
                    None,
                    participant_of[game.white],
                    participant_of[game.black] if game.black is not None else None,
                    game.result,
                    dates[game.round - 1] if game.round <= len(dates) else None,
                    1,
                )
                for game in self.games
            ],
            user,
        )
        return participant_ids, game_ids

    def replace_into(self, user: Actor, by_rank: dict[int, Player]) -> Event:
        """The event in entry loses its participants and games to the file's (issue 32), after the report of
        what changes (``TrfReplacement``); what the file says fills what the event lacks, the event's own
        name, dates and rating type are kept. A registered or checked event becomes a draft again."""
        assert self.into is not None
        event = Event.objects.select_for_update().get(pk=self.into.pk)
        if event.status not in TRF_REPLACEABLE_STATUSES:
            self.error(
                0,
                None,
                _("%(event)s is %(status)s: a file replaces the results only of an event not yet submitted")
                % {"event": event.name, "status": event.get_status_display().lower()},
            )
            raise _Refused
        self.outcome.replacement = self.replacement(event, by_rank)
        _delete_with_history(Game, event, user)
        _delete_with_history(Participant, event, user)
        event.rounds = max(self.t.number_of_rounds, event.rounds, 1)
        event.start_date, event.end_date = event.start_date or self.start_date, event.end_date or self.end_date
        event.rating_type = event.rating_type or self.rating_type or ""
        event.results_without_opponent = self.results_without_opponent()
        event.source_file_name = self.file_name[:255]
        event._history_user = acting_user(user)
        event.save()
        if event.status != EventStatus.DRAFT:
            reason = f"results replaced from {self.file_name}"[:500]
            events_status_change([event], EventStatus.DRAFT, user=user, reason=reason)
        return event

    def replacement(self, event: Event, by_rank: dict[int, Player]) -> TrfReplacement:
        """What the file changes in ``event``: players added and removed, games and rounds before and after."""
        before = {p.player_id: p.player.name for p in Participant.objects.filter(event=event).select_related("player")}
        after = {player.pk: trf.name or player.name for trf in self.t.players if (player := by_rank[trf.start_rank])}
        games = Game.objects.filter(event=event)
        return TrfReplacement(
            status=event.status,
            players_before=len(before),
            players_after=len(after),
            added=sorted(name for pk, name in after.items() if pk not in before),
            removed=sorted(name for pk, name in before.items() if pk not in after),
            games_before=games.count(),
            games_after=len(self.games),
            rounds_before=games.aggregate(last=Max("round"))["last"] or 0,
            rounds_after=max((game.round for game in self.games), default=0),
        )

    def results_without_opponent(self) -> list[dict[str, Any]]:
        return [
            {
                "round": missing.round,
                "start_rank": missing.start_rank,
                "result": missing.result,
                "line": missing.line,
                "column": missing.column,
            }
            for missing in self.without_opponent
        ]

    def report(
        self,
        event: Event,
        games: int,
        matched: dict[int, Player],
        by_rank: dict[int, Player],
        created: list[Player],
        duplicates: list[DuplicateSuggestion],
    ) -> None:
        """What ``write`` imported, in the outcome: the event, its games rated or not and why, the players
        matched or created and the likely duplicates among the new ones."""
        t, outcome = self.t, self.outcome
        outcome.event = event
        outcome.games = games
        outcome.rated_games = sum(game.is_rated for game in self.games)
        name_of = {p.start_rank: p.name or by_rank[p.start_rank].name for p in t.players}
        outcome.unrated_games = [
            UnratedGame(
                game.round,
                game.white,
                game.black,
                game.result,
                UNRATED_WHY.get(game.result, "not rated"),
                name_of[game.white],
                name_of[game.black] if game.black is not None else "",
            )
            for game in self.games
            if not game.is_rated
        ]
        outcome.player_matches = [
            PlayerMatch(p.start_rank, p.name, p.fide_id, by_rank[p.start_rank], p.start_rank not in matched)
            for p in t.players
        ]
        outcome.matched_players = [matched[p.start_rank] for p in t.players if p.start_rank in matched]
        outcome.created_players = list(created)
        new_by_identity = {id(player): player for player in created}
        outcome.likely_duplicates = [
            DuplicateSuggestion(new_by_identity.get(id(s.player), s.player), s.candidates, s.reasons)
            for s in duplicates
        ]

    def match_players(self) -> dict[int, Player]:
        """start rank -> registered player, by the ID number column (merged records -> the kept player)."""
        wanted = {int(p.fide_id): p for p in self.t.players if p.fide_id}
        found: dict[int, Player] = {}
        numbers = list(wanted)
        for start in range(0, len(numbers), _QUERY_CHUNK):
            chunk = numbers[start : start + _QUERY_CHUNK]
            for row in Player.objects.filter(id_number__in=chunk).select_related("merged_into"):
                found[row.id_number] = row
        matched: dict[int, Player] = {}
        used: dict[int, TrfPlayer] = {}
        for number, trf_player in wanted.items():
            player = found.get(number)
            if player is None:
                continue
            hops = 0
            while player.merged_into_id is not None and hops < 10:
                kept = player.merged_into
                if kept is None:  # merged_into_id set, the row gone: cannot be (on_delete=PROTECT)
                    break
                self.warn(
                    trf_player.line,
                    58,
                    f"player {trf_player.start_rank}: ID number {number} was merged into {kept}; "
                    "the event uses the kept record",
                )
                player = Player.objects.select_related("merged_into").get(pk=kept.pk) if kept.merged_into_id else kept
                hops += 1
            if player.pk in used:
                other = used[player.pk]
                self.error(
                    trf_player.line,
                    58,
                    f"player {trf_player.start_rank} and player {other.start_rank} (line "
                    f"{other.line}) are the same registered player {player}; one person cannot play "
                    "twice in an event",
                )
                continue
            used[player.pk] = trf_player
            matched[trf_player.start_rank] = player
            surname, _given = _split_name(trf_player)
            if trf_player.name and fold_name(surname) not in (fold_name(player.surname), fold_name(player.name)):
                self.warn(
                    trf_player.line,
                    15,
                    f"player {trf_player.start_rank}: ID number {number} is registered as "
                    f"{player.name!r} but the file says {trf_player.name!r}; check the ID",
                )
        return matched

    def player_federations(self, matched: dict[int, Player]) -> dict[int, str]:
        """start rank -> federation code for the players to be created (empty: unknown / a club code)."""
        new = [p for p in self.t.players if p.start_rank not in matched]
        codes = {p.federation for p in self.t.players if p.federation}
        registered = set(Federation.objects.filter(code__in=codes).values_list("code", flat=True))

        def is_federation(code: str) -> bool:
            return code in registered or is_fide_federation_code(code)

        federation_of: dict[int, str] = {}
        written = [p for p in self.t.players if p.federation]
        others = sorted({p.federation for p in written if not is_federation(p.federation)})
        if written and sum(not is_federation(p.federation) for p in written) * 2 > len(written):
            # ICU / Swiss-Manager exports put the player's club in the federation column.
            first = next(p for p in written if not is_federation(p.federation))
            shown = ", ".join(others[:8]) + (", ..." if len(others) > 8 else "")
            self.warn(
                first.line,
                54,
                "the federation column (54-56) mostly holds codes that are not FIDE federations "
                f"({shown}): read as club codes; new players' federations are left empty",
            )
            self.club_of = {p.start_rank: p.federation for p in new if p.federation and not is_federation(p.federation)}
            return {p.start_rank: "" for p in new}
        for player in new:
            code = player.federation
            if code and not is_federation(code):
                self.warn(
                    player.line,
                    54,
                    f"player {player.start_rank}: {code!r} is not a FIDE federation code; federation left empty",
                )
                code = ""
            federation_of[player.start_rank] = code
        federations_ensure(code for code in federation_of.values() if code)
        return federation_of

    def event_federation(self) -> str | None:
        """032 as a federation row (its shape was checked by ``check_event``), or None."""
        if not self.federation:
            return None
        federations_ensure([self.federation])
        return self.federation

    def new_players(self, matched: dict[int, Player], federation_of: dict[int, str]) -> list[Player]:
        new = [p for p in self.t.players if p.start_rank not in matched]
        if not new:
            return []
        without_id = [p for p in new if not p.fide_id]
        next_id = 0
        if without_id:
            if connection.vendor == "postgresql":
                # Two imports allocating at once would pick the same numbers: one waits for the other.
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_xact_lock(%s)", [RESERVED_ID_START])
            highest = Player.objects.aggregate(highest=Max("id_number"))["highest"] or 0
            in_file = max((int(p.fide_id) for p in self.t.players if p.fide_id), default=0)
            next_id = max(highest, in_file, RESERVED_ID_START) + 1
        players = []
        for trf_player in new:
            surname, given = _split_name(trf_player)
            if not surname:
                self.error(
                    trf_player.line,
                    15,
                    f"player {trf_player.start_rank} has no name (columns 15-47) and no ID number of "
                    "a registered player: there is nothing to register them by",
                )
                continue
            if trf_player.fide_id:
                id_number = int(trf_player.fide_id)
            else:
                id_number, next_id = next_id, next_id + 1
            title = trf_player.title if trf_player.title in _TITLES else ""
            birth = trf_player.birth_date
            self.warn_missing_registry_data(trf_player)
            self.warn_unsplit_name(trf_player)
            players.append(
                Player(
                    id_number=id_number,
                    surname=surname,
                    given_names=given,
                    search_name=(f"{surname}, {given}" if given else surname).upper(),  # save() is bypassed
                    search_key=name_search_key(f"{surname}, {given}" if given else surname),
                    sex={"m": "M", "w": "F"}.get(trf_player.sex, ""),
                    birth_date=trf_player.birth_date,
                    birth_year=trf_player.birth_year or (birth.year if birth else None),
                    federation_id=federation_of.get(trf_player.start_rank) or None,
                    club=self.clubs.get(self.club_of.get(trf_player.start_rank, "").strip()[:20]),
                    title=title,
                    women_title=title if title in _WOMEN_TITLES else "",
                    needs_review=True,
                )
            )
        return players

    def warn_missing_registry_data(self, trf_player: TrfPlayer) -> None:
        """A new player without birth year or sex is registered all the same; the event stays a draft until
        they are entered (``events.services.event_problems``; B.02 7.1.2)."""
        missing = [
            what
            for what, absent in (
                ("sex (column 10)", trf_player.sex not in ("m", "w")),
                ("birth year (columns 70-79)", not (trf_player.birth_year or trf_player.birth_date)),
            )
            if absent
        ]
        if missing:
            self.warn(
                trf_player.line,
                10 if trf_player.sex not in ("m", "w") else 70,
                f"player {trf_player.start_rank} ({trf_player.name or 'no name'}) is new and has no "
                f"{' and no '.join(missing)}: enter it in the player's record before submitting",
            )

    def warn_unsplit_name(self, trf_player: TrfPlayer) -> None:
        """TRF writes "Surname, Given names" (columns 15-47); a new player's name without a comma cannot be split
        safely ("Garcia Lopez Juan" and "Juan Garcia" both occur), so it is registered whole as the surname and
        the line is named (issue 32)."""
        if trf_player.name and "," not in trf_player.name:
            self.warn(
                trf_player.line,
                15,
                _(
                    "player %(rank)s (%(name)s): the name has no comma (TRF writes 'Surname, Given names'), so "
                    "the new player is registered with it whole as the surname; split it in the player's record"
                )
                % {"rank": trf_player.start_rank, "name": trf_player.name},
            )

    def likely_duplicates(self, new_players: list[Player]) -> list[DuplicateSuggestion]:
        """Registered players who are probably the same person as a new player (players.selectors'
        duplicate_reason: the same name, or the same surname start and birth year)."""
        return [
            DuplicateSuggestion(player, [candidate for candidate, _ in found], [reason for _, reason in found])
            for player, found in zip(new_players, likely_duplicates_among(new_players), strict=True)
            if found
        ]

    def create_event(self, user: Actor, federation: str | None) -> Event:
        t = self.t
        name = t.name or self.file_name.rsplit("/", 1)[-1].rsplit(".", 1)[0] or "Imported event"
        if not t.name:
            self.warn(0, None, f"no tournament name (record 012): the event is called {name!r}")
        rounds = max(t.number_of_rounds, 1)
        start_date, end_date, rating_type = self.start_date, self.end_date, self.rating_type or ""
        event = Event(
            name=name[:200],
            city=t.city[:100],
            federation_id=federation,
            start_date=start_date,
            end_date=end_date,
            rating_type=rating_type,
            system=infer_system(self.t, self.games),
            rounds=rounds,
            time_control=(t.time_control or t.encoded_time_control)[:100],
            status=EventStatus.DRAFT,
            source_file_name=self.file_name[:255],
            chief_arbiter_name=t.chief_arbiter[:200],
            results_without_opponent=self.results_without_opponent(),
        )
        # An arbiter's upload is theirs to check and submit: event_create makes them its chief arbiter.
        reason = f"results received: imported from {self.file_name}"[:500]
        return event_create(event, user=user, timeline_reason=reason)


# ------------------------------------------------------------------------------------------------ export


def event_export_trf(event: Event) -> str:
    """The event as TRF-2026 text (CR LF lines). Re-importing it gives the same players (by ID number),
    start ranks, ratings, rounds, games and results; 092 carries the system and the rating type."""
    participants = list(Participant.objects.filter(event=event).select_related("player").order_by("start_rank"))
    games = list(
        Game.objects.filter(event=event)
        .order_by("round", "board", "pk")
        .values_list("round", "white__start_rank", "black__start_rank", "result", "date")
    )
    entries: dict[int, list[TrfRoundEntry]] = defaultdict(list)
    points: defaultdict[int, float] = defaultdict(float)
    dates_by_round: defaultdict[int, Counter[datetime.date]] = defaultdict(Counter)
    for round_number, white, black, result, date in games:
        white_code, black_code = _TRF_CODES[result]
        white_points, black_points = RESULT_POINTS[result]
        points[white] += white_points
        if black is None:
            entries[white].append(TrfRoundEntry(round_number, None, "-", white_code))
        else:
            entries[white].append(TrfRoundEntry(round_number, black, "w", white_code))
            entries[black].append(TrfRoundEntry(round_number, white, "b", black_code))
            points[black] += black_points
        if date:
            dates_by_round[round_number][date] += 1
    # TRF rank (86-89): by points, then starting rank (a tie-break the file does not claim to be official).
    order = sorted(participants, key=lambda p: (-points[p.start_rank], p.start_rank))
    rank_of = {p.start_rank: position for position, p in enumerate(order, start=1)}
    players = []
    for participant in participants:
        player = participant.player
        players.append(
            TrfPlayer(
                start_rank=participant.start_rank,
                name=player.name,
                sex={"M": "m", "F": "w"}.get(player.sex, ""),
                title=player.title or player.women_title,
                rating=participant.rating,
                federation=player.federation_id or "",
                fide_id=str(player.id_number),
                birth_date=player.birth_date,
                birth_year=player.birth_year,
                points=points[participant.start_rank],
                rank=rank_of[participant.start_rank] if games else None,
                rounds=sorted(entries[participant.start_rank], key=lambda entry: entry.round),
            )
        )
    last_round = max((number for number, *_ in games), default=0)
    round_dates = [
        dates_by_round[number].most_common(1)[0][0] if dates_by_round[number] else None
        for number in range(1, last_round + 1)
    ]
    while round_dates and round_dates[-1] is None:
        round_dates.pop()
    chief = event.chief_arbiter_name
    if not chief and event.chief_arbiter_id and (user := event.chief_arbiter) is not None:
        chief = user.get_full_name() or user.get_username()
    tournament = TrfTournament(
        name=event.name,
        city=event.city,
        federation=event.federation_id or "",
        start_date=event.start_date,
        end_date=event.end_date,
        tournament_type=f"{_SYSTEM_LABELS.get(event.system, event.system)} ({event.rating_type})",
        chief_arbiter=chief,
        time_control=event.time_control,
        round_dates=round_dates,
        rounds_declared=event.rounds,
        players=players,
    )
    comment = f"Event {event.pk} exported by the federation rating database ({event.get_status_display()})"
    return write_trf(tournament, comment=comment)
