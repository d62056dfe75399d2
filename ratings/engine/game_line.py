"""The names of a per-game calculation line: one vocabulary for the calculator (GameLine), the rating changes'
stored details (RatingChange.details), the API and the calculation pages.

A line is what FIDE's calculation page prints for one game: the opponent's rating (as on the list in force at
the event's start, rules 1.3), the rating used after the 400-point rule (B.02 8.3.1) and whether it was capped,
D, the expected score PD (table 8.1.2), the score, dR = score - PD and K x dR (B.02 8.3.2).
"""

from __future__ import annotations

# The calculation of one game, in the order of the calculator's GameLine and of a stored line.
OPPONENT_RATING = "opponent_rating"  # as given / on the list in force (None: unrated)
OPPONENT_RATING_USED = "opponent_rating_used"  # after the 400-point rule
CAPPED = "capped"  # the 400-point rule replaced the opponent's rating
DIFFERENCE = "difference"  # D
EXPECTED_SCORE = "expected_score"  # PD
SCORE = "score"
RATED = "rated"  # the game changes the player's rating
COUNTED = "counted"  # rated, or pooled towards an unrated player's initial rating (B.02 7.1.4)
RATING_CHANGE = "rating_change"  # dR = score - PD
WEIGHTED_CHANGE = "weighted_change"  # K x dR

CALCULATION_FIELDS = (
    OPPONENT_RATING,
    OPPONENT_RATING_USED,
    CAPPED,
    DIFFERENCE,
    EXPECTED_SCORE,
    SCORE,
    RATED,
    RATING_CHANGE,
    WEIGHTED_CHANGE,
    COUNTED,
)

# A stored line (RatingChange.details) also says which game it was.
GAME = "game"  # the game's primary key
ROUND = "round"
COLOUR = "colour"  # "white" / "black"
OPPONENT = "opponent"  # the opponent's ID number

STORED_LINE_FIELDS = (GAME, ROUND, COLOUR, OPPONENT, *CALCULATION_FIELDS)
