"""Federation and club pages. Thin: selectors read, templates render."""

from django.shortcuts import get_object_or_404, render

from events.models import RatingType
from players.models import Club, Federation
from public.selectors.federations import club_members, federation_ranking, federation_summary
from public.selectors.ratings import latest_current_lists
from public.views.base import public_page


@public_page
def federation_index(request):
    lists = latest_current_lists()
    names = dict(Federation.objects.values_list("code", "name"))
    ranking = federation_ranking(lists)
    rows = [
        {
            "code": row["code"],
            "name": names.get(row["code"], ""),
            "types": [row["types"].get(t) for t in RatingType.values],
        }
        for row in ranking
    ]
    return render(request, "federations/index.html", {"rows": rows, "rating_types": RatingType.values, "lists": lists})


@public_page
def federation_detail(request, code: str):
    federation = get_object_or_404(Federation, code=code.upper())
    return render(request, "federations/detail.html", {"federation": federation, **federation_summary(federation)})


@public_page
def club_detail(request, club_id: int):
    club = get_object_or_404(Club.objects.select_related("federation"), pk=club_id)
    return render(
        request,
        "federations/club.html",
        {"club": club, "members": club_members(club), "rating_types": RatingType.values},
    )
