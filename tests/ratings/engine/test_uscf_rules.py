"""US Chess examples (rating-rules.md 6.5) and the US Chess K schemes, floors."""

import datetime

import numpy as np
import pytest

from ratings.engine import calculate_change, get_preset
from ratings.engine.inactivity import apply_uscf_floor, uscf_rating_floor
from ratings.engine.uscf import (
    approximate_rating,
    classic_k_factor,
    effective_games,
    effective_games_k_factor,
    standard_rating,
)

LIST_DATE = datetime.date(2026, 1, 1)  # the list calculated (dates are parameters of the engine)


def test_u1_approximating_formula_official_example():
    # 1500 based on 6 games; 1400 (win), 1550 (loss), 1650 (draw)
    rating = approximate_rating(1500, 6, [1400, 1550, 1650], wins=1, losses=1)
    assert rating == pytest.approx(1511.11, abs=0.005)
    assert round(rating) == 1511


def test_u2_old_effective_games_formula():
    assert float(effective_games(1700, 30, "2001")) == pytest.approx(26.7, abs=0.05)


@pytest.mark.parametrize(
    ("rating", "n_star"),
    [
        (600, 9.24),
        (1000, 11.52),
        (1200, 13.13),
        (1500, 16.57),
        (1700, 20.01),
        (2000, 28.61),
        (2200, 38.71),
        (2355, 49.99),
        (2400, 50.0),
    ],
)
def test_current_effective_games_formula(rating, n_star):
    # rules 4.3 prints two decimals; 1000 -> 11.51499 is printed 11.52, hence the 0.01 tolerance
    assert float(effective_games(rating, 1000, "2013")) == pytest.approx(n_star, abs=0.01)


@pytest.mark.parametrize(("threshold", "new_rating"), [(10, 1635.58), (14, 1627.58), (12, 1631.58)])
def test_u3_standard_formula_with_bonus(threshold, new_rating):
    # established 1500 (N >= 50), four games against 1500s, 4/4
    assert float(effective_games(1500, 50)) == pytest.approx(16.568, abs=0.0005)
    assert float(effective_games_k_factor(1500, 50, 4)) == pytest.approx(38.894, abs=0.0005)
    assert standard_rating(1500, 50, [1500] * 4, [1] * 4, bonus_threshold=threshold) == pytest.approx(
        new_rating, abs=0.005
    )


def test_u3_through_the_uscf_effective_games_preset():
    calculation = calculate_change(
        1500, None, [1500] * 4, [1] * 4, get_preset("uscf-effective-games"), rated_games_total=50, list_date=LIST_DATE
    )
    assert calculation.new_rating == pytest.approx(1635.58, abs=0.005)
    assert calculation.k_factor_used == pytest.approx(38.894, abs=0.0005)


@pytest.mark.parametrize(
    ("n_prime", "m", "k"),
    [
        (6, 4, 80),
        (6, 6, 66.67),
        (6, 10, 50),
        (20, 4, 33.33),
        (20, 6, 30.77),
        (20, 10, 26.67),
        (50, 4, 14.81),
        (50, 6, 14.29),
        (50, 10, 13.33),
    ],
)
def test_k_800_over_effective_games_plus_m(n_prime, m, k):
    assert float(effective_games_k_factor(2400, n_prime, m)) == pytest.approx(k, abs=0.005)


def test_classic_k_bands():
    assert classic_k_factor(np.array([2099, 2100, 2399, 2400])).tolist() == [32, 24, 24, 16]


def test_uscf_classic_preset_takes_k_from_the_rating():
    calculation = calculate_change(2150, None, [2150], [1], get_preset("uscf-classic"), list_date=LIST_DATE)
    assert calculation.k_factor_used == 24
    assert calculation.change == pytest.approx(12.0)


@pytest.mark.parametrize(
    ("peak", "floor"),
    [(1450, 1200), (1499, 1200), (1399, 100), (1941, 1700), (2299, 2000), (2300, 2100), (2750, 2100)],
)
def test_uscf_peak_floors(peak, floor):
    assert uscf_rating_floor(peak) == floor


def test_uscf_personal_absolute_floor_and_life_master():
    assert uscf_rating_floor(900, wins=5, draws=3, events_with_3_games=4) == 100 + 20 + 6 + 4
    assert uscf_rating_floor(900, wins=50) == 150
    assert uscf_rating_floor(2250, original_life_master=True) == 2200


def test_uscf_floor_applies_after_the_calculation():
    assert apply_uscf_floor(np.array([1650.0, 1820.0]), np.array([1700.0, 1700.0])).tolist() == [1700, 1820]
