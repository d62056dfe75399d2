"""Read-only player endpoints: /api/v1/players/, /api/v1/players/<id>/, /api/v1/players/<id>/history/."""

import re
from typing import cast

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from core.api import PublicPagination, PublicReadMixin, WindowedPagination
from core.schema import FEDERATION_CODE
from players.models import Player
from players.selectors import players_matching
from public.selectors.ratings import RECENT_LISTS, player_history_rows, player_lines, player_ratings
from public.serializers.players import PlayerDetailSerializer, PlayerHistorySerializer, PlayerSerializer
from ratings.models import PlayerRating
from ratings.selectors_titles import player_titles

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
        context = {"ratings": player_ratings(player), "title_awards": player_titles(player)}
        return Response(PlayerDetailSerializer(player, context=context).data)


class PlayerHistoryPagination(PublicPagination):
    """Pages of a player's lists, the newest RECENT_LISTS by default (as the profile shows them): a request
    reads one page of lists and their events, whatever the length of the history (issue 17)."""

    page_size = RECENT_LISTS


# page and page_size as the paginated endpoints take them (core.api.PublicPagination): whole numbers from 1
PAGE_NUMBER = {"type": "integer", "minimum": 1}


@extend_schema(
    parameters=[
        ID_NUMBER,
        OpenApiParameter("page", PAGE_NUMBER, description="A page number within the history (newest lists first)"),
        OpenApiParameter(
            "page_size",
            PAGE_NUMBER,
            description=f"Lists per page (default {RECENT_LISTS}; above {PublicPagination.max_page_size} served as "
            f"{PublicPagination.max_page_size})",
        ),
    ]
)
class PlayerHistoryAPI(PublicReadMixin, generics.GenericAPIView):
    """The player's line on every published list, newest first, with the events rated on each: a page of lists
    at a time (``count``, ``next`` and ``previous`` as the other paginated endpoints give them)."""

    serializer_class = PlayerHistorySerializer
    pagination_class = PlayerHistoryPagination

    def get(self, request, id_number: int):
        player = public_player(id_number)
        paginator = cast(PlayerHistoryPagination, self.paginator)
        # a page of the player's lines (one query: public.selectors.ratings.player_lines), then its events
        lines = paginator.paginate_queryset(player_lines(player), request, view=self) or []
        data = {
            "id_number": player.id_number,
            "name": player.name,
            "count": paginator.page.paginator.count if paginator.page is not None else 0,
            "next": paginator.get_next_link(),
            "previous": paginator.get_previous_link(),
            "history": player_history_rows(player, lines),
        }
        return Response(PlayerHistorySerializer(data).data)
