"""Celery tasks of leagues: thin, by id, idempotent (a slice already written is never written again)."""

from typing import Any

from celery import shared_task
from django.contrib.auth import get_user_model
from django.db import InterfaceError, OperationalError

from leagues.models import Division
from leagues.services_rating import division_rate_ready

RATE_DIVISION_TASK = "leagues.rate_division_slices"


@shared_task(
    name=RATE_DIVISION_TASK, autoretry_for=(OperationalError, InterfaceError), retry_backoff=5, retry_backoff_max=120
)
def rate_division_slices_task(division_id: int, user_id: int | None = None) -> dict[str, Any]:
    """Write and submit the division's complete slices (``division_rate_ready``): queued by the admin when a
    season's many divisions are submitted at once (rule 9: no web request runs for minutes)."""
    division = Division.objects.filter(pk=division_id).first()
    if division is None:
        return {"division": division_id, "slices": 0, "missing": True}
    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    outcomes = division_rate_ready(division, user=user)
    return {
        "division": division_id,
        "slices": len(outcomes),
        "submitted": sum(outcome.submitted for outcome in outcomes),
        "games": sum(outcome.games for outcome in outcomes),
    }
