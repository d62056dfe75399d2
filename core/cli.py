"""Argument types shared by the management commands."""

from __future__ import annotations

import argparse
import datetime

DATE_FORM = "YYYY-MM-DD"


def iso_date(text: str) -> datetime.date:
    """An argparse ``type`` for a date option (``--date``, ``--list-date``), given as YYYY-MM-DD.

    argparse names the option in front of the refusal (``argument --date: expected a date YYYY-MM-DD, got
    '1 March', which is not a date``); from the shell the command exits with status 2, through
    ``call_command`` it raises CommandError."""
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date {DATE_FORM}, got {text!r}, which is not a date") from None
