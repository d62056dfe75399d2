"""Reads behind the public lifecycle pages (issue 15): events rated on a list, events awaiting rating, and
who made each step of an event's timeline. A fixed number of queries each, whatever the number of events."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from events.models import Event, EventStatusChange
from public.selectors.events import public_events
from ratings.models import RatingList
from ratings.selectors import AWAITING_RATING


def rated_events_on(rating_list: RatingList) -> QuerySet[Event]:
    """The events rated on ``rating_list`` (a current list: events point at the current version), by end date."""
    return (
        public_events()
        .filter(rated_on=rating_list)
        .annotate(participant_count=Count("participants"))
        .order_by("-end_date", "-id")
    )


def events_awaiting_rating() -> QuerySet[Event]:
    """Events submitted for rating (or corrected) and not rated yet on their current list, oldest end first:
    the order in which the next lists take them."""
    return (
        public_events()
        .filter(status__in=AWAITING_RATING)
        .annotate(participant_count=Count("participants"))
        .order_by("rating_type", "end_date", "id")
    )


def status_change_actor(change: EventStatusChange) -> str:
    """Who made a step, as the public sees it: the person's name, or the system for scheduled publications."""
    if change.user is None:
        return ""
    return change.user.get_full_name() or change.user.get_username()
