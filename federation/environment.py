"""Typed reading of settings from the environment.

Every reader names the variable in its error, so a malformed value stops start-up with a message
such as ``DEBUG: expected one of true/false/1/0/yes/no/on/off, got 'maybe'``.
"""

import os
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
