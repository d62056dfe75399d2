"""events.trf, the pure TRF parser/writer: hand-written fixtures and the real files in ../shared/data/trf.

No database: these tests run with or without pytest-django.
"""

import datetime as dt
import gc
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.trf import (
    BLACK_FORFEIT_WIN,
    BLACK_WIN,
    BLACK_WIN_UNPLAYED,
    DOUBLE_FORFEIT,
    DRAW,
    DRAW_UNPLAYED,
    ERROR,
    FULL_POINT_BYE,
    HALF_POINT_BYE,
    PAIRING_BYE,
    PENDING,
    WARNING,
    WHITE_FORFEIT_WIN,
    WHITE_WIN,
    WHITE_WIN_UNPLAYED,
    ZERO_POINT_BYE,
    TrfGame,
    TrfParseResult,
    TrfProblem,
    check_event,
    games,
    parse_trf,
    results_without_opponent,
    write_trf,
)

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "data" / "trf"
CORPUS_FILES = sorted(p for p in CORPUS.glob("*") if p.suffix in (".trf", ".tab")) if CORPUS.is_dir() else []

# ------------------------------------------------------------------------------------------------ fixtures
# Four players, three rounds, every column where TRF16 puts it (formats.md §2.1): rank 5-8, sex 10,
# title 11-13, name 15-47, rating 49-52, federation 54-56, FIDE ID 58-68, birth 70-79, points 81-84,
# rank 86-89, round r at 92+10(r-1) / 97+10(r-1) / 99+10(r-1).
HEADER = [
    "012 Test Open",
    "022 Dublin",
    "032 IRL",
    "042 2024/05/01",
    "052 2024/05/03",
    "062 4",
    "092 Swiss",
    "102 Arbiter, Anna",
    "112 Deputy, Dora",
    "122 90 minutes + 30 seconds",
    "132" + " " * 88 + "24/05/01  24/05/02  24/05/03",
]
P1 = (
    "001    1 m GM Alpha, Anna                       2500 IRL     2500001 1990/01/02  2.5    1"
    "     2 w 1     3 b =     4 w 1"
)
P2 = (
    "001    2 wWIM Beta, Bea                         2300 IRL     2500002 1995/00/00  1.0    3"
    "     1 b 0     4 w 1     3 b 0"
)
P3 = (
    "001    3 m    Gamma, Gus                        2100 ENG             1988        2.5    2"
    "     4 b 1     1 w =     2 w 1"
)
P4 = (
    "001    4 m    Delta, Dan                             IRL                         0.0    4"
    "     3 w 0     2 b 0     1 b 0"
)
VALID = "\n".join([*HEADER, P1, P2, P3, P4]) + "\n"
FIRST_PLAYER_LINE = len(HEADER) + 1  # line number of P1


def player(rank: int, name: str, points: str = "", rounds: str = "") -> str:
    """A short 001 line: name at 15-47, points at 81-84, rank at 86-89, round fields from column 92."""
    return f"001 {rank:>4}      {name:<33}{'':<33}{points:>4} {rank:>4}  {rounds}".rstrip()


def trf(*players: str, header: list[str] | None = None) -> str:
    return "\n".join([*(HEADER if header is None else header), *players]) + "\n"


def problems_matching(result: TrfParseResult, severity: str, pattern: str) -> list[TrfProblem]:
    return [p for p in result.problems if p.severity == severity and re.search(pattern, p.message)]


def comparable(result: TrfParseResult):
    return result.tournament, games(result)


# ------------------------------------------------------------------------------------------ hand-written


def test_valid_file_reads_header_players_and_rounds():
    result = parse_trf(VALID.encode(), source_name="fixture.trf")

    assert result.ok
    assert result.problems == []
    t = result.tournament
    assert (t.name, t.city, t.federation) == ("Test Open", "Dublin", "IRL")
    assert (t.start_date, t.end_date) == (dt.date(2024, 5, 1), dt.date(2024, 5, 3))
    assert t.chief_arbiter == "Arbiter, Anna"
    assert t.deputy_arbiters == ["Deputy, Dora"]
    assert t.time_control == "90 minutes + 30 seconds"
    assert t.tournament_type == "Swiss"
    assert t.round_dates == [dt.date(2024, 5, 1), dt.date(2024, 5, 2), dt.date(2024, 5, 3)]
    assert t.rounds_played == 3
    assert t.number_of_rounds == 3
    assert len(t.players) == 4

    anna, bea, gus, dan = t.players
    assert (anna.start_rank, anna.sex, anna.title, anna.name, anna.rating) == (
        1,
        "m",
        "GM",
        "Alpha, Anna",
        2500,
    )
    assert (anna.surname, anna.given_names) == ("Alpha", "Anna")
    assert (anna.federation, anna.fide_id, anna.birth_date) == ("IRL", "2500001", dt.date(1990, 1, 2))
    assert (anna.points, anna.rank) == (2.5, 1)
    assert [(e.round, e.opponent, e.colour, e.result) for e in anna.rounds] == [
        (1, 2, "w", "1"),
        (2, 3, "b", "="),
        (3, 4, "w", "1"),
    ]
    assert (bea.sex, bea.title, bea.birth_date, bea.birth_year) == ("w", "WIM", None, 1995)
    assert (gus.fide_id, gus.birth_year) == ("", 1988)
    assert dan.rating is None


