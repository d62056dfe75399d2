"""Reads about rating lists shared by the publication services, tasks, admin and commands.

"Current" is ``RatingList.objects.current()`` (ratings.models.current_list_condition): published and not
superseded by a correction, exactly one per rating type and list date.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.db.models import Max, Q, QuerySet

from events.models import Event, EventStatus, IntegrityFlag, RatingType
from ratings.models import PlayerRating, RatingList, RatingListStatus, current_list_condition

# Events waiting for a list: submitted (or corrected before they were ever rated).
AWAITING_RATING = (EventStatus.SUBMITTED, EventStatus.CORRECTED)


def rating_list_current(rating_type: str, list_date: datetime.date) -> RatingList | None:
    return RatingList.objects.current(rating_type).filter(list_date=list_date).first()


def rating_list_newest(rating_type: str) -> RatingList | None:
    """The newest current list of the type (the one PlayerRating follows)."""
    return RatingList.objects.current(rating_type).order_by("-list_date").first()


def rating_list_previous(rating_type: str, list_date: datetime.date) -> RatingList | None:
    """The current list a list of ``list_date`` continues: the newest one dated before it."""
    return RatingList.objects.current(rating_type).filter(list_date__lt=list_date).order_by("-list_date").first()


def rating_lists_after(rating_type: str, list_date: datetime.date) -> QuerySet[RatingList]:
    return RatingList.objects.current(rating_type).filter(list_date__gt=list_date).order_by("list_date")


def rating_list_draft(rating_type: str, list_date: datetime.date) -> RatingList | None:
    return RatingList.objects.filter(
        rating_type=rating_type, list_date=list_date, status=RatingListStatus.DRAFT
    ).first()


def rating_list_next_version(rating_type: str, list_date: datetime.date) -> int:
    """Version number for a new publication of this date (drafts do not count: they are replaced)."""
    top = (
        RatingList.objects.filter(rating_type=rating_type, list_date=list_date)
        .exclude(status=RatingListStatus.DRAFT)
        .aggregate(top=Max("version"))["top"]
    )
    return (top or 0) + 1


def events_pending_rating(rating_type: str, closing_date: datetime.date) -> QuerySet[Event]:
    """Events a list with this closing date rates: submitted, never rated, ended on or before the closing
    date. An event that ended after an earlier closing date is picked up here by the next list. An event with
    an integrity flag not cleared by an official waits (issue 15): it is rated by the list after the clearing."""
    return _events_due(rating_type, closing_date).exclude(pk__in=_events_flagged())


def events_held_by_flags(rating_type: str, closing_date: datetime.date) -> QuerySet[Event]:
    """The events a list with this closing date would rate but for an integrity flag not cleared yet (issue 32:
    the officials' dashboard names them, so that no submitted event is silently left out)."""
    return _events_due(rating_type, closing_date).filter(pk__in=_events_flagged())


def _events_due(rating_type: str, closing_date: datetime.date) -> QuerySet[Event]:
    return Event.objects.filter(
        rating_type=rating_type, status__in=AWAITING_RATING, rated_on__isnull=True, end_date__lte=closing_date
    )


def _events_flagged() -> QuerySet[IntegrityFlag, Any]:
    """The ids of the events with an integrity flag not cleared yet (a subquery)."""
    return IntegrityFlag.objects.filter(cleared_at__isnull=True).values("event_id")


def events_waiting_for_later_list(rating_type: str, closing_date: datetime.date) -> QuerySet[Event]:
    return Event.objects.filter(
        rating_type=rating_type, status__in=AWAITING_RATING, rated_on__isnull=True, end_date__gt=closing_date
    )


def events_awaiting_republication(rating_type: str) -> QuerySet[Event]:
    """Events corrected after they were rated: their list (and every later one) must be republished."""
    return Event.objects.filter(
        rating_type=rating_type, status=EventStatus.CORRECTED, rated_on__isnull=False
    ).select_related("rated_on")


def rating_lists_desk(rating_types: list[str]) -> dict[str, dict[str, RatingList | None]]:
    """For the officer's "Preview or publish" page: each type's newest published list and its draft preview
    (the newest, if several dates have one), in two queries whatever the number of types and lists."""
    desk: dict[str, dict[str, RatingList | None]] = {t: {"newest": None, "draft": None} for t in rating_types}
    newest_dates = (
        RatingList.objects.current()
        .filter(rating_type__in=rating_types)
        .values("rating_type")
        .annotate(newest=Max("list_date"))
        .values("newest")
    )
    lists = RatingList.objects.filter(rating_type__in=rating_types).filter(
        Q(status=RatingListStatus.DRAFT) | (current_list_condition() & Q(list_date__in=newest_dates))
    )
    for rating_list in lists.order_by("list_date"):  # the newest of each kind comes last and stays
        key = "draft" if rating_list.status == RatingListStatus.DRAFT else "newest"
        desk[rating_list.rating_type][key] = rating_list
    return desk


def players_current_ratings(players: list) -> list[tuple[str, dict[int, object]]]:
    """Each player's current published rating per type, one row per type (the merge page; one query)."""
    found: dict[str, dict[int, object]] = {value: {} for value in RatingType.values}
    for row in PlayerRating.objects.filter(player__in=[p.pk for p in players]).values(
        "player_id", "rating_type", "rating", "games"
    ):
        found[row["rating_type"]][row["player_id"]] = row["rating"] if row["rating"] is not None else "—"
    return [(str(label), found[value]) for value, label in RatingType.choices]
