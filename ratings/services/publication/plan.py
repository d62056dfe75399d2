"""The plan of a list: which list is computed, from what (ListPlan), and the checks a regular list must pass
before it is planned (list date, chain of lists, publishable today)."""

from __future__ import annotations

import datetime
import logging
import time
from dataclasses import dataclass, field

import numpy as np
from django.db.models import QuerySet

from events.models import Event
from ratings.engine import RulesPreset, get_preset
from ratings.models import RatingList, RatingPolicy
from ratings.selectors import (
    events_pending_rating,
    rating_list_next_version,
    rating_list_previous,
    rating_lists_after,
)
from ratings.services.adjustments import rules_with_adjustment
from ratings.services.errors import RatingListRefused

log = logging.getLogger(__name__)
Arrays = dict[str, np.ndarray]


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


# --------------------------------------------------------------------------------------------------------
# Checks and plans
# --------------------------------------------------------------------------------------------------------
def check_list_date(policy: RatingPolicy, list_date: datetime.date) -> None:
    if not policy.is_list_date(list_date):
        nearest = policy.previous_list_date(list_date + datetime.timedelta(days=1))
        raise RatingListRefused(
            f"{list_date} is not a {policy.rating_type} list date (lists on the 1st of months "
            f"{policy.list_months}; the latest list date up to it is {nearest})"
        )


def check_chain(policy: RatingPolicy, list_date: datetime.date) -> None:
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


def check_publishable(policy: RatingPolicy, list_date: datetime.date, today: datetime.date) -> None:
    if list_date > today:
        raise RatingListRefused(
            f"the {policy.rating_type} list of {list_date} cannot be published before its "
            f"date (today is {today}); compute a preview instead"
        )
    check_chain(policy, list_date)


def plan_regular(policy: RatingPolicy, list_date: datetime.date) -> ListPlan:
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


def nothing_message(rating_type: str, list_date: datetime.date, plan: ListPlan) -> str:
    return (
        f"nothing to publish for the {rating_type} list of {list_date}: no earlier list and no submitted "
        f"event ending on or before the closing date {plan.closing_date}"
    )


class Phases:
    """Wall time of each step of a publication, logged at DEBUG (bench/publish.py prints them)."""

    def __init__(self) -> None:
        self.last = time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        log.debug("publication step %s: %.2f s", name, now - self.last)
        self.last = now
