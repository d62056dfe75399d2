"""The publication schedule, visible and editable in the admin (Periodic tasks, django-celery-beat).

One periodic task per rating type, a crontab on day 1 of the list months (settings.RATING_LIST_MONTHS, the
default of every new rating policy). The task itself checks that the day is a list date of the rating type's
policy, so an official who edits the crontab cannot publish on a wrong date; saving a rating policy in the
admin rewrites the crontab (ratings.services.rating_schedule_sync).
"""
import json

from django.conf import settings
from django.db import migrations

TASK = "ratings.publish_scheduled_rating_list"
RATING_TYPES = ("standard", "rapid", "blitz")


def task_name(rating_type: str) -> str:
    return f"Publish the {rating_type} rating list on list dates"


def forward(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    months = ",".join(str(m) for m in sorted(set(settings.RATING_LIST_MONTHS)))
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute="30", hour="0", day_of_month="1", month_of_year=months, day_of_week="*",
        timezone=settings.TIME_ZONE,
    )
    for rating_type in RATING_TYPES:
        PeriodicTask.objects.get_or_create(
            name=task_name(rating_type),
            defaults={
                "task": TASK,
                "crontab": crontab,
                "kwargs": json.dumps({"rating_type": rating_type}),
                "description": "Publishes the list of the day if it is a list date of the rating policy",
            },
        )


def reverse(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(task=TASK).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0002_list_state_and_draft_digest"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(forward, reverse)]
