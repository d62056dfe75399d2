"""The lines of each rating change: which game sides a (player, event) change shows, in which order, and the
rating the player was rated with in that event (B.02 rule 1.6).

rate_period rates every game side; a published rating change is one (player, event) with every game of that
player in that event as calculated (ratings.engine.game_line names the columns). This module finds those sides
and orders them (by round, then game), so that a change's lines are one slice of the side arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ratings.engine.sorted_keys import found_sorted


def own_ratings(side_seen_rating: np.ndarray, player_rating: np.ndarray, side_player: np.ndarray) -> np.ndarray:
    """The rating each game side's player is rated with: the rating on the list in force at the event's start,
    or, for a player published after the event started (NaN there), the new previous-list rating (B.02 rule
    1.6; the opponent still sees them as unrated)."""
    own: np.ndarray = np.where(np.isnan(side_seen_rating), player_rating[side_player], side_seen_rating)
    return own


@dataclass(frozen=True)
class ChangeLines:
    """The game sides of the rating changes: ``sides`` (0..G-1 white, G..2G-1 black) grouped by change and
    ordered by round and game; change i shows sides[offsets[i]:offsets[i + 1]]; ``side_game`` is the game of
    every side (0..2G-1); ``rating_before`` is each change's rating as used (NaN: unrated, no rated game)."""

    sides: np.ndarray
    side_game: np.ndarray
    offsets: np.ndarray
    rating_before: np.ndarray


def change_lines(
    pe_player: np.ndarray,
    pe_event: np.ndarray,
    side_rated: np.ndarray,
    game_event: np.ndarray,
    side_player: np.ndarray,
    side_seen_rating: np.ndarray,
    player_rating: np.ndarray,
    game_id: np.ndarray,
    game_round: np.ndarray,
    num_events: int,
) -> ChangeLines:
    """The lines of the rating changes ``pe_player``/``pe_event`` (sorted by player, then event, as rate_period
    returns them). Per side (white's then black's, 2G): ``side_rated`` (the side changes its player's rating),
    ``side_player`` (player index), ``side_seen_rating`` (the player's rating on the list in force at the
    event's start, NaN: unrated); per game: ``game_event``, ``game_id``, ``game_round``; ``player_rating``: each
    player's rating on the previous list."""
    num_games = game_id.size
    side_game = np.concatenate([np.arange(num_games), np.arange(num_games)])
    side_own = own_ratings(side_seen_rating, player_rating, side_player)  # B.02 rule 1.6

    width = np.int64(max(num_events, 1))
    pe_key = pe_player * width + pe_event
    side_key = side_player * width + np.concatenate([game_event, game_event])
    side_pe = np.searchsorted(pe_key, side_key)
    sides = np.flatnonzero(found_sorted(pe_key, side_pe, side_key))
    game_of_side = side_game[sides]
    sides = sides[np.lexsort((game_id[game_of_side], game_round[game_of_side], side_pe[sides]))]

    rating_before = np.full(pe_key.size, np.nan)
    rated_sides = sides[side_rated[sides]]
    rating_before[side_pe[rated_sides]] = side_own[rated_sides]
    return ChangeLines(
        sides=sides,
        side_game=side_game,
        offsets=np.searchsorted(side_pe[sides], np.arange(pe_key.size + 1), side="left"),
        rating_before=rating_before,
    )
