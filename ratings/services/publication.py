"""Rating-list publication: the only bridge between the database and the rating engine for lists.

One list = one rating type and list date. Its period runs from the previous list date (exclusive) to the list
date; it rates every submitted event of the type that ended on or before the closing date and was not rated
yet (an event that ended after the previous closing date is therefore picked up by the next list). Each event
is rated with the ratings of the list in force at its start date (rules 1.3), the new ratings continue the
previous list (B.02 8.3).

Three steps, each in one place:

1. :func:`rating_list_compute` reads everything IN BULK (into NumPy, a fixed number of queries whatever the
   size on PostgreSQL; on SQLite one more per 10,000 players new to the list), runs the engine once
   (``rate_period``, then ``ratings.engine.list_state`` for every rule of the state a list carries: pool window,
   rounding, last game, inactivity, next K, list order) and stores nothing, giving a :class:`ComputedList`:
   one entry for every player with rating state (players without games are copied forward with their
   inactivity updated), one rating change per player and event with per-game detail, and a digest of the
   inputs.
2. :func:`rating_list_write` is THE write step: the list row, entries, rating changes (COPY on PostgreSQL,
   bulk_create elsewhere) and events (status rated, rated_on). Current ratings (PlayerRating) are a view over
   the newest current list's entries: they follow the list as soon as it is published, with nothing to write.
3. The public services wrap 1 and 2 in ONE transaction under a per-rating-type lock, so a publication is
   single-flight and never half-done: PostgreSQL takes ``pg_advisory_xact_lock`` (released with the
   transaction, also when the process dies); SQLite's IMMEDIATE transactions (settings) serialise writers.
   After the lock, the current state is read again: a second trigger returns the existing list and writes
   nothing.

Published lists are immutable. A correction publishes version n+1 of the list and of every later current list
of the same type (:func:`rating_list_republish_from`), marking the old ones superseded.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from django.db import connection, transaction
from django.db.models import BooleanField, Case, CharField, ForeignKey, IntegerField, QuerySet, Value, When
from django.db.models.expressions import RawSQL
from django.utils import timezone

from audit.models import AuditAction
from audit.services import audit_record
from core.bulk import JsonText, copy_columns, read_columns
from events.models import RATED_RESULTS, Event, EventStatus, Game, Participant, RatingType
from events.services import events_status_change
from outbox.webhooks import webhooks_notify
from players.models import Player
from ratings.engine import PeriodGames, PeriodPlayers, PeriodResult, RulesPreset, get_preset, rate_period
from ratings.engine.game_line import (
    CAPPED,
    COLOUR,
    COUNTED,
    DIFFERENCE,
    EXPECTED_SCORE,
    GAME,
    OPPONENT,
    OPPONENT_RATING,
    OPPONENT_RATING_USED,
    RATED,
    RATING_CHANGE,
    ROUND,
    SCORE,
    STORED_LINE_FIELDS,
    WEIGHTED_CHANGE,
)
from ratings.engine.list_state import (
    NEW_PLAYER_STATE,
    PERIOD_FIELDS,
    drop_expired_pools,
    list_order,
    list_state_after,
)
from ratings.models import (
    RatingChange,
    RatingList,
    RatingListEntry,
    RatingListStatus,
    RatingPolicy,
)
from ratings.selectors import (
    events_awaiting_republication,
    events_pending_rating,
    rating_list_current,
    rating_list_draft,
    rating_list_next_version,
    rating_list_previous,
    rating_lists_after,
)
from ratings.services.adjustments import rating_adjustment_applied, rules_with_adjustment
from ratings.services.entry_storage import (
    entry_storage_attach,
    entry_storage_bulk,
    entry_storage_prepare,
    entry_table,
)
from ratings.services.errors import NothingToPublish, RatingListRefused
from ratings.services.schedule import check_rating_type, rating_policy_for

if TYPE_CHECKING:
    from django.contrib.auth.models import User

log = logging.getLogger(__name__)
Arrays = dict[str, np.ndarray]
ReadKind = str | tuple[str, int]  # a column kind of core.bulk.read_columns

CHANGE_BATCH_SIZE = 20_000
EVENT_BATCH_SIZE = 500
ID_BATCH_SIZE = 10_000  # primary keys per "id IN (...)" read (SQLite allows 32,766 parameters a statement)
WHITE_SCORE = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}  # B.02 1.2: only played games are rated
# White's score in half points, computed by the database so games are read as numbers only
WHITE_HALF_POINTS = Case(
    *(When(result=code, then=Value(int(score * 2))) for code, score in WHITE_SCORE.items()),
    output_field=IntegerField(),
)
RATED_RESULT_CODES = [r.value for r in RATED_RESULTS]
# pg_advisory_xact_lock(namespace, rating type): one publication at a time per rating type, because every list
# continues the previous one of its type.
LOCK_NAMESPACE = 0x52415445  # "RATE"
LOCK_IDS = {rating_type: number for number, rating_type in enumerate(RatingType.values, start=1)}


# --------------------------------------------------------------------------------------------------------
# What is computed
# --------------------------------------------------------------------------------------------------------
@dataclass
class ListPlan:
    """Which list is computed, from what."""

    rating_type: str
    list_date: datetime.date
    closing_date: datetime.date
    period_start: datetime.date | None
    rules: RulesPreset
    previous: RatingList | None
    events: QuerySet[Event]  # the events this list rates
    version: int
    correction_reason: str = ""
    # A replay (ratings.services.backtest) continues its own lists, not the published ones: the state of
    # ``previous`` as replayed (STATE_COLUMNS arrays sorted by player; None: read the published entries) and
    # the replayed ratings of older lists by their id ((player ids sorted, ratings), for events that started
    # before ``previous``).
    previous_state: Arrays | None = None
    replayed_ratings: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def pool_start(self) -> datetime.date:
        """pool_since of a newcomer whose pool starts in this period (start of the 26-month window)."""
        return self.period_start or self.list_date


@dataclass
class ChangeDetails:
    """Per-game lines of every rating change, as sorted arrays; ``json_texts(start, stop)`` writes the JSON of
    a slice of changes only when it is written (memory stays bounded by the batch, not the list)."""

    offsets: np.ndarray  # change row i has sides offsets[i]:offsets[i + 1]
    columns: dict[str, np.ndarray]  # ratings.engine.game_line names, plus "white" and "pooled" (bool)

    def json_texts(self, start: int, stop: int) -> list[str]:
        """RatingChange.details of changes start..stop-1 as JSON text, each the change's lines in the form
        ratings.fields.GameLinesField stores, {"columns": STORED_LINE_FIELDS, "rows": [[values], ...]}
        (ratings.engine.game_line says what each is; NaN is null).

        Built column by column (each distinct number formatted once) and joined per change, with no Python
        object per game: a list period has millions of lines.
        """
        lo, hi = int(self.offsets[start]), int(self.offsets[stop])
        n = hi - lo
        if n == 0:
            return ["[]"] * (stop - start)
        values = _line_texts({name: values[lo:hi] for name, values in self.columns.items()})
        # pieces of each line: "[", value, ",", value, ..., "]"; the first line opens the document
        pieces = np.empty((n, 2 * len(values) + 1), dtype=object)
        pieces[:, 0] = ",["
        for k, column in enumerate(values):
            pieces[:, 2 * k + 1] = column
            pieces[:, 2 * k + 2] = ","
        pieces[:, -1] = "]"
        offsets = self.offsets[start : stop + 1] - lo
        has_lines = offsets[1:] > offsets[:-1]
        pieces[offsets[:-1][has_lines], 0] = DETAILS_JSON_HEAD + "["
        pieces[offsets[1:][has_lines] - 1, -1] = "]]}"
        flat = pieces.ravel().tolist()
        width = pieces.shape[1]
        return [
            "".join(flat[a * width : b * width]) if b > a else "[]"
            for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)
        ]


def _line_texts(c: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The JSON text of every value of the lines, one array per STORED_LINE_FIELDS name, in that order."""
    texts = {
        name: _json_texts(c[name])
        for name in (GAME, ROUND, OPPONENT, OPPONENT_RATING, OPPONENT_RATING_USED, CAPPED, DIFFERENCE)
        + (EXPECTED_SCORE, SCORE, RATED, WEIGHTED_CHANGE)
    }
    texts[COLOUR] = np.where(c["white"], '"white"', '"black"').astype(object)
    texts[RATING_CHANGE] = _json_texts(c[SCORE] - c[EXPECTED_SCORE])  # B.02 8.3.2: dR = score - PD
    texts[COUNTED] = _json_texts(c[RATED] | c["pooled"])  # pooled: towards an initial rating (B.02 7.1.4)
    return [texts[name] for name in STORED_LINE_FIELDS]