def test_games_lists_each_pairing_once_with_white_first():
    result = parse_trf(VALID)

    assert games(result) == [
        TrfGame(1, 1, 2, WHITE_WIN),
        TrfGame(1, 4, 3, BLACK_WIN),
        TrfGame(2, 3, 1, DRAW),
        TrfGame(2, 2, 4, WHITE_WIN),
        TrfGame(3, 1, 4, WHITE_WIN),
        TrfGame(3, 3, 2, WHITE_WIN),
    ]
    assert all(g.is_rated for g in result.games())


@pytest.mark.parametrize(
    ("white_code", "black_code", "expected", "rated"),
    [
        ("1", "0", WHITE_WIN, True),
        ("=", "=", DRAW, True),
        ("0", "1", BLACK_WIN, True),
        ("+", "-", WHITE_FORFEIT_WIN, False),
        ("-", "+", BLACK_FORFEIT_WIN, False),
        ("-", "-", DOUBLE_FORFEIT, False),
        ("W", "L", WHITE_WIN_UNPLAYED, False),
        ("D", "D", DRAW_UNPLAYED, False),
        ("L", "W", BLACK_WIN_UNPLAYED, False),
        ("w", "l", WHITE_WIN_UNPLAYED, False),  # letters are case-insensitive
        (" ", " ", PENDING, False),
    ],
)
def test_result_codes_become_the_project_vocabulary(white_code, black_code, expected, rated):
    p1 = player(1, "One, A", "", "   2 w " + white_code)
    p2 = player(2, "Two, B", "", "   1 b " + black_code)

    result = parse_trf(trf(p1, p2, header=["012 Codes"]))

    assert result.errors == []
    (game,) = games(result)
    assert (game.white, game.black, game.result, game.is_rated) == (1, 2, expected, rated)


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("0000 - H", HALF_POINT_BYE),
        ("0000 - =", HALF_POINT_BYE),
        ("0000 - 1", FULL_POINT_BYE),
        ("0000 - F", FULL_POINT_BYE),
        ("0000 - U", PAIRING_BYE),
        ("0000 - +", PAIRING_BYE),
        ("0000 - Z", ZERO_POINT_BYE),
        ("0000 - -", ZERO_POINT_BYE),
        ("0000 -  ", ZERO_POINT_BYE),
        ("       H", HALF_POINT_BYE),  # Lichess: blank opponent field
        ("   0 - U", PAIRING_BYE),
    ],
)
def test_rounds_without_opponent_are_byes_never_rated(field, expected):
    line = player(1, "Solo, Sam", "", field)

    result = parse_trf(trf(line, header=["012 Byes"]))

    (game,) = games(result)
    assert (game.white, game.black, game.result, game.is_bye, game.is_rated) == (
        1,
        None,
        expected,
        True,
        False,
    )
    assert result.errors == []


@pytest.mark.parametrize("code", ["1", "=", "0", "W", "D", "L", "w", "d"])
@pytest.mark.parametrize(("opponent", "colour"), [("0000", "w"), ("    ", "b"), ("   0", "B")])
def test_a_games_result_without_opponent_is_no_game_but_a_warning_naming_line_column_player_and_round(
    code, opponent, colour
):
    # TRF §2.2: 1 = 0 (played) and W D L (less than one move) are results of a game between two players, and a
    # colour (§2.1, column 97) says a game was played.
    solo = player(2, "Solo, Sam", "", f"   3 w 1  {opponent} {colour} {code}")
    other = player(3, "Other, Olga", "", "   2 b 0")
    text = trf(player(1, "First, Fay"), solo, other, header=["012 Results", "042 2024/05/01", "052 2024/05/02"])

    result = parse_trf(text.encode())

    assert result.errors == []
    assert result.ok  # readable: never a refusal
    assert games(result) == [TrfGame(1, 2, 3, WHITE_WIN)]  # round 2 of player 2 makes no game, not a bye
    (missing,) = results_without_opponent(result)
    assert (missing.round, missing.start_rank, missing.name, missing.result) == (2, 2, "Solo, Sam", code.upper())
    assert (missing.line, missing.column, missing.result_column) == (5, 102, 109)
    checks = check_event(result)
    assert checks.without_opponent == [missing]
    assert checks.errors == []
    (warning,) = [p for p in checks.warnings if "no opponent" in p.message]
    assert (warning.line, warning.column) == (5, 102)
    assert warning.message.startswith(f"round 2: player 2 (Solo, Sam) has the result {code.upper()!r} of a game")
    assert "columns 102-105 blank or 0000" in warning.message


# (a game's code with colour "-": a bye, as TRF16 programs such as Swiss-Manager wrote them: icu_valid.tab)
@pytest.mark.parametrize("code", ["H", "F", "U", "Z", "+", "-", " ", "=", "1", "0", "W", "D", "L"])
def test_a_bye_or_forfeit_code_without_opponent_is_a_bye_and_no_problem(code):
    result = parse_trf(trf(player(1, "Solo, Sam", "", f"0000 - {code}"), header=["012 Byes"]).encode())

    assert results_without_opponent(result) == []
    assert len(games(result)) == 1
    assert not [p for p in check_event(result).problems if "no opponent" in p.message]


def test_blank_round_field_is_no_entry_at_all():
    # Team leagues leave whole rounds blank: the player was not in that round (not even a bye).
    p1 = player(1, "One, A", "1.0", " " * 10 + "   2 w 1")
    p2 = player(2, "Two, B", "0.0", " " * 10 + "   1 b 0")

    result = parse_trf(trf(p1, p2, header=["012 League", "042 2024/05/01", "052 2024/05/03"]))

    assert result.problems == []
    assert [(e.round, e.opponent) for e in result.players[0].rounds] == [(2, 2)]
    assert games(result) == [TrfGame(2, 1, 2, WHITE_WIN)]


