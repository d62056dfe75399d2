#!/usr/bin/env python3
"""The two entry points of the README, using nothing but Python 3.11's standard library.

    python3.11 dev.py run    create .venv, install, migrate, create the admin account, fill an empty database
                             with a simulated federation, then serve http://127.0.0.1:8000 with a Celery
                             worker and beat; Ctrl-C stops everything.
    python3.11 dev.py test   create .venv, install the test tools, then ruff (lint and format), import-linter
                             (the layers), mypy, `manage.py check`, `makemigrations --check` and the whole pytest
                             suite (extra arguments go to pytest).

Both honour DATABASE_URL and CELERY_BROKER_URL (see README.md); without them the embedded default is used.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
VAR = ROOT / "var"


def say(message: str) -> None:
    print(f"[dev] {message}", flush=True)


def ensure_venv(requirements: str) -> None:
    """Create .venv and install ``requirements`` once per content hash of the requirement files."""
    if sys.version_info[:2] < (3, 11):  # noqa: UP036 (this script may be started by an older Python)
        sys.exit(f"Python 3.11 or newer is required; this is {sys.version.split()[0]}")
    if not PYTHON.exists():
        say(f"creating virtual environment in {VENV}")
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    digest = hashlib.sha256()
    for name in ("requirements.txt", "requirements-dev.txt"):
        digest.update((ROOT / name).read_bytes())
    stamp = VENV / f".installed-{requirements}"
    if stamp.exists() and stamp.read_text() == digest.hexdigest():
        return
    say(f"installing {requirements}")
    subprocess.run([str(PYTHON), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    subprocess.run([str(PYTHON), "-m", "pip", "install", "--quiet", "-r", str(ROOT / requirements)], check=True)
    stamp.write_text(digest.hexdigest())


def manage(*args: str, env: dict[str, str] | None = None, check: bool = True) -> int:
    return subprocess.run([str(PYTHON), str(ROOT / "manage.py"), *args], env=env, cwd=ROOT, check=check).returncode


def _stop(signum, frame) -> None:
    raise KeyboardInterrupt


def run() -> None:
    # Ctrl-C (SIGINT) and SIGTERM both stop the server, worker and beat; installed explicitly because a
    # shell that starts us in the background may have set SIGINT to "ignore".
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    ensure_venv("requirements.txt")
    VAR.mkdir(exist_ok=True)
    env = dict(os.environ)
    env.setdefault("DEBUG", "1")
    password_file = VAR / "admin-password.txt"
    if "FEDERATION_ADMIN_PASSWORD" not in env:
        if not password_file.exists():
            password_file.write_text(secrets.token_urlsafe(12) + "\n")
            password_file.chmod(0o600)
        env["FEDERATION_ADMIN_PASSWORD"] = password_file.read_text().strip()
    manage("migrate", "--no-input", env=env)
    manage("ensure_admin", env=env)
    processes: list[subprocess.Popen] = []
    celery = [str(PYTHON), "-m", "celery", "-A", "federation"]
    try:
        processes.append(
            subprocess.Popen([*celery, "worker", "--loglevel", "INFO", "--concurrency", "2"], env=env, cwd=ROOT)
        )
        processes.append(
            subprocess.Popen(
                [*celery, "beat", "--loglevel", "INFO", "--schedule", str(VAR / "celerybeat-schedule")],
                env=env,
                cwd=ROOT,
            )
        )
        manage("demo_federation", env=env)
        say(
            "serving http://127.0.0.1:8000/ (admin: http://127.0.0.1:8000/admin/, user 'admin', password "
            + (
                "from FEDERATION_ADMIN_PASSWORD"
                if "FEDERATION_ADMIN_PASSWORD" in os.environ
                else f"in {password_file.relative_to(ROOT)}"
            )
            + "); Ctrl-C stops"
        )
        processes.append(
            subprocess.Popen([str(PYTHON), "manage.py", "runserver", "127.0.0.1:8000", "--noreload"], env=env, cwd=ROOT)
        )
        while all(p.poll() is None for p in processes):
            time.sleep(0.5)
        say("a process stopped; shutting down the others")
    except KeyboardInterrupt:
        say("stopping")
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


def test(pytest_args: list[str]) -> None:
    ensure_venv("requirements-dev.txt")
    env = dict(os.environ)
    env.setdefault("SECRET_KEY", "test-only-" + secrets.token_hex(16))
    steps = [
        [str(PYTHON), "-m", "ruff", "check", "."],
        [str(PYTHON), "-m", "ruff", "format", "--check", "."],
        [str(BIN / "lint-imports"), "--no-cache"],
        [str(PYTHON), "-m", "mypy", "."],
        [str(PYTHON), "manage.py", "check"],
        [str(PYTHON), "manage.py", "makemigrations", "--check", "--dry-run"],
        [str(PYTHON), "-m", "pytest", *pytest_args],
    ]
    if shutil.which("chromium") is None and os.geteuid() == 0 and shutil.which("apt-get"):
        # The browser test drives Debian's Chromium; install it where missing (root only).
        say("installing chromium for the browser test")
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "chromium"],
            check=False,
            stdout=subprocess.DEVNULL,
            env={**env, "DEBIAN_FRONTEND": "noninteractive"},
        )
    for step in steps:
        say(" ".join(Path(step[0]).name if i == 0 else a for i, a in enumerate(step)))
        result = subprocess.run(step, env=env, cwd=ROOT)
        if result.returncode:
            sys.exit(result.returncode)


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in {"run", "test"}:
        sys.exit(__doc__)
    if sys.argv[1] == "run":
        run()
    else:
        test(sys.argv[2:])


if __name__ == "__main__":
    main()
