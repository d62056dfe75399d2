"""Pure rating mathematics: FIDE's regulations (B.02, tables 8.1.1 / 8.1.2) and the alternative models of the
seeds (normal curve, draw margin, logistic, US Chess K schemes). Stdlib + NumPy + SciPy only; never Django.

Authority: /work/shared/reference/rating-rules.md. Public entry points are re-exported here.
"""

from ratings.engine.calculator import (
    Calculation,
    GameLine,
    InitialRating,
    calculate_change,
    calculate_initial_rating,
)
from ratings.engine.difference_cap import DifferenceCapSpec, apply_difference_cap
from ratings.engine.expected_score import ExpectedScoreSpec, expected_score
from ratings.engine.initial import InitialRatingSpec, initial_ratings
from ratings.engine.k_factor import KFactorSpec, cap_k_by_games, k_factor_for, next_k_factor
from ratings.engine.period import (
    GameSide,
    PeriodGames,
    PeriodPlayers,
    PeriodResult,
    PlayerEventResults,
    PlayerResults,
    rate_period,
)
from ratings.engine.presets import PRESETS, RulesPreset, get_preset, preset_in_force

__all__ = [
    "PRESETS",
    "Calculation",
    "DifferenceCapSpec",
    "ExpectedScoreSpec",
    "GameLine",
    "GameSide",
    "InitialRating",
    "InitialRatingSpec",
    "KFactorSpec",
    "PeriodGames",
    "PeriodPlayers",
    "PeriodResult",
    "PlayerEventResults",
    "PlayerResults",
    "RulesPreset",
    "apply_difference_cap",
    "calculate_change",
    "calculate_initial_rating",
    "cap_k_by_games",
    "expected_score",
    "get_preset",
    "initial_ratings",
    "k_factor_for",
    "next_k_factor",
    "preset_in_force",
    "rate_period",
]
