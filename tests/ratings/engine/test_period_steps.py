"""The steps of rate_period, each alone: excluded games, counted sides, D and PD, per-event sums, K, K x n <= 700,
rounding, the newcomer pool, the next list's status and the per-game detail (rating-rules.md 1.4-1.7)."""

import dataclasses

import numpy as np
import pytest

from ratings.engine import get_preset, rate_period
from ratings.engine.period import (
    EventSums,
    counted_sides,
    disregarded_events,
    event_changes,
    event_k_factors,
    event_sums,
    excluded_games,
    game_sides,
    newcomer_pool,
    next_list_status,
    player_k_factors,
    published_k_factors,
    rated_games_in_period,
    rounded_changes,
    side_expectations,
)


def first_steps(players, games, rules, rating_type="standard"):
    """excluded_games, counted_sides, side_expectations and event_sums, as rate_period chains them."""
    prev = np.asarray(players.rating, dtype=np.float64)
    sides = counted_sides(prev, games, excluded_games(games, rules, rating_type))
    expectations = side_expectations(sides, rules, rating_type)
    num_events = int(games.event.max()) + 1 if len(games) else 1
    return sides, expectations, event_sums(sides, expectations, ~np.isnan(prev), num_events)


def sums_of(player, rated, change_scaled=None, games=None, score=None):
    """EventSums for the steps that only read the per-(player, event) columns."""
    player = np.asarray(player, dtype=np.int64)
    n = player.size
    zeros = np.zeros(n)
    return EventSums(
        first=np.arange(n),
        inverse=np.arange(n),
        player=player,
        event=np.arange(n, dtype=np.int64),
        rated=np.asarray(rated, dtype=bool),
        games=np.ones(n, dtype=np.int64) if games is None else np.asarray(games, dtype=np.int64),
        score=zeros if score is None else np.asarray(score, dtype=np.float64),
        expected_scaled=zeros,
        change_scaled=zeros if change_scaled is None else np.asarray(change_scaled, dtype=np.float64),
        opponent_sum=zeros,
    )


def test_rapid_game_600_apart_with_a_player_above_2600_is_excluded_but_not_in_standard(build_games, fide_2024):
    games = build_games([(0, 0, 1, 1, 2650, 2060), (0, 0, 2, 1, 2650, 2050)])  # 590 and 600 apart
    assert excluded_games(games, fide_2024, "rapid").tolist() == [False, True]
    assert excluded_games(games, fide_2024, "standard").tolist() == [False, False]


def test_counted_sides_are_rated_or_pooled_and_a_newly_published_player_plays_with_the_new_rating(
    build_players, build_games, fide_2024
):
    # game 0: player 0 (published since the event started: no game rating) against 1; game 1: 2 (unrated) against 1
    players = build_players([1850, 1900, None], [40, 20, None])
    games = build_games([(0, 0, 1, 1, None, 1900), (0, 2, 1, 0, None, 1900)])
    sides = counted_sides(np.asarray(players.rating), games, np.zeros(2, dtype=bool))
    # sides 0..1 white, 2..3 black: player 1 is unrated for both opponents (rules 1.6), so only
    # player 0 is rated and player 2 pooled
    assert sides.rated_side.tolist() == [True, False, False, False]
    assert sides.index.tolist() == [0, 1]
    assert sides.player.tolist() == [0, 2]
    assert sides.rated.tolist() == [True, False]
    assert sides.own_rating[0] == 1850  # the previous list stands in for the missing game rating


def test_side_expectations_apply_the_400_point_rule_and_give_exact_hundredths(build_players, build_games, fide_2024):
    players = build_players([2200, 2700], [20, 10])
    sides, expectations, _ = first_steps(players, build_games([(0, 0, 1, 0.5, 2200, 2700)]), fide_2024)
    # white 2200: D = -500 capped to -400 (opponent used as 2600), PD .08, dR = .50 - .08
    # black 2700: at or above 2650 the real difference is kept (B.02 8.3.1), PD for D = 500 is .96
    assert sides.rated.tolist() == [True, True]
    assert expectations.difference.tolist() == [-400, 500]
    assert expectations.opponent_rating_used.tolist() == [2600, 2200]
    assert expectations.capped.tolist() == [True, False]
    assert expectations.expected_scaled.tolist() == [8, 96]
    assert expectations.counted_change.tolist() == [42, -46]


