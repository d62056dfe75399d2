"""GET /api/v1/players/<id>/shadow-ratings/: the player's unofficial shadow ratings
(ratings.services.publication.shadow)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import PublicReadMixin
from players.models import Player
from public.selectors.shadow import player_shadow_ratings


class ShadowRatingSerializer(serializers.Serializer):
    official = serializers.BooleanField(help_text="Always false: a shadow rating is not an official rating")
    rating_type = serializers.CharField()
    list_date = serializers.DateField(help_text="The official list it was computed beside")
    rules = serializers.CharField(help_text="The shadow rules preset")
    rating = serializers.FloatField(allow_null=True)
    deviation = serializers.FloatField(allow_null=True, help_text="Glicko-2 rating deviation (RD)")
    volatility = serializers.FloatField(allow_null=True, help_text="Glicko-2 volatility")
    interval = serializers.ListField(
        child=serializers.FloatField(), allow_null=True, help_text="rating ± 2 RD (Glicko-2)"
    )
    games = serializers.IntegerField(help_text="Games in the list's period")
    rated_games_total = serializers.IntegerField()
    provisional = serializers.BooleanField(help_text="Elo shadow on fewer than 30 rated games")


@extend_schema(responses={200: ShadowRatingSerializer(many=True)})
class PlayerShadowRatingsAPI(PublicReadMixin, APIView):
    """The player's shadow ratings beside the newest lists (unofficial)."""

    pagination_class = None

    def get(self, request, id_number):
        player = get_object_or_404(Player, id_number=id_number)
        return Response([shadow.to_json() for shadow in player_shadow_ratings(player)])
