"""rating_calc management command: a thin wrapper over the engine's calculator (no database)."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module", autouse=True)
def django_settings():
    """pytest-django configures Django; with ``-p no:django`` the module does it itself (no database used)."""
    import django
    from django.conf import settings

    if not settings.configured:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "federation.settings")
        os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production")
        django.setup()


def run(*args: str) -> str:
    from django.core.management import call_command

    out = io.StringIO()
    call_command("rating_calc", *args, stdout=out)
    return out.getvalue()


P1_GAMES = [
    "--game",
    "1787:1",
    "--game",
    "2025:1",
    "--game",
    "2310:1",
    "--game",
    "2400:1",
    "--game",
    "2505:0.5",
]
N1_GAMES = [
    "--game",
    "1902:1",
    "--game",
    "1877:1",
    "--game",
    "1884:1",
    "--game",
    "2012:0",
    "--game",
    "1832:0",
]


def test_p1_calculation_printed_like_fides_page():
    text = run("--rules", "fide-2024", "--rating", "2813", "--k", "10", *P1_GAMES)
    assert "  4    2400     2400    413   0.93     1   0.07    0.70" in text
    assert "Change -2.50 -> -3 (per-period rounding)" in text
    assert text.rstrip().endswith("New rating 2810")


def test_json_output_has_every_line_with_capped_opponents_marked():
    data = json.loads(run("--rules", "fide-2024", "--rating", "2200", "--k", "20", "--game", "2700:0", "--json"))
    assert data["rules"] == "fide-2024"
    line = data["lines"][0]
    assert (line["opponent_rating"], line["opponent_rating_used"], line["capped"]) == (2700, 2600, True)
    assert (line["difference"], line["expected_score"], line["rating_change"]) == (-400, 0.08, -0.08)
    assert (data["change"], data["rounded_change"], data["new_rating"]) == (-1.6, -2, 2198)


def test_unrated_player_gets_the_2024_initial_rating():
    text = run("--unrated", *N1_GAMES)
    assert "Ra 1872.43, p 57% -> dp 50" in text
    assert "Ru 1922.43 -> 1922" in text
    assert "Published" in text
    data = json.loads(run("--unrated", "--json", *N1_GAMES))
    assert (data["initial_rating"], data["published"], data["hypothetical_opponents"]) == (1922, True, 2)


def test_previous_rule_preset_gives_fides_printed_rp():
    data = json.loads(run("--rules", "fide-2014", "--unrated", "--json", *N1_GAMES))
    assert data["initial_rating"] == 1921


def test_unrated_opponent_is_listed_but_changes_nothing():
    data = json.loads(run("--rating", "2000", "--k", "20", "--game", "unrated:1", "--game", "2000:1", "--json"))
    assert [line["rated"] for line in data["lines"]] == [False, True]
    assert data["games"] == 1
    assert data["new_rating"] == 2010


def test_k_is_derived_from_the_preset_when_not_given():
    data = json.loads(run("--rating", "2100", "--rated-games", "5", "--game", "2100:1", "--json"))
    assert data["k_factor"] == 40


def test_per_event_numbers_reach_the_first_event_rule():
    text = run("--unrated", "--game", "1600:0:1", "--game", "1600:0:1", "--game", "1700:1:2")
    assert "1 event(s) disregarded" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rating", "2000", "--game", "1800:0.7"], "--game 1800:0.7: score '0.7' must be 1, 0.5"),
        (
            ["--rules", "fide-1999", "--rating", "2000", "--game", "1800:1"],
            "unknown rules preset 'fide-1999'; known presets: elo-logistic",
        ),
        (["--game", "1800:1"], "--rating is required"),
        (["--rating", "2000"], "give at least one --game"),
        (["--rating", "2000", "--game", "abc:1"], "opponent rating 'abc' is not a number"),
        (["--rating", "2000", "--game", "1800"], "expected OPP:SCORE"),
        (["--unrated", "--rating", "2000", "--game", "1800:1"], "leave out --rating and --k"),
        (["--rating", "2000", "--k", "0", "--game", "1800:1"], "K factor must be positive"),
        (["--rating", "2000", "--game", "1800:1", "--list-date", "2026-13-01"], "is not a date"),
    ],
)
def test_bad_input_is_refused_with_a_reason(args, message):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError) as refused:
        run(*args)
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


def test_help_documents_every_option():
    from django.core.management import load_command_class

    command = load_command_class("ratings", "rating_calc")
    text = command.create_parser("manage.py", "rating_calc").format_help()
    for option in (
        "--rules",
        "--rating",
        "--k",
        "--game",
        "--unrated",
        "--rating-type",
        "--rated-games",
        "--birth-year",
        "--list-date",
        "--json",
    ):
        assert option in text
    assert "fide-2024" in text
    assert "OPP:SCORE" in text


def test_command_line_exits_non_zero_with_a_one_line_reason(tmp_path):
    env = {
        **os.environ,
        "SECRET_KEY": "test-only",
        "FEDERATION_VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "federation.settings",
    }
    refused = subprocess.run(
        [sys.executable, "manage.py", "rating_calc", "--rating", "2000", "--game", "1800:2"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode != 0
    assert refused.stderr.strip().splitlines() == [
        "CommandError: --game 1800:2: score '2' must be 1, 0.5 (or 1/2, ½, =) or 0"
    ]
    accepted = subprocess.run(
        [sys.executable, "manage.py", "rating_calc", "--rating", "2000", "--k", "20", "--game", "2000:1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert accepted.returncode == 0, accepted.stderr
    assert "New rating 2010" in accepted.stdout


# --- Glicko-2 -------------------------------------------------------------------------------------------

GLICKO2_EXAMPLE = ["--rules", "glicko2", "--rating", "1500", "--deviation", "200", "--volatility", "0.06"]
GLICKO2_GAMES = ["--game", "1400:1:30", "--game", "1550:0:100", "--game", "1700:0:300"]


def test_glicko2_worked_example_as_json():
    data = json.loads(run(*GLICKO2_EXAMPLE, *GLICKO2_GAMES, "--json"))
    assert abs(data["new_rating"] - 1464.06) < 0.01
    assert round(data["new_rating"], 4) == 1464.0507
    assert round(data["new_deviation"], 2) == 151.52
    assert abs(data["new_volatility"] - 0.05999) < 1e-5
    assert [line["opponent_deviation"] for line in data["lines"]] == [30.0, 100.0, 300.0]
    assert [round(line["expected_score"], 3) for line in data["lines"]] == [0.639, 0.432, 0.303]


def test_glicko2_text_output_has_one_line_per_game():
    text = run(*GLICKO2_EXAMPLE, *GLICKO2_GAMES)
    assert "New rating 1464.05, RD 151.52, volatility 0.059996" in text
    assert "0.9955" in text
    assert "0.7242" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([*GLICKO2_EXAMPLE, "--game", "1400:1"], "OPP:SCORE:OPP_DEVIATION"),
        ([*GLICKO2_EXAMPLE, "--game", "1400:1:abc"], "opponent deviation"),
        ([*GLICKO2_EXAMPLE, "--game", "unrated:1:30"], "opponent's rating"),
        ([*GLICKO2_EXAMPLE, "--k", "20", *GLICKO2_GAMES], "no K"),
        (["--rules", "glicko2", *GLICKO2_GAMES], "--rating is required"),
        (["--rules", "fide-2024", "--rating", "2000", "--deviation", "50", "--game", "1800:1"], "Glicko-2 presets"),
    ],
)
def test_glicko2_bad_arguments_name_the_problem(args, message):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match=message):
        run(*args)
