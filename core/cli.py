"""Argument types shared by the management commands."""

from __future__ import annotations

import argparse
import datetime

from core.pagination import whole_number

DATE_FORM = "YYYY-MM-DD"
MAX_ID = 2**63 - 1  # the database's bigint


def iso_date(text: str) -> datetime.date:
    """An argparse ``type`` for a date option (``--date``, ``--list-date``), given as YYYY-MM-DD.

    argparse names the option in front of the refusal (``argument --date: expected a date YYYY-MM-DD, got
    '1 March', which is not a date``); from the shell the command exits with status 2, through
    ``call_command`` it raises CommandError."""
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date {DATE_FORM}, got {text!r}, which is not a date") from None


def number(text: str) -> int:
    """An argparse ``type`` for an event's number or a player's ID number: ASCII digits, never a traceback (a
    number of thousands of digits is refused like any other that names nothing)."""
    value = whole_number(text)
    if value is None or value > MAX_ID:
        raise argparse.ArgumentTypeError(f"expected a number such as 42, got {text[:40]!r}")
    return value
