"""Top lists: the best players of a category (open, women, juniors, girls, seniors, or any age range, sex,
federation and title) on a published list, active players only by default. Thin: selectors fetch."""

import datetime

from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from core.pagination import whole_number
from events.models import RatingType
from players.models import Federation
from public.selectors.ratings import CATEGORIES, TITLES, EntryFilters
from public.selectors.top import top_list
from public.views.base import public_page
from ratings.models import RatingList
from ratings.selectors import rating_list_current

CATEGORY_LABELS = {
    "open": _("Open"),
    "women": _("Women"),
    "juniors": _("Juniors (under 20)"),
    "girls": _("Girls (under 20)"),
    "seniors50": _("Seniors 50+"),
    "seniors65": _("Seniors 65+"),
}
MAX_PAGE = 1000


def _page_number(value: str | None) -> int:
    number = whole_number(value)  # never int(value): thousands of digits raise (issue 32)
    return number if number is not None and 1 <= number <= MAX_PAGE else 1


@public_page
def top_lists(request):
    errors: dict[str, str] = {}
    rating_type = request.GET.get("rating_type") or RatingType.STANDARD
    if rating_type not in RatingType.values:
        errors["rating_type"] = f"expected one of {', '.join(RatingType.values)}, got {rating_type!r}"
        rating_type = RatingType.STANDARD
    dates = list(RatingList.objects.current(rating_type).order_by("-list_date").values_list("list_date", flat=True))
    list_date = dates[0] if dates else None
    if request.GET.get("list_date"):
        try:
            list_date = datetime.date.fromisoformat(request.GET["list_date"])
        except ValueError:
            errors["list_date"] = f"expected a date YYYY-MM-DD, got {request.GET['list_date']!r}"
    rating_list = rating_list_current(rating_type, list_date) if list_date else None
    if rating_list is None and dates and "list_date" not in errors:
        raise Http404("no published list of that date and rating type")
    params = request.GET.copy()
    params.setdefault("category", "open")
    filters = EntryFilters.from_params(params, active_default=True)
    errors.update(filters.errors)
    page = top_list(rating_list, filters, _page_number(request.GET.get("page"))) if rating_list else None
    return render(
        request,
        "ratings/top.html",
        {
            "rating_list": rating_list,
            "rating_type": rating_type,
            "rating_types": RatingType.values,
            "dates": dates,
            "page": page,
            "filters": filters,
            "errors": errors,
            "categories": [(key, CATEGORY_LABELS[key]) for key in CATEGORIES],
            "category_label": CATEGORY_LABELS.get(filters.category, ""),
            "federations": Federation.objects.all(),
            "titles": TITLES,
        },
    )
