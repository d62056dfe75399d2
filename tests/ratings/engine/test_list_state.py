"""ratings.engine.list_state: the state a list carries to the next (pool window, rounding, last game, inactivity,
K inputs), checked against rating-rules.md's worked examples and at its boundaries. No database."""

import dataclasses
import datetime

import numpy as np

from ratings.engine import GameLine, rate_period
from ratings.engine.game_line import CALCULATION_FIELDS, STORED_LINE_FIELDS
from ratings.engine.initial import InitialRatingSpec
from ratings.engine.list_state import (
    STATE_FIELDS,
    drop_expired_pools,
    expired_pools,
    inactive_after,
    last_game_dates,
    list_changes,
    list_order,
    list_ratings,
    list_state_after,
    pool_start_dates,
)

MAR_2026 = datetime.date(2026, 3, 1)
NAT = np.datetime64("NaT")


def days(*values):
    return np.array([NAT if v is None else np.datetime64(v, "D") for v in values], dtype="datetime64[D]")


# --- B.02 7.1.4: an unrated player's pool stays within 26 months -------------------------------------------------


def test_a_pool_older_than_the_26_month_window_expires_and_one_starting_on_its_first_day_stays(fide_2024):
    # the list of 1 March 2026 keeps pools begun on or after 1 January 2024 (26 months before)
    since = days("2023-12-31", "2024-01-01", "2025-11-01", None)
    assert expired_pools(since, MAR_2026, fide_2024.initial_rating).tolist() == [True, False, False, False]


def test_rules_without_a_pool_window_keep_every_pool():
    spec = dataclasses.replace(InitialRatingSpec.fide_2024(), window_months=None)
    assert not expired_pools(days("1990-01-01"), MAR_2026, spec).any()


def test_an_expired_pool_is_emptied_as_a_whole_and_the_input_is_left_alone(fide_2024):
    state = {
        "pool_games": np.array([4, 3]),
        "pool_opponent_sum": np.array([7600.0, 5400.0]),
        "pool_score": np.array([2.0, 1.5]),
        "pool_events": np.array([2, 1]),
        "pool_since": days("2023-11-01", "2024-03-01"),
    }
    pools = drop_expired_pools(state, MAR_2026, fide_2024.initial_rating)
    assert [pools[name].tolist() for name in ("pool_games", "pool_events")] == [[0, 3], [0, 1]]
    assert [pools[name].tolist() for name in ("pool_opponent_sum", "pool_score")] == [[0.0, 5400.0], [0.0, 1.5]]
    assert np.isnat(pools["pool_since"][0])
    assert pools["pool_since"][1] == np.datetime64("2024-03-01")
    assert state["pool_games"].tolist() == [4, 3]
    assert not np.isnat(state["pool_since"][0])


def test_a_pool_keeps_its_start_a_new_pool_starts_with_the_period_and_no_pool_has_no_date():
    since = pool_start_dates(
        before_since=days("2025-07-01", None, "2025-07-01"),
        had_pool=np.array([True, False, True]),
        has_pool=np.array([True, True, False]),
        period_start=datetime.date(2026, 1, 1),
    )
    assert since.tolist() == [datetime.date(2025, 7, 1), datetime.date(2026, 1, 1), None]


# --- B.02 8.3.4: ratings and changes on the list ---------------------------------------------------------------


def test_unrounded_schemes_print_ratings_rounded_half_away_from_zero():
    before = np.array([1800.5, 1799.5, np.nan, 2000.0])
    rating = list_ratings(before, np.array([3]), np.array([2010.5]), "none")
    assert rating[:2].tolist() == [1801.0, 1800.0]  # .5 up (half to even would give 1800 for both)
    assert np.isnan(rating[2])
    assert rating[3] == 2011.0


def test_rounded_schemes_print_the_engines_list_rating_as_it_is():
    rating = list_ratings(np.array([2813.0, 1900.0]), np.array([0]), np.array([2810.0]), "per-period")
    assert rating.tolist() == [2810.0, 1900.0]


def test_the_change_is_the_rounded_period_change_zero_without_games_and_none_for_a_new_rating():
    # P1: -2.50 rounds away from zero to -3 (the engine's rounded change); a player new to the list has no change
    change = list_changes(np.array([2813.0, 2100.0, np.nan]), np.array([0, 2]), np.array([-3.0, 0.0]))
    assert change[:2].tolist() == [-3.0, 0.0]
    assert np.isnan(change[2])


# --- last rated game and B.02 7.2 inactivity --------------------------------------------------------------------


def test_the_last_rated_game_is_the_end_of_the_latest_event_with_a_counted_game():
    last = last_game_dates(
        before_last=days("2025-06-30", None, "2025-12-20"),
        rows=np.array([0, 1]),  # player 2 played nothing
        pe_player=np.array([0, 0, 1]),
        pe_event_end=days("2026-01-20", "2026-02-10", "2026-01-20"),
    )
    assert last.tolist() == [datetime.date(2026, 2, 10), datetime.date(2026, 1, 20), datetime.date(2025, 12, 20)]


