"""The players page: find a player by name or ID number, narrowed by federation, title, sex, birth years and
rating (issue 32). Thin: read the form, fetch a page through public.selectors.search, render."""

from django.shortcuts import redirect, render

from events.models import RatingType
from players.models import Federation, Sex
from public.selectors.search import TITLES, PlayerSearch, player_search_page
from public.views.base import public_page


@public_page
def player_search(request):
    search = PlayerSearch.from_params(request.GET)
    page, results = None, []
    if search.asked:
        page, ratings_of = player_search_page(search, request.GET.get("page"))
        if search.query.isdigit() and not search.narrowed and page.paginator.count == 1:
            return redirect("players:profile", id_number=page.object_list[0].id_number)
        results = [
            {"player": player, "ratings": [ratings_of.get(player.pk, {}).get(t) for t in RatingType.values]}
            for player in page.object_list
        ]
    params = request.GET.copy()
    params.pop("page", None)
    return render(
        request,
        "players/search.html",
        {
            "query": search.query,
            "search": search,
            "page": page,
            "results": results,
            "rating_types": RatingType.values,
            "titles": TITLES,
            "sexes": Sex.choices,
            "federations": Federation.objects.order_by("code").only("code", "name"),
            "paging_query": params.urlencode(),
        },
    )
