"""rating-rules.md section 6: every FIDE worked example, reproduced exactly."""

import datetime

import numpy as np
import pytest

from ratings.engine import calculate_change, calculate_initial_rating, cap_k_by_games, get_preset, rate_period
from ratings.engine.inactivity import adjustment_2024
from ratings.engine.performance import fide_performance, norm_check

LIST_DATE = datetime.date(2026, 1, 1)  # the list calculated (dates are parameters of the engine)

# 6.1: (case, own, opponent, score, K, change under the current rules)
SINGLE_GAMES = [
    ("F1", 2000, 2000, 1, 10, 5.0),
    ("F2", 2003, 2000, 1, 10, 5.0),
    ("F3", 2004, 2000, 1, 10, 4.9),
    ("F4", 2010, 2000, 1, 10, 4.9),
    ("F5", 2011, 2000, 1, 10, 4.8),
    ("F6", 2206, 2000, 1, 10, 2.4),
    ("F7", 2207, 2000, 1, 10, 2.3),
    ("F8", 2391, 2000, 1, 10, 0.9),
    ("F9", 2392, 2000, 1, 10, 0.8),
    ("F10", 2000, 2003, 0, 10, -5.0),
    ("F11", 2000, 2004, 0, 10, -4.9),
    ("F12", 1656, 2000, 0, 10, -1.2),
    ("F13", 1655, 2000, 0, 10, -1.1),
    ("F14", 2600, 2100, 1, 10, 0.8),
    ("F15", 2649, 2149, 1, 10, 0.8),
    ("F16", 2650, 2150, 1, 10, 0.4),
    ("F17", 2700, 2200, 1, 10, 0.4),
    ("F18", 2200, 2700, 0, 20, -1.6),
    ("F19", 2100, 2600, 0, 20, -1.6),
    ("F20", 2700, 1964, 1, 10, 0.0),
    ("F21", 2700, 1900, 0, 10, -10.0),
    ("F22", 1500, 2000, 0.5, 20, 8.4),
    ("F23", 2092, 2000, 1, 15, 5.55),
    ("F24", 2000, 2092, 0.5, 30, 3.9),
]


@pytest.mark.parametrize(
    ("case", "own", "opponent", "score", "k", "change"), SINGLE_GAMES, ids=[row[0] for row in SINGLE_GAMES]
)
def test_single_game_change_matches_fide_example(case, own, opponent, score, k, change, fide_2024):
    calculation = calculate_change(own, k, [opponent], [score], fide_2024, list_date=LIST_DATE)
    assert calculation.change == pytest.approx(change, abs=1e-9)
    assert calculation.lines[0].weighted_change == pytest.approx(change, abs=1e-9)


# FIDE's online calculator still applies the pre-Oct-2025 400-point rule to 2650+ players (rules 6.1 note)
@pytest.mark.parametrize(
    ("own", "opponent", "score", "change"),
    [(2650, 2150, 1, 0.8), (2700, 2200, 1, 0.8), (2700, 1964, 1, 0.8), (2700, 1900, 0, -9.2)],
)
def test_plain_400_point_rule_reproduces_fide_calculator_for_2650_plus(own, opponent, score, change):
    calculation = calculate_change(own, 10, [opponent], [score], get_preset("fide-2024-03"), list_date=LIST_DATE)
    assert calculation.change == pytest.approx(change, abs=1e-9)
    assert calculation.lines[0].capped


def test_2650_exemption_uses_real_difference_beyond_735():
    calculation = calculate_change(2700, 10, [1964], [1], get_preset("fide-2024"), list_date=LIST_DATE)
    line = calculation.lines[0]
    assert (line.difference, line.expected_score, line.capped) == (736, 1.0, False)


def test_capped_opponent_is_marked_with_the_rating_used(fide_2024):
    line = calculate_change(2200, 20, [2700], [0], fide_2024, list_date=LIST_DATE).lines[0]
    assert (line.opponent_rating, line.opponent_rating_used, line.capped) == (2700, 2600, True)
    assert (line.difference, line.expected_score) == (-400, 0.08)


