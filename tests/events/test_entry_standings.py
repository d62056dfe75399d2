"""Standings and crosstable (events.selectors): points, Buchholz, shared ranks, per-round cells."""

import pytest

from events.models import Result
from events.selectors import GameLine, PlayerLine, event_standings, standings_compute
from tests.factories import make_event, make_game, make_participants, make_player


def players(count: int) -> list[PlayerLine]:
    return [
        PlayerLine(participant_id=100 + n, start_rank=n, player_id=n, id_number=1000 + n, name=f"P{n}")
        for n in range(1, count + 1)
    ]


def game(round_: int, white: int, black: int | None, result: str) -> GameLine:
    return GameLine(round=round_, white_id=100 + white, black_id=None if black is None else 100 + black, result=result)


def by_rank(standings):
    return [(row.rank, row.start_rank, row.points, row.buchholz) for row in standings.rows]


def test_points_count_wins_draws_forfeits_and_byes():
    standings = standings_compute(
        players(5),
        [
            game(1, 1, 2, Result.WHITE_WIN),
            game(1, 3, 4, Result.DRAW),
            game(1, 5, None, Result.PAIRING_BYE),
            game(2, 2, 5, Result.BLACK_FORFEIT_WIN),
            game(2, 4, 1, Result.DRAW),
            game(2, 3, None, Result.HALF_POINT_BYE),
        ],
        rounds=2,
    )
    points = {row.start_rank: row.points for row in standings.rows}
    assert points == {1: 1.5, 2: 0.0, 3: 1.0, 4: 1.0, 5: 2.0}


def test_order_is_points_then_buchholz_then_starting_rank_with_shared_ranks():
    # Round 1: 1 beats 2, 3 beats 4. Round 2: 1 draws 3, 4 beats 2.
    standings = standings_compute(
        players(4),
        [
            game(1, 1, 2, Result.WHITE_WIN),
            game(1, 3, 4, Result.WHITE_WIN),
            game(2, 1, 3, Result.DRAW),
            game(2, 4, 2, Result.WHITE_WIN),
        ],
        rounds=2,
    )
    # Points: 1 → 1.5, 3 → 1.5, 4 → 1, 2 → 0. Buchholz: 1 met 2 (0) and 3 (1.5) = 1.5;
    # 3 met 4 (1) and 1 (1.5) = 2.5; so 3 is ahead of 1 on the tie-break.
    assert by_rank(standings) == [(1, 3, 1.5, 2.5), (2, 1, 1.5, 1.5), (3, 4, 1.0, 1.5), (4, 2, 0.0, 2.5)]


def test_players_equal_on_points_and_buchholz_share_the_rank():
    standings = standings_compute(players(4), [game(1, 1, 2, Result.DRAW), game(1, 3, 4, Result.DRAW)], rounds=1)
    assert [row.rank for row in standings.rows] == [1, 1, 1, 1]
    assert [row.start_rank for row in standings.rows] == [1, 2, 3, 4]


def test_forfeits_do_not_count_for_buchholz_and_are_not_rated():
    standings = standings_compute(players(2), [game(1, 1, 2, Result.WHITE_FORFEIT_WIN)], rounds=1)
    first = standings.rows[0]
    assert (first.start_rank, first.points, first.buchholz, first.rated_games) == (1, 1.0, 0.0, 0)
    assert first.cells[0].text == "2w+"
    assert not first.cells[0].rated
    assert standings.rows[1].cells[0].text == "1b−"


def test_cells_show_opponent_colour_and_result_per_round_and_blank_when_not_paired():
    standings = standings_compute(
        players(3),
        [
            game(1, 1, 2, Result.BLACK_WIN),
            game(1, 3, None, Result.HALF_POINT_BYE),
            game(2, 2, 3, Result.PENDING),
        ],
        rounds=3,
    )
    cells = {row.start_rank: [cell.text for cell in row.cells] for row in standings.rows}
    assert cells == {1: ["2w0", "", ""], 2: ["1b1", "3w*", ""], 3: ["bye ½", "2b*", ""]}
    assert standings.pending_games == 1
    assert standings.round_numbers == range(1, 4)


@pytest.mark.django_db
def test_event_standings_reads_the_event_in_two_queries(django_assert_num_queries):
    event = make_event(rounds=2)
    people = make_participants(event, [make_player(surname=s, given_names="") for s in ("Ames", "Baker", "Cole")])
    make_game(event, 1, people[0], people[1], result=Result.WHITE_WIN)
    make_game(event, 1, people[2], None, result=Result.FULL_POINT_BYE)
    make_game(event, 2, people[2], people[0], result=Result.DRAW)
    with django_assert_num_queries(2):
        standings = event_standings(event)
    assert [(row.name, row.points) for row in standings.rows] == [
        ("Ames", 1.5),
        ("Cole", 1.5),
        ("Baker", 0.0),
    ]
    assert standings.rows[0].rated_games == 2