def test_event_sums_group_counted_sides_by_player_then_event(build_players, build_games, fide_2024):
    players = build_players([2000, 2000, 2100], [20, 20, 20])
    games = build_games([(1, 0, 1, 1, 2000, 2000), (0, 0, 2, 0.5, 2000, 2100), (1, 2, 0, 0, 2100, 2000)])
    _, _, sums = first_steps(players, games, fide_2024)
    assert list(zip(sums.player.tolist(), sums.event.tolist(), sums.games.tolist(), strict=True)) == [
        (0, 0, 1),
        (0, 1, 2),
        (1, 1, 1),
        (2, 0, 1),
        (2, 1, 1),
    ]
    assert sums.score.tolist() == [0.5, 2.0, 0.0, 0.5, 0.0]
    assert sums.change_scaled[:2].tolist() == [14, 114]  # .50 - .36; (1 - .50) + (1 - .36)
    assert sums.opponent_sum[:2].tolist() == [2100, 4100]  # 2100; 2000 + 2100


def test_k_times_n_cap_turns_k_20_into_17_for_39_games(build_players, build_games, fide_2024, list_date):
    ratings = [2054] * 40
    players = build_players(ratings, [20] * 40)
    games = build_games([(0, 0, i + 1, 1, 2054, 2054) for i in range(39)])
    sides, _, sums = first_steps(players, games, fide_2024)
    rated_games = rated_games_in_period(sums, len(players))
    assert rated_games[:2].tolist() == [39, 1]
    pe_k = event_k_factors(
        players, fide_2024, list_date, sums, sides, published_k_factors(players, fide_2024, list_date)
    )
    pe_k_used, _ = event_changes(sums, pe_k, rated_games, fide_2024)
    assert pe_k_used[sums.player == 0].tolist() == [17]  # B.02 8.3.3: 17 x 39 = 663 <= 700
    assert pe_k_used[sums.player == 1].tolist() == [20]


def test_published_k_is_derived_from_status_where_the_previous_list_has_none(build_players, fide_2024, list_date):
    players = build_players([2100, 2100, None], [None, 20, None], rated_games_total=[5, 100, 0])
    k = published_k_factors(players, fide_2024, list_date)
    assert k[:2].tolist() == [40, 20]
    assert np.isnan(k[2])


def test_rated_player_without_k_is_refused(build_players, build_games, fide_2024, list_date):
    players = build_players([2100, 2100], [None, 20])
    sides, _, sums = first_steps(players, build_games([(0, 0, 1, 1, 2100, 2100)]), fide_2024)
    with pytest.raises(ValueError, match="players row 0: no K factor"):
        event_k_factors(players, fide_2024, list_date, sums, sides, np.array([np.nan, 20.0]))


def test_fide_2009_k_comes_from_the_rating_at_the_tournament_start(build_players, build_games, list_date):
    rules = get_preset("fide-2009")
    players = build_players([2395, 2300], [15, 15], rated_games_total=[40, 40])
    sides, _, sums = first_steps(players, build_games([(0, 0, 1, 1, 2405, 2300)]), rules)
    assert event_k_factors(players, rules, list_date, sums, sides, None).tolist() == [10, 15]


def test_period_change_is_rounded_once_and_per_event_rounding_differs(fide_2024):
    # P4: K x sum dR = -6.10, +3.70, +7.80 in three events (hundredths)
    sums = sums_of([0, 0, 0], [True, True, True])
    change_scaled = np.array([-610.0, 370.0, 780.0])
    change, rounded, per_event = rounded_changes(sums, change_scaled, fide_2024, 1)
    assert change[0] == pytest.approx(5.4)
    assert rounded.tolist() == [5]
    assert np.isnan(per_event).all()
    per_event_rules = fide_2024.replace(slug="fide-2024-per-event", rounding="per-event")
    _, rounded, per_event = rounded_changes(sums, change_scaled, per_event_rules, 1)
    assert per_event.tolist() == [-6, 4, 8]
    assert rounded.tolist() == [6]


def test_minus_2_50_is_rounded_away_from_zero(fide_2024):
    _, rounded, _ = rounded_changes(sums_of([0], [True]), np.array([-250.0]), fide_2024, 1)
    assert rounded.tolist() == [-3]


def test_zero_in_the_first_event_is_disregarded_only_before_the_pool_has_an_event(build_players, fide_2024):
    sums = sums_of([0, 0, 1], [False, False, False], games=[3, 3, 3], score=[0, 0, 0])
    fresh = build_players([None, None])
    assert disregarded_events(fresh, sums, fide_2024.initial_rating).tolist() == [True, False, True]
    pooled_before = build_players([None, None], pool_events=[1, 0])
    assert disregarded_events(pooled_before, sums, fide_2024.initial_rating).tolist() == [False, False, True]