def test_p1_period_of_2650_plus_player_rounds_minus_2_50_to_minus_3(build_players, build_games, fide_2024, list_date):
    # players: 0 = the 2813 player, 1..5 = his opponents
    opponents = [1787, 2025, 2310, 2400, 2505]
    players = build_players([2813, *opponents], [10] + [20] * 5)
    games = build_games(
        [(0, 0, i + 1, s, 2813, r) for i, (r, s) in enumerate(zip(opponents, [1, 1, 1, 1, 0.5], strict=True))]
    )
    result = rate_period(players, games, fide_2024, list_date)
    assert result.white.difference.tolist() == [1026, 788, 503, 413, 308]
    assert result.white.expected_score.tolist() == [1.0, 1.0, 0.96, 0.93, 0.86]
    assert not result.white.capped.any()
    assert result.players.change[0] == pytest.approx(-2.5)
    assert result.players.rounded_change[0] == -3
    assert result.players.new_rating[0] == 2810
    # the 2400 opponent (below 2650) sees the 2813 player capped to 2800, PD .08
    assert result.black.opponent_rating_used[3] == 2800
    assert result.black.capped[3]
    assert result.black.expected_score[3] == 0.08


def test_p1_under_the_plain_cap_gives_minus_0_40_and_no_change(build_players, build_games, list_date):
    opponents = [1787, 2025, 2310, 2400, 2505]
    players = build_players([2813, *opponents], [10] + [20] * 5)
    games = build_games(
        [(0, 0, i + 1, s, 2813, r) for i, (r, s) in enumerate(zip(opponents, [1, 1, 1, 1, 0.5], strict=True))]
    )
    result = rate_period(players, games, get_preset("fide-2024-03"), list_date)
    assert result.players.change[0] == pytest.approx(-0.4)
    assert result.players.rounded_change[0] == 0
    assert result.players.new_rating[0] == 2813


def test_p2_k_times_n_cap_turns_k_20_into_17_for_39_games(build_players, build_games, fide_2024, list_date):
    # 38 opponents rated 2054 (PD .50) and one rated 2011 (D = 43, PD .56); 25 points: sum dR = 5.44
    ratings = [2054] + [2054] * 38 + [2011]
    players = build_players(ratings, [20] * 40)
    scores = [1.0] * 25 + [0.0] * 14
    games = build_games([(0, 0, i + 1, scores[i], 2054, ratings[i + 1]) for i in range(39)])
    result = rate_period(players, games, fide_2024, list_date)
    assert result.players.games[0] == 39
    assert result.players.k_factor_used[0] == 17
    assert result.players.change[0] == pytest.approx(92.48)
    assert result.players.rounded_change[0] == 92
    assert result.players.new_rating[0] == 2146


def test_p3_event_uses_the_list_in_force_at_its_start(build_players, build_games, fide_2024, list_date):
    # previous (November) list 2505, but the event started under the October list: 2499
    players = build_players([2505, 2503], [10, 20])
    games = build_games([(0, 0, 1, 1, 2499, 2503)])
    result = rate_period(players, games, fide_2024, list_date)
    assert result.white.difference[0] == -4
    assert result.white.expected_score[0] == 0.49
    assert result.players.change[0] == pytest.approx(5.1)
    assert result.players.new_rating[0] == 2505 + 5


def _p4_period(build_players, build_games):
    # K 10; three events with K x sum dR = -6.10, +3.70, +7.80
    players = build_players([2400, 2320, 2305, 2620], [10, 20, 20, 10])
    games = build_games(
        [
            (0, 0, 1, 0, 2400, 2320),  # D = 80 -> .61, loss: -0.61
            (1, 0, 2, 1, 2400, 2305),  # D = 95 -> .63, win: +0.37
            (2, 0, 3, 1, 2400, 2620),  # D = -220 -> .22, win: +0.78
        ]
    )
    return players, games


def test_p4_rounding_once_per_period_gives_2405(build_players, build_games, fide_2024, list_date):
    players, games = _p4_period(build_players, build_games)
    result = rate_period(players, games, fide_2024, list_date)
    player_rows = result.player_events.player == 0
    assert result.player_events.change[player_rows].tolist() == pytest.approx([-6.1, 3.7, 7.8])
    assert result.players.change[0] == pytest.approx(5.4)
    assert result.players.new_rating[0] == 2405


def test_p4_per_event_rounding_reproduces_fides_published_2406(build_players, build_games, fide_2024, list_date):
    players, games = _p4_period(build_players, build_games)
    result = rate_period(players, games, fide_2024.replace(slug="fide-2024-per-event", rounding="per-event"), list_date)
    player_rows = result.player_events.player == 0
    assert result.player_events.rounded_change[player_rows].tolist() == [-6, 4, 8]
    assert result.players.rounded_change[0] == 6
    assert result.players.new_rating[0] == 2406


