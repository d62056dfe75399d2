"""The Glicko-2 branch of POST /api/v1/calculator/ (the view stays in public.api.ratings)."""

from typing import Any

from ratings.engine.glicko2 import calculate_glicko2
from ratings.engine.presets import RulesPreset


def calculator_glicko2(values: dict[str, Any], rules: RulesPreset) -> dict[str, Any]:
    """The calculator's answer for a Glicko-2 preset: rating null or absent starts at the preset's 1500/350/0.06."""
    assert rules.glicko2 is not None
    calc = calculate_glicko2(
        values.get("rating"),
        values.get("deviation"),
        values.get("volatility"),
        [(game["opponent_rating"], game["opponent_deviation"]) for game in values["games"]],
        [game["score"] for game in values["games"]],
        rules.glicko2,
        rules=rules.slug,
    )
    return {"mode": "glicko2", "calculation": None, "initial_rating": None, "glicko2": calc.to_dict()}
