"""Rating policies (per rating type, created on demand from settings) and the beat schedule following them."""

from __future__ import annotations

import datetime
import json
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction

from events.models import RatingType
from ratings.models import RatingPolicy
from ratings.selectors import rating_list_newest
from ratings.services.errors import UnknownRatingType

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