def test_utf8_with_and_without_bom_and_latin1_read_the_same_names():
    text = trf(P1.replace("Alpha, Anna ", "Ó Néill, Éa "), P2, P3, P4).replace("Test Open", "Läs Végas Opeñ")

    plain = parse_trf(text.encode("utf-8"))
    bom = parse_trf(b"\xef\xbb\xbf" + text.encode("utf-8"))
    latin = parse_trf(text.encode("cp1252"))

    assert (plain.encoding, bom.encoding, latin.encoding) == ("utf-8", "utf-8-sig", "cp1252")
    assert plain.tournament.name == "Läs Végas Opeñ"
    assert plain.players[0].name == "Ó Néill, Éa"
    assert comparable(plain) == comparable(bom) == comparable(latin)
    assert plain.problems == bom.problems == latin.problems == []


@pytest.mark.parametrize("ending", ["\r\n", "\r"], ids=["CRLF", "CR-only"])
def test_crlf_and_cr_only_line_endings_read_like_lf(ending):
    broken = trf(P1, P2.replace("     1 b 0", "     3 b 0"), P3, P4)  # a non-mutual pairing, to compare lines

    lf = parse_trf(broken)
    other = parse_trf(broken.replace("\n", ending).encode())

    assert comparable(other) == comparable(lf)
    assert other.problems == lf.problems
    assert lf.errors  # same problems, same line numbers


def test_short_lines_and_blank_fields_are_read_leniently():
    result = parse_trf("012 Short\n001    1\n001    2      Two, B\n\n   \n")

    assert result.ok
    assert [(p.start_rank, p.name, p.rating, p.points, p.rounds) for p in result.players] == [
        (1, "", None, None, []),
        (2, "Two, B", None, None, []),
    ]
    assert problems_matching(result, WARNING, "player 1: no name")


def test_non_mutual_pairing_is_an_error_naming_line_and_column():
    # Player 2 claims player 3 in round 1, but player 1 (line 12) says he played 2 as white.
    result = parse_trf(trf(P1, P2.replace("     1 b 0", "     3 b 0"), P3, P4))

    assert not result.ok
    first = problems_matching(result, ERROR, r"round 1: player 1 \(Alpha, Anna\) says he played 2")
    assert first
    assert (first[0].line, first[0].column) == (FIRST_PLAYER_LINE, 92)
    assert "line 13 of player 2 shows opponent 3" in first[0].message
    assert str(first[0]).startswith(f"line {FIRST_PLAYER_LINE}, column 92: error: ")
    assert games(result)
    assert TrfGame(1, 1, 2, WHITE_WIN) not in games(result)


def test_a_player_named_by_a_second_line_in_a_round_is_paired_twice_an_error_on_that_line():
    # Round 1: player 3 says he played 2, whose line (13) pairs him with 1; player 4's line names 3, whose line
    # now names 2; player 2 in round 3 names 3, whose line names 2 too (a pairing both lines make is fine).
    result = parse_trf(trf(P1, P2, P3.replace("     4 b 1", "     2 b 1"), P4))

    twice = problems_matching(result, ERROR, "says he played")
    assert [(p.line, p.column) for p in twice] == [(FIRST_PLAYER_LINE + 2, 92), (FIRST_PLAYER_LINE + 3, 92)]
    assert twice[0].message == (
        "round 1: player 3 (Gamma, Gus) says he played 2 (Beta, Bea) as black, but line 13 of player 2 shows "
        "opponent 1 in round 1"
    )
    assert "line 14 of player 3 shows opponent 2 in round 1" in twice[1].message


def test_a_line_naming_a_player_whose_line_is_blank_in_that_round_is_an_error():
    result = parse_trf(trf(P1, P2, P3, P4.replace("     3 w 0     2 b 0     1 b 0", "               2 b 0     1 b 0")))

    (problem,) = problems_matching(result, ERROR, "says he played")
    assert (problem.line, problem.column) == (FIRST_PLAYER_LINE + 2, 92)
    assert "line 15 of player 4 shows nothing in round 1" in problem.message


def test_opponent_that_does_not_exist_is_an_error():
    result = parse_trf(trf(P1.replace("     4 w 1", "     9 w 1"), P2, P3, P4))

    (problem,) = problems_matching(result, ERROR, "no player with starting rank 9")
    assert (problem.line, problem.column) == (FIRST_PLAYER_LINE, 112)


def test_both_players_winning_is_an_impossible_combination():
    result = parse_trf(trf(P1, P2.replace("     1 b 0", "     1 b 1"), P3, P4))

    (problem,) = problems_matching(result, ERROR, "impossible combination")
    assert (problem.line, problem.column) == (FIRST_PLAYER_LINE, 99)
    assert "'1' against 2, who has '1'" in problem.message


def test_both_players_with_white_is_an_error():
    result = parse_trf(trf(P1, P2.replace("     1 b 0", "     1 w 0"), P3, P4))

    assert problems_matching(result, ERROR, "both have white")


def test_duplicate_start_rank_is_an_error_naming_both_lines():
    result = parse_trf(trf(P1, P2, P3, P4, P4.replace("Delta, Dan", "Echo, Eve ")))

    (problem,) = problems_matching(result, ERROR, "starting rank 4 used twice")
    assert problem.line == FIRST_PLAYER_LINE + 4
    assert f"line {FIRST_PLAYER_LINE + 3}" in problem.message


