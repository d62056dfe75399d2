"""rate_period: who is rated, pools, floors, K status, rating types, validation."""

import datetime
import re

import numpy as np
import pytest

from ratings.engine import DifferenceCapSpec, get_preset, next_k_factor, rate_period


def test_game_between_two_unrated_players_changes_nothing(build_players, build_games, fide_2024, list_date):
    players = build_players([None, None])
    result = rate_period(players, build_games([(0, 0, 1, 1, None, None)]), fide_2024, list_date)
    assert not result.white.rated[0]
    assert not result.black.rated[0]
    assert not result.white.pooled[0]
    assert not result.black.pooled[0]
    assert result.players.games.tolist() == [0, 0]
    assert result.players.pool_games.tolist() == [0, 0]
    assert np.isnan(result.players.new_rating).all()
    assert result.player_events.player.size == 0


def test_rated_player_keeps_rating_against_unrated_opponent(build_players, build_games, fide_2024, list_date):
    players = build_players([2000, None], [20, None])
    result = rate_period(players, build_games([(0, 0, 1, 0, 2000, None)]), fide_2024, list_date)
    assert not result.white.rated[0]
    assert result.white.change[0] == 0
    assert result.players.new_rating[0] == 2000
    assert result.players.games[0] == 0
    # ... and the unrated player's game goes into the newcomer pool
    assert result.black.pooled[0]
    assert (result.players.pool_games[1], result.players.pool_opponent_sum[1], result.players.pool_score[1]) == (
        1,
        2000,
        1,
    )


def test_player_published_since_the_event_started_is_rated_but_unrated_for_opponents(
    build_players, build_games, fide_2024, list_date
):
    # player 0 had no rating when the event started (game rating None) but is on the previous list (1850)
    players = build_players([1850, 1900], [40, 20])
    result = rate_period(players, build_games([(0, 0, 1, 1, None, 1900)]), fide_2024, list_date)
    assert result.white.rated[0]
    assert result.white.difference[0] == -50
    assert result.players.change[0] == pytest.approx(40 * (1 - 0.43))
    assert not result.black.rated[0]
    assert result.players.new_rating[1] == 1900


def test_zero_in_first_event_counts_when_pool_already_has_games(build_players, build_games, fide_2024, list_date):
    players = build_players([None, 1600], [None, 20], pool_games=[3, 0], pool_opponent_sum=[4800, 0], pool_score=[2, 0])
    result = rate_period(players, build_games([(0, 0, 1, 0, None, 1600)] * 2), fide_2024, list_date)
    assert not result.player_events.disregarded.any()
    assert result.players.pool_games[0] == 0  # published: pool emptied
    assert result.players.initial_published[0]
    # (4800 + 3200 + 3600) / 7 = 1657.14; p = (2 + 1) / 7 = .43 -> -50
    assert result.players.initial_rating[0] == 1607


def test_zero_in_first_event_is_disregarded_and_remembered(build_players, build_games, fide_2024, list_date):
    players = build_players([None, 1600], [None, 20])
    result = rate_period(players, build_games([(0, 0, 1, 0, None, 1600)] * 3), fide_2024, list_date)
    # one (player, event) row: player 0 in event 0; the rated player's side counts for nothing
    assert result.player_events.disregarded.tolist() == [True]
    assert result.players.pool_games[0] == 0
    assert result.players.pool_events[0] == 1  # the first event is behind the player now
    assert not result.white.pooled.any()


def test_pool_carried_between_periods_gives_the_same_rating_as_one_period(
    build_players, build_games, fide_2024, list_date
):
    opponents = [1902, 1877, 1884, 2012, 1832]
    scores = [1, 1, 1, 0, 0]
    ratings = [None, *opponents]
    first = rate_period(
        build_players(ratings, [None] + [20] * 5),
        build_games([(0, 0, i + 1, scores[i], None, opponents[i]) for i in range(3)]),
        fide_2024,
        list_date,
    )
    assert not first.players.initial_published[0]
    assert np.isnan(first.players.initial_rating[0])
    assert (first.players.pool_games[0], first.players.pool_opponent_sum[0], first.players.pool_score[0]) == (
        3,
        5663,
        3,
    )
    second = rate_period(
        build_players(
            ratings,
            [None] + [20] * 5,
            pool_games=first.players.pool_games,
            pool_opponent_sum=first.players.pool_opponent_sum,
            pool_score=first.players.pool_score,
            pool_events=first.players.pool_events,
        ),
        build_games([(0, 0, i + 1, scores[i], None, opponents[i]) for i in range(3, 5)]),
        fide_2024,
        datetime.date(2026, 3, 1),
    )
    assert second.players.initial_rating[0] == 1922
    assert second.players.new_rating[0] == 1922