DETAILS_JSON_HEAD = '{"columns":[' + ",".join(f'"{key}"' for key in STORED_LINE_FIELDS) + '],"rows":['


def _json_texts(values: np.ndarray) -> np.ndarray:
    """Each value as JSON text, as json.dumps writes it (floats by repr, NaN as null); a column of few
    distinct numbers (ratings, D, PD, K x delta) is formatted once per distinct value."""
    if values.dtype.kind == "b":
        return np.where(values, "true", "false").astype(object)
    if values.dtype.kind in "iu" and values.size and np.ptp(values) > 4 * values.size:
        return np.array(list(map(str, values.tolist())), dtype=object)  # ids: mostly distinct
    distinct, inverse = np.unique(values, return_inverse=True)
    if values.dtype.kind == "f":
        texts = ["null" if v != v else repr(v) for v in distinct.tolist()]
    else:
        texts = [str(v) for v in distinct.tolist()]
    return np.array(texts, dtype=object)[inverse.reshape(-1)]


@dataclass
class ComputedList:
    plan: ListPlan
    digest: str
    event_ids: list[int]
    entries: dict[str, np.ndarray]  # RatingListEntry columns, one row per entry
    changes: dict[str, np.ndarray]  # RatingChange columns, one row per (player, event)
    details: ChangeDetails
    summary: dict[str, int]
    # The engine's input and output, kept for tests and diagnostics.
    player_ids: np.ndarray | None = field(repr=False, default=None)
    games: PeriodGames | None = field(repr=False, default=None)
    players: PeriodPlayers | None = field(repr=False, default=None)
    result: PeriodResult | None = field(repr=False, default=None)

    @property
    def is_empty(self) -> bool:
        return self.summary["entries"] == 0


@dataclass
class PublishOutcome:
    rating_list: RatingList | None
    created: bool
    dry_run: bool = False
    promoted_draft: bool = False
    summary: dict[str, int] = field(default_factory=dict)
    computed: ComputedList | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, object]:
        """JSON-able (Celery result)."""
        rl = self.rating_list
        return {
            "rating_list_id": rl.pk if rl else None,
            "rating_type": rl.rating_type if rl else None,
            "list_date": rl.list_date.isoformat() if rl else None,
            "version": rl.version if rl else None,
            "created": self.created,
            "dry_run": self.dry_run,
            "promoted_draft": self.promoted_draft,
            "summary": self.summary,
        }

    def describe(self) -> str:
        s = self.summary
        counts = (
            f"{s.get('entries', 0)} entries, {s.get('rated', 0)} rated, "
            f"{s.get('new_ratings', 0)} new ratings, {s.get('dropped', 0)} below the floor, "
            f"{s.get('events', 0)} events, {s.get('games', 0)} games"
        )
        if self.dry_run:
            return f"dry run: {counts}; nothing written"
        rl = self.rating_list
        assert rl is not None  # a publication (not a dry run) always names its list
        if not self.created:
            return f"{rl} was already published (id {rl.pk}); nothing changed"
        how = " (the previewed draft, unchanged)" if self.promoted_draft else ""
        return f"published {rl} (id {rl.pk}){how}: {counts}"


# --------------------------------------------------------------------------------------------------------
# Public services
# --------------------------------------------------------------------------------------------------------
def rating_list_publish(
    rating_type: str,
    list_date: datetime.date,
    *,
    user: User | None = None,
    dry_run: bool = False,
    today: datetime.date | None = None,
) -> PublishOutcome:
    """Compute and publish the list of ``list_date``; idempotent (a second call returns the existing list).

    ``dry_run`` computes and reports without writing. A draft preview of the same list is published as it is
    when nothing it read has changed since (same input digest), otherwise it is replaced by the fresh
    computation, so the result is always identical to a direct publication.
    """
    check_rating_type(rating_type)
    policy = rating_policy_for(rating_type)
    _check_list_date(policy, list_date)
    if dry_run:
        with transaction.atomic():
            plan = _plan_regular(policy, list_date)
            computed = rating_list_compute(plan)
            if computed.is_empty:
                raise NothingToPublish(_nothing_message(rating_type, list_date, plan))
            return PublishOutcome(None, created=False, dry_run=True, summary=computed.summary, computed=computed)
    with transaction.atomic():
        _lock_rating_type(rating_type)
        existing = rating_list_current(rating_type, list_date)
        if existing is not None:
            log.info("rating list %s already published (id %s); nothing to do", existing, existing.pk)
            return PublishOutcome(existing, created=False, summary=_summary_of(existing))
        _check_publishable(policy, list_date, today or timezone.localdate())
        plan = _plan_regular(policy, list_date)
        computed = rating_list_compute(plan)
        if computed.is_empty:
            raise NothingToPublish(_nothing_message(rating_type, list_date, plan))
        draft = rating_list_draft(rating_type, list_date)
        promote = draft if draft is not None and draft.input_digest == computed.digest else None
        if draft is not None and promote is None:
            log.info("draft %s is out of date (its inputs changed); publishing a fresh computation", draft)
            draft.delete()
        rating_list = rating_list_write(computed, status=RatingListStatus.PUBLISHED, user=user, promote=promote)
        log.info("published %s (id %s): %s", rating_list, rating_list.pk, computed.summary)
    return PublishOutcome(
        rating_list,
        created=True,
        promoted_draft=promote is not None,
        summary=computed.summary,
        computed=computed,
    )


