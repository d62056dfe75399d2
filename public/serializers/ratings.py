"""Public representations of rating lists and entries, and the calculator's input and output."""

import math

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.schema import StrictJSONSerializer
from events.models import RatingType
from public.serializers.glicko2 import Glicko2CalculationSerializer, validate_glicko2_input
from ratings.engine.presets import PRESETS
from ratings.models import RatingList, RatingListEntry

MAX_CALCULATOR_GAMES = 200


class RatingListSerializer(serializers.ModelSerializer):
    entries_url = serializers.SerializerMethodField()
    downloads = serializers.SerializerMethodField()

    class Meta:
        model = RatingList
        fields = [
            "list_date",
            "rating_type",
            "version",
            "period_start",
            "closing_date",
            "rules_preset",
            "published_at",
            "entry_count",
            "rated_count",
            "game_count",
            "entries_url",
            "downloads",
        ]

    def _absolute(self, path: str) -> str:
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path

    def get_entries_url(self, rating_list: RatingList) -> str:
        return self._absolute(
            f"/api/v1/rating-lists/{rating_list.list_date:%Y-%m-%d}/{rating_list.rating_type}/entries/"
        )

    def get_downloads(self, rating_list: RatingList) -> dict[str, str]:
        base = f"/lists/{rating_list.list_date:%Y-%m-%d}/{rating_list.rating_type}"
        return {fmt: self._absolute(f"{base}.{fmt}") for fmt in ("txt", "csv", "xml")}


class RatingListEntrySerializer(serializers.ModelSerializer):
    """A line of a published list, with title, federation and birth year as published."""

    id_number = serializers.IntegerField(source="player.id_number")
    name = serializers.CharField(source="player.name")

    class Meta:
        model = RatingListEntry
        fields = [
            "id_number",
            "name",
            "title",
            "women_title",
            "other_titles",
            "federation",
            "sex",
            "birth_year",
            "rating",
            "change",
            "games",
            "k_factor",
            "inactive",
            "deviation",  # Glicko-2 lists only (null on Elo lists)
            "volatility",
        ]


# --- calculator ----------


@extend_schema_field({"type": "number", "enum": [0, 0.5, 1], "description": "1, 0.5 or 0"})
class ScoreField(serializers.FloatField):
    """A game's score: the schema says which three values."""


class CalculatorGameSerializer(StrictJSONSerializer):
    opponent_rating = serializers.IntegerField(
        min_value=1,
        max_value=4000,
        allow_null=True,
        help_text="The opponent's rating on the list in force; null for an unrated opponent",
    )
    score = ScoreField(help_text="1, 0.5 or 0")
    opponent_deviation = serializers.FloatField(
        min_value=1,
        max_value=1000,
        required=False,
        help_text="Glicko-2 presets: the opponent's rating deviation (absent: 350, unrated); ignored by Elo presets",
    )

    def validate_score(self, value: float) -> float:
        if value not in (0.0, 0.5, 1.0):
            raise serializers.ValidationError(f"score must be 1, 0.5 or 0, got {value}")
        return value