def test_unparseable_mandatory_numbers_are_errors_with_columns():
    bad_rank = player(5, "Bad, Rank").replace("001    5", "001   x1")
    bad_opponent = P1.replace("     2 w 1", "    2x w 1")

    result = parse_trf(trf(bad_opponent, P2, P3, P4, bad_rank))

    rank = problems_matching(result, ERROR, "starting rank 'x1'")
    opponent = problems_matching(result, ERROR, "opponent '2x'")
    assert (rank[0].line, rank[0].column) == (FIRST_PLAYER_LINE + 4, 5)
    assert (opponent[0].line, opponent[0].column) == (FIRST_PLAYER_LINE, 92)


def test_no_player_records_refuses_the_file():
    result = parse_trf("012 Empty event\n042 2024/01/01\n")

    assert not result.ok
    assert [str(p) for p in result.errors] == ["file: error: no player records (001): nothing to import"]


def test_bye_code_with_an_opponent_and_unknown_codes_are_errors():
    result = parse_trf(trf(P1.replace("     2 w 1", "     2 w H"), P2.replace("     1 b 0", "     1 b X"), P3, P4))

    assert problems_matching(result, ERROR, "result 'H' is a bye but opponent 2 is given")
    assert problems_matching(result, ERROR, "result 'X' at column 99 is not a TRF result code")


def test_points_column_disagreeing_with_results_is_a_warning():
    result = parse_trf(trf(P1.replace("  2.5    1  ", "  3.0    1  "), P2, P3, P4))

    assert result.ok
    (problem,) = result.warnings
    assert (problem.line, problem.column) == (FIRST_PLAYER_LINE, 81)
    assert "points column 3 disagrees with the results, which total 2.5" in problem.message


def test_swiss_manager_blank_bye_counted_as_half_point_is_a_warning_and_not_rated():
    # Swiss-Manager writes a requested half-point bye as a blank result (README: bunratty, irish juniors).
    p1 = player(1, "One, A", "2.0", "   2 w 1     3 b 1")
    p2 = player(2, "Two, B", "0.5", "   1 b 0       -  ")
    p3 = player(3, "Three, C", "0.5", "     -       1 w 0")

    result = parse_trf(trf(p1, p2, p3, header=["012 Blank byes", "042 2011/02/25", "052 2011/02/27"]))

    assert result.ok
    warnings = problems_matching(result, WARNING, "blank-result bye")
    assert [(p.line, p.column) for p in warnings] == [(5, 81), (6, 81)]
    assert "counts 0.5 point(s) for the blank-result bye in round 2" in warnings[0].message
    assert TrfGame(2, 2, None, ZERO_POINT_BYE) in games(result)
    assert [g for g in games(result) if g.is_rated] == [
        TrfGame(1, 1, 2, WHITE_WIN),
        TrfGame(2, 3, 1, BLACK_WIN),
    ]


def test_unknown_records_are_kept_and_warned_rulers_are_not_read_as_records():
    text = trf(
        P1,
        P2,
        P3,
        P4,
        header=[
            *HEADER,
            "DDD SSSS sTTT NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN RRRR FFF IIIIIIIIIII BBBB/BB/BB PPPP RRRR",
            "0123456789012345678901234567890123456789",  # starts with "012", the tournament-name record
            "QQQ whatever",
            "### a comment",
            "XXC white1",
            "DAT    1 EMAIL anna@example.org",
        ],
    )

    result = parse_trf(text)

    assert result.ok
    assert result.tournament.name == "Test Open"
    assert [r.code for r in result.unknown_records] == ["012", "QQQ"]
    assert [(p.line, p.column) for p in result.warnings] == [(13, 1), (14, 1)]
    assert [r.text for r in result.tournament.records] == ["XXC white1", "DAT    1 EMAIL anna@example.org"]


def test_non_digit_fide_id_is_a_warning_and_left_empty():
    result = parse_trf(trf(P1.replace("    2500001", "  IRL-12345"), P2, P3, P4))

    assert result.ok
    assert result.players[0].fide_id == ""
    (problem,) = problems_matching(result, WARNING, "FIDE ID 'IRL-12345'")
    assert (problem.line, problem.column) == (FIRST_PLAYER_LINE, 58)


@pytest.mark.parametrize(
    ("start", "end", "expected_start", "expected_end"),
    [
        ("2008-02-01", "2008-02-03", dt.date(2008, 2, 1), dt.date(2008, 2, 3)),
        ("2024/12/01", "2024/12/14", dt.date(2024, 12, 1), dt.date(2024, 12, 14)),
        ("25.02.2011", "27.02.2011", dt.date(2011, 2, 25), dt.date(2011, 2, 27)),
        ("24/09/2010", "02/10/2010", dt.date(2010, 9, 24), dt.date(2010, 10, 2)),
        ("28. 07. 2005", "31. 07. 2005", dt.date(2005, 7, 28), dt.date(2005, 7, 31)),
        ("May 29, 2020", "Jun 26, 2020", dt.date(2020, 5, 29), dt.date(2020, 6, 26)),
        ("10.09.13", "11.03.13", dt.date(2010, 9, 13), dt.date(2011, 3, 13)),  # ICU YY.MM.DD
        ("11.09.26", "12.04.01", dt.date(2011, 9, 26), dt.date(2012, 4, 1)),  # DD.MM.YY would end first
    ],
)
def test_real_world_date_formats(start, end, expected_start, expected_end):
    result = parse_trf(trf(P1, P2, P3, P4, header=["012 Dates", f"042 {start}", f"052 {end}"]))

    assert (result.tournament.start_date, result.tournament.end_date) == (expected_start, expected_end)
    assert not problems_matching(result, WARNING, "date")


