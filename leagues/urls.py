"""The league pages and API paths; public/urls.py includes them (public sits above leagues and wraps pages in
its public_page cache rule)."""

from collections.abc import Callable

from django.urls import path
from django.urls.resolvers import URLPattern

from leagues import api, views


def page_urls(wrap: Callable) -> list[URLPattern]:
    return [
        path("leagues/", wrap(views.league_index), name="leagues"),
        path("leagues/<slug:slug>/", wrap(views.competition_detail), name="league"),
        path("leagues/<slug:slug>/<slug:season>/", wrap(views.season_detail), name="league-season"),
        path("matches/<key:pk>/", wrap(views.match_detail), name="match"),
        path("teams/<key:pk>/", wrap(views.team_detail), name="team"),
    ]


def api_urls() -> list[URLPattern]:
    """Under /api/v1/; matches and teams first (a competition slug never shadows them). Called once public/urls.py
    has registered its ``key`` converter (an ID of at most 18 digits: never a database overflow)."""
    return [
        path("leagues/", api.CompetitionListAPI.as_view(), name="api-leagues"),
        path("leagues/matches/<key:pk>/", api.MatchDetailAPI.as_view(), name="api-league-match"),
        path("leagues/teams/<key:pk>/", api.TeamDetailAPI.as_view(), name="api-league-team"),
        path("leagues/<slug:slug>/", api.CompetitionDetailAPI.as_view(), name="api-league"),
        path("leagues/<slug:slug>/<slug:season>/", api.SeasonDetailAPI.as_view(), name="api-league-season"),
    ]
