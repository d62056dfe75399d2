"""Public league pages (issue 34): /leagues/, /leagues/<slug>/, /leagues/<slug>/<season>/, /matches/<pk>/,
/teams/<pk>/. Thin: leagues.selectors read, templates render; public/urls.py wraps each in public_page (cached
per language like every public page)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from leagues import selectors
from leagues.models import Season


def league_index(request: HttpRequest) -> HttpResponse:
    return render(request, "leagues/index.html", {"competitions": selectors.competitions()})


def competition_detail(request: HttpRequest, slug: str) -> HttpResponse:
    competition = selectors.competition_get(slug)
    seasons: list[Season] = list(competition.seasons.all())
    return render(request, "leagues/competition.html", {"competition": competition, "seasons": seasons})


def season_detail(request: HttpRequest, slug: str, season: str) -> HttpResponse:
    found = selectors.season_get(slug, season)
    divisions = selectors.season_divisions(found)
    chosen = request.GET.get("division", "")
    division_pk = int(chosen) if chosen.isdigit() and len(chosen) <= 18 else None
    tables = selectors.season_tables(found, divisions, division_pk=division_pk)
    return render(
        request,
        "leagues/season.html",
        {"season": found, "tables": tables, "divisions": divisions if len(divisions) > 1 else []},
    )


def match_detail(request: HttpRequest, pk: int) -> HttpResponse:
    match, boards, score = selectors.match_card(pk)
    return render(request, "leagues/match.html", {"match": match, "boards": boards, "score": score})


def team_detail(request: HttpRequest, pk: int) -> HttpResponse:
    team, squad, matches = selectors.team_page(pk)
    return render(request, "leagues/team.html", {"team": team, "squad": squad, "matches": matches})
