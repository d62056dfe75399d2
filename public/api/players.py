"""Read-only player endpoints: /api/v1/players/, /api/v1/players/<id>/, /api/v1/players/<id>/history/."""

import re

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from core.api import PublicReadMixin, WindowedPagination
from core.schema import FEDERATION_CODE
from players.models import Player
from players.selectors import players_matching
from public.selectors.ratings import player_history_rows, player_ratings
from public.serializers.players import PlayerDetailSerializer, PlayerHistorySerializer, PlayerSerializer
from ratings.models import PlayerRating

ID_NUMBER = OpenApiParameter(
    "id_number",
    OpenApiTypes.INT,
    OpenApiParameter.PATH,
    description="The player's ID number (the FIDE ID where they have one)",
)


def public_player(id_number: int) -> Player:
    return get_object_or_404(Player.objects.select_related("federation"), id_number=id_number, merged_into__isnull=True)


@extend_schema(
    parameters=[
        OpenApiParameter("q", OpenApiTypes.STR, description='Name prefix ("SURNAME, Given") or an exact ID number'),
        OpenApiParameter(
            "federation", OpenApiTypes.STR, description="Three-letter federation code", pattern=FEDERATION_CODE
        ),
    ]
)
class PlayerListAPI(PublicReadMixin, generics.ListAPIView):
    """Registered players (merged duplicates left out), by name; search with ``q``. Pages cover the first
    10,000 players a query matches (``capped`` says more matched: add letters or a federation)."""

    serializer_class = PlayerSerializer
    pagination_class = WindowedPagination

    def get_queryset(self):
        players = players_matching(self.request.query_params.get("q", "")).prefetch_related(
            Prefetch("ratings", queryset=PlayerRating.objects.select_related("rating_list"))
        )
        federation = self.request.query_params.get("federation", "").strip().upper()
        if federation:
            if not re.fullmatch(FEDERATION_CODE, federation):
                raise ValidationError({"federation": [f"expected a three-letter code, got {federation!r}"]})
            players = players.filter(federation_id=federation)
        return players


@extend_schema(parameters=[ID_NUMBER])
class PlayerDetailAPI(PublicReadMixin, generics.GenericAPIView):
    """One player with current ratings, K, and world / federation rank per rating type."""

    serializer_class = PlayerDetailSerializer
    pagination_class = None

    def get(self, request, id_number: int):
        player = public_player(id_number)
        return Response(PlayerDetailSerializer(player, context={"ratings": player_ratings(player)}).data)


@extend_schema(parameters=[ID_NUMBER])
class PlayerHistoryAPI(PublicReadMixin, generics.GenericAPIView):
    """The player's line on every published list, newest first, with the events rated on each."""

    serializer_class = PlayerHistorySerializer
    pagination_class = None

    def get(self, request, id_number: int):
        player = public_player(id_number)
        data = {"id_number": player.id_number, "name": player.name, "history": player_history_rows(player)}
        return Response(PlayerHistorySerializer(data).data)