def rating_list_compute_preview(rating_type: str, list_date: datetime.date, *, user: User | None = None) -> RatingList:
    """Compute the list of ``list_date`` as a draft (replacing an earlier draft) for officials to browse.

    Nothing else changes: events stay submitted and current ratings (PlayerRating) untouched. Allowed before
    the list date.
    """
    check_rating_type(rating_type)
    policy = rating_policy_for(rating_type)
    _check_list_date(policy, list_date)
    with transaction.atomic():
        _lock_rating_type(rating_type)
        existing = rating_list_current(rating_type, list_date)
        if existing is not None:
            raise RatingListRefused(
                f"the {rating_type} list of {list_date} is already published ({existing}); "
                "a correction is republished, not previewed"
            )
        _check_chain(policy, list_date)
        plan = _plan_regular(policy, list_date)
        computed = rating_list_compute(plan)
        if computed.is_empty:
            raise NothingToPublish(_nothing_message(rating_type, list_date, plan))
        stale = rating_list_draft(rating_type, list_date)
        if stale is not None:
            stale.delete()
        draft = rating_list_write(computed, status=RatingListStatus.DRAFT, user=user)
    return draft


def rating_list_publish_preview(
    draft: RatingList, *, user: User | None = None, today: datetime.date | None = None
) -> PublishOutcome:
    """Publish a draft: promoted as it is if its inputs are unchanged, recomputed otherwise (identical to
    :func:`rating_list_publish` of the same date, which it is)."""
    if draft.status != RatingListStatus.DRAFT:
        raise RatingListRefused(f"{draft} is not a draft preview")
    return rating_list_publish(draft.rating_type, draft.list_date, user=user, today=today)


def rating_list_republish_from(
    rating_type: str, list_date: datetime.date, reason: str, user: User | None = None
) -> list[RatingList]:
    """Republish the list of ``list_date`` and every later current list of the type after corrections.

    Each gets a new version computed with the rules frozen in the old one and the same events (now with
    their corrected games); the old versions are marked superseded and stay readable. Corrected events
    become rated again, current ratings (PlayerRating) follow the newest list. Refused when no corrected event
    is waiting, or when one was rated on an earlier list (republish from that one, or its correction would be
    lost).
    """
    check_rating_type(rating_type)
    reason = (reason or "").strip()
    if not reason:
        raise RatingListRefused("a republication needs a reason (it is shown with the new version)")
    with transaction.atomic():
        _lock_rating_type(rating_type)
        old_lists = list(RatingList.objects.current(rating_type).filter(list_date__gte=list_date).order_by("list_date"))
        if not old_lists or old_lists[0].list_date != list_date:
            raise RatingListRefused(f"there is no published {rating_type} list of {list_date} to republish")
        imported = [rl for rl in old_lists if rl.is_imported]
        if imported:
            raise RatingListRefused(f"{imported[0]} was imported from a FIDE download and cannot be recomputed")
        corrected = list(events_awaiting_republication(rating_type).order_by("rated_on__list_date", "id"))
        if not corrected:
            raise RatingListRefused(
                f"no corrected {rating_type} event is waiting for republication "
                f"(set the event's status to corrected first)"
            )
        earliest = corrected[0]
        assert earliest.rated_on is not None  # awaiting republication: rated on a list, then corrected
        if earliest.rated_on.list_date < list_date:
            raise RatingListRefused(
                f"event {earliest.pk} '{earliest.name}' was corrected and was rated on the list of "
                f"{earliest.rated_on.list_date}; republish from that list"
            )
        previous = rating_list_previous(rating_type, list_date)
        new_lists: list[RatingList] = []
        for old in old_lists:
            plan = ListPlan(
                rating_type=rating_type,
                list_date=old.list_date,
                closing_date=old.closing_date,
                period_start=old.period_start,
                rules=RulesPreset.from_json(old.rules),
                previous=previous,
                events=Event.objects.filter(rated_on=old),
                version=rating_list_next_version(rating_type, old.list_date),
                correction_reason=reason,
            )
            computed = rating_list_compute(plan)
            stale = rating_list_draft(rating_type, old.list_date)
            if stale is not None:
                stale.delete()
            previous = rating_list_write(
                computed,
                status=RatingListStatus.PUBLISHED,
                user=user,
                supersede=old,
            )
            new_lists.append(previous)
            log.info("republished %s superseding %s: %s", previous, old, computed.summary)
    return new_lists


def rating_list_publish_scheduled(rating_type: str, today: datetime.date) -> dict[str, object]:
    """What the beat schedule runs on day 1 of the list months: publish today's list if today is a list date
    of the policy (the crontab may have been edited); a day that is not a list date, or a list with nothing
    in it, is skipped with a reason rather than failing."""
    policy = rating_policy_for(rating_type)
    if not policy.is_list_date(today):
        return {"skipped": f"{today} is not a {rating_type} list date (months {policy.list_months})"}
    try:
        return rating_list_publish(rating_type, today, today=today).as_dict()
    except NothingToPublish as exc:
        log.info("scheduled %s publication of %s skipped: %s", rating_type, today, exc)
        return {"skipped": str(exc)}


# --------------------------------------------------------------------------------------------------------
# Checks and plans
# --------------------------------------------------------------------------------------------------------
def _check_list_date(policy: RatingPolicy, list_date: datetime.date) -> None:
    if not policy.is_list_date(list_date):
        nearest = policy.previous_list_date(list_date + datetime.timedelta(days=1))
        raise RatingListRefused(
            f"{list_date} is not a {policy.rating_type} list date (lists on the 1st of months "
            f"{policy.list_months}; the latest list date up to it is {nearest})"
        )


def _check_chain(policy: RatingPolicy, list_date: datetime.date) -> None:
    """Lists of a type form a chain: no later list may exist, no earlier list date may be skipped."""
    later = rating_lists_after(policy.rating_type, list_date).first()
    if later is not None:
        raise RatingListRefused(
            f"a later {policy.rating_type} list ({later.list_date}) is already published; "
            "corrections are republished from the corrected list"
        )
    previous = rating_list_previous(policy.rating_type, list_date)
    if previous is not None:
        missing = policy.list_dates_between(
            previous.list_date + datetime.timedelta(days=1), list_date - datetime.timedelta(days=1)
        )
        if missing:
            raise RatingListRefused(
                f"the {policy.rating_type} list of {missing[0]} is not published yet; publish the lists in date order"
            )


def _check_publishable(policy: RatingPolicy, list_date: datetime.date, today: datetime.date) -> None:
    if list_date > today:
        raise RatingListRefused(
            f"the {policy.rating_type} list of {list_date} cannot be published before its "
            f"date (today is {today}); compute a preview instead"
        )
    _check_chain(policy, list_date)


