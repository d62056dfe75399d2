"""Projections with the publication's own computation, written nowhere: what the next list would say now.

``event_rating_projection(event)`` — the rating change each participant of one event would get if the event
were rated on the next list as entered so far (the round entry screen shows it, labelled as a projection).
``rating_list_preview_live(rating_type, today)`` — the next list as it would be published today (the rating
officer's dashboard). Both are ``rating_list_compute`` (ratings.services.publication: same bulk reads, same
engine, same rules preset) on a plan built like the publication's; nothing is stored, no lock is taken.
"""

from __future__ import annotations

import datetime
from dataclasses import replace

import numpy as np
from django.conf import settings
from django.utils import timezone

from events.models import Event, Participant
from ratings.engine import get_preset
from ratings.models import RatingList, RatingListEntry, RatingPolicy
from ratings.selectors import events_pending_rating, rating_list_newest, rating_list_next_version, rating_list_previous
from ratings.services.errors import NothingToPublish, RatingListRefused, UnknownRatingType
from ratings.services.publication import ComputedList, ListPlan, rating_list_compute


def rating_policy_or_default(rating_type: str) -> RatingPolicy:
    """The stored policy of ``rating_type``, or (unsaved) the one the settings would create: a read never writes."""
    policy = RatingPolicy.objects.filter(rating_type=rating_type).first()
    if policy is not None:
        return policy
    return RatingPolicy(
        rating_type=rating_type,
        rules_preset=settings.RATING_RULES_PRESET,
        list_months=",".join(str(m) for m in sorted(set(settings.RATING_LIST_MONTHS))),
        closing_days=settings.RATING_LIST_CLOSING_DAYS,
    )


def rating_list_next_of(policy: RatingPolicy, today: datetime.date) -> datetime.date:
    """The next list date (as ratings.services.schedule.rating_list_next_date, without creating a policy)."""
    newest = rating_list_newest(policy.rating_type)
    if newest is not None:
        return policy.next_list_date(newest.list_date)
    return policy.previous_list_date(today + datetime.timedelta(days=1))


def rating_list_plan_next(policy: RatingPolicy, list_date: datetime.date) -> ListPlan:
    """The plan the publication would follow for ``list_date`` (publication.plan.plan_regular, read-only)."""
    previous = rating_list_previous(policy.rating_type, list_date)
    closing_date = policy.closing_date(list_date)
    return ListPlan(
        rating_type=policy.rating_type,
        list_date=list_date,
        closing_date=closing_date,
        period_start=previous.list_date if previous else policy.previous_list_date(list_date),
        rules=get_preset(policy.rules_preset),
        previous=previous,
        events=events_pending_rating(policy.rating_type, closing_date),
        version=rating_list_next_version(policy.rating_type, list_date),
    )


def event_rating_projection(event: Event, *, today: datetime.date | None = None) -> dict[int, float | None]:
    """Participant id -> the rating change of the first list whose closing date the event meets, computed
    from the games entered so far (only played games count, B.02 1.2); None for a player the list would not
    change (unrated, or no rated game yet). Empty when no list can be computed (e.g. an unknown preset)."""
    today = today or timezone.localdate()
    if event.end_date is None:
        return {}  # a draft without dates: no list can rate it yet
    try:
        policy = rating_policy_or_default(event.rating_type)
        list_date = rating_list_next_of(policy, today)
        while policy.closing_date(list_date) < event.end_date:  # the event is rated on a later list
            list_date = policy.next_list_date(list_date)
        plan = replace(rating_list_plan_next(policy, list_date), events=Event.objects.filter(pk=event.pk))
        computed = rating_list_compute(plan)
    except (NothingToPublish, RatingListRefused, UnknownRatingType, KeyError, ValueError):
        return {}
    mine = computed.changes["event_id"] == event.pk
    change_of = dict(
        zip(
            computed.changes["player_id"][mine].tolist(),
            computed.changes["change"][mine].tolist(),
            strict=True,
        )
    )
    projection: dict[int, float | None] = {}
    for participant_id, player_id in Participant.objects.filter(event=event).values_list("pk", "player_id"):
        change = change_of.get(player_id)
        projection[participant_id] = None if change is None or np.isnan(change) else float(change)
    return projection


def ratings_in_force(rating_type: str, day: datetime.date, player_ids: list[int]) -> dict[int, int | None]:
    """Player id -> rating on the newest current list of ``rating_type`` dated on or before ``day`` (rules 1.3:
    the list in force at the event's start); one query for the list, one for the entries."""
    in_force = RatingList.objects.current(rating_type).filter(list_date__lte=day).order_by("-list_date").first()
    if in_force is None or not player_ids:
        return {}
    return dict(
        RatingListEntry.objects.filter(rating_list=in_force, player_id__in=player_ids).values_list(
            "player_id", "rating"
        )
    )


def rating_list_preview_live(rating_type: str, today: datetime.date) -> ComputedList | None:
    """The next list of ``rating_type`` as it would be published with what is submitted today (None: nothing
    to compute yet)."""
    policy = rating_policy_or_default(rating_type)
    try:
        computed = rating_list_compute(rating_list_plan_next(policy, rating_list_next_of(policy, today)))
    except (NothingToPublish, RatingListRefused, KeyError, ValueError):
        return None
    return None if computed.is_empty else computed
