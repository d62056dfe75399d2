"""A FIDE list import records the titles it brings as awards (issue 33): new titles and higher ones, in bulk."""

import dataclasses
import datetime as dt
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEvent
from players.models import Player, TitleAward, TitleMethod
from ratings.fide_list import write_fide_list_txt
from ratings.services.fide_list_import import fide_list_import
from tests.ratings.test_fide_list_import import LIST_DATE, ROWS, txt

pytestmark = pytest.mark.django_db

NOVEMBER = dt.date(2026, 11, 1)


def awards() -> set[tuple[int, str, dt.date, str]]:
    return {(a.player.id_number, a.title, a.date, a.method) for a in TitleAward.objects.select_related("player")}


def imported(rows, list_date):
    return fide_list_import(io.BytesIO(txt(write_fide_list_txt(rows))), list_date=list_date)


def test_a_first_load_records_every_title_on_the_list_as_imported():
    outcome = imported(ROWS, LIST_DATE)

    # Carlsen GM (open track); Novak's list title WIM is a women's title: one WIM award, not two
    assert awards() == {
        (ROWS[0].fide_id, "GM", LIST_DATE, TitleMethod.IMPORTED),
        (ROWS[1].fide_id, "WIM", LIST_DATE, TitleMethod.IMPORTED),
    }
    assert outcome.titles_awarded == 2
    assert "2 title(s) recorded as awards" in outcome.summary()
    award = TitleAward.objects.get(title="GM")
    assert award.reference == "FIDE rating list 2026-10-01"
    assert award.recorded_by is None
    assert AuditEvent.objects.filter(action="fide_list.import").first().after["titles_awarded"] == 2


def test_a_later_list_records_higher_and_new_titles_only():
    imported(ROWS, LIST_DATE)
    later = [
        dataclasses.replace(ROWS[0], title="IM"),  # lower than the GM held: no award (nor one for a CM, below)
        dataclasses.replace(ROWS[1], title="FM", women_title="WGM"),  # FM new on the open track, WGM higher
        dataclasses.replace(ROWS[2], title="CM"),  # a new title
        ROWS[3],
    ]

    outcome = imported(later, NOVEMBER)

    assert outcome.titles_awarded == 3
    assert {a for a in awards() if a[2] == NOVEMBER} == {
        (ROWS[1].fide_id, "FM", NOVEMBER, TitleMethod.IMPORTED),
        (ROWS[1].fide_id, "WGM", NOVEMBER, TitleMethod.IMPORTED),
        (ROWS[2].fide_id, "CM", NOVEMBER, TitleMethod.IMPORTED),
    }
    novak = Player.objects.get(id_number=ROWS[1].fide_id)
    assert (novak.title, novak.women_title) == ("FM", "WGM")  # the current titles: what the list says


def test_the_same_list_again_awards_nothing_and_the_title_reading_is_one_query():
    imported(ROWS, LIST_DATE)
    with CaptureQueriesContext(connection) as unchanged:
        outcome = imported(ROWS, NOVEMBER)
    assert outcome.titles_awarded == 0
    assert TitleAward.objects.count() == 2

    later = [dataclasses.replace(r, title="CM") if r.fide_id == ROWS[2].fide_id else r for r in ROWS]
    with CaptureQueriesContext(connection) as changed:
        assert imported(later, dt.date(2026, 12, 1)).titles_awarded == 1
    # in bulk: one join reads the changes whatever the list's size, one write stores the awards
    reads = [q for q in unchanged.captured_queries if "LEFT JOIN" in q["sql"] and "women_title" in q["sql"]]
    assert len(reads) == 1
    assert len(changed.captured_queries) <= len(unchanged.captured_queries) + 1
