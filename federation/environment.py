"""Typed reading of settings from the environment.

Every reader names the variable in its error, so a malformed value stops start-up with a message
such as ``DEBUG: expected one of true/false/1/0/yes/no/on/off, got 'maybe'``; ``configure_or_exit`` (called by
manage.py, wsgi, asgi and the Celery app) prints that one line and exits non-zero instead of a traceback.
"""

import os
import secrets
import sys
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}: expected one of true/false/1/0/yes/no/on/off, got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}: expected an integer, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}: must be at least {minimum}, got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_time_zone(name: str, default: str) -> str:
    value = os.environ.get(name, default).strip()
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ImproperlyConfigured(f"{name}: unknown time zone {value!r} (use an IANA name like Europe/Madrid)")
    return value


def env_database(name: str, default_url: str) -> dict[str, Any]:
    import dj_database_url

    url = os.environ.get(name) or default_url
    try:
        config = dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
    except Exception as exc:  # dj_database_url raises ValueError or its own errors on bad URLs
        raise ImproperlyConfigured(f"{name}: cannot parse database URL {url!r}: {exc}") from None
    if not config.get("ENGINE"):
        raise ImproperlyConfigured(f"{name}: unsupported database URL scheme in {url!r}")
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # Embedded default: wait for locks instead of failing while the worker writes.
        config["OPTIONS"] = {"timeout": 30, "transaction_mode": "IMMEDIATE"}
        config["CONN_MAX_AGE"] = 0
    return dict(config)


def env_url(name: str, default: str, *, schemes: tuple[str, ...]) -> str:
    value = os.environ.get(name) or default
    scheme = value.split("://", 1)[0] if "://" in value else ""
    if scheme not in schemes:
        raise ImproperlyConfigured(f"{name}: expected a URL starting with one of {', '.join(schemes)}; got {value!r}")
    return value


SECRET_KEY_FILE_NAME = "secret-key.txt"


def env_secret_key(var_dir: Path, *, production: bool) -> str:
    """SECRET_KEY, else the file named by SECRET_KEY_FILE, else — outside production — a key generated on
    first use and kept in ``var/secret-key.txt`` (mode 0600, like var/admin-password.txt), so that every
    command of the README works in a fresh shell. Production (DEBUG off, DATABASE_URL set) must set one."""
    key = os.environ.get("SECRET_KEY", "").strip()
    if key:
        return key
    key_file = os.environ.get("SECRET_KEY_FILE", "")
    if key_file:
        # A key kept outside the environment (systemd credentials, Docker secrets); never in the repository.
        try:
            key = Path(key_file).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"SECRET_KEY_FILE: cannot read {key_file!r}: {exc.strerror or exc}") from None
        if not key:
            raise ImproperlyConfigured(f"SECRET_KEY_FILE: {key_file!r} is empty; write a long random value in it")
        return key
    if production:
        raise ImproperlyConfigured(
            "SECRET_KEY: required in production (DATABASE_URL is set and DEBUG is off); set it to a long random "
            "value, e.g. SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))'), "
            "or set SECRET_KEY_FILE to the path of a file holding one"
        )
    return _kept_secret_key(var_dir / SECRET_KEY_FILE_NAME)


def _kept_secret_key(path: Path) -> str:
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            # Written whole under another name, then linked: a second process starting at the same moment
            # either wins the link or reads the finished file, never a half-written one.
            temporary = path.with_name(f".{path.name}.{os.getpid()}")
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w") as handle:
                handle.write(secrets.token_urlsafe(50) + "\n")
            try:
                os.link(temporary, path)
            except FileExistsError:
                pass
            finally:
                temporary.unlink()
        key = path.read_text().strip()
    except OSError as exc:
        raise ImproperlyConfigured(
            f"SECRET_KEY: not set, and the generated key file {str(path)!r} cannot be kept ({exc.strerror or exc}); "
            "set SECRET_KEY to a long random value or make the folder writable"
        ) from None
    if not key:
        raise ImproperlyConfigured(f"SECRET_KEY: the generated key file {str(path)!r} is empty; delete it")
    return key


def configure_or_exit() -> None:
    """Load the settings now. A configuration error prints its one line (naming the variable and what to
    write) on stderr and exits with status 2: no traceback for a person who only has to set a variable."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "federation.settings")
    from django.conf import settings

    try:
        settings.INSTALLED_APPS  # noqa: B018 (the access imports the settings module)
    except ImproperlyConfigured as exc:
        print(f"Configuration error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
