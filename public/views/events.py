"""Public event pages: recent events and an event's crosstable with performances and rating changes."""

from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render

from public.selectors.events import event_crosstable, public_event_list
from public.views.base import public_page

EVENTS_PER_PAGE = 50


@public_page
def event_list(request):
    page = Paginator(public_event_list(), EVENTS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "events/list.html", {"page": page})


@public_page
def event_detail(request, pk: int):
    event = get_object_or_404(public_event_list(), pk=pk)
    return render(request, "events/detail.html", {"crosstable": event_crosstable(event), "event": event})
