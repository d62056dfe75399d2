"""GET /api/v1/rating-lists/<date>/<type>/pool/: the pool ledger of one published list."""

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import PublicReadMixin
from events.models import RatingType
from ratings.selectors import rating_list_current
from ratings.services.pool import pool_ledgers


class PoolLedgerSerializer(serializers.Serializer):
    list_date = serializers.DateField()
    rating_type = serializers.CharField()
    previous_list_date = serializers.DateField(allow_null=True, help_text="The list this one continues")
    previous_total = serializers.IntegerField(help_text="Sum of the ratings of the previous list's rated players")
    from_games = serializers.IntegerField(help_text="Sum of the rating changes of players rated on both lists")
    newcomers = serializers.IntegerField(help_text="Sum of the ratings of players not rated on the previous list")
    leavers = serializers.IntegerField(help_text="Sum of the previous ratings of players no longer rated")
    adjustments = serializers.IntegerField(help_text="Sum of one-off adjustments applied on this list")
    total = serializers.IntegerField(help_text="previous_total + from_games + newcomers - leavers + adjustments")
    rated = serializers.IntegerField(help_text="Entries with a rating (active and inactive)")
    mean = serializers.FloatField(allow_null=True)
    median = serializers.FloatField(allow_null=True)
    at_least_2000 = serializers.IntegerField()
    at_least_2200 = serializers.IntegerField()
    at_least_2400 = serializers.IntegerField()
    stable_players = serializers.IntegerField(help_text="Players rated on both lists")
    stable_mean_change = serializers.FloatField(allow_null=True, help_text="Their mean rating change")
    newcomer_players = serializers.IntegerField()
    leaver_players = serializers.IntegerField()


@extend_schema(
    parameters=[
        OpenApiParameter("list_date", OpenApiTypes.DATE, OpenApiParameter.PATH, description="List date, YYYY-MM-DD"),
        OpenApiParameter("rating_type", OpenApiTypes.STR, OpenApiParameter.PATH, enum=RatingType.values),
    ],
    responses={200: PoolLedgerSerializer},
)
class PoolLedgerAPI(PublicReadMixin, APIView):
    """Pool health of a published list: a ledger of rating points that balances to the point."""

    def get(self, request, list_date, rating_type):
        rating_list = rating_list_current(rating_type, list_date)
        if rating_list is None:
            raise Http404("no published list of that date and rating type")
        return Response(PoolLedgerSerializer(pool_ledgers([rating_list])[0].to_json()).data)
