"""Public lifecycle pages (issue 15): the events rated on a list, and the events awaiting rating."""

import datetime

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render

from public.selectors.event_status import events_awaiting_rating, rated_events_on
from public.views.base import public_page
from ratings.selectors import rating_list_current

EVENTS_PER_PAGE = 100


@public_page
def rated_events(request, list_date: datetime.date, rating_type: str):
    rating_list = rating_list_current(rating_type, list_date)
    if rating_list is None:
        raise Http404("no published list of that date and rating type")
    page = Paginator(rated_events_on(rating_list), EVENTS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "events/rated.html", {"rating_list": rating_list, "page": page})


@public_page
def awaiting_rating(request):
    page = Paginator(events_awaiting_rating(), EVENTS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "events/awaiting.html", {"page": page})
