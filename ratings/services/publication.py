"""Rating-list publication: the only bridge between the database and the rating engine for lists.

One list = one rating type and list date. Its period runs from the previous list date (exclusive) to the list
date; it rates every submitted event of the type that ended on or before the closing date and was not rated
yet (an event that ended after the previous closing date is therefore picked up by the next list). Each event
is rated with the ratings of the list in force at its start date (rules 1.3), the new ratings continue the
previous list (B.02 8.3).

Three steps, each in one place:

1. :func:`rating_list_compute` reads everything IN BULK (into NumPy, a fixed number of queries whatever the
   size on PostgreSQL; on SQLite one more per 10,000 players new to the list) and runs the engine once
   (``rate_period``), giving a :class:`ComputedList`: one entry for every player with rating state (players
   without games are copied forward with their inactivity updated), one rating change per player and event
   with per-game detail, and a digest of the inputs.
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
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import BooleanField, Case, IntegerField, QuerySet, Value, When
from django.db.models.expressions import RawSQL
from django.utils import timezone

from audit.models import AuditAction
from audit.services import audit_record
from core.bulk import JsonText, copy_columns, read_columns
from events.models import RATED_RESULTS, Event, EventStatus, Game, Participant, RatingType
from players.models import Player
from ratings.engine import PeriodGames, PeriodPlayers, PeriodResult, RulesPreset, get_preset, rate_period
from ratings.engine.inactivity import inactive_flags
from ratings.engine.initial import pool_window_start
from ratings.engine.k_factor import next_k_factor
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
from ratings.services.errors import NothingToPublish, RatingListRefused
from ratings.services.schedule import check_rating_type, rating_policy_for

log = logging.getLogger(__name__)

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
    events: QuerySet  # Event queryset: the events this list rates
    version: int
    correction_reason: str = ""

    @property
    def pool_start(self) -> datetime.date:
        """pool_since of a newcomer whose pool starts in this period (start of the 26-month window)."""
        return self.period_start or self.list_date


@dataclass
class ChangeDetails:
    """Per-game lines of every rating change, as sorted arrays; ``json_texts(start, stop)`` writes the JSON of
    a slice of changes only when it is written (memory stays bounded by the batch, not the list)."""

    offsets: np.ndarray  # change row i has sides offsets[i]:offsets[i + 1]
    columns: dict[str, np.ndarray]

    def json_texts(self, start: int, stop: int) -> list[str]:
        """RatingChange.details of changes start..stop-1 as JSON text, each the change's lines in the form
        ratings.fields.GameLinesField stores, {"columns": DETAIL_KEYS, "rows": [[values], ...]}:

        game (pk), round, colour, opponent (ID number), opponent_rating (list in force at the event's start),
        opponent_rating_used (after the 400-point rule), capped, difference (D), expected_score (PD), score,
        delta (score - PD), change (K x delta), counted (rated / pooled / not rated); NaN is null.

        Built column by column (each distinct number formatted once) and joined per change, with no Python
        object per game: a list period has millions of lines.
        """
        lo, hi = int(self.offsets[start]), int(self.offsets[stop])
        c = {name: values[lo:hi] for name, values in self.columns.items()}
        n = hi - lo
        if n == 0:
            return ["[]"] * (stop - start)
        counted = np.where(c["rated"], '"rated"', np.where(c["pooled"], '"pooled"', '"not rated"'))
        values = [
            _json_texts(c["game"]),
            _json_texts(c["round"]),
            np.where(c["white"], '"white"', '"black"').astype(object),
            _json_texts(c["opponent"]),
            _json_texts(c["opponent_rating"]),
            _json_texts(c["opponent_rating_used"]),
            _json_texts(c["capped"]),
            _json_texts(c["difference"]),
            _json_texts(c["expected_score"]),
            _json_texts(c["score"]),
            _json_texts(c["score"] - c["expected_score"]),
            _json_texts(c["change"]),
            counted.astype(object),
        ]
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


# RatingChange.details keys, in order (public.selectors.ratings.DETAIL_KEYS reads them)
DETAIL_KEYS = (
    "game",
    "round",
    "colour",
    "opponent",
    "opponent_rating",
    "opponent_rating_used",
    "capped",
    "difference",
    "expected_score",
    "score",
    "delta",
    "change",
    "counted",
)


DETAILS_JSON_HEAD = '{"columns":[' + ",".join(f'"{key}"' for key in DETAIL_KEYS) + '],"rows":['


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
    player_ids: np.ndarray = field(repr=False, default=None)
    games: PeriodGames = field(repr=False, default=None)
    players: PeriodPlayers = field(repr=False, default=None)
    result: PeriodResult = field(repr=False, default=None)

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

    def as_dict(self) -> dict:
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
    user=None,
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


def rating_list_compute_preview(rating_type: str, list_date: datetime.date, *, user=None) -> RatingList:
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


def rating_list_publish_preview(draft: RatingList, *, user=None, today: datetime.date | None = None) -> PublishOutcome:
    """Publish a draft: promoted as it is if its inputs are unchanged, recomputed otherwise (identical to
    :func:`rating_list_publish` of the same date, which it is)."""
    if draft.status != RatingListStatus.DRAFT:
        raise RatingListRefused(f"{draft} is not a draft preview")
    return rating_list_publish(draft.rating_type, draft.list_date, user=user, today=today)


def rating_list_republish_from(rating_type: str, list_date: datetime.date, reason: str, user=None) -> list[RatingList]:
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


def rating_list_publish_scheduled(rating_type: str, today: datetime.date) -> dict:
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
        rules=get_preset(policy.rules_preset),
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

    def __init__(self):
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


# --------------------------------------------------------------------------------------------------------
# Step 1: load in bulk and compute
# --------------------------------------------------------------------------------------------------------
def _dates(values) -> np.ndarray:
    return np.array(values, dtype="datetime64[D]") if len(values) else np.empty(0, dtype="datetime64[D]")


def _floats(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def _lookup(keys: np.ndarray, values: np.ndarray, query: np.ndarray, default) -> np.ndarray:
    """values[keys == query] for sorted ``keys``; ``default`` where the key is absent."""
    out = np.full(query.shape, default, dtype=values.dtype)
    if keys.size == 0 or query.size == 0:
        return out
    pos = np.minimum(np.searchsorted(keys, query), keys.size - 1)
    found = keys[pos] == query
    out[found] = values[pos[found]]
    return out


# The state a list carries to the next one, as read_columns kinds (NULL rating / K -> NaN, NULL date -> NaT).
STATE_COLUMNS = {
    "player_id": "int64",
    "rating": "float64",
    "k_factor": "float64",
    "rated_games_total": "int64",
    "ever_2400": "bool",
    "ever_2300": "bool",
    "pool_games": "int64",
    "pool_opponent_sum": "float64",
    "pool_score": "float64",
    "pool_events": "int64",
    "pool_since": "date",
    "last_game_date": "date",
    "inactive": "bool",
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
    # chunk_by: a million entries arrive as a hundred packed rows (core.bulk_copy.read_columns)
    rows = read_columns(entries, {"id": "int64", **STATE_COLUMNS, **registry_lookups}, chunk_by="id")
    by_player = np.argsort(rows["player_id"], kind="stable")  # sorted here: no sort in the database
    rows = {name: values[by_player] for name, values in rows.items()}
    # A player merged into another (players.services.player_merge) is not carried onto new lists: their games
    # and history now belong to the kept player; a line left on an old published list stays there only.
    merged = np.fromiter(Player.objects.filter(merged_into__isnull=False).values_list("id", flat=True), dtype=np.int64)
    if merged.size:
        keep = ~np.isin(rows["player_id"], merged)
        rows = {name: values[keep] for name, values in rows.items()}
    state = {name: rows[name] for name in STATE_COLUMNS}
    registry = {"id": rows["player_id"], **{name: rows[f"player__{name}"] for name in REGISTRY_COLUMNS}}
    return state, registry


def _max_length(name: str) -> int:
    field = Player._meta.get_field(name)
    return (field.target_field if field.is_relation else field).max_length


# The registry data a list needs (K needs the birth year; entries keep title etc. as published). The short
# codes travel as characters in the binary format; other_titles (rarely set) is read apart.
REGISTRY_COLUMNS = {
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


def rating_list_compute(plan: ListPlan) -> ComputedList:
    """Everything the list will contain, read in a fixed number of bulk queries and computed by the engine."""
    _size_work_memory()
    phases = _Phases()
    rules = plan.rules
    list_date = plan.list_date

    # --- events, ordered by end date then id (the engine's event index)
    event_rows = list(plan.events.order_by("end_date", "id").values_list("id", "start_date", "end_date"))
    event_ids = np.array([r[0] for r in event_rows], dtype=np.int64)
    event_start = _dates([r[1] for r in event_rows])
    event_end = _dates([r[2] for r in event_rows])
    num_events = event_ids.size
    event_order = np.argsort(event_ids)
    event_ids_sorted = event_ids[event_order]

    # --- rated games (played, 1-0 / 1/2 / 0-1; forfeits and byes are never rated, B.02 1.2)
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
    g_id, g_event_id, g_round = g["id"], g["event_id"], g["round"]
    g_white_pid, g_black_pid = g["white__player_id"], g["black__player_id"]
    g_score = g["white_half_points"] / 2.0
    pos = np.searchsorted(event_ids_sorted, g_event_id) if num_events else np.zeros(g_id.size, dtype=np.int64)
    known = (
        (pos < num_events) & (event_ids_sorted[np.minimum(pos, max(num_events - 1, 0))] == g_event_id)
        if num_events
        else np.zeros(g_id.size, dtype=bool)
    )
    # (an event submitted while we read belongs to the next computation, not half to this one)
    g_id, g_event_id, g_round, g_white_pid, g_black_pid, g_score = (
        a[known] for a in (g_id, g_event_id, g_round, g_white_pid, g_black_pid, g_score)
    )
    g_event = event_order[pos[known]] if num_events else np.zeros(0, dtype=np.int64)
    order = np.lexsort((g_id, g_round, g_event))
    g_id, g_event, g_round, g_white_pid, g_black_pid, g_score = (
        a[order] for a in (g_id, g_event, g_round, g_white_pid, g_black_pid, g_score)
    )
    num_games = g_id.size

    player_ids = _distinct(np.concatenate([g_white_pid, g_black_pid]))  # the engine's players (P)
    g_white = np.searchsorted(player_ids, g_white_pid)
    g_black = np.searchsorted(player_ids, g_black_pid)

    # --- previous list state, pools outside the 26-month window dropped (B.02 7.1.4)
    phases.done("read rated games")
    prev, prev_registry = _load_list_state(plan.previous)
    window_start = pool_window_start(list_date, rules.initial_rating)
    if window_start is not None:
        expired = (~np.isnat(prev["pool_since"])) & (prev["pool_since"] < np.datetime64(window_start, "D"))
        if expired.any():
            for name in ("pool_games", "pool_events"):
                prev[name][expired] = 0
            for name in ("pool_opponent_sum", "pool_score"):
                prev[name][expired] = 0.0
            prev["pool_since"][expired] = np.datetime64("NaT")

    # --- the ratings of the list in force at each event's start (rules 1.3)
    phases.done("read previous list state and its players")
    in_force = list(
        RatingList.objects.current(plan.rating_type)
        .filter(list_date__lt=list_date)
        .order_by("list_date")
        .values_list("id", "list_date")
    )
    in_force_ids = np.array([r[0] for r in in_force], dtype=np.int64)
    in_force_dates = _dates([r[1] for r in in_force])
    if in_force_ids.size and num_events:
        idx = np.searchsorted(in_force_dates, event_start, side="right") - 1
        event_list = np.where(idx >= 0, in_force_ids[np.maximum(idx, 0)], 0)
    else:
        event_list = np.zeros(num_events, dtype=np.int64)
    g_white_rating = np.full(num_games, np.nan)
    g_black_rating = np.full(num_games, np.nan)
    g_list = event_list[g_event] if num_games else np.zeros(0, dtype=np.int64)
    for list_id in np.unique(event_list[event_list > 0]):
        if plan.previous is not None and list_id == plan.previous.pk:
            keys, ratings = prev["player_id"], prev["rating"]
        else:
            ev_with_list = event_ids[event_list == list_id].tolist()
            in_force_entries = read_columns(
                RatingListEntry.objects.filter(
                    rating_list_id=int(list_id),
                    player_id__in=Participant.objects.filter(event_id__in=ev_with_list).values("player_id"),
                ).order_by(),
                {"id": "int64", "player_id": "int64", "rating": "float64"},
                chunk_by="id",
            )
            by_player = np.argsort(in_force_entries["player_id"])
            keys, ratings = in_force_entries["player_id"][by_player], in_force_entries["rating"][by_player]
        mask = g_list == list_id
        g_white_rating[mask] = _lookup(keys, ratings, g_white_pid[mask], np.nan)
        g_black_rating[mask] = _lookup(keys, ratings, g_black_pid[mask], np.nan)

    # --- every player with state: previous entries + players with games (U)
    # (prev's players are sorted and distinct: one line per player on a list)
    others = np.setdiff1d(player_ids, prev["player_id"], assume_unique=True)  # not on the previous list
    union = np.sort(np.concatenate([prev["player_id"], others]))
    p_in_u = np.searchsorted(union, player_ids)
    prev_in_u = np.searchsorted(union, prev["player_id"])
    n = union.size

    def spread(name, default, dtype):
        out = np.full(n, default, dtype=dtype)
        out[prev_in_u] = prev[name]
        return out

    before = {
        "rating": spread("rating", np.nan, np.float64),
        "k_factor": spread("k_factor", np.nan, np.float64),
        "rated_games_total": spread("rated_games_total", 0, np.int64),
        "ever_2400": spread("ever_2400", False, bool),
        "ever_2300": spread("ever_2300", False, bool),
        "pool_games": spread("pool_games", 0, np.int64),
        "pool_opponent_sum": spread("pool_opponent_sum", 0.0, np.float64),
        "pool_score": spread("pool_score", 0.0, np.float64),
        "pool_events": spread("pool_events", 0, np.int64),
        "pool_since": spread("pool_since", np.datetime64("NaT"), "datetime64[D]"),
        "last_game_date": spread("last_game_date", np.datetime64("NaT"), "datetime64[D]"),
        "inactive": spread("inactive", False, bool),
    }

    # --- the players' registry data (K needs the birth year; entries keep title etc. as published): the
    # previous list's players came with its state; the period's other players by primary key; other titles
    # (few players have any) by themselves
    others_registry = _registry_of(others)
    registry = {name: np.concatenate([prev_registry[name], others_registry[name]]) for name in prev_registry}
    by_id = np.argsort(registry["id"])  # each player once (the two parts are disjoint)
    registry = {name: values[by_id] for name, values in registry.items()}
    at = np.searchsorted(registry["id"], union) if registry["id"].size else np.zeros(n, dtype=np.int64)
    meta = {name: registry[name][at] for name in registry}
    titled = Player.objects.exclude(other_titles="").order_by("id")
    other = read_columns(titled, {"id": "int64", "other_titles": "text"})
    meta["other_titles"] = _lookup(other["id"], other["other_titles"], union, "")
    birth_year = meta["birth_year"]
    id_number = meta["id_number"]

    # --- the engine, once
    players = PeriodPlayers(
        rating=before["rating"][p_in_u],
        k_factor=before["k_factor"][p_in_u],
        pool_games=before["pool_games"][p_in_u],
        pool_opponent_sum=before["pool_opponent_sum"][p_in_u],
        pool_score=before["pool_score"][p_in_u],
        birth_year=birth_year[p_in_u],
        rated_games_total=before["rated_games_total"][p_in_u],
        ever_2400=before["ever_2400"][p_in_u],
        ever_2300=before["ever_2300"][p_in_u],
        pool_events=before["pool_events"][p_in_u],
    )
    games = PeriodGames(
        event=g_event.astype(np.int64),
        white=g_white.astype(np.int64),
        black=g_black.astype(np.int64),
        white_score=g_score,
        white_rating=g_white_rating,
        black_rating=g_black_rating,
    )
    phases.done("read ratings in force and participants")
    result = rate_period(players, games, rules, list_date, rating_type=plan.rating_type)

    # --- entries: the state after this list for every player in U
    rating = before["rating"].copy()
    rating[p_in_u] = result.list_rating  # floor applied (B.02 7.2: below 1400 -> unrated)
    if rules.rounding == "none":
        rating = np.rint(rating)  # lists print integers (B.02 8.3.4); unrounded schemes keep the change
    dropped = np.zeros(n, dtype=bool)
    dropped[p_in_u] = result.dropped_below_floor
    games_n = np.zeros(n, dtype=np.int64)
    games_n[p_in_u] = result.games
    was_rated = ~np.isnan(before["rating"])
    change = np.where(was_rated, 0.0, np.nan)
    change[p_in_u] = np.where(was_rated[p_in_u], result.rounded_change, np.nan)
    state = {
        name: before[name].copy()
        for name in (
            "rated_games_total",
            "ever_2400",
            "ever_2300",
            "pool_games",
            "pool_opponent_sum",
            "pool_score",
            "pool_events",
        )
    }
    for name in state:
        state[name][p_in_u] = getattr(result, name)
    has_pool = (state["pool_games"] > 0) | (state["pool_events"] > 0)
    had_pool = (before["pool_games"] > 0) | (before["pool_events"] > 0)
    pool_since = np.where(
        has_pool & had_pool & ~np.isnat(before["pool_since"]),
        before["pool_since"],
        np.datetime64(plan.pool_start, "D"),
    )
    pool_since = np.where(has_pool, pool_since, np.datetime64("NaT"))
    # last rated game: end date of the player's last event with a counted game in this period
    last_days = before["last_game_date"].astype(np.int64)
    if result.pe_player.size:
        period_last = np.full(player_ids.size, np.iinfo(np.int64).min, dtype=np.int64)
        np.maximum.at(period_last, result.pe_player, event_end[result.pe_event].astype(np.int64))
        last_days[p_in_u] = np.maximum(last_days[p_in_u], period_last)
    last_game = last_days.astype("datetime64[D]")
    # B.02 7.2: no rated game for a year -> inactive; the rating itself does not change
    inactive = np.where(
        np.isnat(last_game), before["inactive"], inactive_flags(last_game, list_date, rules.inactivity_months)
    )
    # K published with this list (status changes take effect on the next list, rules 1.5)
    k_next = next_k_factor(
        rating,
        state["rated_games_total"],
        state["ever_2400"],
        birth_year,
        list_date,
        rules,
        ever_2300=state["ever_2300"],
    )
    k_next[p_in_u] = result.next_k_factor
    k_next = np.where(np.isnan(rating), np.nan, k_next)
    is_new = ~np.isnan(rating) & ~was_rated

    def text(values):
        return np.where(np.equal(values, None), "", values).astype(object)

    federation = text(meta["federation_id"])
    position, rank, federation_rank = _list_order(union, rating, inactive, federation)
    entries = {
        "player_id": union,
        "rating": rating,
        "games": games_n,
        "k_factor": k_next,
        "inactive": inactive,
        "change": change,
        "title": text(meta["title"]),
        "women_title": text(meta["women_title"]),
        "other_titles": text(meta["other_titles"]),
        "federation": federation,
        "sex": text(meta["sex"]),
        "birth_year": np.where(birth_year == 0, np.nan, birth_year),  # 0: unknown, written empty
        "rated_games_total": state["rated_games_total"],
        "ever_2400": state["ever_2400"],
        "ever_2300": state["ever_2300"],
        "pool_games": state["pool_games"],
        "pool_opponent_sum": state["pool_opponent_sum"],
        "pool_score": state["pool_score"],
        "pool_events": state["pool_events"],
        "pool_since": pool_since,
        "last_game_date": last_game,
        "is_new_rating": is_new,
        "dropped_below_floor": dropped,
        "position": position,
        "rank": rank,
        "federation_rank": federation_rank,
    }

    phases.done("engine and entries")
    changes, details = _rating_changes(
        result, games, players, g_id, g_round, event_ids, player_ids, id_number[p_in_u], num_events
    )
    digest = _digest(
        plan,
        event_ids,
        event_start,
        event_end,
        g_id,
        g_event,
        g_white,
        g_black,
        g_score,
        g_white_rating,
        g_black_rating,
        player_ids,
        union,
        before,
        meta,
    )
    phases.done("rating changes and digest")
    summary = {
        "entries": int(n),
        "rated": int(np.count_nonzero(~np.isnan(rating))),
        "new_ratings": int(is_new.sum()),
        "dropped": int(dropped.sum()),
        "events": int(num_events),
        "games": int(num_games),
        "changes": int(changes["player_id"].size),
    }
    return ComputedList(
        plan=plan,
        digest=digest,
        event_ids=event_ids.tolist(),
        entries=entries,
        changes=changes,
        details=details,
        summary=summary,
        player_ids=player_ids,
        games=games,
        players=players,
        result=result,
    )


def _list_order(
    player_id: np.ndarray, rating: np.ndarray, inactive: np.ndarray, federation: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Position, world rank and federation rank of every entry, stored with the list (NaN where none).

    Position: the line on the published list, 1 to the number of rated entries, by rating (highest first) then
    player id; list pages are ranges of positions. Rank: active rated players rated higher + 1 (ties share a
    rank; inactive and unrated players have none); a profile reads it instead of counting the players above.
    ratings.services.list_order computes the same three in SQL for lists imported from FIDE.
    """
    n = rating.size
    position = np.full(n, np.nan)
    rank = np.full(n, np.nan)
    federation_rank = np.full(n, np.nan)
    rated = np.flatnonzero(~np.isnan(rating))
    position[rated[np.lexsort((player_id[rated], -rating[rated]))]] = np.arange(1, rated.size + 1)
    ranked = np.flatnonzero(~np.isnan(rating) & ~inactive)
    if not ranked.size:
        return position, rank, federation_rank
    r = rating[ranked]
    world = np.sort(r)
    rank[ranked] = world.size - np.searchsorted(world, r, side="right") + 1
    member = federation[ranked] != ""
    codes, code = np.unique(federation[ranked][member], return_inverse=True)
    if codes.size:
        # one sorted key per (federation, rating): players above = end of the federation's run - position
        span = float(np.max(r) + 1)
        key = code * span + r[member]
        keys = np.sort(key)
        run_end = np.searchsorted(keys, (code + 1) * span, side="left")
        federation_rank[ranked[member]] = run_end - np.searchsorted(keys, key, side="right") + 1
    return position, rank, federation_rank


def _rating_changes(
    result: PeriodResult,
    games: PeriodGames,
    players: PeriodPlayers,
    g_id,
    g_round,
    event_ids,
    player_ids,
    player_id_number,
    num_events,
) -> tuple[dict[str, np.ndarray], ChangeDetails]:
    """One RatingChange per (player, event) the engine counted, with every game of that player in that event
    as calculated (opponent rating as used, capped mark, D, PD, score, dR, K x dR) in ``details``."""
    num_games = g_id.size
    pe_player, pe_event = result.pe_player, result.pe_event
    # game sides: 0..G-1 white, G..2G-1 black
    side_game = np.concatenate([np.arange(num_games), np.arange(num_games)])
    side_player = np.concatenate([games.white, games.black])
    side_opponent = np.concatenate([games.black, games.white])
    side_event = np.concatenate([games.event, games.event])
    side_score = np.concatenate([games.white_score, 1.0 - games.white_score])
    side_seen = np.concatenate([games.white_rating, games.black_rating])
    side_opp_seen = np.concatenate([games.black_rating, games.white_rating])
    side_opp_used = np.concatenate([result.white_opponent_rating_used, result.black_opponent_rating_used])
    side_capped = np.concatenate([result.white_capped, result.black_capped])
    side_difference = np.concatenate([result.white_difference, result.black_difference])
    side_expected = np.concatenate([result.white_expected_score, result.black_expected_score])
    side_rated = np.concatenate([result.white_rated, result.black_rated])
    side_pooled = np.concatenate([result.white_pooled, result.black_pooled])
    side_change = np.concatenate([result.white_change, result.black_change])
    # rules 1.6: a player published after the event started plays it with the new (previous-list) rating
    side_own = np.where(np.isnan(side_seen), players.rating[side_player], side_seen)

    pe_key = pe_player * np.int64(max(num_events, 1)) + pe_event
    side_key = side_player * np.int64(max(num_events, 1)) + side_event
    side_pe = np.searchsorted(pe_key, side_key)
    has_pe = (
        (side_pe < pe_key.size) & (pe_key[np.minimum(side_pe, max(pe_key.size - 1, 0))] == side_key)
        if pe_key.size
        else np.zeros(side_key.size, dtype=bool)
    )
    sides = np.flatnonzero(has_pe)
    sides = sides[np.lexsort((g_id[side_game[sides]], g_round[side_game[sides]], side_pe[sides]))]

    pe_rating_before = np.full(pe_key.size, np.nan)
    rated_sides = sides[side_rated[sides]]
    pe_rating_before[side_pe[rated_sides]] = side_own[rated_sides]

    side_pe_sorted = side_pe[sides]
    offsets = np.searchsorted(side_pe_sorted, np.arange(pe_key.size + 1), side="left")
    details = ChangeDetails(
        offsets=offsets,
        columns={
            "game": g_id[side_game[sides]],
            "round": g_round[side_game[sides]],
            "white": sides < num_games,
            "opponent": player_id_number[side_opponent[sides]],
            "opponent_rating": side_opp_seen[sides],
            "opponent_rating_used": side_opp_used[sides],
            "capped": side_capped[sides],
            "difference": side_difference[sides],
            "expected_score": side_expected[sides],
            "score": side_score[sides],
            "change": side_change[sides],
            "rated": side_rated[sides],
            "pooled": side_pooled[sides],
        },
    )
    columns = {
        "player_id": player_ids[pe_player],
        "event_id": event_ids[pe_event] if pe_event.size else np.zeros(0, dtype=np.int64),
        "rating_before": pe_rating_before,
        "k_factor": np.asarray(result.pe_k_factor, dtype=np.float64),
        "games": result.pe_games,
        "score": result.pe_score,
        "expected_score": result.pe_expected,
        "change": result.pe_change,
    }
    return columns, details


def _digest(plan: ListPlan, *arrays_and_state) -> str:
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


def _digest_update(h, value) -> None:
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
    user=None,
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
        _pause_between_writes(rating_list)
        _write_changes(rating_list, computed, details.result())
        phases.done("write rating changes")
    if status == RatingListStatus.PUBLISHED:
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
    """Every entry, from the computed columns (core.copy_columns: binary COPY encoded by NumPy on
    PostgreSQL, executemany elsewhere)."""
    total = computed.summary["entries"]
    copy_columns(RatingListEntry, {"rating_list_id": np.full(total, rating_list.pk), **computed.entries})


def _details_in_background(computed: ComputedList) -> Future:
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
    now = timezone.now()
    for start in range(0, len(ids), EVENT_BATCH_SIZE):
        batch = ids[start : start + EVENT_BATCH_SIZE]
        Event.objects.filter(id__in=batch).update(status=EventStatus.RATED, rated_on=rating_list, updated_at=now)
        Event.history.bulk_history_create(
            list(Event.objects.filter(id__in=batch)),
            update=True,
            default_user=rating_list.published_by,
            default_change_reason=f"rated on {rating_list}",
        )


def _pause_between_writes(rating_list: RatingList) -> None:
    """Test hook: RATING_PUBLICATION_TEST_PAUSE_SECONDS holds the transaction open between the entries and the
    rating changes, so a test can kill the worker in the middle of a publication."""
    seconds = getattr(settings, "RATING_PUBLICATION_TEST_PAUSE_SECONDS", 0)
    if seconds:
        log.warning(
            "rating list %s: entries written, pausing %s s before the rating changes "
            "(RATING_PUBLICATION_TEST_PAUSE_SECONDS)",
            rating_list,
            seconds,
        )
        time.sleep(seconds)
