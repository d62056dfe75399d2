"""The calculator's Glicko-2 input checks and output (POST /api/v1/calculator/ with a Glicko-2 preset)."""

import math
from typing import Any

from rest_framework import serializers


def validate_glicko2_input(data: dict[str, Any], glicko2: bool) -> None:
    """A Glicko-2 preset needs every opponent's rating and deviation and takes no K; an Elo preset takes no
    deviation or volatility. Errors name the field at fault."""
    games = data.get("games", [])
    if not glicko2:
        for key in ("deviation", "volatility"):
            if data.get(key) is not None:
                raise serializers.ValidationError({key: [f"only Glicko-2 presets take {key}"]})
        if any(game.get("opponent_deviation") is not None for game in games):
            raise serializers.ValidationError({"games": ["opponent_deviation is only for Glicko-2 presets"]})
        return
    if data.get("k_factor") is not None:
        raise serializers.ValidationError({"k_factor": ["Glicko-2 has no K factor; leave k_factor out"]})
    for key in ("deviation", "volatility"):
        value = data.get(key)
        if value is not None and not (math.isfinite(value) and value > 0):
            raise serializers.ValidationError({key: [f"{key} must be a number above 0"]})
    for number, game in enumerate(games, start=1):
        if game.get("opponent_rating") is None:
            raise serializers.ValidationError({"games": [f"game {number}: Glicko-2 needs the opponent's rating"]})
        deviation = game.get("opponent_deviation")
        if deviation is None or not (math.isfinite(deviation) and deviation > 0):
            raise serializers.ValidationError(
                {"games": [f"game {number}: Glicko-2 needs opponent_deviation, a number above 0"]}
            )


class Glicko2LineSerializer(serializers.Serializer):
    opponent_rating = serializers.FloatField()
    opponent_deviation = serializers.FloatField()
    score = serializers.FloatField()
    g = serializers.FloatField(help_text="g(phi_j), Glickman 2013 step 3")
    expected_score = serializers.FloatField(help_text="E(mu, mu_j, phi_j)")
    rating_change = serializers.FloatField(help_text="Score - E")


class Glicko2CalculationSerializer(serializers.Serializer):
    rules = serializers.CharField()
    rating = serializers.FloatField()
    deviation = serializers.FloatField()
    volatility = serializers.FloatField()
    tau = serializers.FloatField()
    games = serializers.IntegerField()
    expected = serializers.FloatField()
    score = serializers.FloatField()
    variance = serializers.FloatField(allow_null=True, help_text="v on the Glicko-2 scale (step 3)")
    improvement = serializers.FloatField(allow_null=True, help_text="Delta (step 4)")
    new_rating = serializers.FloatField()
    new_deviation = serializers.FloatField()
    new_volatility = serializers.FloatField()
    lines = Glicko2LineSerializer(many=True)