def test_swiss_manager_round_dates_in_yy_dd_mm_are_read_within_the_event():
    header = [
        "012 Rounds",
        "042 25.02.2011",
        "052 27.02.2011",
        "132" + " " * 88 + "11.25.02  11.26.02  11.27.02",
    ]

    result = parse_trf(trf(P1, P2, P3, P4, header=header))

    assert result.tournament.round_dates == [dt.date(2011, 2, 25), dt.date(2011, 2, 26), dt.date(2011, 2, 27)]


def test_trf2026_records_are_read():
    header = [
        "012 Modern",
        "042 2026/01/10",
        "052 2026/01/14",
        "142 5",
        "152 B",
        "162  W 3.0    D 1.0    L 0.0",
        "172 IRL FIDON",
        "182 bbpPairings",
        "192 FIDE_DUTCH_2026",
        "202 BH:MP,SB",
        "212 PTS,BH:MP",
        "222 40/6000+30:1800+30",
        "352 WBWB",
        "362 TW 2     TD 1     TL 0",
    ]
    nrs = "IRL    1   CM Alpha, Anna                       2210 DUB       12345 1990/01/02"
    team = "310   1 Dublin Dragons                   DUB     2300    4.0    5.5   1     1    2"
    bye = "240 H   2    4"

    result = parse_trf(trf(P1, P2, P3, P4, nrs, team, bye, header=header))

    t = result.tournament
    assert result.version == "TRF-2026"
    assert result.errors == []
    assert (t.rounds_declared, t.initial_colour, t.scoring) == (5, "B", {"W": 3.0, "D": 1.0, "L": 0.0})
    assert (t.nrs_federation, t.starting_rank_method, t.pairing_controller) == ("IRL", "FIDON", "bbpPairings")
    assert (t.encoded_type, t.tie_breaks, t.standings_tie_breaks) == (
        "FIDE_DUTCH_2026",
        "BH:MP,SB",
        "PTS,BH:MP",
    )
    assert (t.encoded_time_control, t.team_board_colours) == ("40/6000+30:1800+30", "WBWB")
    (national,) = t.national_ratings
    assert (
        national.federation,
        national.start_rank,
        national.rating,
        national.origin,
        national.national_id,
    ) == (
        "IRL",
        1,
        2210,
        "DUB",
        "12345",
    )
    (dragons,) = t.teams
    assert (dragons.number, dragons.name, dragons.nickname, dragons.strength) == (
        1,
        "Dublin Dragons",
        "DUB",
        2300,
    )
    assert (dragons.match_points, dragons.game_points, dragons.rank, dragons.members) == (4.0, 5.5, 1, [1, 2])
    assert [(b.kind, b.round, b.ids) for b in t.byes] == [("H", 2, [4])]
    # 162 says a win is worth 3: the points column (2.5 for player 1) no longer agrees.
    assert problems_matching(result, WARNING, "player 1: points column 2.5 disagrees with the results, which total 7")


def test_team_records_013_are_kept_as_numbered_teams():
    team = "013 Rathmines                          1    2    3"

    result = parse_trf(trf(P1, P2, P3, P4, team))

    (rathmines,) = result.tournament.teams
    assert (rathmines.number, rathmines.name, rathmines.members) == (1, "Rathmines", [1, 2, 3])


def test_writer_produces_trf2026_columns():
    text = write_trf(parse_trf(VALID).tournament)
    lines = text.split("\r\n")

    assert text.endswith("\r\n")
    assert lines[:4] == ["012 Test Open", "022 Dublin", "032 IRL", "042 2024/05/01"]
    assert "062 4" in lines
    assert "072 3" in lines
    player = next(line for line in lines if line.startswith("001    1"))
    assert player[4:8] == "   1"
    assert player[9] == "m"
    assert player[10:13] == "GM "
    assert player[14:47].rstrip() == "Alpha, Anna"
    assert player[48:52] == "2500"
    assert player[53:56] == "IRL"
    assert player[57:68] == "    2500001"
    assert player[69:79] == "1990/01/02"
    assert player[80:84] == " 2.5"
    assert player[85:89] == "   1"
    assert player[91:99] == "   2 w 1"
    assert player[101:109] == "   3 b ="
    dates = next(line for line in lines if line.startswith("132"))
    assert dates[91:99] == "24/05/01"
    assert dates[101:109] == "24/05/02"


def test_round_trip_of_the_hand_written_fixture_is_identical():
    first = parse_trf(VALID)
    text = write_trf(first.tournament)
    second = parse_trf(text)

    assert comparable(second) == comparable(first)
    assert second.problems == []
    assert write_trf(second.tournament) == text


def test_writer_keeps_large_scores_inside_their_columns():
    # Found by the mutation test: 199.0 points written as "199.0" ran into the rank column.
    header = ["012 Scores", "042 2024/05/01", "052 2024/05/03", "162  W12.5    D 6.0"]
    first = parse_trf(trf(player(1, "Many, Points", "199"), header=header))

    second = parse_trf(write_trf(first.tournament))

    assert second.players[0].points == first.players[0].points == 199.0
    assert second.tournament.scoring == first.tournament.scoring == {"W": 12.5, "D": 6.0}


def test_every_record_keeps_the_line_it_was_read_from_header_records_included():
    header = [*HEADER[:5], "XXR 3", "142 3", "172 IRL FIDON", *HEADER[5:], "XXC white1"]
    extra = ["240 H   2    4", "310   1 Dublin Dragons                   DUB     2300    4.0    5.5   1     1    2"]

    result = parse_trf(trf(P1, P2, P3, P4, *extra, header=header))

    t = result.tournament
    expected = {code: number for number, code in enumerate((line[:3] for line in header), start=1)}
    first_player = len(header) + 1
    assert t.record_lines == expected | {"001": first_player, "240": first_player + 4, "310": first_player + 5}
    assert [p.line for p in t.players] == list(range(first_player, first_player + 4))
    assert t.byes[0].line == first_player + 4
    assert t.teams[0].line == first_player + 5
    assert [(r.code, r.line) for r in t.records] == [("XXC", len(header))]


