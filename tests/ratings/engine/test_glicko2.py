"""Glicko-2 (Glickman, "Example of the Glicko-2 system"; rating-rules.md 5.2 and 6.7): the worked example to the
published decimals, the no-games period, the vectorised period against the scalar calculator, and the
convergence guard. No database."""

import math

import numpy as np
import pytest

from ratings.engine import get_preset
from ratings.engine import glicko2 as g2
from ratings.engine.calculator import calculate_change
from ratings.engine.glicko2 import Glicko2ConvergenceError, Glicko2Spec, calculate_glicko2, rate_glicko2
from ratings.engine.presets import RulesPreset

EXAMPLE = [(1400.0, 30.0), (1550.0, 100.0), (1700.0, 300.0)]
EXAMPLE_SCORES = [1.0, 0.0, 0.0]


def example():
    return calculate_glicko2(1500, 200, 0.06, EXAMPLE, EXAMPLE_SCORES, get_preset("glicko2").glicko2)


def test_worked_example_reproduces_the_published_numbers():
    calc = example()
    # Glickman 2013 step 3: g(phi_j) and E for the three opponents
    assert [round(line.g, 4) for line in calc.lines] == [0.9955, 0.9531, 0.7242]
    assert [round(line.expected_score, 3) for line in calc.lines] == [0.639, 0.432, 0.303]
    # steps 3-4 unrounded (the paper prints 1.7785 / -0.4834 from rounded intermediates)
    assert calc.variance == pytest.approx(1.77898, abs=5e-6)
    assert calc.improvement == pytest.approx(-0.48393, abs=5e-6)
    # step 5: sigma' = 0.05999 (unrounded 0.0599960)
    assert abs(calc.new_volatility - 0.05999) < 1e-5
    assert round(calc.new_volatility, 7) == 0.0599960
    # steps 6-8: phi' = 0.8722, mu' = -0.2069 -> r' = 1464.06, RD' = 151.52
    assert round(calc.new_deviation / g2.GLICKO2_SCALE, 4) == 0.8722
    assert round((calc.new_rating - 1500) / g2.GLICKO2_SCALE, 4) == -0.2069
    assert abs(calc.new_rating - 1464.06) < 0.01  # the paper's 1464.06 comes from mu' rounded to -0.2069
    assert round(calc.new_rating, 4) == 1464.0507
    assert round(calc.new_deviation, 2) == 151.52
    assert round(calc.new_deviation, 4) == 151.5165


def test_a_period_without_games_only_widens_the_deviation():
    calc = calculate_glicko2(1500, 200, 0.06, [], [], Glicko2Spec())
    assert calc.new_rating == 1500
    assert calc.new_volatility == 0.06
    assert round(calc.new_deviation, 2) == 200.27  # sqrt(200^2 + (0.06 * 173.7178)^2), rating-rules.md 6.7


def test_an_unrated_player_starts_at_1500_350_006():
    calc = calculate_glicko2(None, None, None, [(1500.0, 350.0)], [0.5], Glicko2Spec())
    assert (calc.rating, calc.deviation, calc.volatility) == (1500.0, 350.0, 0.06)
    assert calc.new_rating == pytest.approx(1500.0)
    assert calc.new_deviation < 350.0


def test_the_period_is_vectorised_and_agrees_with_the_calculator():
    rng = np.random.default_rng(7)
    n, m = 60, 400
    rating = rng.normal(1800, 250, n)
    deviation = rng.uniform(40, 350, n)
    volatility = rng.uniform(0.04, 0.09, n)
    player = rng.integers(0, n - 5, m)  # the last five players have no games
    opponent = rng.integers(0, n, m)
    score = rng.choice([0.0, 0.5, 1.0], m)
    result = rate_glicko2(
        rating, deviation, volatility, player, rating[opponent], deviation[opponent], score, Glicko2Spec(tau=0.3)
    )
    for i in range(n):
        mine = player == i
        calc = calculate_glicko2(
            rating[i],
            deviation[i],
            volatility[i],
            list(zip(rating[opponent[mine]], deviation[opponent[mine]], strict=True)),
            list(score[mine]),
            Glicko2Spec(tau=0.3),
        )
        assert result.new_rating[i] == pytest.approx(calc.new_rating, abs=1e-9)
        assert result.new_deviation[i] == pytest.approx(calc.new_deviation, abs=1e-9)
        assert result.new_volatility[i] == pytest.approx(calc.new_volatility, abs=1e-12)
    assert np.all(result.games[-5:] == 0)
    assert np.all(result.new_rating[-5:] == rating[-5:])


def test_extreme_results_need_the_lower_bracket_and_still_converge():
    # Delta^2 <= phi^2 + v: B is found by stepping a - k tau (step 5.2)
    calc = calculate_glicko2(1500, 30, 0.06, [(1500.0, 30.0)] * 3, [0.5, 0.5, 0.5], Glicko2Spec(tau=0.2))
    assert 0 < calc.new_volatility < 0.06
    # a huge upset with a tiny deviation: Delta^2 > phi^2 + v
    calc = calculate_glicko2(1000, 50, 0.06, [(2800.0, 30.0)] * 10, [1.0] * 10, Glicko2Spec(tau=1.2))
    assert calc.new_volatility > 0.06
    assert math.isfinite(calc.new_rating)


def test_no_convergence_raises_a_clear_error(monkeypatch):
    monkeypatch.setattr(g2, "MAX_ITERATIONS", 1)
    with pytest.raises(Glicko2ConvergenceError, match="did not converge to 1e-06 within 1 Illinois"):
        example()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"deviation": 0}, "deviation"),
        ({"volatility": -1}, "volatility"),
        ({"scores": [1.0, 0.0, 2.0]}, "score"),
        ({"opponents": [(1400.0, 30.0), (1550.0, 0.0), (1700.0, 300.0)]}, "opponent deviation"),
    ],
)
def test_bad_input_is_refused(kwargs, message):
    args = {"rating": 1500, "deviation": 200, "volatility": 0.06, "opponents": EXAMPLE, "scores": EXAMPLE_SCORES}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        calculate_glicko2(
            args["rating"], args["deviation"], args["volatility"], args["opponents"], args["scores"], Glicko2Spec()
        )


def test_the_preset_round_trips_and_is_not_rated_as_elo(list_date):
    preset = get_preset("glicko2")
    assert preset.system == "glicko2"
    assert preset.glicko2 == Glicko2Spec(tau=0.5)
    assert RulesPreset.from_json(preset.to_json()) == preset
    assert "glicko2" not in get_preset("fide-2024").to_json()  # Elo presets' JSON unchanged
    with pytest.raises(ValueError, match="Glicko-2"):
        calculate_change(1500, 20, [1400], [1.0], preset, list_date=list_date)
    with pytest.raises(ValueError, match="tau"):
        Glicko2Spec(tau=0)
