"""Calendar-month arithmetic for windows counted in months (26-month newcomer pool, 12-month inactivity)."""

from __future__ import annotations

import calendar
import datetime


def add_months(day: datetime.date, months: int) -> datetime.date:
    """``day`` moved by ``months`` calendar months, the day clamped to the month's length
    (31 Mar minus 1 month -> 28/29 Feb)."""
    index = day.year * 12 + (day.month - 1) + months
    year, month0 = divmod(index, 12)
    last = calendar.monthrange(year, month0 + 1)[1]
    return datetime.date(year, month0 + 1, min(day.day, last))
