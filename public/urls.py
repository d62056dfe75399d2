"""Every public URL: pages (players, lists, events) and the read-only API (``api/v1/``)."""

import datetime

from django.urls import include, path, register_converter

from core.api import DocsView, RedocView, SchemaView
from leagues import urls as league_urls
from membership.api import ArbiterDirectoryAPI, EventFeesAPI, TrainerDirectoryAPI
from membership.views import arbiter_page, licence_directory_page
from public.api.check_trf import CheckTrfAPI
from public.api.event_transitions import EventTransitionAPI
from public.api.events import EventDetailAPI, EventListAPI
from public.api.federations import ClubDetailAPI, FederationDetailAPI, FederationListAPI
from public.api.movers import RatingListMoversAPI
from public.api.norms import EventNormsAPI, NormCheckAPI
from public.api.players import PlayerDetailAPI, PlayerHistoryAPI, PlayerListAPI
from public.api.pool import PoolLedgerAPI
from public.api.ratings import CalculatorAPI, RatingListEntriesAPI, RatingListListAPI
from public.api.record import PlayerGamesAPI, PlayerOpponentsAPI, PlayerStatisticsAPI, PlayerVsAPI
from public.api.shadow import PlayerShadowRatingsAPI
from public.api.titles import RatingListTitlesAPI
from public.views import (
    calculator,
    event_status,
    events,
    federations,
    lists,
    movers,
    norms,
    players,
    pool,
    record,
    search,
    top,
)
from public.views.base import public_page
from public.views.feeds import PlayerRatingChangesFeed, RatedEventsFeed, RatingListsFeed


class ListDateConverter:
    """A list date in the URL: YYYY-MM-DD (an impossible date is a 404, not a 500)."""

    regex = r"\d{4}-\d{2}-\d{2}"

    def to_python(self, value: str) -> datetime.date:
        return datetime.date.fromisoformat(value)  # ValueError -> the pattern does not match

    def to_url(self, value: datetime.date | str) -> str:
        return value if isinstance(value, str) else value.isoformat()


