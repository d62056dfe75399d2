"""GET /api/v1/rating-lists/<date>/<type>/titles/: the new titles of one published list (issue 33)."""

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import PublicReadMixin
from events.models import RatingType
from public.serializers.titles import RatingListTitlesSerializer
from ratings.selectors import rating_list_current
from ratings.selectors_titles import list_new_titles


@extend_schema(
    parameters=[
        OpenApiParameter("list_date", OpenApiTypes.DATE, OpenApiParameter.PATH, description="List date, YYYY-MM-DD"),
        OpenApiParameter("rating_type", OpenApiTypes.STR, OpenApiParameter.PATH, enum=RatingType.values),
    ],
    responses={200: RatingListTitlesSerializer},
)
class RatingListTitlesAPI(PublicReadMixin, APIView):
    """The titles a published list brings: awards dated in its period, and the players whose rating on it
    qualifies them for FM, CM, WFM or WCM (B.01 1.3), with the award's date once recorded."""

    def get(self, request, list_date, rating_type):
        rating_list = rating_list_current(rating_type, list_date)
        if rating_list is None:
            raise Http404("no published list of that date and rating type")
        new = list_new_titles(rating_list)
        data = {
            "list_date": rating_list.list_date,
            "rating_type": rating_list.rating_type,
            "new_titles": {"awards": new.awards, "candidates": new.candidates},
        }
        return Response(RatingListTitlesSerializer(data).data)