def test_newcomer_pool_publishes_1922_and_empties_the_pool(build_players, build_games, fide_2024):
    opponents = [1902, 1877, 1884, 2012, 1832]
    players = build_players([None, *opponents], [None] + [20] * 5)
    games = build_games(
        [(0, 0, i + 1, s, None, r) for i, (r, s) in enumerate(zip(opponents, [1, 1, 1, 0, 0], strict=True))]
    )
    _, _, sums = first_steps(players, games, fide_2024)
    pool = newcomer_pool(players, sums, fide_2024.initial_rating)
    # one (player, event) row: the opponents' sides count for nothing (their opponent is unrated)
    assert pool.pooled.tolist() == [True]
    assert not pool.disregarded.any()
    assert pool.games_added[0] == 5
    assert pool.initial_rating[0] == 1922
    assert pool.initial_published[0]
    assert (pool.pool_games[0], pool.pool_opponent_sum[0], pool.pool_score[0], pool.pool_events[0]) == (0, 0, 0, 0)
    assert np.isnan(pool.initial_rating[1:]).all()


def test_newcomer_pool_below_5_games_is_carried(build_players, build_games, fide_2024):
    players = build_players([None, 1902, 1877], [None, 20, 20])
    games = build_games([(0, 0, 1, 1, None, 1902), (0, 0, 2, 1, None, 1877)])
    _, _, sums = first_steps(players, games, fide_2024)
    pool = newcomer_pool(players, sums, fide_2024.initial_rating)
    assert not pool.initial_published[0]
    assert (pool.pool_games[0], pool.pool_opponent_sum[0], pool.pool_score[0], pool.pool_events[0]) == (2, 3779, 2, 1)


def test_player_k_is_the_last_events_k_or_the_published_one_without_games(build_players, fide_2024, list_date):
    players = build_players([2000, 2000], [20, 10])
    sums = sums_of([0, 0], [True, True])
    k_player = published_k_factors(players, fide_2024, list_date)
    k = player_k_factors(players, fide_2024, list_date, sums, np.array([20.0, 17.0]), k_player)
    assert k.tolist() == [17, 10]


def test_next_list_drops_a_rating_below_the_floor_and_marks_2400(build_players, fide_2024, list_date):
    players = build_players([1401, 2395], [20, 20], rated_games_total=[50, 50])
    status = next_list_status(players, fide_2024, list_date, np.array([1399.0, 2410.0]), np.array([1, 2]))
    assert status.dropped_below_floor.tolist() == [True, False]  # B.02 7.2
    assert np.isnan(status.list_rating[0])
    assert status.list_rating[1] == 2410
    assert status.rated_games_total.tolist() == [51, 52]
    assert status.ever_2400.tolist() == [False, True]
    assert status.ever_2300.tolist() == [False, True]
    assert np.isnan(status.next_k_factor[0])
    assert status.next_k_factor[1] == 10


def test_game_sides_split_white_and_black_with_k_and_weighted_change(build_players, build_games, fide_2024):
    players = build_players([2000, 2100, None], [20, 20, None])
    games = build_games([(0, 0, 1, 1, 2000, 2100), (0, 2, 1, 0, None, 2100)])
    sides, expectations, sums = first_steps(players, games, fide_2024)
    pe_k_used = np.where(sums.rated, 20.0, np.nan)
    pooled = ~sums.rated
    white, black = game_sides(len(games), sides, expectations, sums, pe_k_used, pooled, 100.0)
    assert white.rated.tolist() == [True, False]
    assert white.pooled.tolist() == [False, True]
    assert white.difference[0] == -100
    assert white.expected_score[0] == pytest.approx(0.36)
    assert white.change[0] == pytest.approx(20 * 0.64)
    assert white.k_factor[0] == 20
    assert np.isnan(white.difference[1])
    assert white.opponent_rating_used[1] == 2100  # pooled: opponent as rated
    assert black.rated.tolist() == [True, False]
    assert black.change[1] == 0
    assert black.change[0] == pytest.approx(20 * -0.64)


def test_period_result_groups_are_frozen(build_players, build_games, fide_2024, list_date):
    result = rate_period(
        build_players([2000, 2000], [20, 20]), build_games([(0, 0, 1, 1, 2000, 2000)]), fide_2024, list_date
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.players = result.players
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.white.change = result.black.change
    assert result.white.change[0] == -result.black.change[0] == 10
