"""What a parsed file says about its event beyond its records: the rating type and the system (tournament kind).

Read from the words of the header records (092, 012, 122; 192) and, when they say nothing, from the games; the
import service (``events.trf_services``) decides what to persist.
"""

from __future__ import annotations

import re

from events.trf.records import WARNING, TrfGame, TrfProblem, TrfTournament

# The values of events.models.RatingType and events.models.EventSystem, which this pure package may not import
# (.importlinter); tests/events/test_trf_inference.py pins them equal (and RatingType is pinned to the engine's
# RATING_TYPES, the one list of them, by tests/ratings/test_rating_types.py).
STANDARD = "standard"
RAPID = "rapid"
BLITZ = "blitz"
SWISS, ROUND_ROBIN, MATCH, TEAM = "swiss", "round_robin", "match", "team"

# Words in 012/092/122 that name the rating type (Spanish, German and French forms seen in real files).
_RATING_TYPE_WORDS = (
    (BLITZ, re.compile(r"blitz|\blightning\b|\bbullet\b", re.I)),
    (RAPID, re.compile(r"\br[aá]pid|schnell|semi-?rapid", re.I)),
    (STANDARD, re.compile(r"\bstandard\b|\bclassical\b|\bclassic\b", re.I)),
)
_ROUND_ROBIN_WORDS = re.compile(
    r"round[ -]?robin|\bberger\b|all[ -]play[ -]all|\brr\b|rundenturnier|"
    r"scheveningen|\bschev|\bdrr\b|\bsrr\b",
    re.I,
)
_SWISS_WORDS = re.compile(r"swiss|dutch|dubov|burstein|\blim\b|monrad|schweizer|suizo", re.I)


def infer_rating_type(t: TrfTournament) -> tuple[str, TrfProblem | None]:
    """The rating type the file names (092, then 012, then 122) and the warning to give, if any.

    Standard named: no warning. Rapid or blitz: a warning naming the record it was read from. Nothing named:
    ``""`` and a warning (the event is imported as a draft until the arbiter chooses the rating type).
    """
    for rating_type, words in _RATING_TYPE_WORDS:
        for code, text in (("092", t.tournament_type), ("012", t.name), ("122", t.time_control)):
            if text and words.search(text):
                if rating_type != STANDARD:
                    return rating_type, TrfProblem(
                        t.record_lines.get(code, 0),
                        5,
                        WARNING,
                        f"rating type not given: read as {rating_type} from record {code} {text!r}",
                    )
                return rating_type, None
    return "", TrfProblem(
        0,
        None,
        WARNING,
        "rating type not given and not named in the file (record 092): imported as a draft; choose the "
        "rating type in the event before submitting",
    )


def infer_system(t: TrfTournament, games: list[TrfGame]) -> str:
    """The event's system from 092 / 192 (teams, round robin, match, Swiss), else from ``games`` (the file's)."""
    text = f"{t.tournament_type} {t.encoded_type}"
    if t.teams or "team" in text.lower():
        return TEAM
    if _ROUND_ROBIN_WORDS.search(text):
        return ROUND_ROBIN
    if len(t.players) == 2:
        return MATCH
    if "match" in text.lower() and not _SWISS_WORDS.search(text):
        return MATCH
    if _SWISS_WORDS.search(text):
        return SWISS
    # Nothing said: everyone met everyone once -> a round robin.
    pairs = {frozenset((g.white, g.black)) for g in games if g.black is not None}
    n = len(t.players)
    played = sum(g.black is not None for g in games)
    if n > 2 and len(pairs) == n * (n - 1) // 2 == played:
        return ROUND_ROBIN
    return SWISS
