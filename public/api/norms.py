"""The norm calculator (POST /api/v1/norms/check/) and an event's norm report (GET /api/v1/events/<pk>/norms/)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import PublicReadMixin
from core.security import BoundedJSONParser
from public.selectors.events import public_event_list
from public.serializers.norms import EventNormReportSerializer, NormCheckInputSerializer, NormCheckResultSerializer
from ratings.engine.norms import NormEvent, NormGame, NormPlayer, check_norms
from ratings.services.norms import event_norm_report, norm_result_dict, norm_rules


class NormCheckAPI(APIView):
    """Check one player's games in one event for FIDE title norms (B.01 1.4): every requirement with its rule.

    Anyone may call it (it reads and writes nothing); bad input is answered 400 with the field at fault.
    """

    permission_classes = [AllowAny]
    parser_classes = [BoundedJSONParser]

    @extend_schema(
        request=NormCheckInputSerializer,
        responses={200: NormCheckResultSerializer, 400: OpenApiResponse(description="Field errors")},
    )
    def post(self, request):
        data = NormCheckInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        games = [
            NormGame(
                round=g["round"],
                result=g["result"],
                opponent=f"#{i}",
                opponent_rating=g.get("opponent_rating"),
                opponent_title=g["opponent_title"],
                opponent_federation=g.get("opponent_federation", "").upper(),
            )
            for i, g in enumerate(values["games"])
        ]
        try:
            results = check_norms(
                NormPlayer(values["player"]["federation"].upper(), values["player"]["sex"]),
                NormEvent(**values["event"]),
                games,
                values.get("title"),
                norm_rules(),
            )
        except ValueError as error:  # the engine refuses what the serializer could not foresee: still a 400
            raise serializers.ValidationError({"non_field_errors": [str(error)]}) from error
        return Response({"norms": [norm_result_dict(r) for r in results]})


class EventNormsAPI(PublicReadMixin, generics.GenericAPIView):
    """Every player's norm checks in a public event (B.01 1.4), computed from the event's own data."""

    serializer_class = EventNormReportSerializer
    pagination_class = None

    @extend_schema(
        responses=EventNormReportSerializer,
        parameters=[OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The event's id")],
    )
    def get(self, request, pk: int):
        event = get_object_or_404(public_event_list(), pk=pk)
        return Response({"players": [p.to_dict() for p in event_norm_report(event)]})
