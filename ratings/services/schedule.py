"""Rating policies (per rating type, created on demand from settings) and the beat schedule following them."""

from __future__ import annotations

import datetime
import json
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from events.models import Event, RatingType
from ratings.models import RatingList, RatingListStatus, RatingPolicy
from ratings.selectors import (
    events_awaiting_republication,
    rating_list_current,
    rating_list_draft,
    rating_list_newest,
)
from ratings.services.errors import RatingListRefused, UnknownRatingType

if TYPE_CHECKING:
    from django_celery_beat.models import PeriodicTask

SCHEDULED_TASK = "ratings.publish_scheduled_rating_list"


def check_rating_type(rating_type: str) -> str:
    if rating_type not in RatingType.values:
        raise UnknownRatingType(f"rating type {rating_type!r} is unknown; use one of {', '.join(RatingType.values)}")
    return rating_type


def rating_policy_for(rating_type: str) -> RatingPolicy:
    """The policy of a rating type; created from RATING_RULES_PRESET / RATING_LIST_MONTHS /
    RATING_LIST_CLOSING_DAYS the first time it is needed (and its beat schedule with it)."""
    check_rating_type(rating_type)
    policy = RatingPolicy.objects.filter(rating_type=rating_type).first()
    if policy is not None:
        return policy
    with transaction.atomic():
        policy, created = RatingPolicy.objects.get_or_create(
            rating_type=rating_type,
            defaults={
                "rules_preset": settings.RATING_RULES_PRESET,
                "list_months": ",".join(str(m) for m in sorted(set(settings.RATING_LIST_MONTHS))),
                "closing_days": settings.RATING_LIST_CLOSING_DAYS,
            },
        )
        if created:
            policy.full_clean()  # a bad RATING_RULES_PRESET stops here, naming the preset and the known ones
            rating_schedule_sync(policy)
    return policy


def scheduled_task_name(rating_type: str) -> str:
    # The same name as migration 0003 creates, so the row is updated rather than duplicated.
    return f"Publish the {rating_type} rating list on list dates"


def rating_schedule_sync(policy: RatingPolicy) -> PeriodicTask:
    """Make the periodic task of the policy's rating type run on day 1 of the policy's list months.

    The time of day an official may have set in the admin is kept; only the months follow the policy.
    """
    from django_celery_beat.models import CrontabSchedule, PeriodicTask

    name = scheduled_task_name(policy.rating_type)
    task = PeriodicTask.objects.filter(name=name).select_related("crontab").first()
    minute, hour = "30", "0"
    if task is not None and task.crontab is not None:
        minute, hour = task.crontab.minute, task.crontab.hour
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute=minute,
        hour=hour,
        day_of_month="1",
        month_of_year=",".join(str(m) for m in policy.months),
        day_of_week="*",
        timezone=settings.TIME_ZONE,
    )
    if task is None:
        task = PeriodicTask(
            name=name,
            task=SCHEDULED_TASK,
            kwargs=json.dumps({"rating_type": policy.rating_type}),
            description="Publishes the list of the day if it is a list date of the rating policy",
        )
    task.crontab = crontab
    task.interval = task.solar = task.clocked = None
    task.save()  # PeriodicTask.save() tells a running beat (DatabaseScheduler) that the schedule changed
    return task


def rating_policy_save(policy: RatingPolicy) -> RatingPolicy:
    """Save an edited policy and move its beat schedule with it, in one transaction."""
    policy.full_clean()
    with transaction.atomic():
        policy.save()
        rating_schedule_sync(policy)
    return policy


def rating_list_next_date(rating_type: str, today: datetime.date) -> datetime.date:
    """The list date an official means by "the next list": the list date after the newest published list,
    or, before any list exists, the latest list date up to today (it rates everything submitted so far)."""
    policy = rating_policy_for(rating_type)
    newest = rating_list_newest(rating_type)
    if newest is not None:
        return policy.next_list_date(newest.list_date)
    return policy.previous_list_date(today + datetime.timedelta(days=1))


# --- what the officials' buttons may ask of the publication (the rating lists admin) ---


def rating_list_due(rating_type: str, today: datetime.date) -> datetime.date:
    """The date of the next list when it is due ("publish now"): refused while it lies ahead, since a list is
    published on or after its date and previewed before it."""
    list_date = rating_list_next_date(rating_type, today)
    if list_date > today:
        raise RatingListRefused(
            f"{RatingType(rating_type).label}: the next list ({list_date}) is not due yet; compute a preview instead."
        )
    return list_date


def rating_list_request_check(
    rating_type: str, list_date: datetime.date, today: datetime.date, *, publish: bool
) -> RatingList | None:
    """Refuse, before anything is queued, what the worker would refuse for a preview (``publish=False``) or a
    publication of ``list_date``: not a list date of the policy, already published, a later list published or an
    earlier one missing (the chain of lists), and for a publication a list date still ahead (a list is published
    on or after its date, previewed before it). Returns the draft preview of that date, if there is one."""
    from ratings.services.publication.plan import check_chain, check_list_date  # plan reads the policies here

    policy = rating_policy_for(check_rating_type(rating_type))
    check_list_date(policy, list_date)
    published = rating_list_current(rating_type, list_date)
    if published is not None:
        raise RatingListRefused(
            _("The %(type)s list of %(date)s is already published (%(list)s); a correction is republished.")
            % {"type": RatingType(rating_type).label, "date": list_date, "list": published}
        )
    check_chain(policy, list_date)
    if publish and list_date > today:
        raise RatingListRefused(
            _("The %(type)s list of %(date)s is not due yet: preview it now, publish it on or after its date.")
            % {"type": RatingType(rating_type).label, "date": list_date}
        )
    return rating_list_draft(rating_type, list_date)


def rating_list_draft_publishable(rating_list: RatingList) -> RatingList:
    """``rating_list`` when it is a draft preview that can be published (the worker promotes it as it is if
    nothing it read has changed, else recomputes it); refused for a published list."""
    if rating_list.status != RatingListStatus.DRAFT:
        raise RatingListRefused(f"{rating_list} is not a draft; skipped.")
    return rating_list


def rating_list_republication_reason(rating_list: RatingList) -> str:
    """Why ``rating_list`` and every later list are republished: the corrected events waiting for it or a later
    list, each with the reason of its latest correction. Refused unless ``rating_list`` is the current published
    version of its date and a corrected event waits (published lists are immutable: a correction is published
    as a new version of the list it changes, never as an edit)."""
    if rating_list_current(rating_list.rating_type, rating_list.list_date) != rating_list:
        raise RatingListRefused(f"{rating_list} is not the current published version; skipped.")
    corrected = list(
        events_awaiting_republication(rating_list.rating_type).filter(rated_on__list_date__gte=rating_list.list_date)
    )
    if not corrected:
        raise RatingListRefused(f"{rating_list}: no corrected event waits for this list or a later one.")
    return "Corrected: " + "; ".join(_correction_reason(event) for event in corrected)


def _correction_reason(event: Event) -> str:
    latest = event.corrections.first() if hasattr(event, "corrections") else None
    return f"{event.name} ({latest.reason})" if latest is not None else event.name
