"""The public rating calculator page (issue 32): the API's calculator (public.selectors.calculator) behind a form
a player can fill in. GET, so a calculation is a link that can be shared. Thin: read the form, validate with the
API's own serializer, run, render."""

from django.conf import settings
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

from events.models import RatingType
from public.selectors.calculator import calculator_run
from public.serializers.ratings import MAX_CALCULATOR_GAMES, CalculatorInputSerializer
from public.views.base import public_page
from ratings.engine.presets import PRESETS

# How a score may be typed on a line of the games box: the API's three values.
SCORES = {"1": 1.0, "1.0": 1.0, "0.5": 0.5, "0,5": 0.5, ".5": 0.5, ",5": 0.5, "½": 0.5, "=": 0.5, "0": 0.0}
# Form fields read as whole numbers (empty: absent).
NUMBERS = ("rating", "k_factor", "rated_games_total", "birth_year")


def _games(text: str, errors: list[str]) -> list[dict]:
    """The games box, one game a line ("2150 1", "1980 ½"), each bad line named in ``errors``."""
    games = []
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.replace("\t", " ").split()
        if not parts:
            continue
        if len(parts) != 2 or not (parts[0].isascii() and parts[0].isdigit() and len(parts[0]) <= 4):
            errors.append(
                _("Games, line %(line)d: expected the opponent's rating and your score, got “%(text)s”.")
                % {"line": number, "text": line.strip()[:40]}
            )
        elif parts[1] not in SCORES:
            errors.append(
                _("Games, line %(line)d: the score is 1, ½ (or 0.5) or 0, got “%(text)s”.")
                % {"line": number, "text": parts[1][:10]}
            )
        else:
            games.append({"opponent_rating": int(parts[0]), "score": SCORES[parts[1]]})
    return games


def _input(params) -> tuple[dict, list[str]]:
    """The calculator's input as the API takes it, and what is wrong with the form."""
    errors: list[str] = []
    data: dict = {"rules": params.get("rules") or None, "rating_type": params.get("rating_type") or None}
    data = {key: value for key, value in data.items() if value}
    for name in NUMBERS:
        raw = (params.get(name) or "").strip()
        if raw:
            data[name] = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 6 else raw[:20]
    data["games"] = _games(params.get("games", "")[:20_000], errors)
    return data, errors


@public_page
def calculator_page(request):
    params = request.GET
    result, errors = None, []
    # the presets by name in the reader's language (issue 32; the engine marks them with gettext_noop)
    presets = [(slug, _(preset.name)) for slug, preset in PRESETS.items() if preset.glicko2 is None]
    if "games" in params:
        data, errors = _input(params)
        if data.get("rules") and data["rules"] not in dict(presets):  # Glicko-2 needs deviations: the API has them
            errors.append(_("Rules: choose one of the list."))
        checked = CalculatorInputSerializer(data=data)
        if not errors and checked.is_valid():
            try:
                result = calculator_run(checked.validated_data, timezone.localdate())
            except (ValueError, ArithmeticError) as error:
                errors.append(str(error))
        elif not errors:
            errors = [
                f"{_(name.replace('_', ' ').capitalize())}: {' '.join(map(str, messages))}"
                if name != "non_field_errors"
                else " ".join(map(str, messages))
                for name, messages in checked.errors.items()
            ]
    return render(
        request,
        "ratings/calculator.html",
        {
            "form": params,
            "rules": params.get("rules") or settings.RATING_RULES_PRESET,
            "presets": presets,
            "rating_types": RatingType.choices,
            "max_games": MAX_CALCULATOR_GAMES,
            "errors": errors,
            "result": result,
        },
    )
