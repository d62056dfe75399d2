import datetime

from django.contrib import admin
from django.urls import include, path, register_converter
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import set_language

from events.api import EventDetailAPI, EventListAPI
from federation.api import DocsView, RedocView, SchemaView
from players.api import PlayerDetailAPI, PlayerHistoryAPI, PlayerListAPI
from ratings import views as ratings_views
from ratings.api import CalculatorAPI, RatingListEntriesAPI, RatingListListAPI


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


register_converter(KeyConverter, "key")
register_converter(ListDateConverter, "list_date")
register_converter(RatingTypeConverter, "rating_type")

api_v1 = [
    path("players/", PlayerListAPI.as_view(), name="api-players"),
    path("players/<key:id_number>/", PlayerDetailAPI.as_view(), name="api-player"),
    path("players/<key:id_number>/history/", PlayerHistoryAPI.as_view(), name="api-player-history"),
    path("rating-lists/", RatingListListAPI.as_view(), name="api-rating-lists"),
    path(
        "rating-lists/<list_date:list_date>/<rating_type:rating_type>/entries/",
        RatingListEntriesAPI.as_view(),
        name="api-rating-list-entries",
    ),
    path("events/", EventListAPI.as_view(), name="api-events"),
    path("events/<key:pk>/", EventDetailAPI.as_view(), name="api-event"),
    path("calculator/", CalculatorAPI.as_view(), name="api-calculator"),
    path("schema/", SchemaView.as_view(), name="api-schema"),
    path("docs/", DocsView.as_view(), name="api-docs"),
    path("redoc/", RedocView.as_view(), name="api-redoc"),
]

urlpatterns = [
    path("", ratings_views.home, name="home"),
    path("players/", include("players.urls")),
    path("lists/", include("ratings.urls")),
    path("events/", include("events.urls")),
    path("api/v1/", include(api_v1)),
    # The language switch only sets a cookie; exempt from CSRF so that public pages carry no token and can be
    # cached by browsers and proxies (they vary on Accept-Language and Cookie).
    path("i18n/", csrf_exempt(set_language), name="set_language"),
    path("admin/", admin.site.urls),
]