def test_initial_rating_below_1400_is_not_published_and_pool_is_kept(build_players, build_games, fide_2024, list_date):
    players = build_players([None] + [1500] * 5, [None] + [20] * 5)
    games = build_games([(0, 0, i + 1, 0.5 if i == 0 else 0, None, 1500) for i in range(5)])
    result = rate_period(players, games, fide_2024, list_date)
    assert result.players.initial_rating[0] == 1356
    assert not result.players.initial_published[0]
    assert np.isnan(result.players.new_rating[0])
    assert result.players.pool_games[0] == 5


def test_rating_below_1400_is_shown_unrated_on_the_next_list(build_players, build_games, fide_2024, list_date):
    players = build_players([1401, 1800], [20, 20])
    result = rate_period(players, build_games([(0, 0, 1, 0, 1401, 1800)]), fide_2024, list_date)
    assert result.players.new_rating[0] == 1401 - 2  # 20 x (0 - .08) = -1.6 -> -2
    assert result.players.dropped_below_floor[0]
    assert np.isnan(result.players.list_rating[0])
    assert np.isnan(result.players.next_k_factor[0])
    assert not result.players.dropped_below_floor[1]


@pytest.mark.parametrize(
    ("rating", "games", "ever_2400", "birth_year", "k"),
    [
        (2100, 100, False, 0, 20),
        (2100, 29, False, 0, 40),  # new until 30 games
        (2100, 30, False, 0, 20),
        (2350, 100, True, 0, 10),  # once 2400, always 10
        (2100, 100, False, 2008, 40),  # 18 in 2026: junior to the end of the year
        (2100, 100, False, 2007, 20),  # 19 in 2026
        (2310, 100, False, 2010, 20),  # junior rated >= 2300
        (2410, 10, False, 2012, 10),  # precedence: 2400 before junior and new
    ],
)
def test_next_k_factor_fide_2024(rating, games, ever_2400, birth_year, k, fide_2024, list_date):
    assert next_k_factor(np.array([float(rating)]), games, ever_2400, birth_year, list_date, fide_2024)[0] == k


def test_junior_who_once_reached_2300_is_not_junior_again(fide_2024, list_date):
    k = next_k_factor(np.array([2250.0]), 100, False, 2010, list_date, fide_2024, ever_2300=True)
    assert k[0] == 20


def test_fide_2014_juniors_until_their_18th_birthday():
    rules = get_preset("fide-2014")
    january = datetime.date(2026, 1, 1)
    assert next_k_factor(np.array([2000.0]), 100, False, 2009, january, rules)[0] == 40
    assert next_k_factor(np.array([2000.0]), 100, False, 2008, january, rules)[0] == 20


def test_period_updates_status_for_the_next_list(build_players, build_games, fide_2024, list_date):
    players = build_players([2395, 2300], [20, 20], rated_games_total=[50, 50])
    result = rate_period(players, build_games([(0, 0, 1, 1, 2395, 2300)] * 2), fide_2024, list_date)
    assert result.players.new_rating[0] == 2395 + 15  # 2 x 20 x (1 - .63) = 14.8 -> 15
    assert result.players.rated_games_total.tolist() == [52, 52]
    assert result.players.ever_2400[0]
    assert result.players.next_k_factor[0] == 10


def test_missing_published_k_is_derived_from_status(build_players, build_games, fide_2024, list_date):
    players = build_players([2100, 2100], [None, 20], rated_games_total=[5, 100])
    result = rate_period(players, build_games([(0, 0, 1, 1, 2100, 2100)]), fide_2024, list_date)
    assert result.players.k_factor_used.tolist() == [40, 20]


def test_2650_exemption_applies_to_the_standard_list_only(build_players, build_games, fide_2024, list_date):
    players = build_players([2700, 2200], [10, 20])
    games = build_games([(0, 0, 1, 1, 2700, 2200)])
    standard = rate_period(players, games, fide_2024, list_date, rating_type="standard")
    rapid = rate_period(players, games, fide_2024, list_date, rating_type="rapid")
    assert (standard.white.difference[0], standard.white.capped[0]) == (500, False)
    assert (rapid.white.difference[0], rapid.white.capped[0]) == (400, True)
    everywhere = fide_2024.replace(
        slug="fide-2024-all-types",
        difference_cap=DifferenceCapSpec.below(400, 2650, ("standard", "rapid", "blitz")),
    )
    assert not rate_period(players, games, everywhere, list_date, rating_type="rapid").white.capped[0]


