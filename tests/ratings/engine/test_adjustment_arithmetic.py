"""The one-off adjustment's arithmetic on a list (rating-rules.md 1.9, ratings.engine.adjustments): before or after
the period's games, counted in the printed change, recorded per entry; and the preview's figures."""

import numpy as np

from ratings.engine.adjustments import (
    FIDE_2024_COMPRESSION,
    AdjustmentSpec,
    adjust_before_games,
    adjust_list,
    adjustment_effect,
    pool_figures,
)

BEFORE_GAMES = AdjustmentSpec(name="before", order="before-games")
NAN = np.nan


def test_before_games_raises_the_previous_ratings_and_returns_the_amounts():
    ratings = np.array([1000.0, 2100.0, NAN])
    adjusted, amounts = adjust_before_games(BEFORE_GAMES, ratings)
    assert np.array_equal(adjusted, [1400.0, 2100.0, NAN], equal_nan=True)
    assert amounts is not None
    assert amounts.tolist() == [400.0, 0.0, 0.0]


def test_an_after_games_adjustment_or_none_leaves_the_previous_ratings():
    ratings = np.array([1000.0])
    assert adjust_before_games(FIDE_2024_COMPRESSION, ratings) == (ratings, None)
    assert adjust_before_games(None, ratings) == (ratings, None)


def test_after_games_raises_the_new_ratings_of_players_rated_before_and_counts_it_in_the_change():
    player_id = np.array([1, 2, 3], dtype=np.int64)
    before = np.array([1500.0, NAN, 1900.0])  # player 2 gets a first rating: not adjusted
    rating = np.array([1510.0, 1600.0, 1950.0])
    change = np.array([10.0, NAN, 50.0])
    out = adjust_list(FIDE_2024_COMPRESSION, player_id, before, rating, change, player_id[[0, 2]], None)
    assert out.rating.tolist() == [1510.0 + 196.0, 1600.0, 1950.0 + 20.0]  # 0.4 x (2000 - R)
    assert np.array_equal(out.change, [206.0, NAN, 70.0], equal_nan=True)
    assert np.array_equal(out.amount, [196.0, NAN, 20.0], equal_nan=True)


def test_before_games_amounts_are_recorded_on_the_entries_of_the_previous_players():
    player_id = np.array([1, 2, 3], dtype=np.int64)
    rating = np.array([1410.0, 1600.0, NAN])  # player 3 fell below the floor: nothing recorded
    change = np.array([10.0, NAN, NAN])
    previous_id = np.array([1, 3], dtype=np.int64)
    out = adjust_list(BEFORE_GAMES, player_id, rating, rating, change, previous_id, np.array([400.0, 100.0]))
    assert out.rating is rating  # already rated with the adjusted ratings
    assert np.array_equal(out.change, [410.0, NAN, NAN], equal_nan=True)
    assert np.array_equal(out.amount, [400.0, NAN, NAN], equal_nan=True)


def test_without_an_adjustment_nothing_changes_and_no_amount_is_recorded():
    rating, change = np.array([1500.0]), np.array([5.0])
    out = adjust_list(None, np.array([1]), rating, rating, change, np.array([1]), None)
    assert out.rating is rating
    assert out.change is change
    assert np.isnan(out.amount).all()


def test_the_preview_effect_counts_movers_points_and_the_pool_before_and_after():
    ratings = np.array([1000.0, 1950.0, 2100.0, 1500.0])
    effect = adjustment_effect(FIDE_2024_COMPRESSION, ratings, movers=2)
    assert effect.amounts.tolist() == [400.0, 20.0, 0.0, 200.0]
    assert (effect.moved, effect.points, effect.largest) == (3, 620, 400)
    assert effect.movers.tolist() == [0, 3]  # the two who move most, largest first
    assert effect.before == pool_figures(ratings)
    assert effect.after.total == effect.before.total + 620


def test_pool_figures_describe_the_ratings_in_100_point_bars():
    figures = pool_figures(np.array([1450.0, 1499.0, 2010.0]))
    assert (figures.rated, figures.total, figures.mean, figures.median, figures.at_least_2000) == (
        3,
        4959,
        1653.0,
        1499.0,
        1,
    )
    assert figures.distribution == [(1400, 2), (2000, 1)]
    empty = pool_figures(np.zeros(0))
    assert (empty.rated, empty.mean, empty.median, empty.distribution) == (0, None, None, [])
