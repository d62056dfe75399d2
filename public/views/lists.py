"""Public rating-list pages and downloads, and the home page. Thin: selectors fetch, templates render."""

import datetime

from django.http import Http404, StreamingHttpResponse
from django.shortcuts import render
from django.utils.cache import patch_cache_control

from events.models import RatingType
from players.models import Federation
from public.selectors.ratings import (
    AGE_GROUPS,
    TITLES,
    EntryFilters,
    ListEntryPaginator,
    latest_current_lists,
    list_dates_by_type,
    list_entries,
    list_movers,
    top_entries,
)
from public.selectors.top import rating_histogram
from public.views.base import public_page
from public.views.top import CATEGORY_LABELS
from ratings.models import RatingList
from ratings.selectors import rating_list_current
from ratings.services.export import EXPORT_FORMATS, rating_list_export

PAGE_SIZE = 100
DOWNLOAD_MAX_AGE = 3600


@public_page
def home(request):
    latest = latest_current_lists()
    top = top_entries(latest, limit=10)
    return render(
        request,
        "home.html",
        {
            "latest": [{"rating_list": rating_list, "top": top.get(rating_list.pk, [])} for rating_list in latest],
        },
    )


@public_page
def list_index(request):
    return render(
        request, "ratings/list_index.html", {"dates": list_dates_by_type(), "rating_types": RatingType.values}
    )


def _published_list(list_date: datetime.date, rating_type: str) -> RatingList:
    rating_list = rating_list_current(rating_type, list_date)
    if rating_list is None:
        raise Http404("no published list of that date and rating type")
    return rating_list


@public_page
def list_detail(request, list_date: datetime.date, rating_type: str):
    rating_list = _published_list(list_date, rating_type)
    filters = EntryFilters.from_params(request.GET, active_default=False)
    entries = list_entries(rating_list, filters)
    page = ListEntryPaginator(entries, PAGE_SIZE).get_page(request.GET.get("page"))
    gains, losses = list_movers(rating_list)
    return render(
        request,
        "ratings/list_detail.html",
        {
            "rating_list": rating_list,
            "page": page,
            "first_rank": page.start_index(),
            "filters": filters,
            "filter_params": filters.as_params(),
            "federations": Federation.objects.all(),
            "age_groups": AGE_GROUPS,
            "titles": TITLES,
            "gains": gains,
            "losses": losses,
            "histogram": rating_histogram(rating_list),
            "categories": list(CATEGORY_LABELS.items()),
            "other_lists": RatingList.objects.current().filter(list_date=list_date).exclude(rating_type=rating_type),
        },
    )


# --- downloads ----------


def list_download(request, list_date: datetime.date, rating_type: str, fmt: str):
    """The whole list, streamed a chunk at a time by the export service (as the export command writes it)."""
    rating_list = _published_list(list_date, rating_type)
    response = StreamingHttpResponse(rating_list_export(rating_list, fmt), content_type=EXPORT_FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="{rating_type}_{list_date:%Y-%m-%d}.{fmt}"'
    patch_cache_control(response, public=True, max_age=DOWNLOAD_MAX_AGE)
    return response
