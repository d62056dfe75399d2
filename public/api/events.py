"""Read-only event endpoints: /api/v1/events/ and /api/v1/events/<pk>/ (with crosstable)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.response import Response

from core.api import PublicReadMixin
from public.selectors.events import event_crosstable, public_event_list
from public.serializers.events import EventDetailSerializer, EventSerializer


class EventListAPI(PublicReadMixin, generics.ListAPIView):
    """Events submitted for rating or rated, newest first (drafts are private to arbiters)."""

    serializer_class = EventSerializer
    queryset = public_event_list()


class EventDetailAPI(PublicReadMixin, generics.GenericAPIView):
    """One event with its crosstable in standings order, average rating, category, performances, changes."""

    serializer_class = EventDetailSerializer
    pagination_class = None

    @extend_schema(
        responses=EventDetailSerializer,
        parameters=[OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The event's id")],
    )
    def get(self, request, pk: int):
        event = get_object_or_404(public_event_list(), pk=pk)
        return Response(EventDetailSerializer(event_crosstable(event)).data)
