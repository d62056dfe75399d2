"""The public services of the publication: each wraps compute and write in ONE transaction under the rating
type's lock (single-flight), and the lock itself."""

from __future__ import annotations

import datetime
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db import connection, transaction
from django.utils import timezone

from events.models import Event, RatingType
from ratings.engine import RulesPreset
from ratings.models import RatingList, RatingListStatus
from ratings.selectors import (
    events_awaiting_republication,
    rating_list_current,
    rating_list_draft,
    rating_list_next_version,
    rating_list_previous,
)
from ratings.services.errors import NothingToPublish, RatingListRefused
from ratings.services.publication.compute import ComputedList, rating_list_compute
from ratings.services.publication.plan import (
    ListPlan,
    check_chain,
    check_list_date,
    check_publishable,
    nothing_message,
    plan_regular,
)
from ratings.services.publication.shadow import shadow_list_compute
from ratings.services.publication.write import rating_list_write
from ratings.services.schedule import check_rating_type, rating_policy_for

if TYPE_CHECKING:
    from django.contrib.auth.models import User

log = logging.getLogger(__name__)
# pg_advisory_xact_lock(namespace, rating type): one publication at a time per rating type, because every list
# continues the previous one of its type.
LOCK_NAMESPACE = 0x52415445  # "RATE"
LOCK_IDS = {rating_type: number for number, rating_type in enumerate(RatingType.values, start=1)}


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
    check_list_date(policy, list_date)
    if dry_run:
        with transaction.atomic():
            plan = plan_regular(policy, list_date)
            computed = rating_list_compute(plan)
            if computed.is_empty:
                raise NothingToPublish(nothing_message(rating_type, list_date, plan))
            return PublishOutcome(None, created=False, dry_run=True, summary=computed.summary, computed=computed)
    with transaction.atomic():
        _lock_rating_type(rating_type)
        existing = rating_list_current(rating_type, list_date)
        if existing is not None:
            log.info("rating list %s already published (id %s); nothing to do", existing, existing.pk)
            return PublishOutcome(existing, created=False, summary=_summary_of(existing))
        check_publishable(policy, list_date, today or timezone.localdate())
        plan = plan_regular(policy, list_date)
        computed = rating_list_compute(plan)
        if computed.is_empty:
            raise NothingToPublish(nothing_message(rating_type, list_date, plan))
        shadow = shadow_list_compute(computed)  # compute, then write: the shadow list too, before any write
        draft = rating_list_draft(rating_type, list_date)
        promote = draft if draft is not None and draft.input_digest == computed.digest else None
        if draft is not None and promote is None:
            log.info("draft %s is out of date (its inputs changed); publishing a fresh computation", draft)
            draft.delete()
        rating_list = rating_list_write(
            computed, status=RatingListStatus.PUBLISHED, user=user, promote=promote, shadow=shadow
        )
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
    check_list_date(policy, list_date)
    with transaction.atomic():
        _lock_rating_type(rating_type)
        existing = rating_list_current(rating_type, list_date)
        if existing is not None:
            raise RatingListRefused(
                f"the {rating_type} list of {list_date} is already published ({existing}); "
                "a correction is republished, not previewed"
            )
        check_chain(policy, list_date)
        plan = plan_regular(policy, list_date)
        computed = rating_list_compute(plan)
        if computed.is_empty:
            raise NothingToPublish(nothing_message(rating_type, list_date, plan))
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
            shadow = shadow_list_compute(computed)  # compute, then write (this list's shadow continues the last)
            stale = rating_list_draft(rating_type, old.list_date)
            if stale is not None:
                stale.delete()
            previous = rating_list_write(
                computed,
                status=RatingListStatus.PUBLISHED,
                user=user,
                supersede=old,
                shadow=shadow,
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


def _summary_of(rating_list: RatingList) -> dict[str, int]:
    return {
        "entries": rating_list.entry_count,
        "rated": rating_list.rated_count,
        "new_ratings": rating_list.new_rating_count,
        "dropped": rating_list.dropped_count,
        "events": rating_list.event_count,
        "games": rating_list.game_count,
    }


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
