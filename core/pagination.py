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
