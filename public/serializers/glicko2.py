"""The calculator's Glicko-2 input checks and output (POST /api/v1/calculator/ with a Glicko-2 preset)."""

import math
from typing import Any

from rest_framework import serializers

# Glickman 2013, step 1: a player (or opponent) without a rating starts at 1500 with deviation 350.
UNRATED_RATING, UNRATED_DEVIATION = 1500.0, 350.0


def validate_glicko2_input(data: dict[str, Any], glicko2: bool) -> None:
    """Every request the schema describes is answered (the schema tells the truth): an Elo preset ignores the
    Glicko-2 fields (deviation, volatility, opponent_deviation), a Glicko-2 preset ignores K, and under
    Glicko-2 an opponent given without a rating or deviation is taken as unrated (1500, 350; Glickman 2013,
    step 1). Errors name the field at fault."""
    if not glicko2:
        for key in ("deviation", "volatility"):
            data.pop(key, None)
        for game in data.get("games", []):
            game.pop("opponent_deviation", None)
        return
    data.pop("k_factor", None)
    for key in ("deviation", "volatility"):
        value = data.get(key)
        if value is not None and not math.isfinite(value):
            raise serializers.ValidationError({key: [f"{key} must be a finite number"]})
    for number, game in enumerate(data.get("games", []), start=1):
        if game.get("opponent_rating") is None:
            game["opponent_rating"], game["opponent_deviation"] = UNRATED_RATING, UNRATED_DEVIATION
        deviation = game.get("opponent_deviation")
        if deviation is None:
            game["opponent_deviation"] = UNRATED_DEVIATION
        elif not math.isfinite(deviation):
            raise serializers.ValidationError({"games": [f"game {number}: opponent_deviation must be a finite number"]})


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
