"""The documented production environment passes Django's deployment checklist; no secret is committed."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "operations.md"

# The production environment documented in docs/operations.md ("Production environment").
PRODUCTION_ENVIRONMENT = {
    "DEBUG": "0",
    "ALLOWED_HOSTS": "ratings.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://ratings.example.org",
    "SECURE_SSL_REDIRECT": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_PRELOAD": "1",
    "BEHIND_TLS_PROXY": "1",
}


def manage(args: list[str], env_overrides: dict[str, str], tmp_path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "SECRET_KEY_FILE"}}
    env.update({"FEDERATION_VAR_DIR": str(tmp_path)}, **env_overrides)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)


def test_documented_production_environment_passes_check_deploy_without_warnings(tmp_path):
    env = {**PRODUCTION_ENVIRONMENT, "SECRET_KEY": secrets.token_urlsafe(64)}
    result = manage(["check", "--deploy", "--fail-level", "WARNING"], env, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_secret_key_can_come_from_a_file_outside_the_repository(tmp_path):
    key_file = tmp_path / "secret_key"
    key_file.write_text(secrets.token_urlsafe(64) + "\n")
    env = {**PRODUCTION_ENVIRONMENT, "SECRET_KEY_FILE": str(key_file)}
    result = manage(["check", "--deploy", "--fail-level", "WARNING"], env, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_unreadable_secret_key_file_stops_start_up_naming_it(tmp_path):
    env = {**PRODUCTION_ENVIRONMENT, "SECRET_KEY_FILE": str(tmp_path / "missing")}
    result = manage(["check"], env, tmp_path)
    assert result.returncode != 0
    assert "SECRET_KEY_FILE: cannot read" in result.stderr


def test_development_key_is_refused_by_check_deploy_in_production(tmp_path):
    from federation import settings as project_settings

    settings_text = Path(project_settings.__file__).read_text()
    development_key = re.search(r"development-only-key[\w-]*", settings_text).group(0)
    env = {**PRODUCTION_ENVIRONMENT, "SECRET_KEY": development_key}
    result = manage(["check", "--deploy"], env, tmp_path)
    assert result.returncode != 0
    assert "federation.E001" in result.stderr
    assert "SECRET_KEY is the development key" in result.stderr


def test_production_environment_is_documented_in_operations_guide():
    text = DOCS.read_text()
    for name, value in PRODUCTION_ENVIRONMENT.items():
        assert re.search(rf"\b{name}={re.escape(value)}\b", text), f"{name}={value} is not in docs/operations.md"
    assert "SECRET_KEY" in text
    assert "check --deploy --fail-level WARNING" in text


def test_no_secret_is_committed_to_the_repository():
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    suspicious = re.compile(
        rb"(-----BEGIN (RSA |EC |OPENSSH )?PRIVATE KEY-----"
        rb"|SECRET_KEY\s*=\s*['\"](?!development-only-key|test-only)[^'\"]{8,}['\"]"
        # a password in a database URL, except the documentation's placeholders
        rb"|postgres(ql)?://[^:/@\s]+:(?!(pass|password|PASSWORD|secret|\.\.\.|\$\{?\w+\}?|<[^>]*>)@)[^@\s'\"]+@"
        rb"|AKIA[0-9A-Z]{16})"
    )
    found = []
    for name in tracked.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        for match in suspicious.finditer(path.read_bytes()):
            found.append(f"{name}: {match.group(0)[:60]!r}")
    assert not found, "possible secrets in tracked files:\n" + "\n".join(found)