class CalculatorInputSerializer(StrictJSONSerializer):
    rules = serializers.ChoiceField(
        choices=sorted(PRESETS), required=False, help_text="Rules preset slug (default: the federation's)"
    )
    rating_type = serializers.ChoiceField(choices=RatingType.choices, default=RatingType.STANDARD)
    rating = serializers.IntegerField(
        min_value=1,
        max_value=4000,
        allow_null=True,
        required=False,
        help_text="The player's rating; null or absent for an unrated player (initial rating)",
    )
    k_factor = serializers.FloatField(
        min_value=1,
        max_value=800,
        allow_null=True,
        required=False,
        help_text="Published K; absent: derived by the preset from rated_games_total and birth_year",
    )
    rated_games_total = serializers.IntegerField(min_value=0, max_value=100000, default=30)
    deviation = serializers.FloatField(
        min_value=1,
        max_value=1000,
        required=False,
        help_text="Glicko-2 presets: the player's rating deviation; ignored by Elo presets",
    )
    volatility = serializers.FloatField(
        min_value=0.0001,
        max_value=1,
        required=False,
        help_text="Glicko-2 presets: the player's volatility; ignored by Elo presets",
    )
    birth_year = serializers.IntegerField(min_value=1850, max_value=2100, allow_null=True, required=False)
    # many=True hands max_length to the ListSerializer, whose stub has it; BaseSerializer.__init__'s stub
    # (djangorestframework-stubs 3.18.1) does not list it.
    games = CalculatorGameSerializer(
        many=True,
        allow_empty=False,
        max_length=MAX_CALCULATOR_GAMES,  # type: ignore[call-arg]
    )

    def validate_k_factor(self, value):
        if value is not None and not math.isfinite(value):
            raise serializers.ValidationError("K factor must be a finite number")
        return value

    def validate(self, data: dict) -> dict:
        data.setdefault("rules", settings.RATING_RULES_PRESET)
        if data["rules"] not in PRESETS:
            raise serializers.ValidationError({"rules": [f"unknown rules preset {data['rules']!r}"]})
        if data.get("rating") is None and data.get("k_factor") is not None:
            raise serializers.ValidationError({"k_factor": ["an unrated player has no K; leave k_factor out"]})
        validate_glicko2_input(data, PRESETS[data["rules"]].glicko2 is not None)
        return data


class CalculatorLineSerializer(serializers.Serializer):
    opponent_rating = serializers.FloatField(allow_null=True, help_text="As given (null: unrated)")
    opponent_rating_used = serializers.FloatField(allow_null=True, help_text="After the difference cap")
    capped = serializers.BooleanField(help_text="The 400-point rule replaced the opponent's rating")
    difference = serializers.FloatField(allow_null=True, help_text="D used")
    expected_score = serializers.FloatField(allow_null=True, help_text="PD")
    score = serializers.FloatField()
    rated = serializers.BooleanField(help_text="The game changes the player's rating")
    rating_change = serializers.FloatField(allow_null=True, help_text="Score - PD")
    weighted_change = serializers.FloatField(help_text="K x (score - PD)")
    event = serializers.IntegerField()
    counted = serializers.BooleanField()


class CalculationSerializer(serializers.Serializer):
    rules = serializers.CharField()
    rating_type = serializers.CharField()
    rating = serializers.FloatField()
    k_factor = serializers.FloatField()
    k_factor_used = serializers.FloatField(help_text="After K x n <= 700 where the rules have it")
    games = serializers.IntegerField()
    expected = serializers.FloatField()
    score = serializers.FloatField()
    change = serializers.FloatField(help_text="Unrounded K x sum(score - PD)")
    rounded_change = serializers.FloatField()
    new_rating = serializers.FloatField()
    lines = CalculatorLineSerializer(many=True)


class InitialRatingSerializer(serializers.Serializer):
    rules = serializers.CharField()
    games = serializers.IntegerField()
    score = serializers.FloatField()
    hypothetical_opponents = serializers.IntegerField()
    average = serializers.FloatField(allow_null=True)
    percent = serializers.IntegerField(allow_null=True)
    dp = serializers.FloatField(allow_null=True)
    unrounded = serializers.FloatField(allow_null=True)
    initial_rating = serializers.FloatField(allow_null=True)
    capped = serializers.BooleanField()
    published = serializers.BooleanField()
    reason = serializers.CharField(allow_blank=True)
    lines = CalculatorLineSerializer(many=True)


class CalculatorResultSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(choices=["change", "initial", "glicko2"])
    glicko2 = Glicko2CalculationSerializer(required=False, help_text="For a Glicko-2 preset (mode glicko2)")
    calculation = CalculationSerializer(allow_null=True, help_text="For a rated player")
    initial_rating = InitialRatingSerializer(allow_null=True, help_text="For an unrated player")