class RatingTypeConverter:
    regex = "standard|rapid|blitz"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class KeyConverter:
    """An ID number or primary key: at most 18 digits, so it always fits a 64-bit integer column (a longer
    number is a 404, never a database overflow)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int | str) -> str:
        return str(value)


class FederationCodeConverter:
    regex = "[A-Za-z]{3}"

    def to_python(self, value: str) -> str:
        return value.upper()

    def to_url(self, value: str) -> str:
        return value


register_converter(KeyConverter, "key")
register_converter(FederationCodeConverter, "federation_code")
register_converter(ListDateConverter, "list_date")
register_converter(RatingTypeConverter, "rating_type")

player_pages = [
    path("", search.player_search, name="search"),
    path("<key:id_number>/", players.player_profile, name="profile"),
    path("<key:id_number>/chart.svg", players.player_chart, name="chart"),
    path("<key:id_number>/vs/<key:other_id_number>/", record.player_vs, name="vs"),
    path(
        "<key:id_number>/calculations/<list_date:list_date>/<rating_type:rating_type>/",
        players.player_calculations,
        name="calculations",
    ),
]

list_pages = [
    path("", lists.list_index, name="index"),
    path("<list_date:list_date>/<rating_type:rating_type>/", lists.list_detail, name="detail"),
    path("<list_date:list_date>/<rating_type:rating_type>/pool/", pool.pool_page, name="pool"),
    path("<list_date:list_date>/<rating_type:rating_type>/movers/", movers.list_movers_page, name="movers"),
    *(
        path(f"<list_date:list_date>/<rating_type:rating_type>.{fmt}", lists.list_download, {"fmt": fmt}, name=fmt)
        for fmt in ("txt", "csv", "xml")
    ),
    path("<list_date:list_date>/<rating_type:rating_type>/events/", event_status.rated_events, name="rated-events"),
]

event_pages = [
    path("", events.event_list, name="list"),
    path("awaiting-rating/", event_status.awaiting_rating, name="awaiting"),
    path("<key:pk>/", events.event_detail, name="detail"),
    path("<key:pk>/norms/", norms.event_norms, name="norms"),
    path("<key:pk>/norms/<key:id_number>/it1.pdf", norms.norm_it1, name="it1"),
    path("<key:pk>/it3.pdf", norms.event_it3, name="it3"),
    path("<key:pk>/rounds/<key:round_>/", events.event_round, name="round"),
    path("<key:pk>/start-list/", events.event_start_list, name="start-list"),
    path("<key:pk>/players/<key:start_rank>/", events.event_player, name="player"),
    path("<key:pk>/crosstable.csv", events.event_crosstable_csv, name="crosstable-csv"),
    path("<key:pk>/crosstable.pdf", events.event_crosstable_pdf, name="crosstable-pdf"),
]

api_v1 = [
    path("players/", PlayerListAPI.as_view(), name="api-players"),
    path("players/<key:id_number>/", PlayerDetailAPI.as_view(), name="api-player"),
    path("players/<key:id_number>/history/", PlayerHistoryAPI.as_view(), name="api-player-history"),
    path("players/<key:id_number>/shadow-ratings/", PlayerShadowRatingsAPI.as_view(), name="api-player-shadow-ratings"),
    path("players/<key:id_number>/games/", PlayerGamesAPI.as_view(), name="api-player-games"),
    path("players/<key:id_number>/opponents/", PlayerOpponentsAPI.as_view(), name="api-player-opponents"),
    path("players/<key:id_number>/statistics/", PlayerStatisticsAPI.as_view(), name="api-player-statistics"),
    path("players/<key:id_number>/vs/<key:other_id_number>/", PlayerVsAPI.as_view(), name="api-player-vs"),
    path("rating-lists/", RatingListListAPI.as_view(), name="api-rating-lists"),
    path(
        "rating-lists/<list_date:list_date>/<rating_type:rating_type>/entries/",
        RatingListEntriesAPI.as_view(),
        name="api-rating-list-entries",
    ),
    path(
        "rating-lists/<list_date:list_date>/<rating_type:rating_type>/pool/",
        PoolLedgerAPI.as_view(),
        name="api-rating-list-pool",
    ),
    path(
        "rating-lists/<list_date:list_date>/<rating_type:rating_type>/titles/",
        RatingListTitlesAPI.as_view(),
        name="api-rating-list-titles",
    ),
    path("federations/", FederationListAPI.as_view(), name="api-federations"),
    path("federations/<federation_code:code>/", FederationDetailAPI.as_view(), name="api-federation"),
    path("clubs/<key:club_id>/", ClubDetailAPI.as_view(), name="api-club"),
    path(
        "rating-lists/<list_date:list_date>/<rating_type:rating_type>/movers/",
        RatingListMoversAPI.as_view(),
        name="api-rating-list-movers",
    ),
    path("events/", EventListAPI.as_view(), name="api-events"),
    path("events/check-trf/", CheckTrfAPI.as_view(), name="api-events-check-trf"),
    path("events/<key:pk>/transitions/", EventTransitionAPI.as_view(), name="api-event-transitions"),
    path("events/<key:pk>/", EventDetailAPI.as_view(), name="api-event"),
    path("events/<key:pk>/norms/", EventNormsAPI.as_view(), name="api-event-norms"),
    path("norms/check/", NormCheckAPI.as_view(), name="api-norms-check"),
    path("events/<key:pk>/fees/", EventFeesAPI.as_view(), name="api-event-fees"),
    path("arbiters/", ArbiterDirectoryAPI.as_view(), name="api-arbiters"),
    path("trainers/", TrainerDirectoryAPI.as_view(), name="api-trainers"),
    path("calculator/", CalculatorAPI.as_view(), name="api-calculator"),
    path("schema/", SchemaView.as_view(), name="api-schema"),
    path("docs/", DocsView.as_view(), name="api-docs"),
    path("redoc/", RedocView.as_view(), name="api-redoc"),
    *league_urls.api_urls(),  # leagues (issue 34)
]

# The namespaces (players:, ratings:, events:) are the names templates and reverse() use.
urlpatterns = [
    path("", lists.home, name="home"),
    path("top/", top.top_lists, name="top"),
    path("calculator/", calculator.calculator_page, name="calculator"),
    path("federations/", federations.federation_index, name="federations"),
    path("federations/<federation_code:code>/", federations.federation_detail, name="federation"),
    path("clubs/<key:club_id>/", federations.club_detail, name="club"),
    path("players/", include((player_pages, "players"))),
    path("lists/", include((list_pages, "ratings"))),
    path("events/", include((event_pages, "events"))),
    path("arbiters/", licence_directory_page, {"kind": "arbiter"}, name="arbiters"),
    path("arbiters/<key:id_number>/", arbiter_page, name="arbiter"),
    path("trainers/", licence_directory_page, {"kind": "trainer"}, name="trainers"),
    *league_urls.page_urls(public_page),  # leagues, matches, teams (issue 34)
    path("api/v1/", include(api_v1)),
    # Atom feeds (issue 15)
    path("feeds/lists/<rating_type:rating_type>/", RatingListsFeed(), name="feed-lists"),
    path("feeds/events/rated/", RatedEventsFeed(), name="feed-rated-events"),
    path("feeds/players/<key:id_number>/", PlayerRatingChangesFeed(), name="feed-player"),
]
