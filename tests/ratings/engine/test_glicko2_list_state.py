"""Glicko-2's next-list state (ratings.engine.list_state.glicko2_list_state_after, ratings.engine.glicko2):
what a published Glicko-2 list carries, from the previous list's state and the period's games."""

import numpy as np

from ratings.engine import PeriodGames
from ratings.engine.glicko2 import Glicko2Spec, glicko2_list, glicko2_uncertainty
from ratings.engine.list_state import NEW_PLAYER_STATE, glicko2_list_state_after

SPEC = Glicko2Spec()
NAN = np.nan


def test_uncertainty_is_the_previous_lists_or_the_unrated_state():
    previous_id = np.array([2, 5], dtype=np.int64)
    deviation, volatility = glicko2_uncertainty(
        previous_id, np.array([80.0, NAN]), np.array([0.05, NAN]), np.array([1, 2, 5], dtype=np.int64), SPEC
    )
    assert deviation.tolist() == [350.0, 80.0, 350.0]
    assert volatility.tolist() == [0.06, 0.05, 0.06]


def state(n):
    return {name: np.full(n, default, dtype=dtype) for name, (default, dtype) in NEW_PLAYER_STATE.items()}


def test_the_next_list_rates_players_with_games_and_ages_the_others():
    # rows: 0 rated 1600 (plays), 1 unrated (plays its first games), 2 rated 1700 (no games), 3 unrated (none)
    before = state(4)
    before["rating"] = np.array([1600.0, NAN, 1700.0, NAN])
    before["inactive"] = np.array([True, False, False, False])
    rows = np.array([0, 1], dtype=np.int64)  # the engine's players 0 and 1
    games = PeriodGames.from_sequences([0, 0], [0, 1], [1, 0], [1.0, 0.5], [1600, None], [None, 1600])
    event_end = np.array(["2026-02-20"], dtype="datetime64[D]")
    deviation = np.array([100.0, 350.0, 100.0, 350.0])
    volatility = np.full(4, 0.06)
    after, entry_deviation, entry_volatility = glicko2_list_state_after(
        before, rows, games, event_end, deviation, volatility, SPEC
    )
    # the same period as ratings.engine.glicko2.glicko2_list rates it, printed as whole ratings
    period = glicko2_list(
        np.array([0, 2]), np.array([1600.0, 1700.0]), np.array([100.0, 100.0]), np.full(2, 0.06),
        np.array([0, 1]), np.array([1, 0]), np.array([1.0, 0.5]), SPEC,
    )  # fmt: skip
    assert after["rating"][:3].tolist() == np.round(period.rating[:3]).tolist()
    assert np.isnan(after["rating"][3])
    assert after["games"].tolist() == [2, 2, 0, 0]
    assert after["is_new_rating"].tolist() == [False, True, False, False]
    assert np.array_equal(after["change"], [after["rating"][0] - 1600.0, NAN, 0.0, NAN], equal_nan=True)
    assert after["inactive"].tolist() == [False, False, False, False]  # playing makes a player active
    assert after["last_game_date"][:2].tolist() == [np.datetime64("2026-02-20")] * 2
    assert np.isnat(after["last_game_date"][2:]).all()
    assert np.isnan(after["k_factor"]).all()
    assert (after["pool_games"] == 0).all()  # no K, no pool
    assert entry_deviation[2] > 100.0  # step 6: no games, only more uncertainty
    assert np.isnan(entry_deviation[3])
    assert np.isnan(entry_volatility[3])
    assert (entry_deviation[:3] <= SPEC.initial_deviation).all()
