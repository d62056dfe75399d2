"""The simulated federation follows seed 000's performance model and looks like a real federation."""

import datetime

import numpy as np
import pytest
from scipy.special import ndtr

from ratings.simulation import (
    DRAW_MARGIN,
    PERFORMANCE_SD,
    RESULT_CODES,
    SimulatedMonth,
    SimulatedPlayers,
    play_games,
    simulate_federation,
)

START = datetime.date(2025, 11, 1)


def generate(players=400, months=6, seed=3):
    batches = list(simulate_federation(players, months, seed, START))
    assert isinstance(batches[0], SimulatedPlayers)
    assert all(isinstance(b, SimulatedMonth) for b in batches[1:])
    assert len(batches) == months + 1
    return batches[0], batches[1:]


def test_the_same_seed_gives_the_same_federation_and_another_seed_another():
    first, first_months = generate(seed=3)
    again, again_months = generate(seed=3)
    other, _ = generate(seed=4)
    assert np.array_equal(first.strength, again.strength)
    assert all(np.array_equal(a.game_result, b.game_result) for a, b in zip(first_months, again_months, strict=True))
    assert not np.array_equal(first.strength, other.strength)


@pytest.mark.parametrize("difference", [0.0, 100.0, 300.0])
def test_results_follow_the_performance_model_with_a_draw_margin(difference):
    rng = np.random.default_rng(0)
    n = 200_000
    results = play_games(np.full(n, 1800.0 + difference), np.full(n, 1800.0), rng)
    score = np.choose(results, [1.0, 0.5, 0.0]).mean()
    # seed 000 eq. 4: E = (Phi((D - eps) / sigma) + Phi((D + eps) / sigma)) / 2, sigma = 200 sqrt 2
    sigma = PERFORMANCE_SD * np.sqrt(2)
    expected = (ndtr((difference - DRAW_MARGIN) / sigma) + ndtr((difference + DRAW_MARGIN) / sigma)) / 2
    assert score == pytest.approx(expected, abs=0.005)
    if difference == 0.0:
        assert 0.27 < np.mean(results == 1) < 0.33  # about 30 % draws between equals, as in club chess


def test_events_are_swiss_tournaments_and_round_robins_with_valid_pairings():
    _players, months = generate()
    for month in months:
        for e, system in enumerate(month.event_system):
            seats = month.participant_event == e
            size = int(seats.sum())
            games = month.game_event == e
            if system == "swiss":
                assert 30 <= size <= 300
            else:
                assert size == 10
                assert month.event_rounds[e] == 9
                assert games.sum() == 45  # everyone meets everyone once
            assert month.event_start[e] <= month.event_end[e]
            assert len(set(month.participant_player[seats].tolist())) == size
            for r in range(1, month.event_rounds[e] + 1):
                in_round = games & (month.game_round == r)
                seated = np.concatenate([month.game_white[in_round], month.game_black[in_round]])
                seated = seated[seated >= 0]
                assert len(seated) == len(set(seated.tolist())) == size  # everyone once per round (or a bye)
            byes = games & (month.game_black < 0)
            assert all(RESULT_CODES[c] == "U" for c in month.game_result[byes])


def test_juniors_improve_and_most_adults_start_with_a_published_rating():
    players, _ = generate(players=2000)
    age = START.year - players.birth_year
    assert (players.growth[age <= 15] > 0).all()
    assert (players.growth[(age > 18) & (age < 65)] == 0).all()
    adults = (age > 18) & (players.strength > 1600)
    assert np.mean(~np.isnan(players.starting_rating[adults])) > 0.9
    rated = ~np.isnan(players.starting_rating)
    assert (players.starting_rating[rated] >= 1400).all()
    assert len(set(players.id_number.tolist())) == 2000
