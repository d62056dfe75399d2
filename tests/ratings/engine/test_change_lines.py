"""The lines of each rating change (ratings.engine.change_lines): a change's games in round and game order, and
the rating the player was rated with in that event (B.02 rule 1.6)."""

import numpy as np

from ratings.engine.change_lines import change_lines, own_ratings

NAN = np.nan


def lines(**overrides):
    # two games of event 0: game 11 (round 2) and game 10 (round 1), players 0 (rated 2000) and 1 (rated 1800)
    arguments = {
        "pe_player": np.array([0, 1], dtype=np.int64),
        "pe_event": np.array([0, 0], dtype=np.int64),
        "side_rated": np.array([True, True, True, True]),
        "game_event": np.array([0, 0], dtype=np.int64),
        "side_player": np.array([0, 1, 1, 0], dtype=np.int64),  # white of game 11, white of 10, then black
        "side_seen_rating": np.array([2000.0, 1800.0, 1800.0, 2000.0]),
        "player_rating": np.array([2000.0, 1800.0]),
        "game_id": np.array([11, 10], dtype=np.int64),
        "game_round": np.array([2, 1], dtype=np.int64),
        "num_events": 1,
    }
    return change_lines(**{**arguments, **overrides})


def test_each_change_shows_its_player_games_by_round_then_game():
    result = lines()
    assert result.offsets.tolist() == [0, 2, 4]
    # player 0: black in game 10 (round 1, side 3), white in game 11 (round 2, side 0); player 1: 1 then 2
    assert result.sides.tolist() == [3, 0, 1, 2]
    assert result.side_game[result.sides].tolist() == [1, 0, 1, 0]
    assert result.rating_before.tolist() == [2000.0, 1800.0]


def test_rule_1_6_a_player_published_after_the_event_started_is_rated_with_the_new_rating():
    # player 1 had no rating on the list in force at the event's start, and 1850 on the previous list
    result = lines(
        side_seen_rating=np.array([2000.0, NAN, NAN, 2000.0]),
        player_rating=np.array([2000.0, 1850.0]),
    )
    assert result.rating_before.tolist() == [2000.0, 1850.0]


def test_a_change_without_a_rated_game_has_no_rating_before():
    result = lines(side_rated=np.array([True, False, False, True]))
    assert np.array_equal(result.rating_before, [2000.0, NAN], equal_nan=True)


def test_no_games_no_lines():
    empty = np.zeros(0, dtype=np.int64)
    result = lines(
        pe_player=empty,
        pe_event=empty,
        side_rated=np.zeros(0, dtype=bool),
        game_event=empty,
        side_player=empty,
        side_seen_rating=np.zeros(0),
        game_id=empty,
        game_round=empty,
    )
    assert result.sides.tolist() == []
    assert result.offsets.tolist() == [0]
    assert result.rating_before.size == 0


def test_own_ratings_fall_back_to_the_previous_list_only_where_the_list_in_force_had_none():
    seen = np.array([2000.0, NAN, NAN])
    assert own_ratings(seen, np.array([2100.0, 1850.0, NAN]), np.array([0, 1, 2])).tolist()[:2] == [2000.0, 1850.0]
    assert np.isnan(own_ratings(seen, np.array([2100.0, 1850.0, NAN]), np.array([0, 1, 2]))[2])
