"""RATING_TYPES is spelled once, in ratings/engine/rating_types.py: every module that names the three rating
types imports it, and events.models.RatingType (below the ratings layer: it cannot import it) matches it."""

import ast
from pathlib import Path

from django.conf import settings

import public.serializers.players
from events.models import RatingType
from ratings import fide_list
from ratings.engine import difference_cap
from ratings.engine.rating_types import RATING_TYPES

ROOT = Path(__file__).resolve().parents[2]
APPS = ("federation", "public", "ratings", "events", "players", "audit", "outbox", "core")


def test_the_models_choices_are_the_engines_rating_types_in_their_order():
    assert RATING_TYPES == ("standard", "rapid", "blitz")
    assert tuple(RatingType.values) == RATING_TYPES


def test_the_engine_the_fide_list_files_and_the_api_use_the_one_tuple():
    assert difference_cap.RATING_TYPES is RATING_TYPES
    assert fide_list.RATING_TYPES is RATING_TYPES
    assert public.serializers.players.RATING_TYPES is RATING_TYPES
    assert tuple(settings.EVENT_DEADLINES) == RATING_TYPES


def test_no_module_spells_the_three_rating_types_again():
    # A tuple or list literal of exactly the three names, anywhere in the project's code (migrations record
    # history and keep theirs; tests state expected values).
    spelled = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts or path == ROOT / "ratings/engine/rating_types.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Tuple | ast.List) and [
                    getattr(element, "value", None) for element in node.elts
                ] == list(RATING_TYPES):
                    spelled.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert spelled == []
