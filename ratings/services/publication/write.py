"""Step 2, THE write step: the list row, entries, rating changes (COPY on PostgreSQL, bulk elsewhere) and the
rated events of a computed list, inside the caller's transaction."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
from django.db import connection
from django.utils import timezone

from audit.models import AuditAction
from audit.services import audit_record
from core.bulk import JsonText, copy_columns
from events.models import Event, EventStatus
from events.services import events_status_change
from outbox.webhooks import webhooks_notify
from ratings.models import (
    RatingChange,
    RatingList,
    RatingListEntry,
    RatingListStatus,
    TitleCandidate,
)
from ratings.services.adjustments import rating_adjustment_applied
from ratings.services.entry_storage import (
    entry_storage_attach,
    entry_storage_bulk,
    entry_storage_prepare,
    entry_table,
)
from ratings.services.publication.compute import ComputedList
from ratings.services.publication.load import POOL_SUMS
from ratings.services.publication.plan import Phases
from ratings.services.publication.shadow import ShadowList, shadow_list_write

if TYPE_CHECKING:
    from django.contrib.auth.models import User
CHANGE_BATCH_SIZE = 20_000
EVENT_BATCH_SIZE = 500


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
    shadow: ShadowList | None = None,
) -> RatingList:
    """Write a computed list; must run inside the caller's transaction (all or nothing).

    The list row is created as a draft, filled (entries, rating changes), then, for a publication, the list it
    supersedes is marked, the row becomes published (so current ratings, the PlayerRating view, follow it) and
    its events become rated.
    ``promote`` publishes an existing draft whose digest equals ``computed.digest`` without rewriting it.
    ``shadow``: the shadow list computed beside it (ratings.services.publication.shadow.shadow_list_compute, before this
    write), stored with the publication; nothing is computed here.
    """
    assert connection.in_atomic_block, "rating_list_write must run inside the publication transaction"
    phases = Phases()
    now = timezone.now()
    if promote is not None:
        rating_list = promote
    else:
        rating_list = _write_list_row(computed)
        details = _details_in_background(computed)
        _write_entries(rating_list, computed)
        phases.done("write entries")
        _write_changes(rating_list, computed, details.result())
        phases.done("write rating changes")
        _write_title_candidates(rating_list, computed)
    if status == RatingListStatus.PUBLISHED:
        _write_publication(rating_list, computed, now, phases, user=user, supersede=supersede, shadow=shadow)
    return rating_list


def _write_list_row(computed: ComputedList) -> RatingList:
    """The list row, created as a draft with the computation's counts and digest."""
    plan = computed.plan
    s = computed.summary
    with entry_storage_bulk():  # its entries are written and attached in _write_entries (entry_storage)
        return RatingList.objects.create(
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


def _write_publication(
    rating_list: RatingList,
    computed: ComputedList,
    now: datetime.datetime,
    phases: Phases,
    *,
    user: User | None,
    supersede: RatingList | None,
    shadow: ShadowList | None,
) -> None:
    """Publish a written list: its adjustment marked applied, its shadow list stored, the list it supersedes
    marked, the row published, its events rated, then the webhooks and the audit trail."""
    plan = computed.plan
    if plan.rules.adjustment is not None:
        rating_adjustment_applied(rating_list)
    if shadow is not None:
        shadow_list_write(rating_list, shadow)
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


def _write_title_candidates(rating_list: RatingList, computed: ComputedList) -> None:
    """The players whose rating on the list qualifies them for a title by rating (B.01 1.3, computed in
    compute.title_candidates), in bulk; a draft's are promoted with it."""
    columns = computed.title_candidates
    total = int(columns["player_id"].size) if columns else 0
    if total:
        copy_columns(TitleCandidate, {"rating_list_id": np.full(total, rating_list.pk), **columns})


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