def _plan_regular(policy: RatingPolicy, list_date: datetime.date) -> ListPlan:
    rating_type = policy.rating_type
    previous = rating_list_previous(rating_type, list_date)
    closing_date = policy.closing_date(list_date)
    return ListPlan(
        rating_type=rating_type,
        list_date=list_date,
        closing_date=closing_date,
        period_start=previous.list_date if previous else policy.previous_list_date(list_date),
        rules=rules_with_adjustment(get_preset(policy.rules_preset), rating_type, list_date),
        previous=previous,
        events=events_pending_rating(rating_type, closing_date),
        version=rating_list_next_version(rating_type, list_date),
    )


def _nothing_message(rating_type: str, list_date: datetime.date, plan: ListPlan) -> str:
    return (
        f"nothing to publish for the {rating_type} list of {list_date}: no earlier list and no submitted "
        f"event ending on or before the closing date {plan.closing_date}"
    )


def _summary_of(rating_list: RatingList) -> dict[str, int]:
    return {
        "entries": rating_list.entry_count,
        "rated": rating_list.rated_count,
        "new_ratings": rating_list.new_rating_count,
        "dropped": rating_list.dropped_count,
        "events": rating_list.event_count,
        "games": rating_list.game_count,
    }


class _Phases:
    """Wall time of each step of a publication, logged at DEBUG (bench/publish.py prints them)."""

    def __init__(self) -> None:
        self.last = time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        log.debug("publication step %s: %.2f s", name, now - self.last)
        self.last = now


def _size_work_memory() -> None:
    """PostgreSQL: sort and hash memory for this transaction's bulk reads and writes (millions of rows); the
    server default (4 MB) turns the joins of a FIDE-sized list into disk sorts and nested scans."""
    if connection.vendor == "postgresql" and connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL work_mem = '256MB'")


def _lock_rating_type(rating_type: str) -> None:
    """Serialise publications of one rating type until the surrounding transaction ends."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, LOCK_IDS[rating_type]])
    else:
        # SQLite: settings open every transaction with BEGIN IMMEDIATE, which already holds the database's
        # write lock; a no-op write takes it here as well should the transaction mode ever be deferred.
        with connection.cursor() as cursor:
            cursor.execute("UPDATE ratings_ratingpolicy SET closing_days = closing_days WHERE 1 = 0")


def rating_list_publication_running(rating_type: str) -> bool | None:
    """Whether some session holds the rating type's publication lock now (PostgreSQL: a live advisory lock;
    a dead session's lock is gone with its transaction). None where that cannot be seen (SQLite)."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND classid = %s AND objid = %s AND objsubid = 2)",
            [LOCK_NAMESPACE, LOCK_IDS[rating_type]],
        )
        row = cursor.fetchone()
    return bool(row and row[0])


# --------------------------------------------------------------------------------------------------------
# Step 1: load in bulk and compute
# --------------------------------------------------------------------------------------------------------
def _dates(values: Sequence[datetime.date]) -> np.ndarray:
    return np.array(values, dtype="datetime64[D]") if len(values) else np.empty(0, dtype="datetime64[D]")


def _lookup(keys: np.ndarray, values: np.ndarray, query: np.ndarray, default: object) -> np.ndarray:
    """values[keys == query] for sorted ``keys``; ``default`` where the key is absent."""
    out = np.full(query.shape, default, dtype=values.dtype)
    if keys.size == 0 or query.size == 0:
        return out
    pos = np.minimum(np.searchsorted(keys, query), keys.size - 1)
    found = keys[pos] == query
    out[found] = values[pos[found]]
    return out


# Stored empty (NULL) on an entry without a newcomer pool, read as 0 (ratings.models RatingListEntry).
POOL_SUMS = ("pool_opponent_sum", "pool_score")
# The state a list carries to the next one, as read_columns kinds (NULL rating / K -> NaN, NULL date -> NaT).
STATE_COLUMNS: dict[str, ReadKind] = {
    "player_id": "int64",
    **{name: "date" if dtype == "datetime64[D]" else dtype for name, (_, dtype) in NEW_PLAYER_STATE.items()},
}


