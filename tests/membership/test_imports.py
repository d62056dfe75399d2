"""CSV import of memberships (issue 35): a report by line, nothing written if refused, the command's exit."""

import datetime

import pytest
from django.core.management import CommandError, call_command

from audit.models import AuditEvent
from membership.models import CategoryKind, Membership, MembershipCategory, MembershipSettings
from membership.services.imports import memberships_import_csv
from tests.factories import make_federation, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def federation():
    eng = make_federation("ENG", "England")
    MembershipSettings.objects.create(federation=eng, backdate_until_month=6, backdate_until_day=30)
    MembershipCategory.objects.create(federation=eng, code="adult", name="Adult", price="18.00")
    MembershipCategory.objects.create(federation=eng, code="life", name="Life", kind=CategoryKind.LIFE)
    return eng


def test_good_file_is_imported_with_its_season_and_default_end(federation):
    a, b = make_player(id_number=101, federation=federation), make_player(id_number=102, federation=federation)
    data = b"id_number,category,start,end\n101,adult,2025-10-01,\n102,life,2001-05-05,\n"
    result = memberships_import_csv(data, user=None, federation="ENG", file_name="members.csv")
    assert (result.written, result.problems) == (2, [])
    adult = Membership.objects.get(player=a)
    assert (adult.start, adult.end, adult.season, adult.source) == (
        datetime.date(2025, 10, 1), datetime.date(2026, 8, 31), 2025, "csv"
    )  # fmt: skip
    assert Membership.objects.get(player=b).end is None
    assert AuditEvent.objects.filter(action="membership.import").count() == 1


def test_one_bad_line_refuses_the_file_and_names_it(federation):
    make_player(id_number=101, federation=federation)
    data = (
        b"id_number,category,start\n101,adult,2025-10-01\n101,adult,2025-02-30\n"
        b"999,adult,2025-10-01\n101,gold,2025-10-01\n"
    )
    result = memberships_import_csv(data, user=None, federation="ENG")
    assert result.problems == [
        "line 3: start '2025-02-30' is not a date (YYYY-MM-DD)",
        "line 4: no player with ID number 999",
        "line 5: no category 'gold' in ENG (known: adult, life)",
    ]
    assert Membership.objects.count() == 0


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "line 1: the file is empty; the first line names the columns id_number, category, start, end"),
        (b"id,category\n",
         "line 1: the header lacks the column(s) id_number, start (expected id_number, category, start, end)"),
        (b"\xff\xfe", "the file is not UTF-8 text (byte 0)"),
        (b"id_number,category,start,end\nx1,adult,2025-10-01,2025-09-01\n",
         "line 2: id_number 'x1' is not an ID number (digits only)"),
    ],
)  # fmt: skip
def test_unreadable_files_are_refused_with_the_place(federation, data, problem):
    result = memberships_import_csv(data, user=None, federation="ENG")
    assert result.problems[0] == problem
    assert Membership.objects.count() == 0


def test_command_imports_and_refuses(federation, tmp_path, capsys):
    make_player(id_number=101, federation=federation)
    good = tmp_path / "good.csv"
    good.write_bytes(b"id_number,category,start\n101,adult,2025-10-01\n")
    call_command("import_memberships", str(good), "--federation", "ENG")
    assert "1 memberships imported" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"id_number,category,start\n101,adult,2025-10-01\n101,adult,\n")
    with pytest.raises(CommandError, match="refused, nothing imported"):
        call_command("import_memberships", str(bad), "--federation", "ENG")
    assert "bad.csv: line 3: the start date is empty (YYYY-MM-DD)" in capsys.readouterr().err
    assert Membership.objects.count() == 1
    with pytest.raises(CommandError, match="cannot be read"):
        call_command("import_memberships", str(tmp_path / "missing.csv"))
