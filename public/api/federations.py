"""Federations and clubs in the read-only API: /api/v1/federations/, /api/v1/federations/<code>/,
/api/v1/clubs/<id>/."""

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.response import Response

from core.api import PublicReadMixin
from events.models import RatingType
from players.models import Club, Federation
from public.selectors.federations import club_members, federation_ranking, federation_summary
from public.selectors.ratings import latest_current_lists
from public.serializers.federations import (
    ClubDetailSerializer,
    FederationDetailSerializer,
    FederationRankingSerializer,
)


class FederationListAPI(PublicReadMixin, generics.GenericAPIView):
    """Every federation with rated players on the newest lists: rated and active players and the average of
    the ten best active players per rating type, best standard average first."""

    serializer_class = FederationRankingSerializer
    pagination_class = None

    @extend_schema(responses=FederationRankingSerializer(many=True))
    def get(self, request):
        names = dict(Federation.objects.values_list("code", "name"))
        rows = [
            {
                "code": row["code"],
                "name": names.get(row["code"], ""),
                "types": [{"rating_type": t, **row["types"][t]} for t in RatingType.values if t in row["types"]],
            }
            for row in federation_ranking(latest_current_lists())
        ]
        return Response(FederationRankingSerializer(rows, many=True).data)


@extend_schema(parameters=[OpenApiParameter("code", OpenApiTypes.STR, OpenApiParameter.PATH, description="e.g. ESP")])
class FederationDetailAPI(PublicReadMixin, generics.GenericAPIView):
    """One federation: figures and top 20 per rating type (newest lists), recent events, clubs."""

    serializer_class = FederationDetailSerializer
    pagination_class = None

    def get(self, request, code: str):
        federation = get_object_or_404(Federation, code=code.upper())
        return Response(FederationDetailSerializer({"federation": federation, **federation_summary(federation)}).data)


@extend_schema(parameters=[OpenApiParameter("club_id", OpenApiTypes.INT, OpenApiParameter.PATH)])
class ClubDetailAPI(PublicReadMixin, generics.GenericAPIView):
    """A club and its members with their current ratings."""

    serializer_class = ClubDetailSerializer
    pagination_class = None

    def get(self, request, club_id: int):
        club = get_object_or_404(Club.objects.select_related("federation"), pk=club_id)
        return Response(ClubDetailSerializer({"club": club, "members": club_members(club)}).data)
