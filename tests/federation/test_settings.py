"""Settings come from the environment; a malformed value stops start-up with one line naming it (never a
traceback); on the embedded default every command works in a fresh shell with no variable set."""

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_DATABASE = "postgres://federation@127.0.0.1:5432/federation"


def start(env_overrides: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "DATABASE_URL"}}
    env.update(env_overrides)
    return subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True)


def fresh_shell_env(**variables: str) -> dict[str, str]:
    """What `env -i PATH=/usr/bin:/bin HOME=$HOME` leaves: nothing the project reads."""
    return {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root"), **variables}


@pytest.fixture
def scratch_checkout(tmp_path) -> Path:
    """A copy of the project without var/ (as a fresh clone has), so that nothing touches this checkout's var/."""
    target = tmp_path / "checkout"
    shutil.copytree(
        ROOT,
        target,
        ignore=shutil.ignore_patterns(
            ".git", "var", ".venv", "__pycache__", "tests", "bench", "staticfiles", ".*cache"
        ),
    )
    return target


def run_in(checkout: Path, args: list[str], env: dict[str, str], program: list[str] | None = None):
    command = [*(program or [sys.executable, "manage.py"]), *args]
    return subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, timeout=300)


def assert_one_line_refusal(result: subprocess.CompletedProcess, message: str) -> None:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert message in lines[0]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"DEBUG": "maybe"}, "DEBUG: expected one of"),
        ({"DEBUG": "0", "DATABASE_URL": PRODUCTION_DATABASE}, "SECRET_KEY: required in production"),
        ({"DEBUG": "1", "TIME_ZONE": "Mars/Olympus"}, "TIME_ZONE: unknown time zone"),
        ({"DEBUG": "1", "CELERY_BROKER_URL": "carrier-pigeon://x"}, "CELERY_BROKER_URL: expected a URL"),
        ({"DEBUG": "1", "DATABASE_URL": "nosuchdb://x"}, "DATABASE_URL:"),
        ({"DEBUG": "1", "SECURE_HSTS_SECONDS": "soon"}, "SECURE_HSTS_SECONDS: expected an integer"),
    ],
)
def test_malformed_environment_value_stops_start_up_with_one_line_naming_the_variable(overrides, message):
    assert_one_line_refusal(start(overrides), message)


def test_development_defaults_start_without_any_environment(tmp_path):
    result = start({"DEBUG": "1", "FEDERATION_VAR_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr


def test_a_fresh_shell_runs_commands_with_no_variable_and_keeps_one_private_key(scratch_checkout):
    env = fresh_shell_env()
    first = run_in(scratch_checkout, ["check"], env)
    assert first.returncode == 0, first.stderr
    key_file = scratch_checkout / "var" / "secret-key.txt"
    key = key_file.read_text()
    assert len(key.strip()) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    migrate = run_in(scratch_checkout, ["migrate", "--no-input"], env)
    assert migrate.returncode == 0, migrate.stderr
    calc = run_in(
        scratch_checkout,
        ["rating_calc", "--rules", "fide-2024", "--rating", "2000", "--k", "20", "--game", "2100:1"],
        env,
    )
    assert calc.returncode == 0, calc.stderr
    # Every later command signs with the same key (sessions survive a restart).
    assert key_file.read_text() == key


def test_production_without_a_secret_key_refuses_to_start_in_one_line(scratch_checkout):
    env = fresh_shell_env(DEBUG="0", DATABASE_URL=PRODUCTION_DATABASE)
    result = run_in(scratch_checkout, ["check"], env)
    assert_one_line_refusal(result, "SECRET_KEY: required in production (DATABASE_URL is set and DEBUG is off)")
    assert "set it to a long random value, e.g. SECRET_KEY" in result.stderr  # says what to write
    assert not (scratch_checkout / "var" / "secret-key.txt").exists()


@pytest.mark.parametrize(
    "program",
    [
        ["-c", "import federation.wsgi"],
        ["-c", "import federation.asgi"],
        ["-m", "celery", "-A", "federation", "report"],
    ],
    ids=["wsgi", "asgi", "celery"],
)
def test_every_entry_point_reports_a_configuration_error_in_one_line(scratch_checkout, program):
    result = run_in(scratch_checkout, [], fresh_shell_env(DEBUG="maybe"), program=[sys.executable, *program])
    assert_one_line_refusal(result, "DEBUG: expected one of true/false/1/0/yes/no/on/off, got 'maybe'")


def test_entry_points_start_in_a_fresh_shell_on_the_embedded_default(scratch_checkout):
    for program in (["-c", "import federation.wsgi"], ["-c", "import federation.asgi"]):
        result = run_in(scratch_checkout, [], fresh_shell_env(), program=[sys.executable, *program])
        assert result.returncode == 0, result.stderr
