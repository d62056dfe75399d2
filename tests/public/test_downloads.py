"""Downloads of a published list: streamed, and readable back by the FIDE-list reader."""

import csv
import io
import xml.etree.ElementTree as ET

import pytest
from django.http import StreamingHttpResponse

from ratings.fide_list import iter_fide_list

pytestmark = pytest.mark.django_db


def body(response) -> str:
    assert isinstance(response, StreamingHttpResponse)
    return b"".join(response.streaming_content).decode()


def published_rows(federation):
    return {
        e.player.id_number: e for e in federation.latest.entries.select_related("player").filter(rating__isnull=False)
    }


def test_txt_download_reads_back_as_the_same_entries(client, federation):
    response = client.get("/lists/2026-03-01/standard.txt")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="standard_2026-03-01.txt"'
    text = body(response)
    assert text.splitlines()[0].split()[-5] == "MAR26"  # rating column headed by the list month, as FIDE
    rows = list(iter_fide_list(io.StringIO(text), rating_type="standard"))
    expected = published_rows(federation)
    assert {row.fide_id for row in rows} == set(expected)
    for row in rows:
        entry = expected[row.fide_id]
        assert row.name == entry.player.name
        assert (row.standard.rating, row.standard.games, row.standard.k_factor) == (
            entry.rating,
            entry.games,
            entry.k_factor,
        )
        assert (row.federation, row.sex, row.title, row.birth_year) == (
            entry.federation,
            entry.sex,
            entry.title,
            entry.birth_year,
        )
        assert row.inactive == entry.inactive
        assert row.woman == (entry.sex == "F")


def test_txt_download_is_in_rating_order_with_fixed_width_lines(client, federation):
    lines = body(client.get("/lists/2026-03-01/standard.txt")).split("\r\n")[1:-1]
    assert len({len(line) for line in lines}) == 1  # fixed width (136 columns)
    ratings = [int(line[113:119]) for line in lines]
    assert ratings == sorted(ratings, reverse=True)


def test_csv_download_has_a_header_and_one_row_per_rated_entry(client, federation):
    response = client.get("/lists/2026-03-01/standard.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(body(response))))
    expected = published_rows(federation)
    assert {int(row["fide_id"]) for row in rows} == set(expected)
    assert all(int(row["standard_rating"]) == expected[int(row["fide_id"])].rating for row in rows)


def test_xml_download_is_fides_playerslist(client, federation):
    root = ET.fromstring(body(client.get("/lists/2026-03-01/rapid.xml")))
    assert root.tag == "playerslist"
    players = root.findall("player")
    rapid = {
        e.player.id_number: e.rating
        for e in federation.lists["rapid"][-1].entries.select_related("player").filter(rating__isnull=False)
    }
    assert {int(p.findtext("fideid")): int(p.findtext("rating")) for p in players} == rapid


def test_downloads_are_404_for_a_list_that_is_not_published(client, federation):
    assert client.get("/lists/2026-03-01/blitz.txt").status_code == 404
    assert client.get("/lists/2026-03-01/standard.pdf").status_code == 404


def test_download_runs_two_queries_whatever_the_list_size(client, federation, django_assert_num_queries):
    # the list header, then the entries through iterator() (chunked; a server-side cursor on PostgreSQL)
    expected = len(published_rows(federation))
    with django_assert_num_queries(2):
        lines = body(client.get("/lists/2026-03-01/standard.csv")).splitlines()
    assert len(lines) == expected + 1
