"""Public rating-list pages and downloads, and the home page. Thin: selectors fetch, templates render."""

import datetime

from django.http import Http404, StreamingHttpResponse
from django.shortcuts import render
from django.utils.cache import patch_cache_control, patch_vary_headers

from players.fide_list import write_fide_list_csv, write_fide_list_txt, write_fide_list_xml
from players.models import Federation
from ratings.models import RatingList
from ratings.public_selectors import (
    AGE_GROUPS,
    RATING_TYPES,
    TITLES,
    EntryFilters,
    ListEntryPaginator,
    current_list,
    current_lists,
    download_rows,
    latest_current_lists,
    list_dates_by_type,
    list_entries,
    list_movers,
    top_entries,
)

PAGE_SIZE = 100
# Pages of published data: browsers and proxies may keep them a few minutes. They vary on the language
# (Accept-Language, added by LocaleMiddleware, and the language cookie).
PAGE_MAX_AGE = 300
DOWNLOAD_MAX_AGE = 3600
DOWNLOAD_CHUNK = 2000


def public_page(view):
    """Mark a public page cacheable by anyone for PAGE_MAX_AGE seconds, per language."""

    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if response.status_code == 200:
            patch_cache_control(response, public=True, max_age=PAGE_MAX_AGE)
            patch_vary_headers(response, ("Cookie",))
        return response

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


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
    return render(request, "ratings/list_index.html", {"dates": list_dates_by_type(), "rating_types": RATING_TYPES})


def _published_list(list_date: datetime.date, rating_type: str) -> RatingList:
    rating_list = current_list(list_date, rating_type)
    if rating_list is None:
        raise Http404("no published list of that date and rating type")
    return rating_list


@public_page
def list_detail(request, list_date: datetime.date, rating_type: str):
    rating_list = _published_list(list_date, rating_type)
    filters = EntryFilters.from_params(request.GET)
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
            "other_lists": current_lists().filter(list_date=list_date).exclude(rating_type=rating_type),
        },
    )


# --- downloads ----------

DOWNLOAD_FORMATS = {
    "txt": (write_fide_list_txt, "text/plain; charset=utf-8"),
    "csv": (write_fide_list_csv, "text/csv; charset=utf-8"),
    "xml": (write_fide_list_xml, "application/xml; charset=utf-8"),
}


def list_download(request, list_date: datetime.date, rating_type: str, fmt: str):
    """The whole list, streamed row by row (server-side cursor / chunked iterator), never held in memory."""
    rating_list = _published_list(list_date, rating_type)
    rows = download_rows(rating_list, chunk_size=DOWNLOAD_CHUNK)
    writer, content_type = DOWNLOAD_FORMATS[fmt]
    if fmt == "txt":
        # FIDE's single-type layout, the rating column headed by the list month (MAR26) as FIDE does
        lines = writer(rows, rating_type, list_date=list_date)
    else:
        lines = writer(rows, rating_type)
    response = StreamingHttpResponse(lines, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{rating_type}_{list_date:%Y-%m-%d}.{fmt}"'
    patch_cache_control(response, public=True, max_age=DOWNLOAD_MAX_AGE)
    return response