def test_rapid_blitz_games_600_apart_with_a_2600_plus_player_are_not_rated(
    build_players, build_games, fide_2024, list_date
):
    players = build_players([2650, 2060, 2050], [10, 20, 20])
    games = build_games([(0, 0, 1, 1, 2650, 2060), (0, 0, 2, 1, 2650, 2050)])  # 590 and 600 apart
    blitz = rate_period(players, games, fide_2024, list_date, rating_type="blitz")
    assert blitz.excluded.tolist() == [False, True]
    assert blitz.white.rated.tolist() == [True, False]
    assert blitz.black.rated.tolist() == [True, False]
    standard = rate_period(players, games, fide_2024, list_date, rating_type="standard")
    assert not standard.excluded.any()
    assert standard.white.rated.all()


def test_fide_2009_takes_k_from_the_rating_at_the_tournament_start(build_players, build_games, list_date):
    rules = get_preset("fide-2009")
    # player 0: 2405 at the event's start, 2395 on the previous list, 40 games -> K 10 (not 15)
    # player 2: 12 rated games -> K 25
    players = build_players([2395, 2300, 2000, 2000], [15, 15, 25, 15], rated_games_total=[40, 40, 12, 40])
    games = build_games([(0, 0, 1, 1, 2405, 2300), (0, 2, 3, 1, 2000, 2000)])
    result = rate_period(players, games, rules, list_date)
    assert result.white.k_factor.tolist() == [10, 25]
    assert result.black.k_factor.tolist() == [15, 15]


def test_fide_2009_initial_rating_needs_a_point_and_three_rated_opponents_in_each_event(
    build_players, build_games, list_date
):
    rules = get_preset("fide-2009")
    players = build_players([None] + [2000] * 9, [None] + [15] * 9)
    rows = [(0, 0, i + 1, 1 if i == 0 else 0, None, 2000) for i in range(3)]  # 1 point, 3 opponents: counts
    rows += [(1, 0, i + 1, 0.5 if i == 3 else 0, None, 2000) for i in range(3, 6)]  # half a point: not
    rows += [(2, 0, i + 1, 1, None, 2000) for i in range(6, 8)]  # two opponents only: not
    result = rate_period(players, build_games(rows), rules, list_date)
    unrated_rows = result.player_events.player == 0
    assert result.player_events.pooled[unrated_rows].tolist() == [True, False, False]
    assert result.players.pool_games[0] == 3


def test_per_player_event_sums(build_players, build_games, fide_2024, list_date):
    players = build_players([2000, 2000, 2100], [20, 20, 20])
    games = build_games([(1, 0, 1, 1, 2000, 2000), (0, 0, 2, 0.5, 2000, 2100), (1, 2, 0, 0, 2100, 2000)])
    result = rate_period(players, games, fide_2024, list_date)
    rows = list(
        zip(
            result.player_events.player.tolist(),
            result.player_events.event.tolist(),
            result.player_events.games.tolist(),
            result.player_events.score.tolist(),
            strict=True,
        )
    )
    assert rows == [(0, 0, 1, 0.5), (0, 1, 2, 2.0), (1, 1, 1, 0.0), (2, 0, 1, 0.5), (2, 1, 1, 0.0)]
    player0 = result.player_events.player == 0
    # event 0: 20 x (0.5 - .36) = 2.8; event 1: 20 x ((1 - .5) + (1 - .36)) = 22.8
    assert result.player_events.change[player0].tolist() == pytest.approx([2.8, 22.8])
    assert result.players.change[0] == pytest.approx(25.6)
    assert result.players.new_rating[0] == 2026
    assert result.players.expected_score[0] == pytest.approx(0.36 + 0.5 + 0.36)


def test_empty_period_keeps_every_rating(build_players, build_games, fide_2024, list_date):
    players = build_players([2000, None], [20, None])
    result = rate_period(players, build_games([]), fide_2024, list_date)
    assert result.players.new_rating[0] == 2000
    assert np.isnan(result.players.new_rating[1])
    assert result.players.games.tolist() == [0, 0]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ((0, 0, 1, 0.7, 2000, 2000), "games row 1 (event 0): white_score 0.7 is not 1, 0.5 or 0"),
        ((0, 0, 5, 1, 2000, 2000), "games row 1 (event 0): black player index 5 is not 0..2"),
        ((0, 1, 1, 1, 2000, 2000), "games row 1 (event 0): player 1 plays himself"),
        ((-1, 0, 1, 1, 2000, 2000), "games row 1 (event -1): event index -1 is negative"),
    ],
)
def test_bad_game_rows_are_refused_with_their_row(row, message, build_players, build_games, fide_2024, list_date):
    players = build_players([2000, 2000, 2000], [20, 20, 20])
    with pytest.raises(ValueError, match=re.escape(message)):
        rate_period(players, build_games([(0, 0, 2, 1, 2000, 2000), row]), fide_2024, list_date)


def test_unknown_rating_type_is_refused(build_players, build_games, fide_2024, list_date):
    with pytest.raises(ValueError, match="rating_type 'bullet' is unknown"):
        rate_period(build_players([2000]), build_games([]), fide_2024, list_date, rating_type="bullet")
