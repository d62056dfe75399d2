"""The lifecycle's deadlines (issue 15), per rating type from ``settings.EVENT_DEADLINES`` (FIDE's by default).

Pure date arithmetic: dates in, a verdict out (the clock is the caller's). Each missed deadline is a flag with
the rule it broke, in words an arbiter can check.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.conf import settings


@dataclass(frozen=True)
class DeadlineFlag:
    rule: str
    detail: str

    def as_json(self, at: datetime.datetime) -> dict[str, Any]:
        return {"rule": self.rule, "detail": self.detail, "at": at.isoformat()}


def _config(rating_type: str) -> dict[str, int]:
    deadlines: dict[str, dict[str, int]] = settings.EVENT_DEADLINES
    return deadlines.get(rating_type) or deadlines["standard"]


def registration_flag(
    rating_type: str, start_date: datetime.date, strong_field: bool, today: datetime.date
) -> DeadlineFlag | None:
    """Registration at least N days before the start: 30 when a player over 2700 or a woman over 2500 takes
    part, otherwise 3 (FIDE Rating Regulations, registration of tournaments)."""
    config = _config(rating_type or "standard")
    days = config["registration_days_strong"] if strong_field else config["registration_days"]
    deadline = start_date - datetime.timedelta(days=days)
    if today <= deadline:
        return None
    who = (
        f"a player rated over {config['strong_rating']} or a woman over {config['strong_women_rating']} takes part"
        if strong_field
        else "no player over the strong-field ratings takes part"
    )
    return DeadlineFlag(
        rule=f"registration at least {days} days before the start ({who})",
        detail=f"registered on {today:%Y-%m-%d}, {(start_date - today).days} day(s) before the start "
        f"{start_date:%Y-%m-%d}; the deadline was {deadline:%Y-%m-%d}",
    )


def submission_flags(rating_type: str, end_date: datetime.date, today: datetime.date) -> list[DeadlineFlag]:
    """The chief arbiter's report within 7 days of the end, the upload within 30 (FIDE's defaults)."""
    config = _config(rating_type or "standard")
    flags = []
    for key, what in (("report_days", "the chief arbiter's report"), ("upload_days", "the upload for rating")):
        deadline = end_date + datetime.timedelta(days=config[key])
        if today > deadline:
            flags.append(
                DeadlineFlag(
                    rule=f"{what} within {config[key]} days of the end",
                    detail=f"submitted on {today:%Y-%m-%d}, {(today - end_date).days} day(s) after the end "
                    f"{end_date:%Y-%m-%d}; the deadline was {deadline:%Y-%m-%d}",
                )
            )
    return flags
