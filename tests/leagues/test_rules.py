"""League rules as pure functions, checked against hand-worked examples (no database)."""

import datetime

import pytest

from leagues import rules
from leagues.rules import MatchScore, Penalty, Scoring

D = datetime.date


def test_berger_tables_for_six_teams_match_fides_table():
    # FIDE C.05 Annex 1, the Berger table for 5 or 6 players
    assert rules.berger_rounds(6) == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]


@pytest.mark.parametrize("teams", [2, 3, 4, 5, 7, 8, 10, 13, 16])
def test_every_team_meets_every_other_once_and_plays_once_a_round(teams):
    table = rules.berger_rounds(teams)
    assert len(table) == teams - 1 + teams % 2
    pairs = [frozenset(pair) for pairs in table for pair in pairs]
    assert len(pairs) == len(set(pairs)) == teams * (teams - 1) // 2
    for pairs in table:
        playing = [team for pair in pairs for team in pair]
        assert len(playing) == len(set(playing))
    homes = [sum(1 for pairs in table for home, _ in pairs if home == t) for t in range(1, teams + 1)]
    assert max(homes) - min(homes) <= 1 + teams % 2  # home matches balanced


def test_home_and_away_swaps_the_second_half():
    table = rules.double_round_robin(4)
    assert table[:3] == rules.berger_rounds(4) == [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    assert table[3:] == [[(4, 1), (3, 2)], [(3, 4), (2, 1)], [(4, 2), (1, 3)]]


def test_match_points_win_draw_loss_default_and_three_one_zero():
    assert rules.match_points(2.5, 1.5, Scoring()) == (2.0, 0.0)
    assert rules.match_points(2, 2, Scoring()) == (1.0, 1.0)
    assert rules.match_points(1, 3, Scoring(3, 1, 0)) == (0, 3)


def test_board_points_and_what_is_rated():
    assert rules.board_points(rules.HOME_DEFAULT_WIN) == (1.0, 0.0)
    assert rules.board_points(rules.DOUBLE_DEFAULT) == (0.0, 0.0)
    assert rules.board_points(rules.AWAY_UNNAMED_DEFAULT) == (0.0, 1.0)
    assert rules.board_points(rules.UNFINISHED) == (0.0, 0.0)
    assert rules.board_points(rules.UNFINISHED, unfinished_as_draw=True) == (0.5, 0.5)
    # B.02 §5.1: only games with moves; never a default
    for code in (
        rules.HOME_DEFAULT_WIN,
        rules.AWAY_DEFAULT_WIN,
        rules.DOUBLE_DEFAULT,
        rules.HOME_UNNAMED_DEFAULT,
        rules.AWAY_UNNAMED_DEFAULT,
        rules.UNFINISHED,
        rules.PENDING,
    ):
        assert rules.rated_result(code, rate_adjudicated=True) is None
    assert rules.rated_result(rules.DRAW, rate_adjudicated=False) == rules.DRAW
    assert rules.rated_result(rules.HOME_WIN_ADJUDICATED, rate_adjudicated=True) == rules.HOME_WIN
    assert rules.rated_result(rules.HOME_WIN_ADJUDICATED, rate_adjudicated=False) is None


def test_colours_alternate_from_board_one():
    assert [rules.home_has_white(b) for b in (1, 2, 3, 4)] == [True, False, True, False]
    assert [rules.home_has_white(b, home_white_on_odd=False) for b in (1, 2)] == [False, True]


# Four teams A=1, B=2, C=3, D=4, one round robin, 4 boards, 2/1/0:
#   R1: A 3–1 D, B 2–2 C     R2: D 1½–2½ C, A 2–2 B     R3: B 4–0 D, C 2½–1½ A
# match points A 3, B 4, C 5, D 0; game points A 6½, B 8, C 7, D 2½.
SEASON = [
    MatchScore(1, 4, 3, 1),
    MatchScore(2, 3, 2, 2),
    MatchScore(4, 3, 1.5, 2.5),
    MatchScore(1, 2, 2, 2),
    MatchScore(2, 4, 4, 0),
    MatchScore(3, 1, 2.5, 1.5),
]


def test_division_table_by_hand():
    table = rules.division_table([1, 2, 3, 4], SEASON, Scoring())
    rows = {row.team: row for row in table}
    assert [row.team for row in table] == [3, 2, 1, 4]
    assert [(rows[t].match_points, rows[t].game_points) for t in (1, 2, 3, 4)] == [(3, 6.5), (4, 8), (5, 7), (0, 2.5)]
    assert (rows[3].wins, rows[3].draws, rows[3].losses) == (2, 1, 0)
    # Buchholz = opponents' match points: A met D(0), B(4), C(5) → 9
    assert rows[1].buchholz == 9
    # team SB = Σ opponent's MP × game points against them: A: 0×3 + 4×2 + 5×1½ = 15.5
    assert rows[1].sonneborn_berger == 15.5
    # C: D(0)×2½ + B(4)×2 + A(3)×2½ = 15.5
    assert rows[3].sonneborn_berger == 15.5


def test_tie_on_match_points_broken_by_game_points_then_direct_encounter():
    # A beat B 2½–1½ and lost to C 1½–2½; B beat D 2½–1½: A and B 2 MP and 4 game points, C 2 MP and 2½.
    matches = [MatchScore(1, 2, 2.5, 1.5), MatchScore(3, 1, 2.5, 1.5), MatchScore(2, 4, 2.5, 1.5)]
    table = rules.division_table([1, 2, 3, 4], matches, Scoring(), tie_breaks=["gp", "de"])
    rows = {row.team: row for row in table}
    assert rows[1].game_points == rows[2].game_points == 4.0
    assert [(row.team, row.rank) for row in table] == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert rows[1].direct_encounter == 2
    assert rows[2].direct_encounter == 0


def test_equal_on_every_tie_break_share_the_rank():
    table = rules.division_table([1, 2], [MatchScore(1, 2, 2, 2)], Scoring())
    assert [row.rank for row in table] == [1, 1]


def test_penalties_come_off_match_and_game_points():
    table = rules.division_table([1, 2], [MatchScore(1, 2, 3, 1)], Scoring(), penalties=[Penalty(1, 2, 1)])
    rows = {row.team: row for row in table}
    assert (rows[1].match_points, rows[1].game_points) == (0.0, 2.0)
    assert [row.team for row in table] == [1, 2]  # both 0 MP; A's 2 game points before B's 1


def test_crosstable_cells_hold_each_meeting():
    table = rules.division_table([1, 2], [MatchScore(1, 2, 3, 1), MatchScore(2, 1, 2, 2)], Scoring())
    assert rules.crosstable(table) == [[[], [3, 2]], [[1, 2], []]]


def test_board_order_with_tolerance():
    assert rules.board_order_breaches([1, 2, 3, 4], 0) == []
    assert rules.board_order_breaches([2, 1, 3, 4], 0) == [(1, 2)]
    assert rules.board_order_breaches([2, 1, 3, 4], 1) == []
    assert rules.board_order_breaches([4, 1, None, 2], 1) == [(1, 2), (1, 4)]


def test_fide_slices_of_at_most_thirty_days_and_one_event_a_date():
    dates = [D(2026, 9, 10), D(2026, 9, 24), D(2026, 10, 8), D(2026, 10, 9), D(2026, 10, 22), D(2026, 11, 5)]
    assert rules.rating_slices(dates, policy="fide-slices") == [
        (D(2026, 9, 10), D(2026, 10, 9)),  # 30 days, first and last counted
        (D(2026, 10, 22), D(2026, 11, 5)),
    ]
    assert rules.rating_slices(dates[:2], policy="game-date") == [(dates[0], dates[0]), (dates[1], dates[1])]
    assert rules.slice_of(D(2026, 10, 22), rules.rating_slices(dates, policy="fide-slices")) == 1


def test_a_pasted_card_is_read_and_every_bad_line_named():
    text = "1\t101\t201\t1-0\n2\t102\t202\t½-½\n3 103 - +-\n\n4;104;204;\nx\t1\t2\tfoo\n5\t1\t2\t1-0\textra"
    lines, problems = rules.parse_card(text)
    assert lines == [
        rules.CardLine(1, 101, 201, "1-0"),
        rules.CardLine(2, 102, 202, "1/2-1/2"),
        rules.CardLine(3, 103, None, "+-"),
        rules.CardLine(4, 104, 204, "*"),
    ]
    assert problems[0].startswith("Line 6: the board 'x' is not a number")
    assert "'foo'" in problems[0]
    assert problems[1].startswith("Line 7: more than four cells")