def test_a_repeated_header_record_keeps_the_line_of_the_one_used():
    header = ["012 First name", "042 2024/05/01", "012 Second name", "042 2024/06/01"]

    result = parse_trf(trf(P1, P2, P3, P4, header=header))

    assert result.tournament.name == "First name"
    assert result.tournament.start_date == dt.date(2024, 5, 1)
    assert (result.tournament.record_lines["012"], result.tournament.record_lines["042"]) == (1, 2)
    assert [(p.line, p.column) for p in result.warnings if "repeated" in p.message] == [(3, 1), (4, 1)]


def test_control_characters_are_removed_while_reading_naming_line_and_column():
    header = ["012 Open\x1b 2026", "022 Val\x00encia", "042 2024/05/01", "052 2024/05/03"]
    text = trf(P1.replace("Alpha, Anna", "Al\x00ha, Anna"), P2.replace("IRL  ", "I\x07L  ", 1), P3, P4, header=header)

    result = parse_trf(text)

    t = result.tournament
    assert (t.name, t.city, t.players[0].name, t.players[1].federation) == ("Open 2026", "Valencia", "Alha, Anna", "IL")
    cleaned = [(p.line, p.column, p.severity) for p in result.problems if "control characters removed" in p.message]
    assert cleaned == [(1, 5, WARNING), (2, 5, WARNING), (5, 15, WARNING), (6, 54, WARNING)]
    assert "record 012: control characters removed from 'Open\\x1b 2026'" in {p.message for p in result.problems}


def test_event_checks_refuse_missing_dates_and_name_where_the_header_is():
    missing = check_event(parse_trf(trf(P1, P2, P3, P4, header=["012 No dates"])))
    assert [(p.line, p.column, p.message.split(":")[0]) for p in missing.errors] == [
        (0, None, "no start date"),
        (0, None, "no end date"),
    ]
    assert "record 042 is missing" in missing.errors[0].message

    unreadable = check_event(parse_trf(trf(P1, P2, P3, P4, header=["012 Bad", "042 someday", "052 2024/05/03"])))
    (error,) = unreadable.errors
    assert (error.line, error.column) == (
        2,
        5,
    )
    assert "record 042 is not a date this importer understands" in error.message

    backwards = check_event(parse_trf(trf(P1, P2, P3, P4, header=["012 Back", "042 2024/05/03", "052 2024/05/01"])))
    (error,) = backwards.errors
    assert (error.line, error.column) == (3, 5)
    assert error.message == "end date 2024-05-01 is before the start date 2024-05-03"


def test_event_checks_take_round_dates_for_missing_dates_with_warnings():
    header = ["012 Rounds only", "132" + " " * 88 + "24/05/01  24/05/02  24/05/03"]

    checks = check_event(parse_trf(trf(P1, P2, P3, P4, header=header)))

    assert checks.errors == []
    assert (checks.start_date, checks.end_date) == (dt.date(2024, 5, 1), dt.date(2024, 5, 3))
    assert [str(p) for p in checks.warnings] == [
        "file: warning: no start date (record 042); the first round date 2024-05-01 (record 132) is used",
        "file: warning: no end date (record 052); the last round date 2024-05-03 (record 132) is used",
    ]


def test_event_checks_refuse_one_id_twice_and_pending_results_when_submitting():
    twice = P3.replace("             1988", "     2500001 1988")
    pending = trf(P1.replace("     2 w 1", "     2 w  "), P2.replace("     1 b 0", "     1 b  "), P3, P4)

    (duplicate,) = check_event(parse_trf(trf(P1, P2, twice, P4))).errors
    assert (duplicate.line, duplicate.column) == (FIRST_PLAYER_LINE + 2, 58)
    assert duplicate.message.startswith(f"player 3: ID number 2500001 is also player 1 on line {FIRST_PLAYER_LINE};")

    assert check_event(parse_trf(pending)).errors == []
    (error,) = check_event(parse_trf(pending), submit=True).errors
    assert (error.line, error.column) == (FIRST_PLAYER_LINE, 99)
    assert "round 1: 1 vs 2 has no result" in error.message


def test_event_checks_read_a_federation_only_from_three_letters():
    assert check_event(parse_trf(VALID)).federation == "IRL"

    checks = check_event(parse_trf(trf(P1, P2, P3, P4, header=["012 Online", "032 Lichess"])))

    assert checks.federation == ""
    (warning,) = [p for p in checks.warnings if "032" in p.message]
    assert (warning.line, warning.column) == (2, 5)
    assert warning.message == "record 032: 'Lichess' is not a three-letter federation code; left empty"


def test_event_checks_warn_when_there_is_no_result_at_all():
    checks = check_event(parse_trf(trf(player(1, "Alone, Al"), player(2, "Also, Alone"), header=HEADER[:5])))

    assert checks.games == []
    assert checks.errors == []
    assert [str(p) for p in checks.warnings] == [
        "file: warning: no results in the file: the event is created with its players only"
    ]


