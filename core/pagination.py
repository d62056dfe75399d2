"""Pagination shared by pages and the API."""

from typing import Any, TypeVar

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.utils.functional import cached_property

Rows = TypeVar("Rows", bound=QuerySet[Any])


def with_known_count(queryset: Rows, count: int | None) -> Rows:
    """Mark ``queryset`` with its number of rows when the caller knows it (None: count them), for
    ``KnownCountPaginator``. The mark is an attribute of this queryset object only: a further ``.filter()``
    returns a new queryset without it, so it cannot follow rows it does not describe."""
    queryset.stored_count = count  # type: ignore[attr-defined]  # the one place that sets the mark
    return queryset


class KnownCountPaginator(Paginator):
    """Takes the number of rows from the queryset's ``stored_count`` (``with_known_count``) when the caller
    knows it (a count stored at publication, or one already taken), instead of running a COUNT."""

    @cached_property
    def count(self) -> int:
        stored = getattr(self.object_list, "stored_count", None)
        return super().count if stored is None else int(stored)


# Digits a whole-number query parameter may have: more than any page, age or 64-bit key needs, far fewer than
# Python's integer-string limit (4,300 digits: int() raises ValueError beyond it, a 500 where a 400 is due).
MAX_DIGITS = 18


def whole_number(raw: str | None) -> int | None:
    """``raw`` read as a whole number (0 or more, ASCII digits only, at most MAX_DIGITS of them), or None: the one
    reading of page numbers and other counts in query parameters, which never raises."""
    if raw is None or not (raw.isascii() and raw.isdigit()) or len(raw) > MAX_DIGITS:
        return None
    return int(raw)
