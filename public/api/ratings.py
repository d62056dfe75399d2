"""Read-only rating-list endpoints and the public rating calculator (POST /api/v1/calculator/)."""

import datetime

from django.http import Http404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import PublicPagination, PublicReadMixin
from core.schema import FEDERATION_CODE
from core.security import BoundedJSONParser
from events.models import RatingType
from public.selectors.calculator import calculator_run
from public.selectors.ratings import (
    API_CHOICES,
    MAX_AGE,
    EntryFilters,
    ListEntryPaginator,
    list_entries,
)
from public.serializers.ratings import (
    CalculatorInputSerializer,
    CalculatorResultSerializer,
    RatingListSerializer,
)
from public.serializers.top import RankedEntrySerializer, rank_page
from ratings.models import RatingList
from ratings.selectors import rating_list_current


@extend_schema(
    parameters=[
        OpenApiParameter(
            "rating_type", OpenApiTypes.STR, enum=RatingType.values, description="Only lists of this type"
        ),
    ]
)
class RatingListListAPI(PublicReadMixin, generics.ListAPIView):
    """Published rating lists (current versions), newest first."""

    serializer_class = RatingListSerializer

    def get_queryset(self):
        lists = RatingList.objects.current().order_by("-list_date", "rating_type")
        rating_type = self.request.query_params.get("rating_type", "")
        if rating_type:
            if rating_type not in RatingType.values:
                raise ValidationError({"rating_type": [f"expected one of {', '.join(RatingType.values)}"]})
            lists = lists.filter(rating_type=rating_type)
        return lists


# The ages the selection takes (public.selectors.ratings refuses others with 400).
AGE_SCHEMA = {"type": "integer", "minimum": 0, "maximum": MAX_AGE}


class ListEntriesPagination(PublicPagination):
    """Pages of a list's entries: no COUNT and no OFFSET on an unfiltered list (ListEntryPaginator)."""

    django_paginator_class = ListEntryPaginator


@extend_schema(
    parameters=[
        OpenApiParameter("list_date", OpenApiTypes.DATE, OpenApiParameter.PATH, description="List date, YYYY-MM-DD"),
        OpenApiParameter("rating_type", OpenApiTypes.STR, OpenApiParameter.PATH, enum=RatingType.values),
        OpenApiParameter(
            "federation",
            OpenApiTypes.STR,
            description="Three-letter federation code (as published)",
            pattern=FEDERATION_CODE,
        ),
        OpenApiParameter("sex", OpenApiTypes.STR, enum=API_CHOICES["sex"]),
        OpenApiParameter(
            "age_group",
            OpenApiTypes.STR,
            enum=API_CHOICES["age_group"],
            description="U8..U20: born in (list year - N) or later; 50+/65+: born in (list year - N) or earlier",
        ),
        OpenApiParameter(
            "category",
            OpenApiTypes.STR,
            enum=API_CHOICES["category"],
            description="Top-list shortcut: women/girls = sex F; juniors/girls = max_age 20; seniors50/65 = "
            "min_age 50/65; any category leaves inactive players out unless active=0",
        ),
        OpenApiParameter("min_age", AGE_SCHEMA, description="Age reached in the list's year, at least"),
        OpenApiParameter("max_age", AGE_SCHEMA, description="Age reached in the list's year, at most"),
        OpenApiParameter("title", OpenApiTypes.STR, enum=API_CHOICES["title"]),
        OpenApiParameter("active", OpenApiTypes.BOOL, description="1: leave inactive players out"),
        OpenApiParameter("sort", OpenApiTypes.STR, enum=API_CHOICES["sort"], description="Default -rating"),
    ]
)
class RatingListEntriesAPI(PublicReadMixin, generics.ListAPIView):
    """The entries of one published list, filtered and sorted like the list pages."""

    serializer_class = RankedEntrySerializer
    pagination_class = ListEntriesPagination

    def get_queryset(self):
        list_date: datetime.date = self.kwargs["list_date"]
        rating_list = rating_list_current(self.kwargs["rating_type"], list_date)
        if rating_list is None:
            raise Http404("no published list of that date and rating type")
        filters = EntryFilters.from_params(self.request.query_params)
        # The list page's form sends an empty box as no filter; the API's schema says a whole number or a
        # boolean, so here an empty value is refused like any other that is not one.
        query = self.request.query_params
        for name in ("min_age", "max_age"):
            raw = query.get(name)
            if raw is not None and not (raw.isascii() and raw.isdigit()):
                filters.errors.setdefault(name, f"expected a whole number of years 0..{MAX_AGE}, got {raw[:40]!r}")
        raw = query.get("active")
        if raw is not None and raw.strip().lower() not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            filters.errors.setdefault("active", f"expected true or false, got {raw[:40]!r}")
        filters.refuse_outside_choices(query, ("category", "sex", "age_group", "title", "sort"))
        if filters.errors:
            raise ValidationError({key: [message] for key, message in filters.errors.items()})
        self.filters = filters
        return list_entries(rating_list, filters)

    def paginate_queryset(self, queryset):
        rows = super().paginate_queryset(queryset)
        page = self.paginator.page  # type: ignore[union-attr]  # ListEntriesPagination keeps its page
        rank_page(rows, page.start_index(), page.paginator.count, self.filters.sort)
        return rows


class CalculatorAPI(APIView):
    """Run the rating engine: the change of a rated player, or the initial rating of an unrated one.

    Anyone may call it (it reads and writes nothing); bad input is answered 400 with the field at fault.
    """

    permission_classes = [AllowAny]
    parser_classes = [BoundedJSONParser]  # games are a nested list: only JSON can carry them

    @extend_schema(
        request=CalculatorInputSerializer,
        responses={200: CalculatorResultSerializer, 400: OpenApiResponse(description="Field errors")},
    )
    def post(self, request):
        data = CalculatorInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        list_date = timezone.localdate()  # the list being calculated: the next one (the junior K rule)
        try:
            result = calculator_run(values, list_date)
        except (
            ValueError,
            ArithmeticError,
        ) as error:  # the engine refuses what the serializer could not foresee: still a 400
            raise serializers.ValidationError({"non_field_errors": [str(error)]}) from error
        return Response(result)


def calculator_schema_hook(result, generator, request, public):
    """SPECTACULAR_SETTINGS POSTPROCESSING_HOOKS: the calculator's cross-field rule in its request schema (an
    unrated player, rating absent or null, has no K_factor)."""
    for name, schema in result.get("components", {}).get("schemas", {}).items():
        if name.startswith("CalculatorInput"):
            schema["not"] = {
                "required": ["k_factor"],
                "properties": {"k_factor": {"type": "number"}},
                "anyOf": [{"not": {"required": ["rating"]}}, {"properties": {"rating": {"enum": [None]}}}],
            }
    return result