def test_parse_time_grows_linearly_with_the_number_of_rounds():
    # Found by review: an opponent's round was looked up by scanning his rounds, quadratic in a long line.
    def two_players(rounds: int) -> str:
        first = player(1, "Alpha, Ann", rounds="".join("   2 w 1  " for _ in range(rounds)))
        second = player(2, "Beta, Bob", rounds="".join("   1 b 0  " for _ in range(rounds)))
        return trf(first, second, header=HEADER[:5])

    def seconds(text: str) -> float:
        best = float("inf")
        for _ in range(5):
            gc.disable()  # a collection falling inside one measure would say nothing about the parser
            try:
                start = time.perf_counter()
                result = parse_trf(text)
                best = min(best, time.perf_counter() - start)
            finally:
                gc.enable()
        assert result.ok
        assert len(result.games()) == len(result.players[0].rounds)
        return best

    small, large = seconds(two_players(2_000)), seconds(two_players(8_000))

    assert large < 10 * small, (small, large)  # 4 times the rounds: about 4 times the time, not 16


def test_trf_module_does_not_import_django():
    code = "import sys, events.trf; print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------------------------------ real corpus
# Counts hand-checked against the README of ../shared/data/trf (players, rounds with results).
KNOWN = {
    "sklangen_example1_karl_mala_2005.trf": (284, 7),
    "icu_bunratty_masters_2011.tab": (34, 6),
    "icu_bunratty_minor_2011.tab": (103, 6),
    "icu_irish_junior_champs_2011.tab": (34, 5),
    "icu_armstrong_2011.tab": (160, 11),
    "icu_armstrong_2012_with_bom.tab": (2, 1),
    "icu_latin-1.tab": (3, 3),
    "icu_valid.tab": (12, 5),
    "echecsjs_javafo_sample2.trf": (52, 5),
    "echecsjs_grandmommyscup.trf": (249, 14),
    "echecsjs_trf26_team.trf": (2, 1),
    "sklangen_lichess_2020_06.trf": (13, 10),
    "sklangen_lichess_2021_03.trf": (9, 9),
    "bbp_issue_7_cr_line_endings.trf": (60, 14),
}
# The Swiss-Manager exports whose points column counts blank-result byes (README).
BLANK_BYE_FILES = {
    "icu_bunratty_masters_2011.tab",
    "icu_bunratty_minor_2011.tab",
    "icu_irish_junior_champs_2011.tab",
}


def independent_counts(data: bytes) -> dict[str, int]:
    """Players, rounds and games counted straight from the 001 lines, without events.trf."""
    text = data.decode("utf-8-sig") if data.startswith(b"\xef\xbb\xbf") else data.decode("latin-1")
    player_lines = [line for line in re.split(r"\r\n|\r|\n", text) if line.startswith("001 ")]
    pairings, rated, byes, rounds = set(), set(), 0, 0
    for line in player_lines:
        me = int(line[4:8])
        for index in range(0, len(line), 10):
            block = line[91 + index : 101 + index]
            if not block.strip():
                continue
            rounds = max(rounds, index // 10 + 1)
            opponent = int(block[:4]) if block[:4].strip() else 0
            if opponent:
                key = (index // 10 + 1, min(me, opponent), max(me, opponent))
                pairings.add(key)
                if block[7:8] in ("1", "=", "0"):
                    rated.add(key)
            elif block[5:6].lower() not in ("w", "b") or block[7:8].upper() not in ("1", "=", "0", "W", "D", "L"):
                byes += 1  # (a game's result with a colour needs its opponent: no bye, no game)
    return {
        "players": len(player_lines),
        "rounds": rounds,
        "games": len(pairings) + byes,
        "rated": len(rated),
    }


def test_corpus_folder_is_present_or_the_corpus_tests_say_why_not():
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} is absent: the real-file tests below have no files to read")
    assert {p.name for p in CORPUS_FILES} == set(KNOWN)


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_real_file_parses_with_counts_matching_the_file(path):
    data = path.read_bytes()
    counted = independent_counts(data)

    result = parse_trf(data, source_name=path.name)

    assert result.ok, [str(p) for p in result.errors]
    t = result.tournament
    assert (len(t.players), t.rounds_played) == KNOWN[path.name]
    assert (len(t.players), t.rounds_played) == (counted["players"], counted["rounds"])
    found = games(result)
    assert len(found) == counted["games"]
    assert sum(g.is_rated for g in found) == counted["rated"]
    assert len({(g.round, g.white) for g in found} | {(g.round, g.black) for g in found if g.black}) == sum(
        len(p.rounds) for p in t.players
    ) - len(results_without_opponent(result))  # every round entry is in exactly one game, but those
    blank_bye_warnings = problems_matching(result, WARNING, "blank-result bye")
    assert bool(blank_bye_warnings) == (path.name in BLANK_BYE_FILES)


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_real_file_round_trip_is_identical(path):
    first = parse_trf(path.read_bytes())

    text = write_trf(first.tournament)
    second = parse_trf(text.encode("utf-8"))

    assert comparable(second) == comparable(first)
    assert second.errors == []
    assert write_trf(second.tournament) == text


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent")
def test_real_file_quirks():
    karl = parse_trf((CORPUS / "sklangen_example1_karl_mala_2005.trf").read_bytes())
    vasquez = karl.players[0]
    assert (karl.tournament.start_date, karl.tournament.end_date) == (
        dt.date(2005, 7, 28),
        dt.date(2005, 7, 31),
    )
    assert (vasquez.title, vasquez.fide_id, vasquez.birth_date) == ("GM", "3400042", dt.date(1969, 12, 6))
    assert sum(1 for p in karl.players if p.rating) == 146
    (stand_in,) = problems_matching(karl, WARNING, "stand-in for the bye")
    assert stand_in.line == karl.players[-1].line
    assert karl.players[-1].name == "spielfrei"

    latin = parse_trf((CORPUS / "icu_latin-1.tab").read_bytes())
    assert latin.tournament.name == "Läs Végas National Opeñ"
    assert latin.encoding == "cp1252"
    juniors = parse_trf((CORPUS / "icu_irish_junior_champs_2011.tab").read_bytes())
    assert juniors.players[23].name == "Morgan, Mícheál"

    bom = parse_trf((CORPUS / "icu_armstrong_2012_with_bom.tab").read_bytes())
    assert bom.tournament.name.startswith("Leinster")
    assert bom.encoding == "utf-8-sig"
    assert (bom.tournament.start_date, bom.tournament.end_date) == (dt.date(2011, 9, 26), dt.date(2012, 4, 1))

    cr = parse_trf((CORPUS / "bbp_issue_7_cr_line_endings.trf").read_bytes())
    assert cr.tournament.rounds_declared == 15
    assert cr.tournament.rounds_played == 14

    armstrong = parse_trf((CORPUS / "icu_armstrong_2011.tab").read_bytes())
    assert len(armstrong.tournament.teams) == 12
    assert armstrong.tournament.name.startswith("Leinster")

    cup = parse_trf((CORPUS / "echecsjs_grandmommyscup.trf").read_bytes())
    assert cup.version == "TRF-2026"
    assert cup.tournament.encoded_type == "FIDE_TEAM_BAKU"
    assert (len(cup.tournament.teams), len(cup.tournament.national_ratings), len(cup.tournament.byes)) == (
        50,
        15,
        18,
    )

    team = parse_trf((CORPUS / "echecsjs_trf26_team.trf").read_bytes())
    assert team.tournament.national_ratings[0].rating == 2650
    assert team.players[0].fide_id == "4100018363"
    assert team.players[0].birth_date == dt.date(1963, 4, 13)  # written one column late; read anyway


# ------------------------------------------------------------------------------------------ robustness


@st.composite
def mutated_trf(draw):
    data = bytearray(VALID.encode())
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["replace", "insert", "delete", "duplicate-line", "truncate"]))
        position = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "replace" and data:
            data[position] = draw(st.sampled_from(list(b"0123456789 wb-+=HFUZxX,./\r\n\t\xff\xc3\x00")))
        elif kind == "insert":
            data[position:position] = draw(st.binary(min_size=1, max_size=12))
        elif kind == "delete":
            del data[position : position + draw(st.integers(1, 40))]
        elif kind == "duplicate-line":
            lines = bytes(data).split(b"\n")
            line = lines[draw(st.integers(0, len(lines) - 1))]
            data = bytearray(b"\n".join([*lines, line]))
        else:
            del data[position:]
    return bytes(data)


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_trf())
def test_random_mutations_of_a_valid_file_never_raise(data):
    result = parse_trf(data)

    assert isinstance(result, TrfParseResult)
    assert isinstance(result.problems, list)
    assert not [p for p in result.problems if "could not" in p.message]  # no internal failure reported
    found = games(result)
    again = parse_trf(write_trf(result.tournament))
    if result.ok:
        assert again.tournament == result.tournament
        assert games(again) == found