def test_a_player_is_inactive_after_a_year_without_a_rated_game_and_unknown_keeps_the_flag():
    # list of 1 March 2026: a last game on 1 March 2025 is within the year, 28 February 2025 is not
    last = days("2025-03-01", "2025-02-28", None, None)
    flags = inactive_after(last, np.array([True, False, True, False]), MAR_2026, 12)
    assert flags.tolist() == [False, True, True, False]


# --- a whole list: P1 and N1 (rating-rules.md 6.2 and 6.3) -----------------------------------------------------


def test_p1_and_n1_on_one_list_with_a_player_copied_forward(build_players, build_games, fide_2024):
    # rows: 0 = a rated player without games, 1 = the 2813 player of P1, 2 = N1's newcomer, 3.. opponents
    p1_opponents, n1_opponents = [1787, 2025, 2310, 2400, 2505], [1902, 1877, 1884, 2012, 1832]
    ratings = [2813, None, *p1_opponents, *n1_opponents]
    players = build_players(ratings, [10, None] + [20] * 10, rated_games_total=[60, 0] + [30] * 10)
    rows = np.arange(1, 13)  # the engine's players are rows 1.. of the list
    games = build_games(
        [(0, 0, 2 + i, s, 2813, r) for i, (r, s) in enumerate(zip(p1_opponents, [1, 1, 1, 1, 0.5], strict=True))]
        + [(1, 1, 7 + i, s, None, r) for i, (r, s) in enumerate(zip(n1_opponents, [1, 1, 1, 0, 0], strict=True))]
    )
    result = rate_period(players, games, fide_2024, MAR_2026)
    before = {
        "rating": np.array([2100.0, *[np.nan if r is None else float(r) for r in ratings]]),
        "k_factor": np.array([20.0, 10.0, np.nan] + [20.0] * 10),
        "rated_games_total": np.array([40, 60, 0] + [30] * 10),
        "ever_2400": np.array([False, True, False] + [False] * 10),
        "ever_2300": np.array([False, True, False] + [False] * 10),
        "pool_games": np.zeros(13, dtype=np.int64),
        "pool_opponent_sum": np.zeros(13),
        "pool_score": np.zeros(13),
        "pool_events": np.zeros(13, dtype=np.int64),
        "pool_since": days(*[None] * 13),
        "last_game_date": days("2024-12-15", *[None] * 12),
        "inactive": np.zeros(13, dtype=bool),
    }
    assert set(before) == set(STATE_FIELDS)
    after = list_state_after(
        before,
        rows,
        result,
        event_end=days("2026-02-01", "2026-02-20"),
        birth_year=np.zeros(13, dtype=np.int64),
        rules=fide_2024,
        list_date=MAR_2026,
        period_start=datetime.date(2026, 1, 1),
    )
    # P1: -2.50 -> -3, 2813 -> 2810, K stays 10 (rating reached 2400), 5 games
    assert (after["rating"][1], after["change"][1], after["k_factor"][1], after["games"][1]) == (2810, -3, 10, 5)
    assert after["last_game_date"][1] == np.datetime64("2026-02-01")
    # N1: initial rating 1922, published with K 40, a new rating (no change), pool closed
    assert (after["rating"][2], after["k_factor"][2], after["is_new_rating"][2]) == (1922, 40, True)
    assert np.isnan(after["change"][2])
    assert after["pool_games"][2] == 0
    assert np.isnat(after["pool_since"][2])
    assert after["rated_games_total"][2] == 5  # rules 9 Q8: the pooled games count towards the 30
    # the player without games: rating and K carried, change 0, inactive (last game 15 Dec 2024)
    assert (after["rating"][0], after["change"][0], after["k_factor"][0], after["games"][0]) == (2100, 0, 20, 0)
    assert after["inactive"][0]
    assert not after["inactive"][1:].any()
    assert not after["dropped_below_floor"].any()


def test_list_order_gives_positions_to_every_rated_entry_and_ranks_to_active_ones_with_ties_shared():
    position, rank, federation_rank = list_order(
        player_id=np.array([10, 11, 12, 13, 14]),
        rating=np.array([2000.0, 2100.0, 2000.0, np.nan, 2200.0]),
        inactive=np.array([False, False, False, False, True]),
        federation=np.array(["ESP", "FRA", "ESP", "ESP", "FRA"], dtype=object),
    )
    assert position[[0, 1, 2, 4]].tolist() == [3, 2, 4, 1]
    assert np.isnan(position[3])
    assert rank[[0, 1, 2]].tolist() == [2, 1, 2]
    assert np.isnan(rank[3])
    assert np.isnan(rank[4])
    assert federation_rank[[0, 1, 2]].tolist() == [1, 1, 1]


# --- one vocabulary for a calculation line ----------------------------------------------------------------------


def test_the_calculators_game_line_uses_the_engines_line_names():
    names = [f.name for f in dataclasses.fields(GameLine)]
    assert set(names) == {*CALCULATION_FIELDS, "event"}
    line = GameLine(2700.0, 2600.0, True, -400.0, 0.08, 0.0, True, -0.08, -1.6, event=0, counted=True)
    assert list(line.to_dict()) == [*CALCULATION_FIELDS, "event"]
    assert set(CALCULATION_FIELDS) < set(STORED_LINE_FIELDS)