def test_n1_initial_rating_1922_published_with_k_40(build_players, build_games, fide_2024, list_date):
    opponents = [1902, 1877, 1884, 2012, 1832]
    players = build_players([None, *opponents], [None] + [20] * 5, rated_games_total=[0] + [30] * 5)
    games = build_games(
        [(0, 0, i + 1, s, None, r) for i, (r, s) in enumerate(zip(opponents, [1, 1, 1, 0, 0], strict=True))]
    )
    result = rate_period(players, games, fide_2024, list_date)
    assert result.players.initial_rating[0] == 1922
    assert result.players.initial_published[0]
    assert result.players.new_rating[0] == 1922
    assert result.players.next_k_factor[0] == 40
    # the unrated player's games change nothing for the rated opponents
    assert not result.black.rated.any()
    assert result.players.new_rating[1:].tolist() == opponents


def test_n1_calculator_shows_ra_p_and_dp(fide_2024):
    initial = calculate_initial_rating([1902, 1877, 1884, 2012, 1832], [1, 1, 1, 0, 0], fide_2024, list_date=LIST_DATE)
    assert initial.average == pytest.approx(13107 / 7)  # (9507 + 3600) / 7 = 1872.43
    assert (initial.percent, initial.dp, initial.initial_rating, initial.published) == (57, 50, 1922, True)


def test_n1_previous_rule_gives_fides_printed_rp_1921():
    initial = calculate_initial_rating(
        [1902, 1877, 1884, 2012, 1832], [1, 1, 1, 0, 0], get_preset("fide-2014"), list_date=LIST_DATE
    )
    assert initial.unrounded == pytest.approx(1921.4)
    assert initial.initial_rating == 1921


# 6.3 derived table: (opponents, score, Ra, p in percent, dp, Ru, published)
DERIVED_INITIAL = [
    ([1600] * 5, 5, 11600 / 7, 86, 309, 1966, True),
    ([1500] * 5, 1, 11100 / 7, 29, -158, 1428, True),
    ([1500] * 5, 0.5, 11100 / 7, 21, -230, 1356, False),
    ([2300] * 5, 5, 15100 / 7, 86, 309, 2200, True),
    ([1800] * 5, 2.5, 1800.0, 50, 0, 1800, True),
    ([1450, 1520, 1610, 1700, 1980, 2050], 3.5, 1738.75, 56, 43, 1782, True),
]


@pytest.mark.parametrize(("opponents", "score", "average", "percent", "dp", "rating", "published"), DERIVED_INITIAL)
def test_initial_rating_table(opponents, score, average, percent, dp, rating, published, fide_2024):
    scores = [1.0] * int(score) + ([0.5] if score % 1 else [])
    scores += [0.0] * (len(opponents) - len(scores))
    initial = calculate_initial_rating(opponents, scores, fide_2024, list_date=LIST_DATE)
    assert initial.average == pytest.approx(average)
    assert (initial.percent, initial.dp, initial.initial_rating, initial.published) == (
        percent,
        dp,
        rating,
        published,
    )
    assert initial.capped == (rating == 2200)


def test_zero_score_in_first_event_is_disregarded(fide_2024):
    initial = calculate_initial_rating([1600] * 5, [0] * 5, fide_2024, list_date=LIST_DATE)
    assert initial.games == 0
    assert initial.initial_rating is None
    assert not initial.published
    assert "disregarded" in initial.reason


def test_zero_score_in_a_later_event_counts(fide_2024):
    initial = calculate_initial_rating(
        [1600] * 6, [1, 0, 0, 0, 0, 0], fide_2024, events=[0, 0, 1, 1, 1, 1], list_date=LIST_DATE
    )
    assert initial.games == 6
    assert initial.initial_rating is not None


@pytest.mark.parametrize(
    ("games", "k", "used"),
    [(17, 40, 40), (18, 40, 38), (35, 20, 20), (36, 20, 19), (39, 20, 17), (70, 10, 10), (71, 10, 9)],
)
def test_k_times_n_cap_table(games, k, used):
    assert cap_k_by_games(k, games, 700) == used


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (1000, 1400),
        (1400, 1640),
        (1500, 1700),
        (1600, 1760),
        (1700, 1820),
        (1950, 1970),
        (2000, 2000),
        (2100, 2100),
    ],
)
def test_march_2024_adjustment(old, new):
    assert adjustment_2024(np.array([old]))[0] == new


def test_norm_example_7_of_9_against_2380_is_a_gm_performance():
    performance = fide_performance([2380] * 9, 7)
    assert (performance.percent, performance.dp, performance.rating) == (78, 220, 2600)
    assert norm_check([2380] * 9, 7, "GM").achieved
