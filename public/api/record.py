"""A player's record in the read-only API: /api/v1/players/<id>/games/, .../opponents/, .../statistics/ and
the head-to-head /api/v1/players/<a>/vs/<b>/."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from core.api import PublicReadMixin
from events.models import RatingType
from public.api.players import ID_NUMBER, public_player
from public.selectors.ratings import player_ratings
from public.selectors.record import (
    RecordGames,
    attach_opponents,
    head_to_head,
    is_provisional,
    record_peaks,
    record_summary,
    record_version,
)
from public.serializers.record import (
    GameRowSerializer,
    HeadToHeadSerializer,
    OpponentRowSerializer,
    PlayerStatisticsSerializer,
)

RATING_TYPE = OpenApiParameter(
    "rating_type", OpenApiTypes.STR, enum=RatingType.values, description="Only games of this rating type"
)


def _rating_type(params) -> str | None:
    value = params.get("rating_type", "")
    if value and value not in RatingType.values:
        raise ValidationError({"rating_type": [f"expected one of {', '.join(RatingType.values)}, got {value!r}"]})
    return value or None


@extend_schema(parameters=[ID_NUMBER, RATING_TYPE])
class PlayerGamesAPI(PublicReadMixin, generics.ListAPIView):
    """Every rated game of the player on published lists, newest first, as calculated (opponent's rating on
    the list in force, score, K x dR)."""

    serializer_class: type[serializers.Serializer] = GameRowSerializer

    def get_queryset(self):  # not a queryset: the player's games, of which the paginator reads one page
        player = public_player(self.kwargs["id_number"])
        return RecordGames(player, _rating_type(self.request.query_params), record_version(player))

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        attach_opponents(page or [])  # the names of the page's opponents only: one query
        return page


@extend_schema(parameters=[ID_NUMBER, RATING_TYPE])
class PlayerOpponentsAPI(PlayerGamesAPI):
    """Every opponent of the player in rated games: games, score and FIDE performance, most games first."""

    serializer_class = OpponentRowSerializer

    def get_queryset(self):  # from the record's summary (kept in the cache)
        player = public_player(self.kwargs["id_number"])
        return record_summary(player, _rating_type(self.request.query_params), record_version(player)).opponents


@extend_schema(parameters=[ID_NUMBER, RATING_TYPE])
class PlayerStatisticsAPI(PublicReadMixin, generics.GenericAPIView):
    """Current ratings (provisional or not), peak ratings, results by colour and performance per event."""

    serializer_class = PlayerStatisticsSerializer
    pagination_class = None

    def get(self, request, id_number: int):
        player = public_player(id_number)
        rating_type = _rating_type(request.query_params)
        version = record_version(player)
        summary = record_summary(player, rating_type, version)
        ratings = [
            {**rating, "provisional": is_provisional(rating["rated_games_total"], rating["rating"])}
            for rating in player_ratings(player).values()
        ]
        data = {
            "id_number": player.id_number,
            "name": player.name,
            "ratings": ratings,
            "peaks": record_peaks(player, version),
            "colours": summary.colours,
            "events": summary.events,
        }
        return Response(PlayerStatisticsSerializer(data).data)


@extend_schema(
    parameters=[
        ID_NUMBER,
        OpenApiParameter("other_id_number", OpenApiTypes.INT, OpenApiParameter.PATH, description="The opponent"),
    ]
)
class PlayerVsAPI(PublicReadMixin, generics.GenericAPIView):
    """Every rated game between two players in published events, oldest first, and the score."""

    serializer_class = HeadToHeadSerializer
    pagination_class = None

    def get(self, request, id_number: int, other_id_number: int):
        first, second = public_player(id_number), public_player(other_id_number)
        return Response(HeadToHeadSerializer({"first": first, "second": second, **head_to_head(first, second)}).data)
