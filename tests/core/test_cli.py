"""Every management command that takes a date reads it with core.cli.iso_date: YYYY-MM-DD, and a refusal that
names the option and the form expected."""

import datetime

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from core.cli import iso_date


def test_iso_date_reads_a_calendar_date():
    assert iso_date("2026-03-01") == datetime.date(2026, 3, 1)


@pytest.mark.parametrize(
    ("command", "option", "given", "other_args"),
    [
        ("publish_rating_list", "--date", "2026-13-01", []),
        ("export_rating_list", "--date", "1 March", ["--rating-type", "standard", "--format", "csv"]),
        ("import_fide_list", "--list-date", "2026/10/01", ["players_list.txt"]),
        ("rating_calc", "--list-date", "01.10.2026", ["--rating", "2000", "--game", "1800:1"]),
    ],
)
def test_every_date_option_refuses_what_is_not_a_date_naming_the_option_and_the_form(
    command, option, given, other_args
):
    with pytest.raises(CommandError) as refused:
        call_command(command, *other_args, option, given)
    assert f"argument {option}: expected a date YYYY-MM-DD, got {given!r}" in str(refused.value)
