"""Read-only event endpoints: /api/v1/events/ (searched and filtered like the events page) and
/api/v1/events/<pk>/ (with crosstable, ``?round=N`` for the standings after round N)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from core.api import PublicReadMixin
from events.models import EventSystem, RatingType
from public.event_query import FEDERATION_PATTERN, ROUND_MAX, SEARCH_MAX_LENGTH, EventSearchForm, round_asked
from public.selectors.events import EventFilters, event_crosstable, public_event_list, public_event_search
from public.serializers.events import EventDetailSerializer, EventSerializer


class EventListAPI(PublicReadMixin, generics.ListAPIView):
    """Events submitted for rating or rated, newest first (drafts are private to arbiters)."""

    serializer_class = EventSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "q",
                {"type": "string", "maxLength": SEARCH_MAX_LENGTH},
                description="Words of the name or place (all must match)",
            ),
            OpenApiParameter("system", OpenApiTypes.STR, enum=[c.value for c in EventSystem]),
            OpenApiParameter("rating_type", OpenApiTypes.STR, enum=[c.value for c in RatingType]),
            OpenApiParameter(
                "federation", OpenApiTypes.STR, pattern=FEDERATION_PATTERN, description="Three-letter code"
            ),
            OpenApiParameter("date_from", OpenApiTypes.DATE, description="Events ending on or after"),
            OpenApiParameter("date_to", OpenApiTypes.DATE, description="Events starting on or before"),
        ]
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        form = EventSearchForm(self.request.GET or None)
        if not form.is_bound:
            return public_event_list()
        if not form.is_valid():
            raise ValidationError({name: [str(e) for e in errors] for name, errors in form.errors.items()})
        return public_event_search(EventFilters(**form.cleaned_data))


class EventDetailAPI(PublicReadMixin, generics.GenericAPIView):
    """One event with its crosstable in standings order, average rating, category, performances, changes."""

    serializer_class = EventDetailSerializer
    pagination_class = None

    @extend_schema(
        responses=EventDetailSerializer,
        parameters=[
            OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The event's id"),
            OpenApiParameter(
                "round",
                {"type": "integer", "minimum": 1, "maximum": ROUND_MAX},
                description="Standings after this round; a round the event does not have: 404",
            ),
        ],
    )
    def get(self, request, pk: int):
        event = get_object_or_404(public_event_list(), pk=pk)
        after_round, error = round_asked(request, event)
        if error:  # a round the event does not have is not found, like a page past the last
            raise NotFound(error)
        return Response(EventDetailSerializer(event_crosstable(event, after_round)).data)
