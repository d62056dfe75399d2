"""The rating officer's dashboard (the admin's start page for officials): what needs doing, at a glance.

Events by status (every EventStatus value, generically), per rating type the next list date, its closing
date and the live preview of that list (ratings.services.projection.rating_list_preview_live: the
publication's own computation, nothing written), publications queued or running and the last ones with their
figures, players waiting for the duplicate check, tasks waiting in the outbox; the submitted events an open
integrity flag holds off the next list, by name (issue 32), and the flags still open. A fixed number of queries per
rating type, whatever the size of the federation (pinned in tests/ratings/test_dashboard.py).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Q

from events.models import Event, EventStatus, IntegrityFlag, RatingType
from events.selectors_desk import status_counts
from outbox.models import PendingTask
from players.models import Player
from ratings.models import RatingList, RatingListStatus
from ratings.selectors import events_held_by_flags, events_pending_rating, events_waiting_for_later_list
from ratings.services.projection import rating_list_next_of, rating_list_preview_live, rating_policy_or_default

MOVERS = 5
HELD_SHOWN = 10  # events held by a flag named on the dashboard; the rest are counted
PUBLICATION_TASKS = (
    "ratings.publish_rating_list",
    "ratings.publish_scheduled_rating_list",
    "ratings.compute_rating_list_preview",
    "ratings.republish_rating_lists",
)


@dataclass(frozen=True)
class PlayerFigure:
    player_id: int
    id_number: int
    name: str
    rating: float | None
    change: float | None


@dataclass
class ListPreview:
    """The next list as it would be published now."""

    entries: int
    rated: int
    changing: int  # players whose rating the list changes
    new_ratings: int
    dropped: int
    events: int
    games: int
    movers: list[PlayerFigure] = field(default_factory=list)  # biggest changes, either way
    new: list[PlayerFigure] = field(default_factory=list)
    dropping: list[PlayerFigure] = field(default_factory=list)


@dataclass
class ListOutlook:
    rating_type: str
    label: str
    list_date: datetime.date
    closing_date: datetime.date
    days_to_closing: int
    events_pending: int  # submitted events the list will rate
    events_later: int  # submitted, ending after the closing date: the list after
    events_held: list[Event]  # submitted, due, but held by an open integrity flag (issue 32), the first few
    events_held_count: int
    draft: RatingList | None
    preview: ListPreview | None


@dataclass
class TaskLine:
    task: PendingTask
    state: str


@dataclass
class Dashboard:
    statuses: list[tuple[str, str, int]]  # (status, label, count) for every EventStatus value
    attention: list[Event]  # events an official acts on (not draft, not rated), oldest first
    lists: list[ListOutlook]
    publications_running: list[TaskLine]
    publications_last: list[RatingList]
    review_count: int
    review_players: list[Player]
    tasks_pending: int
    tasks_failing: int
    flags_open: int  # integrity flags not cleared yet, whatever the event's status


def dashboard_read(today: datetime.date, *, preview: bool = True) -> Dashboard:
    """Everything the officials' start page shows, as of ``today``."""
    counts = status_counts(Event.objects.all())
    attention = list(
        Event.objects.exclude(status__in=[EventStatus.DRAFT, EventStatus.RATED])
        .order_by("submitted_at", "end_date", "pk")
        .select_related("federation")[:15]
    )
    publications_last = list(
        RatingList.objects.filter(status=RatingListStatus.PUBLISHED).order_by("-published_at", "-pk")[:6]
    )
    running = list(
        PendingTask.objects.filter(name__in=PUBLICATION_TASKS)
        .filter(Q(sent_at__isnull=True) | Q(created_at__gte=_day_start(today) - datetime.timedelta(days=1)))
        .order_by("-created_at")[:10]
    )
    review = Player.objects.filter(needs_review=True, merged_into__isnull=True)
    unsent = PendingTask.objects.filter(sent_at__isnull=True)
    return Dashboard(
        statuses=[(value, str(label), counts.get(value, 0)) for value, label in EventStatus.choices],
        attention=attention,
        lists=[_outlook(rating_type, str(label), today, preview) for rating_type, label in RatingType.choices],
        publications_running=[TaskLine(task, _task_state(task)) for task in running],
        publications_last=publications_last,
        review_count=review.count(),
        review_players=list(review.order_by("-pk")[:5]),
        tasks_pending=unsent.count(),
        tasks_failing=unsent.exclude(last_error="").count(),
        flags_open=IntegrityFlag.objects.filter(cleared_at__isnull=True).count(),
    )


def _day_start(today: datetime.date) -> datetime.datetime:
    return datetime.datetime(today.year, today.month, today.day, tzinfo=datetime.UTC)


def _task_state(task: PendingTask) -> str:
    if task.sent_at is None:
        return "failing" if task.last_error else "queued"
    return "sent"


def _outlook(rating_type: str, label: str, today: datetime.date, preview: bool) -> ListOutlook:
    policy = rating_policy_or_default(rating_type)
    list_date = rating_list_next_of(policy, today)
    closing = policy.closing_date(list_date)
    draft = (
        RatingList.objects.filter(rating_type=rating_type, list_date=list_date, status=RatingListStatus.DRAFT)
        .order_by("-pk")
        .first()
    )
    held = list(events_held_by_flags(rating_type, closing).order_by("end_date", "pk").only("pk", "name", "end_date"))
    return ListOutlook(
        rating_type=rating_type,
        label=label,
        list_date=list_date,
        closing_date=closing,
        days_to_closing=(closing - today).days,
        events_pending=events_pending_rating(rating_type, closing).count(),
        events_later=events_waiting_for_later_list(rating_type, closing).count(),
        events_held=held[:HELD_SHOWN],
        events_held_count=len(held),
        draft=draft,
        preview=_preview(rating_type, today) if preview else None,
    )


def _preview(rating_type: str, today: datetime.date) -> ListPreview | None:
    computed = rating_list_preview_live(rating_type, today)
    if computed is None:
        return None
    entries, summary = computed.entries, computed.summary
    change = np.asarray(entries["change"], dtype=np.float64)
    moved = ~np.isnan(change) & (change != 0)
    order = np.argsort(-np.abs(np.where(moved, change, 0)), kind="stable")[: min(MOVERS, int(moved.sum()))]
    new = np.flatnonzero(entries["is_new_rating"])[:MOVERS]
    dropping = np.flatnonzero(entries["dropped_below_floor"])[:MOVERS]
    wanted = np.concatenate([order, new, dropping]).astype(np.int64)
    players = {
        pk: (id_number, surname, given)
        for pk, id_number, surname, given in Player.objects.filter(
            pk__in=entries["player_id"][wanted].tolist()
        ).values_list("pk", "id_number", "surname", "given_names")
    }

    def figures(rows: np.ndarray) -> list[PlayerFigure]:
        out = []
        for row in rows.tolist():
            pk = int(entries["player_id"][row])
            id_number, surname, given = players.get(pk, (0, "?", ""))
            rating = float(entries["rating"][row])
            out.append(
                PlayerFigure(
                    pk,
                    id_number,
                    f"{surname}, {given}" if given else surname,
                    None if np.isnan(rating) else rating,
                    None if np.isnan(change[row]) else float(change[row]),
                )
            )
        return out

    return ListPreview(
        entries=summary["entries"],
        rated=summary["rated"],
        changing=int(moved.sum()),
        new_ratings=summary["new_ratings"],
        dropped=summary["dropped"],
        events=summary["events"],
        games=summary["games"],
        movers=figures(order),
        new=figures(new),
        dropping=figures(dropping),
    )
