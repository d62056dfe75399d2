"""Settings come from the environment; a malformed value stops start-up with a message naming it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def start(env_overrides: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "DATABASE_URL"}}
    env.update(env_overrides)
    return subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"DEBUG": "maybe"}, "DEBUG: expected one of"),
        ({"DEBUG": "0"}, "SECRET_KEY: required"),
        ({"DEBUG": "1", "TIME_ZONE": "Mars/Olympus"}, "TIME_ZONE: unknown time zone"),
        ({"DEBUG": "1", "CELERY_BROKER_URL": "carrier-pigeon://x"}, "CELERY_BROKER_URL: expected a URL"),
        ({"DEBUG": "1", "DATABASE_URL": "nosuchdb://x"}, "DATABASE_URL:"),
        ({"DEBUG": "1", "SECURE_HSTS_SECONDS": "soon"}, "SECURE_HSTS_SECONDS: expected an integer"),
    ],
)
def test_malformed_environment_value_stops_start_up_naming_the_variable(overrides, message):
    result = start(overrides)
    assert result.returncode != 0
    assert message in result.stderr


def test_development_defaults_start_without_any_environment(tmp_path):
    result = start({"DEBUG": "1", "FEDERATION_VAR_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