def _load_list_state(rating_list: RatingList | None) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Every entry of a list (the state a new list continues), sorted by player id, and the registry data of
    its players (REGISTRY_COLUMNS) read with it: one binary COPY of the entries joined to their players on
    PostgreSQL (millions of rows straight into NumPy)."""
    entries = (
        RatingListEntry.objects.filter(rating_list=rating_list).order_by()
        if rating_list is not None
        else RatingListEntry.objects.none()
    )
    registry_lookups = {f"player__{name}": kind for name, kind in REGISTRY_COLUMNS.items()}
    # chunk_by: a million entries arrive as a hundred packed rows (core.bulk.read_columns); player ids are dense
    # enough (a list's players are most of the registered ones)
    rows = read_columns(entries, {**STATE_COLUMNS, **registry_lookups}, chunk_by="player_id")
    by_player = np.argsort(rows["player_id"], kind="stable")  # sorted here: no sort in the database
    rows = {name: values[by_player] for name, values in rows.items()}
    # A player merged into another (players.services.player_merge) is not carried onto new lists: their games
    # and history now belong to the kept player; a line left on an old published list stays there only.
    merged = np.fromiter(Player.objects.filter(merged_into__isnull=False).values_list("id", flat=True), dtype=np.int64)
    if merged.size:
        keep = ~np.isin(rows["player_id"], merged)
        rows = {name: values[keep] for name, values in rows.items()}
    state = {name: rows[name] for name in STATE_COLUMNS}
    for name in POOL_SUMS:  # stored empty when there is no pool (_write_entries)
        state[name] = np.nan_to_num(state[name], nan=0.0)
    registry = {"id": rows["player_id"], **{name: rows[f"player__{name}"] for name in REGISTRY_COLUMNS}}
    return state, registry


def _replayed_list_state(state: Arrays) -> tuple[Arrays, Arrays]:
    """A replayed list's state (STATE_COLUMNS, sorted by player) as _load_list_state returns a published
    one: merged players left out the same way, the registry data read by primary key."""
    merged = np.fromiter(Player.objects.filter(merged_into__isnull=False).values_list("id", flat=True), dtype=np.int64)
    rows = {name: np.asarray(state[name]) for name in STATE_COLUMNS}
    if merged.size:
        keep = ~np.isin(rows["player_id"], merged)
        rows = {name: values[keep] for name, values in rows.items()}
    return rows, _registry_of(rows["player_id"])


def _max_length(name: str) -> int:
    model_field = Player._meta.get_field(name)
    if isinstance(model_field, ForeignKey):
        model_field = model_field.target_field
    assert isinstance(model_field, CharField) and model_field.max_length is not None, name
    return model_field.max_length


# The registry data a list needs (K needs the birth year; entries keep title etc. as published). The short
# codes travel as characters in the binary format; other_titles (rarely set) is read apart.
REGISTRY_COLUMNS: dict[str, ReadKind] = {
    "id_number": "int64",
    "birth_year": ("int64", 0),
    "title": ("chars", _max_length("title")),
    "women_title": ("chars", _max_length("women_title")),
    "federation_id": ("chars", _max_length("federation")),
    "sex": ("chars", _max_length("sex")),
}


def _distinct(values: np.ndarray) -> np.ndarray:
    """np.unique(values) of integers, by sorting: NumPy 2.4's np.unique hashes, which takes 30 times as long
    on the two million player ids of a FIDE-sized period (1.4 s against 0.04 s)."""
    ordered = np.sort(values)
    keep = np.empty(ordered.size, dtype=bool)
    keep[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _registry_of(player_ids: np.ndarray) -> dict[str, np.ndarray]:
    """REGISTRY_COLUMNS of the players with these primary keys (sorted): the period's players who were not on
    the previous list (newcomers, unrated players), read by primary key (elsewhere than on PostgreSQL, a batch of
    ID_BATCH_SIZE at a time).
    (Reading them as "participants of the events, less the previous list's players" joined a million
    participations to the players and to the previous list: 3 to 5 s at FIDE's scale; by key, 0.2 s.)"""
    columns = {"id": "int64", **REGISTRY_COLUMNS}
    if connection.vendor == "postgresql":
        # one query, the keys in one array parameter (an index scan in key order); 80,000 placeholders would
        # cost the client more to write than the server to answer
        table = connection.ops.quote_name(Player._meta.db_table)
        by_key = RawSQL(f"{table}.id = ANY(%s)", (player_ids.tolist(),), output_field=BooleanField())
        return read_columns(Player.objects.filter(by_key).order_by(), columns, chunk_by="id")
    batches = (player_ids[start : start + ID_BATCH_SIZE] for start in range(0, player_ids.size, ID_BATCH_SIZE))
    parts = [read_columns(Player.objects.filter(id__in=batch.tolist()).order_by(), columns) for batch in batches]
    if not parts:
        return read_columns(Player.objects.none(), columns)
    return {name: np.concatenate([part[name] for part in parts]) for name in columns}


@dataclass
class _Events:
    """The events the list rates, ordered by end date then id: the engine's event index."""

    ids: np.ndarray
    start: np.ndarray  # datetime64[D]
    end: np.ndarray  # datetime64[D]

    @property
    def size(self) -> int:
        return int(self.ids.size)


@dataclass
class _RatedGames:
    """The rated games of those events, ordered by event, round and id; players by primary key."""

    id: np.ndarray
    event: np.ndarray  # the engine's event index
    round: np.ndarray
    white_pid: np.ndarray
    black_pid: np.ndarray
    white_score: np.ndarray

    @property
    def size(self) -> int:
        return int(self.id.size)


def _load_events(plan: ListPlan) -> _Events:
    rows = list(plan.events.order_by("end_date", "id").values_list("id", "start_date", "end_date"))
    # Events to rate have their dates: a submission without them is refused (events.services.event_problems).
    assert all(r[1] is not None and r[2] is not None for r in rows), "an event to rate has no dates"
    return _Events(
        ids=np.array([r[0] for r in rows], dtype=np.int64),
        start=_dates([r[1] for r in rows if r[1] is not None]),
        end=_dates([r[2] for r in rows if r[2] is not None]),
    )


def _load_rated_games(plan: ListPlan, events: _Events) -> _RatedGames:
    """Played games only (1-0, 1/2, 0-1; forfeits and byes are never rated, B.02 1.2), in one bulk read."""
    rated_games = (
        Game.objects.filter(event_id__in=plan.events.values("id"), result__in=RATED_RESULT_CODES, black__isnull=False)
        .annotate(white_half_points=WHITE_HALF_POINTS)
        .order_by()  # sorted below; the model's ordering would make the database sort a million games
    )
    g = read_columns(
        rated_games,
        {
            "id": "int64",
            "event_id": "int64",
            "round": "int64",
            "white__player_id": "int64",
            "black__player_id": "int64",
            "white_half_points": "int16",
        },
        chunk_by="id",  # a million games come as a hundred rows of arrays (sorted below)
    )
    event_order = np.argsort(events.ids)
    pos = np.searchsorted(events.ids[event_order], g["event_id"])
    known = _found(events.ids[event_order], pos, g["event_id"])
    # (an event submitted while we read belongs to the next computation, not half to this one)
    event = event_order[pos[known]] if events.size else np.zeros(0, dtype=np.int64)
    columns = [g["id"], g["round"], g["white__player_id"], g["black__player_id"], g["white_half_points"] / 2.0]
    game_id, game_round, white_pid, black_pid, white_score = (a[known] for a in columns)
    order = np.lexsort((game_id, game_round, event))
    return _RatedGames(
        id=game_id[order],
        event=event[order].astype(np.int64),
        round=game_round[order],
        white_pid=white_pid[order],
        black_pid=black_pid[order],
        white_score=white_score[order],
    )


def _found(keys: np.ndarray, pos: np.ndarray, query: np.ndarray) -> np.ndarray:
    """keys[pos] == query for searchsorted positions ``pos`` in sorted ``keys`` (False past the end)."""
    if not keys.size:
        return np.zeros(query.size, dtype=bool)
    found: np.ndarray = (pos < keys.size) & (keys[np.minimum(pos, keys.size - 1)] == query)
    return found


def _ratings_in_force(
    plan: ListPlan, events: _Events, games: _RatedGames, prev: Arrays
) -> tuple[np.ndarray, np.ndarray]:
    """White's and black's rating on the list in force at each game's event start (rules 1.3; NaN: unrated):
    the previous list from its state, an older list from its entries of the event's participants."""
    in_force = list(
        RatingList.objects.current(plan.rating_type)
        .filter(list_date__lt=plan.list_date)
        .order_by("list_date")
        .values_list("id", "list_date")
    )
    in_force_ids = np.array([r[0] for r in in_force], dtype=np.int64)
    in_force_dates = _dates([r[1] for r in in_force])
    event_list = np.zeros(events.size, dtype=np.int64)
    if in_force_ids.size and events.size:
        idx = np.searchsorted(in_force_dates, events.start, side="right") - 1
        event_list = np.where(idx >= 0, in_force_ids[np.maximum(idx, 0)], 0)
    white_rating = np.full(games.size, np.nan)
    black_rating = np.full(games.size, np.nan)
    game_list = event_list[games.event] if games.size else np.zeros(0, dtype=np.int64)
    for list_id in np.unique(event_list[event_list > 0]).tolist():
        if plan.previous is not None and list_id == plan.previous.pk:
            keys, ratings = prev["player_id"], prev["rating"]
        elif list_id in plan.replayed_ratings:
            keys, ratings = plan.replayed_ratings[list_id]
        else:
            keys, ratings = _list_ratings_of_participants(list_id, events.ids[event_list == list_id].tolist())
        mask = game_list == list_id
        white_rating[mask] = _lookup(keys, ratings, games.white_pid[mask], np.nan)
        black_rating[mask] = _lookup(keys, ratings, games.black_pid[mask], np.nan)
    return white_rating, black_rating


def _list_ratings_of_participants(list_id: int, event_ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(player ids sorted, ratings) on the list ``list_id`` of the participants of these events."""
    entries = read_columns(
        RatingListEntry.objects.filter(
            rating_list_id=list_id,
            player_id__in=Participant.objects.filter(event_id__in=event_ids).values("player_id"),
        ).order_by(),
        {"player_id": "int64", "rating": "float64"},
        chunk_by="player_id",
    )
    by_player = np.argsort(entries["player_id"])
    return entries["player_id"][by_player], entries["rating"][by_player]


def _state_before(prev: Arrays, player_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, Arrays, np.ndarray]:
    """Every player with state, the previous list's plus the period's (sorted ids), the row of each of the
    engine's players among them, their STATE_FIELDS before the list (defaults for players new to it) and the
    ids of the players not on the previous list."""
    # (prev's players are sorted and distinct: one line per player on a list)
    others = np.setdiff1d(player_ids, prev["player_id"], assume_unique=True)  # not on the previous list
    union = np.sort(np.concatenate([prev["player_id"], others]))
    prev_rows = np.searchsorted(union, prev["player_id"])
    before: Arrays = {}
    for name, (default, dtype) in NEW_PLAYER_STATE.items():
        before[name] = np.full(union.size, default, dtype=dtype)
        before[name][prev_rows] = prev[name]
    return union, np.searchsorted(union, player_ids), before, others


def _registry_for(prev_registry: Arrays, others: np.ndarray, union: np.ndarray) -> Arrays:
    """The registry data of every player with state (K needs the birth year; entries keep title etc. as
    published): the previous list's players came with its state, the others are read by primary key, other
    titles (few players have any) by themselves."""
    others_registry = _registry_of(others)
    registry = {name: np.concatenate([prev_registry[name], others_registry[name]]) for name in prev_registry}
    by_id = np.argsort(registry["id"])  # each player once (the two parts are disjoint)
    registry = {name: values[by_id] for name, values in registry.items()}
    at = np.searchsorted(registry["id"], union) if registry["id"].size else np.zeros(union.size, dtype=np.int64)
    meta = {name: registry[name][at] for name in registry}
    titled = Player.objects.exclude(other_titles="").order_by("id")
    other = read_columns(titled, {"id": "int64", "other_titles": "text"})
    meta["other_titles"] = _lookup(other["id"], other["other_titles"], union, "")
    return meta


def _period_input(before: Arrays, rows: np.ndarray, birth_year: np.ndarray) -> PeriodPlayers:
    """The engine's players: the state before the list of the players with games."""
    return PeriodPlayers(
        rating=before["rating"][rows],
        k_factor=before["k_factor"][rows],
        pool_games=before["pool_games"][rows],
        pool_opponent_sum=before["pool_opponent_sum"][rows],
        pool_score=before["pool_score"][rows],
        birth_year=birth_year[rows],
        rated_games_total=before["rated_games_total"][rows],
        ever_2400=before["ever_2400"][rows],
        ever_2300=before["ever_2300"][rows],
        pool_events=before["pool_events"][rows],
    )


def _text(values: np.ndarray) -> np.ndarray:
    """Characters read from the registry, None as ""."""
    return np.where(values == None, "", values).astype(object)  # noqa: E711 (element-wise)


def _entries(union: np.ndarray, after: Arrays, meta: Arrays) -> Arrays:
    """RatingListEntry columns: the state after the list (ratings.engine.list_state) and the registry data
    as published, with each entry's position and ranks."""
    federation = _text(meta["federation_id"])
    position, rank, federation_rank = list_order(union, after["rating"], after["inactive"], federation)
    birth_year = meta["birth_year"]
    return {
        "player_id": union,
        "rating": after["rating"],
        "games": after["games"],
        "k_factor": after["k_factor"],
        "inactive": after["inactive"],
        "change": after["change"],
        "title": _text(meta["title"]),
        "women_title": _text(meta["women_title"]),
        "other_titles": _text(meta["other_titles"]),
        "federation": federation,
        "sex": _text(meta["sex"]),
        "birth_year": np.where(birth_year == 0, np.nan, birth_year),  # 0: unknown, written empty
        **{name: after[name] for name in PERIOD_FIELDS},
        "pool_since": after["pool_since"],
        "last_game_date": after["last_game_date"],
        "is_new_rating": after["is_new_rating"],
        "dropped_below_floor": after["dropped_below_floor"],
        "position": position,
        "rank": rank,
        "federation_rank": federation_rank,
    }


def rating_list_compute(plan: ListPlan) -> ComputedList:
    """Everything the list will contain: read in a fixed number of bulk queries, computed by the engine
    (rate_period, then ratings.engine.list_state for the state the list carries)."""
    _size_work_memory()
    phases = _Phases()
    events = _load_events(plan)
    games = _load_rated_games(plan, events)
    player_ids = _distinct(np.concatenate([games.white_pid, games.black_pid]))  # the engine's players
    phases.done("read rated games")
    if plan.previous_state is None:
        prev, prev_registry = _load_list_state(plan.previous)
    else:
        prev, prev_registry = _replayed_list_state(plan.previous_state)
    prev.update(drop_expired_pools(prev, plan.list_date, plan.rules.initial_rating))  # B.02 7.1.4
    before_games = _adjust_before_games(plan, prev)
    phases.done("read previous list state and its players")
    white_rating, black_rating = _ratings_in_force(plan, events, games, prev)
    union, rows, before, others = _state_before(prev, player_ids)
    meta = _registry_for(prev_registry, others, union)
    players = _period_input(before, rows, meta["birth_year"])
    period_games = PeriodGames(
        event=games.event,
        white=np.searchsorted(player_ids, games.white_pid).astype(np.int64),
        black=np.searchsorted(player_ids, games.black_pid).astype(np.int64),
        white_score=games.white_score,
        white_rating=white_rating,
        black_rating=black_rating,
    )
    phases.done("read ratings in force and participants")
    result: PeriodResult | None = None
    if plan.rules.glicko2 is not None:  # one Glicko-2 rating period instead of rate_period
        from ratings.services.publication_glicko2 import glicko2_list_entries

        entries = glicko2_list_entries(plan, union, rows, before, meta, period_games, events.end)
        changes, details = _no_rating_changes()
    else:
        result = rate_period(players, period_games, plan.rules, plan.list_date, rating_type=plan.rating_type)
        after = list_state_after(
            before, rows, result, events.end, meta["birth_year"], plan.rules, plan.list_date, plan.pool_start
        )
        adjustment = _adjust_list(plan, union, before, after, prev["player_id"], before_games)
        entries = _entries(union, after, meta)
        entries["adjustment"] = adjustment
        changes, details = _rating_changes(
            result, period_games, players, games, events, player_ids, meta["id_number"][rows]
        )
    phases.done("engine, entries and rating changes")
    digest = _digest(
        plan,
        events.ids,
        events.start,
        events.end,
        games.id,
        games.event,
        period_games.white,
        period_games.black,
        games.white_score,
        white_rating,
        black_rating,
        player_ids,
        union,
        before,
        meta,
    )
    phases.done("digest")
    return ComputedList(
        plan=plan,
        digest=digest,
        event_ids=events.ids.tolist(),
        entries=entries,
        changes=changes,
        details=details,
        summary=_computed_summary(entries, events, games, changes),
        player_ids=player_ids,
        games=period_games,
        players=players,
        result=result,
    )


def _no_rating_changes() -> tuple[Arrays, ChangeDetails]:
    """A list without per-event rating changes (Glicko-2 rates the period as a whole)."""
    columns: Arrays = {
        "player_id": np.zeros(0, dtype=np.int64),
        "event_id": np.zeros(0, dtype=np.int64),
        "rating_before": np.zeros(0),
        "k_factor": np.zeros(0),
        "games": np.zeros(0, dtype=np.int64),
        "score": np.zeros(0),
        "expected_score": np.zeros(0),
        "change": np.zeros(0),
    }
    return columns, ChangeDetails(offsets=np.zeros(1, dtype=np.int64), columns={})


def _adjust_before_games(plan: ListPlan, prev: Arrays) -> np.ndarray | None:
    """A one-off adjustment applied before the period's games (ratings.engine.adjustments): the previous
    list's ratings are raised in ``prev`` (so the games are rated with them); the amounts per prev row."""
    spec = plan.rules.adjustment
    if spec is None or spec.order != "before-games":
        return None
    amounts = spec.amounts(prev["rating"])
    prev["rating"] = prev["rating"] + amounts
    return amounts


def _adjust_list(
    plan: ListPlan,
    union: np.ndarray,
    before: Arrays,
    after: Arrays,
    prev_ids: np.ndarray,
    before_games: np.ndarray | None,
) -> np.ndarray:
    """Apply an after-games adjustment to the new ratings of players rated on the previous list; return the
    amount per entry (NaN: none) and count it in the printed change since the previous list."""
    spec = plan.rules.adjustment
    amounts = np.zeros(union.size)
    if spec is None:
        return np.full(union.size, np.nan)
    if before_games is not None:
        amounts[np.searchsorted(union, prev_ids)] = before_games
    else:
        was_rated = ~np.isnan(before["rating"])
        amounts = np.where(was_rated, spec.amounts(after["rating"]), 0.0)
        after["rating"] = after["rating"] + amounts
    listed = ~np.isnan(after["rating"]) & (amounts != 0)
    after["change"] = np.where(listed, after["change"] + amounts, after["change"])
    return np.where(listed, amounts, np.nan)


def rating_list_games(plan: ListPlan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rated games of a plan's events as the publication reads them: white's and black's player ids and
    white's score (the laboratory's Glicko-2 replay)."""
    events = _load_events(plan)
    games = _load_rated_games(plan, events)
    return games.white_pid, games.black_pid, games.white_score


def _computed_summary(entries: Arrays, events: _Events, games: _RatedGames, changes: Arrays) -> dict[str, int]:
    return {
        "entries": int(entries["player_id"].size),
        "rated": int(np.count_nonzero(~np.isnan(entries["rating"]))),
        "new_ratings": int(entries["is_new_rating"].sum()),
        "dropped": int(entries["dropped_below_floor"].sum()),
        "events": events.size,
        "games": games.size,
        "changes": int(changes["player_id"].size),
    }


def _rating_changes(
    result: PeriodResult,
    games: PeriodGames,
    players: PeriodPlayers,
    rated_games: _RatedGames,
    events: _Events,
    player_ids: np.ndarray,
    player_id_number: np.ndarray,
) -> tuple[Arrays, ChangeDetails]:
    """One RatingChange per (player, event) the engine counted, with every game of that player in that event
    as calculated (ratings.engine.game_line) in ``details``."""
    num_games = rated_games.size
    pe_player, pe_event = result.player_events.player, result.player_events.event
    # game sides: 0..G-1 white, G..2G-1 black
    side_game = np.concatenate([np.arange(num_games), np.arange(num_games)])
    side_player = np.concatenate([games.white, games.black])
    side_rated = np.concatenate([result.white.rated, result.black.rated])
    side_seen = np.concatenate([games.white_rating, games.black_rating])
    # rules 1.6: a player published after the event started plays it with the new (previous-list) rating
    side_own = np.where(np.isnan(side_seen), players.rating[side_player], side_seen)

    width = np.int64(max(events.size, 1))
    pe_key = pe_player * width + pe_event
    side_key = side_player * width + np.concatenate([games.event, games.event])
    side_pe = np.searchsorted(pe_key, side_key)
    sides = np.flatnonzero(_found(pe_key, side_pe, side_key))
    game_of_side = side_game[sides]
    sides = sides[np.lexsort((rated_games.id[game_of_side], rated_games.round[game_of_side], side_pe[sides]))]

    pe_rating_before = np.full(pe_key.size, np.nan)
    rated_sides = sides[side_rated[sides]]
    pe_rating_before[side_pe[rated_sides]] = side_own[rated_sides]
    details = ChangeDetails(
        offsets=np.searchsorted(side_pe[sides], np.arange(pe_key.size + 1), side="left"),
        columns=_detail_columns(result, games, rated_games, player_id_number, side_game, sides),
    )
    columns = {
        "player_id": player_ids[pe_player],
        "event_id": events.ids[pe_event] if pe_event.size else np.zeros(0, dtype=np.int64),
        "rating_before": pe_rating_before,
        "k_factor": np.asarray(result.player_events.k_factor, dtype=np.float64),
        "games": result.player_events.games,
        "score": result.player_events.score,
        "expected_score": result.player_events.expected_score,
        "change": result.player_events.change,
    }
    return columns, details


def _detail_columns(
    result: PeriodResult,
    games: PeriodGames,
    rated_games: _RatedGames,
    player_id_number: np.ndarray,
    side_game: np.ndarray,
    sides: np.ndarray,
) -> Arrays:
    """The per-game columns ChangeDetails writes, one row per side in ``sides`` (0..G-1 white, G.. black)."""

    def both(white: np.ndarray, black: np.ndarray) -> np.ndarray:
        side_values: np.ndarray = np.concatenate([white, black])[sides]
        return side_values

    return {
        GAME: rated_games.id[side_game[sides]],
        ROUND: rated_games.round[side_game[sides]],
        "white": sides < rated_games.size,
        OPPONENT: both(player_id_number[games.black], player_id_number[games.white]),
        OPPONENT_RATING: both(games.black_rating, games.white_rating),
        OPPONENT_RATING_USED: both(result.white.opponent_rating_used, result.black.opponent_rating_used),
        CAPPED: both(result.white.capped, result.black.capped),
        DIFFERENCE: both(result.white.difference, result.black.difference),
        EXPECTED_SCORE: both(result.white.expected_score, result.black.expected_score),
        SCORE: both(games.white_score, 1.0 - games.white_score),
        WEIGHTED_CHANGE: both(result.white.change, result.black.change),
        RATED: both(result.white.rated, result.black.rated),
        "pooled": both(result.white.pooled, result.black.pooled),
    }


def _digest(plan: ListPlan, *arrays_and_state: np.ndarray | Arrays) -> str:
    """SHA-256 of every input of the computation; equal digests give equal lists (the engine is pure)."""
    h = hashlib.sha256()
    h.update(
        json.dumps(
            {
                "rating_type": plan.rating_type,
                "list_date": plan.list_date.isoformat(),
                "closing_date": plan.closing_date.isoformat(),
                "period_start": plan.period_start.isoformat() if plan.period_start else None,
                "previous": plan.previous.pk if plan.previous else None,
                "rules": plan.rules.to_json(),
                "version": plan.version,
            },
            sort_keys=True,
        ).encode()
    )
    for item in arrays_and_state:
        if isinstance(item, dict):
            for key in sorted(item):
                h.update(key.encode())
                _digest_update(h, item[key])
        else:
            _digest_update(h, item)
    return h.hexdigest()


def _digest_update(h: hashlib._Hash, value: object) -> None:
    if isinstance(value, np.ndarray) and value.dtype != object:
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, np.ndarray):  # text: the characters, not the object pointers
        texts = value.tolist()
        if None in texts:
            texts = ["" if v is None else v for v in texts]
        h.update("\x1f".join(map(str, texts)).encode())
    else:
        h.update(json.dumps(value, default=str).encode())


# --------------------------------------------------------------------------------------------------------
# Step 2: THE write step
# --------------------------------------------------------------------------------------------------------
def rating_list_write(
    computed: ComputedList,
    *,
    status: str,
    user: User | None = None,
    promote: RatingList | None = None,
    supersede: RatingList | None = None,
) -> RatingList:
    """Write a computed list; must run inside the caller's transaction (all or nothing).

    The list row is created as a draft, filled (entries, rating changes), then, for a publication, the list it
    supersedes is marked, the row becomes published (so current ratings, the PlayerRating view, follow it) and
    its events become rated.
    ``promote`` publishes an existing draft whose digest equals ``computed.digest`` without rewriting it.
    """
    assert connection.in_atomic_block, "rating_list_write must run inside the publication transaction"
    phases = _Phases()
    plan = computed.plan
    now = timezone.now()
    if promote is not None:
        rating_list = promote
    else:
        s = computed.summary
        with entry_storage_bulk():  # its entries are written and attached in _write_entries (entry_storage)
            rating_list = RatingList.objects.create(
                rating_type=plan.rating_type,
                list_date=plan.list_date,
                version=plan.version,
                period_start=plan.period_start,
                closing_date=plan.closing_date,
                status=RatingListStatus.DRAFT,
                rules_preset=plan.rules.slug,
                rules=plan.rules.to_json(),
                previous=plan.previous,
                correction_reason=plan.correction_reason,
                entry_count=s["entries"],
                rated_count=s["rated"],
                game_count=s["games"],
                event_count=s["events"],
                new_rating_count=s["new_ratings"],
                dropped_count=s["dropped"],
                input_digest=computed.digest,
            )
        details = _details_in_background(computed)
        _write_entries(rating_list, computed)
        phases.done("write entries")
        _write_changes(rating_list, computed, details.result())
        phases.done("write rating changes")
    if status == RatingListStatus.PUBLISHED:
        if plan.rules.adjustment is not None:
            rating_adjustment_applied(rating_list)
        from ratings.services.shadow import shadow_list_publish  # (it runs this module's computation)

        shadow_list_publish(rating_list, computed)
        if supersede is not None:
            RatingList.objects.filter(pk=supersede.pk).update(superseded_by=rating_list, superseded_at=now)
            supersede.superseded_by, supersede.superseded_at = rating_list, now
        rating_list.status = RatingListStatus.PUBLISHED
        rating_list.version = plan.version
        rating_list.published_at = now
        rating_list.published_by = user
        rating_list.save(update_fields=["status", "version", "published_at", "published_by"])
        _write_events(rating_list, computed)
        phases.done("write events")
        webhooks_notify(
            "list.published",
            [
                {
                    "rating_list": rating_list.pk,
                    "rating_type": rating_list.rating_type,
                    "list_date": rating_list.list_date,
                    "version": rating_list.version,
                    "entries": computed.summary["entries"],
                }
            ],
        )
        # Trust: every publication and republication is on the audit trail (who, when, why, what replaced what).
        audit_record(
            user,
            AuditAction.RATING_LIST_REPUBLISH if supersede is not None else AuditAction.RATING_LIST_PUBLISH,
            rating_list,
            reason=plan.correction_reason,
            before={"superseded_list": supersede.pk, "version": supersede.version} if supersede is not None else None,
            after={
                "list": rating_list.pk,
                "version": rating_list.version,
                **computed.summary,
                "rules_preset": plan.rules.slug,
            },
        )
    return rating_list


def _write_entries(rating_list: RatingList, computed: ComputedList) -> None:
    """Every entry, from the computed columns (core.bulk.copy_columns: binary COPY encoded by NumPy on
    PostgreSQL, executemany elsewhere)."""
    total = computed.summary["entries"]
    columns: dict[str, np.ndarray | Sequence[object]] = {
        "rating_list_id": np.full(total, rating_list.pk),
        **computed.entries,
    }
    no_pool = computed.entries["pool_games"] == 0
    for name in POOL_SUMS:  # empty rather than 0 without a pool: no room taken in the row (read back as 0)
        columns[name] = np.where(no_pool, np.nan, computed.entries[name])
    entry_storage_prepare([rating_list.pk])  # the list's own table (PostgreSQL), attached once complete
    copy_columns(RatingListEntry, columns, table=entry_table(rating_list.pk))
    entry_storage_attach([rating_list.pk])


def _details_in_background(computed: ComputedList) -> Future[list[JsonText]]:
    """The JSON of every rating change's details, built by a worker thread while the database writes the
    entries: the client's work hides behind the server's instead of following it."""

    def build() -> list[JsonText]:
        total = computed.summary["changes"]
        texts: list[JsonText] = []
        for start in range(0, total, CHANGE_BATCH_SIZE):
            texts += map(JsonText, computed.details.json_texts(start, min(start + CHANGE_BATCH_SIZE, total)))
        return texts

    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rating-change-details")
    future = executor.submit(build)
    executor.shutdown(wait=False)
    return future


def _write_changes(rating_list: RatingList, computed: ComputedList, details: list[JsonText]) -> None:
    """Every rating change with its per-game details (JSON written column-wise, ChangeDetails.json_texts)."""
    total = computed.summary["changes"]
    copy_columns(
        RatingChange,
        {"rating_list_id": np.full(total, rating_list.pk), "details": details, **computed.changes},
    )


def _write_events(rating_list: RatingList, computed: ComputedList) -> None:
    """The rated events: status rated, rated_on this list (with a history record each). Every event gets the
    same values, so one UPDATE per batch (no per-event CASE as bulk_update would build)."""
    ids = computed.event_ids
    for start in range(0, len(ids), EVENT_BATCH_SIZE):
        batch = ids[start : start + EVENT_BATCH_SIZE]
        # Through the one status transition of events: history record and timeline row (issue 15) each.
        events_status_change(
            list(Event.objects.filter(id__in=batch)),
            EventStatus.RATED,
            user=rating_list.published_by,
            reason=f"rated on {rating_list}",
            rating_list_id=rating_list.pk,
        )
