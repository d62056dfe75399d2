"""Movers and improvers of a published list (per category). Thin: selectors read, the template renders."""

import datetime

from django.http import Http404
from django.shortcuts import render

from public.selectors.movers import best_juniors, list_gains_losses, most_improved
from public.selectors.ratings import CATEGORIES, EntryFilters
from public.views.base import public_page
from public.views.top import CATEGORY_LABELS
from ratings.selectors import rating_list_current


@public_page
def list_movers_page(request, list_date: datetime.date, rating_type: str):
    rating_list = rating_list_current(rating_type, list_date)
    if rating_list is None:
        raise Http404("no published list of that date and rating type")
    filters = EntryFilters.from_params(request.GET, active_default=False)
    gains, losses = list_gains_losses(rating_list, filters)
    return render(
        request,
        "ratings/movers.html",
        {
            "rating_list": rating_list,
            "filters": filters,
            "errors": filters.errors,
            "categories": [(key, CATEGORY_LABELS[key]) for key in CATEGORIES],
            "gains": gains,
            "losses": losses,
            "improved": most_improved(rating_list, filters),
            "juniors": best_juniors(rating_list, filters),
        },
    )
