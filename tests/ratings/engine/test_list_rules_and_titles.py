"""Floors, inactivity, performance ratings, norms and title thresholds."""

import datetime

import numpy as np
import pytest

from ratings.engine.classes import title_rating_reached, titles_by_rating, tournament_average_rating
from ratings.engine.inactivity import apply_rating_floor, inactive_flags, inactivity_cutoff
from ratings.engine.initial import pool_window_start
from ratings.engine.months import add_months
from ratings.engine.performance import fide_performance, norm_check, performance_400
from ratings.engine.presets import get_preset
from ratings.engine.tables import dp_from_percent, pd_hundredths, percent_half_up


def test_rating_below_the_floor_becomes_unrated():
    ratings, dropped = apply_rating_floor(np.array([1399.0, 1400.0, np.nan, 2100.0]), 1400)
    assert np.isnan(ratings[0])
    assert ratings[1] == 1400
    assert np.isnan(ratings[2])
    assert ratings[3] == 2100
    assert dropped.tolist() == [True, False, False, False]


def test_one_year_without_a_rated_game_makes_a_player_inactive_without_changing_the_rating():
    list_date = datetime.date(2026, 3, 1)
    assert inactivity_cutoff(list_date) == datetime.date(2025, 3, 1)
    last = np.array(["2025-02-28", "2025-03-01", "2026-02-20", "NaT"], dtype="datetime64[D]")
    assert inactive_flags(last, list_date).tolist() == [True, False, False, False]
    assert inactive_flags(last, list_date, unknown_is_inactive=True).tolist() == [True, False, False, True]
    assert not inactive_flags(last, list_date, months=None).any()


def test_month_arithmetic_clamps_the_day():
    assert add_months(datetime.date(2026, 3, 31), -1) == datetime.date(2026, 2, 28)
    assert add_months(datetime.date(2024, 3, 31), -1) == datetime.date(2024, 2, 29)
    assert add_months(datetime.date(2026, 1, 1), -26) == datetime.date(2023, 11, 1)


def test_newcomer_pool_window_is_26_months():
    assert pool_window_start(datetime.date(2026, 1, 1), get_preset("fide-2024").initial_rating) == datetime.date(
        2023, 11, 1
    )


def test_table_8_1_2_band_edges_from_fides_calculator():
    # FIDE's calculator probed at D = 3/4, 10/11, 206/207, 391/392 and -3/-4/-344/-345 (rules 2.3)
    d = np.array([3, 4, 10, 11, 206, 207, 391, 392, -3, -4, -344, -345, 735, 736, 5000, -5000])
    assert pd_hundredths(d).tolist() == [50, 51, 51, 52, 76, 77, 91, 92, 50, 49, 12, 11, 99, 100, 100, 0]


def test_table_8_1_2_rows_are_contiguous_and_mirror_8_1_1():
    d = np.arange(0, 737)
    high = pd_hundredths(d)
    assert (np.diff(high) >= 0).all()
    assert high[0] == 50
    assert high[-1] == 100
    assert (pd_hundredths(-d) == 100 - high).all()
    # rules 2.3: dp(p) is the integer part of the midpoint of the band whose PD(H) = p (p = .51 .. .99)
    for p in range(51, 100):
        band = d[high == p]
        assert dp_from_percent(p) == int((band[0] + band[-1]) / 2)


def test_non_integer_differences_fall_into_the_band_above_the_closed_bound():
    assert pd_hundredths(np.array([3.0, 3.5, -3.5, 10.0, 10.25])).tolist() == [50, 51, 49, 51, 52]


@pytest.mark.parametrize(
    ("score", "games", "percent"),
    [(1, 8, 13), (3, 8, 38), (7, 9, 78), (4.5, 8, 56), (1, 200, 1), (0, 5, 0), (5, 5, 100)],
)
def test_percentages_round_half_up(score, games, percent):
    # 1/8 = 12.5 % -> 13, 3/8 = 37.5 % -> 38, 1/200 = 0.5 % -> 1
    assert percent_half_up(score, games) == percent


def test_fide_performance_rounds_the_average_half_up():
    performance = fide_performance([2000, 2001], 1)
    assert (performance.average, performance.average_rounded, performance.rating) == (2000.5, 2001, 2001)
    assert fide_performance([1800] * 4, 4).rating == 1800 + 800


def test_norm_floor_raises_only_the_lowest_opponent_and_unrated_count_1400():
    check = norm_check([2100, 2150, None, 2450, 2500, 2550, 2400, 2450, 2500], 6.5, "GM")
    assert check.adjusted_opponents == (2100, 2150, 2200, 2450, 2500, 2550, 2400, 2450, 2500)
    assert not check.meets_average  # 2367 < 2380


def test_norm_needs_35_percent():
    assert not norm_check([2600] * 9, 3, "GM").meets_min_score


def test_algorithm_of_400_refuses_bad_scores():
    with pytest.raises(ValueError, match=r"scores must be 1, 0.5 or 0"):
        performance_400([1800], [0.7])


def test_performance_refuses_unrated_opponents():
    with pytest.raises(ValueError, match="an opponent has no rating"):
        fide_performance([1800, float("nan")], 1)


@pytest.mark.parametrize(
    ("peak", "women", "games", "titles"),
    [
        (2310, False, 40, ["FM", "CM"]),
        (2250, False, 40, ["CM"]),
        (2310, True, 40, ["FM", "CM", "WFM", "WCM"]),
        (2050, True, 40, ["WCM"]),
        (2310, False, 20, []),
    ],
)
def test_titles_by_rating(peak, women, games, titles):
    assert titles_by_rating(peak, games, women) == titles


def test_title_rating_requirements():
    assert title_rating_reached(2500) == ["GM", "IM", "FM", "CM"]
    assert title_rating_reached(2300, women=True) == ["FM", "CM", "WGM", "WIM", "WFM", "WCM"]


def test_tournament_average_ignores_unrated_players():
    assert tournament_average_rating([2400, None, 2500]) == 2450
    with pytest.raises(ValueError, match="no rated participant"):
        tournament_average_rating([None])
