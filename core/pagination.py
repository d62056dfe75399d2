"""Pagination shared by pages and the API."""

from django.core.paginator import Paginator
from django.utils.functional import cached_property


class KnownCountPaginator(Paginator):
    """Takes the number of rows from the queryset's ``stored_count`` when the caller knows it (a count
    stored at publication, or one already taken), instead of running a COUNT."""

    @cached_property
    def count(self) -> int:
        stored = getattr(self.object_list, "stored_count", None)
        return super().count if stored is None else stored
