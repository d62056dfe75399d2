"""The rating calculator, one run for its two callers: ``POST /api/v1/calculator/`` and the ``/calculator/``
page (issue 32). Values are the calculator's validated input (public.serializers.ratings.
CalculatorInputSerializer); the answer is CalculatorResultSerializer's shape."""

import datetime
from typing import Any

from django.template.defaultfilters import floatformat
from django.utils.translation import gettext

from public.api.glicko2 import calculator_glicko2
from ratings.engine.calculator import calculate_change, calculate_initial_rating
from ratings.engine.presets import get_preset


def calculator_run(values: dict[str, Any], list_date: datetime.date) -> dict[str, Any]:
    """A rated player's change, an unrated player's initial rating, or a Glicko-2 period, as of ``list_date``
    (the list being calculated: the junior K rule). Raises ValueError or ArithmeticError for what the engine
    refuses and the input's validation could not foresee."""
    rules = get_preset(values["rules"])
    opponents = [game["opponent_rating"] for game in values["games"]]
    scores = [game["score"] for game in values["games"]]
    if rules.glicko2 is not None:
        return calculator_glicko2(values, rules)
    if values.get("rating") is None:
        initial = calculate_initial_rating(opponents, scores, rules, list_date=list_date)
        answer = initial.to_dict()
        # why it is not published, in the reader's language (issue 32): the engine gives it as templates and values
        answer["reason"] = "".join(gettext(template) % _shown(params) for template, params in initial.reason_parts)
        return {"mode": "initial", "calculation": None, "initial_rating": answer}
    calculation = calculate_change(
        values["rating"],
        values.get("k_factor"),
        opponents,
        scores,
        rules,
        rating_type=values["rating_type"],
        rated_games_total=values["rated_games_total"],
        birth_year=values.get("birth_year"),
        list_date=list_date,
    )
    return {"mode": "change", "calculation": calculation.to_dict(), "initial_rating": None}


def _shown(params: dict[str, Any]) -> dict[str, Any]:
    """Numbers with the page's decimal separator (issue 32: one per page), without trailing zeros."""
    return {key: floatformat(value, "-2") if isinstance(value, float) else value for key, value in params.items()}
