"""events.rounds: a player plays once per round, written once for the admin form, the round entry and TRF files."""

import subprocess
import sys
from pathlib import Path

from events.rounds import paired_twice

ROOT = Path(__file__).resolve().parents[2]


def test_players_in_one_pairing_a_round_are_fine():
    assert paired_twice([(1, 1, 2), (1, 3, 4), (1, 5, None), (2, 1, 3), (2, 2, 4)]) == {}


def test_a_player_in_two_pairings_of_a_round_is_named_with_the_positions_of_both():
    pairings = [(1, 1, 2), (1, 3, 1), (1, 4, None)]

    assert paired_twice(pairings) == {(1, 1): [0, 1]}


def test_a_bye_and_a_game_in_one_round_are_two_pairings():
    assert paired_twice([(3, 7, None), (3, 5, 7)]) == {(3, 7): [0, 1]}


def test_the_same_player_in_two_rounds_is_no_problem():
    assert paired_twice([(1, 1, 2), (2, 1, 2), (3, 2, 1)]) == {}


def test_every_player_paired_twice_is_named_ordered_by_round_then_player():
    pairings = [(2, 9, 8), (1, 5, 6), (2, 8, 7), (1, 6, 5), (2, 9, None)]

    assert list(paired_twice(pairings)) == [(1, 5), (1, 6), (2, 8), (2, 9)]
    assert paired_twice(pairings)[(2, 9)] == [0, 4]


def test_a_player_on_both_sides_of_one_pairing_is_in_it_twice():
    assert paired_twice([(4, 3, 3)]) == {(4, 3): [0, 0]}


def test_nobody_is_never_paired_twice():
    assert paired_twice([(1, None, None), (1, 2, None), (1, 3, None)]) == {}


def test_the_rule_is_pure_so_the_trf_package_may_use_it():
    code = "import sys, events.rounds; print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