# ------------------------------------------------------------------------------------- hostile numbers
# Issue 20: every number is range-checked by the parser against the field it goes to (Event.rounds and
# Game.round are PositiveSmallIntegerField: 0-32767), refused by line and column with the parser's message.


@pytest.mark.parametrize("code", ["XXR", "142"])
@pytest.mark.parametrize("count", [str(2**63), "32768", "9" * 5000])
def test_a_round_count_beyond_the_field_is_an_error_naming_line_and_column(code, count):
    result = parse_trf(trf(P1, P2, P3, P4, header=[*HEADER, f"{code} {count}"]))

    (error,) = result.errors
    assert (error.line, error.column) == (len(HEADER) + 1, 5)
    assert error.message.startswith(f"record {code}: number of rounds ")
    assert "is outside 0-32767" in error.message
    assert "digits" not in error.message
    assert len(error.message) < 200
    assert result.tournament.rounds_declared is None


def test_a_player_count_of_thousands_of_digits_gets_the_parsers_own_message():
    result = parse_trf(trf(P1, P2, P3, P4, header=[*HEADER[:5], "062 " + "9" * 5000]))

    (warning,) = problems_matching(result, WARNING, "record 062")
    assert (warning.line, warning.column) == (6, 5)
    assert "is outside 0-9999" in warning.message
    assert "digits" not in warning.message
    assert "could not read" not in " ".join(p.message for p in result.problems)


def test_rounds_beyond_the_last_a_game_can_have_are_an_error_at_their_column():
    column = 92 + 10 * 32767  # round 32768
    first = player(1, "Alpha, Ann", rounds="   2 w 1  ").ljust(column - 1) + "   2 w 1"
    second = player(2, "Beta, Bob", rounds="   1 b 0  ").ljust(column - 1) + "   1 b 0"

    result = parse_trf(trf(first, second, header=HEADER[:5]))

    assert [(e.line, e.column) for e in result.errors] == [(6, column), (7, column)]
    assert "round 32768 is beyond the last round an event can have (32767)" in result.errors[0].message
    assert max(entry.round for p in result.players for entry in p.rounds) == 1


def test_round_dates_beyond_the_last_round_are_a_warning():
    dates = "132" + " " * 88 + "24/05/01  " + " " * 10 * 32766 + "24/05/03"
    result = parse_trf(trf(P1, P2, P3, P4, header=[*HEADER[:10], dates]))

    (warning,) = problems_matching(result, WARNING, "record 132")
    assert (warning.line, warning.column) == (11, 92 + 10 * 32767)
    assert len(result.tournament.round_dates) == 1
