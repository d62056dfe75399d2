"""Movers and improvers of a published list in the read-only API:
/api/v1/rating-lists/<date>/<type>/movers/."""

import datetime

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from core.api import PublicReadMixin
from core.schema import FEDERATION_CODE
from events.models import RatingType
from public.selectors.movers import best_juniors, list_gains_losses, most_improved
from public.selectors.ratings import API_CHOICES, EntryFilters
from public.serializers.ratings import RatingListEntrySerializer
from ratings.selectors import rating_list_current


class ImprovedSerializer(serializers.Serializer):
    id_number = serializers.IntegerField()
    name = serializers.CharField()
    federation = serializers.CharField()
    rating = serializers.IntegerField()
    earlier_rating = serializers.IntegerField()
    gain = serializers.IntegerField()


class MoversSerializer(serializers.Serializer):
    gains = RatingListEntrySerializer(many=True)
    losses = RatingListEntrySerializer(many=True)
    improved_since = serializers.DateField(allow_null=True, help_text="The list twelve months earlier")
    improved = ImprovedSerializer(many=True)
    juniors = RatingListEntrySerializer(many=True)


@extend_schema(
    parameters=[
        OpenApiParameter("list_date", OpenApiTypes.DATE, OpenApiParameter.PATH),
        OpenApiParameter("rating_type", OpenApiTypes.STR, OpenApiParameter.PATH, enum=RatingType.values),
        OpenApiParameter("category", OpenApiTypes.STR, enum=API_CHOICES["category"]),
        OpenApiParameter(
            "federation", OpenApiTypes.STR, description="Three-letter federation code", pattern=FEDERATION_CODE
        ),
    ]
)
class RatingListMoversAPI(PublicReadMixin, generics.GenericAPIView):
    """The largest gains and losses since the previous list, the most improved over twelve months and the
    best juniors, within a category (and federation) if given; ten of each."""

    serializer_class = MoversSerializer
    pagination_class = None

    def get(self, request, list_date: datetime.date, rating_type: str):
        rating_list = rating_list_current(rating_type, list_date)
        if rating_list is None:
            raise Http404("no published list of that date and rating type")
        filters = EntryFilters.from_params(request.query_params, active_default=False)
        filters.refuse_outside_choices(request.query_params, ("category",))
        if filters.errors:
            raise ValidationError({key: [message] for key, message in filters.errors.items()})
        gains, losses = list_gains_losses(rating_list, filters)
        improved = most_improved(rating_list, filters)
        data = {
            "gains": gains,
            "losses": losses,
            "improved_since": improved["earlier"].list_date if improved["earlier"] else None,
            "improved": improved["rows"],
            "juniors": best_juniors(rating_list, filters),
        }
        return Response(MoversSerializer(data).data)
