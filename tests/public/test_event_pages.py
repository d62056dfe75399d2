"""The public event pages on par with chess-results (issue 32, event pages): search and filters, standings after
round N, pairings per round, player cards, the starting list, round robins with Sonneborn-Berger, the ratings
of the list in force for an event not rated yet, and the crosstable as CSV and PDF."""

import csv
import io
import re

import pytest
from pypdf import PdfReader

from core import pdf
from events.models import Event, EventStatus, EventSystem, Result
from events.selectors import GameLine, PlayerLine, standings_compute
from ratings.engine.classes import tournament_category
from ratings.models import RatingListEntry
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return response.content.decode()


def players(n: int) -> list[PlayerLine]:
    return [PlayerLine(i, i, i, 1000 + i, f"P{i}") for i in range(1, n + 1)]


def test_round_robin_is_ordered_by_sonneborn_berger():
    # 1 beats 2 and 4, loses to 3; 2 beats 4, draws 3; 3 beats 1, loses to 4: 2 and 3 tie on 1½ points.
    games = [
        GameLine(1, 1, 2, Result.WHITE_WIN),
        GameLine(1, 3, 4, Result.BLACK_WIN),
        GameLine(2, 1, 3, Result.BLACK_WIN),
        GameLine(2, 2, 4, Result.WHITE_WIN),
        GameLine(3, 1, 4, Result.WHITE_WIN),
        GameLine(3, 2, 3, Result.DRAW),
    ]
    robin = standings_compute(players(4), games, 3, round_robin=True)
    assert {row.start_rank: row.points for row in robin.rows} == {1: 2.0, 2: 1.5, 3: 1.5, 4: 1.0}
    # SB: each opponent's points times the points scored against them: 2 = 1 (beat 4) + ½ x 1½ (drew 3)
    assert {row.start_rank: row.sonneborn_berger for row in robin.rows} == {1: 2.5, 2: 1.75, 3: 2.75, 4: 1.5}
    # 3 ahead of 2 on SB (Buchholz is the same for both, as in every complete round robin); no shared rank
    assert [(row.rank, row.start_rank) for row in robin.rows] == [(1, 1), (2, 3), (3, 2), (4, 4)]
    assert robin.rows[1].buchholz == robin.rows[2].buchholz


@pytest.fixture
def incomplete(db):
    """A Swiss of 5 declared rounds with only round 1 entered, submitted."""
    event = make_event(name="Unfinished Open", rounds=5, status=EventStatus.SUBMITTED)
    a, b, c, d = make_participants(event, [make_player() for _ in range(4)])
    make_game(event, 1, a, b, Result.WHITE_WIN, board=1)
    make_game(event, 1, c, d, Result.DRAW, board=2)
    return event


def test_an_incomplete_event_says_how_far_it_is_never_final(client, incomplete):
    page = text(client.get(f"/events/{incomplete.pk}/"))
    assert "Final standings" not in page
    assert "Standings after round 1 of 5" in page


def test_standings_after_round_n_ignore_later_rounds(client, federation):
    event = federation.rated_event
    page = text(client.get(f"/events/{event.pk}/", {"round": 1}))
    assert f"Standings after round 1 of {event.rounds}" in page
    table = page[page.index("<tbody>") : page.index("</tbody>")]
    points = re.findall(r'<td class="num pts"><strong>([^<]*)</strong>', table)
    assert sorted(points, reverse=True)[0] in ("1", "½")  # one round played: at most one point


@pytest.mark.parametrize("value", ["abc", "0", "99", "9" * 4000])
def test_a_bad_round_is_named_not_a_traceback(client, federation, value):
    response = client.get(f"/events/{federation.rated_event.pk}/", {"round": value})
    assert response.status_code == 400
    assert "is not a round of this event" in text(response)
    api = client.get(f"/api/v1/events/{federation.rated_event.pk}/", {"round": value})
    assert api.status_code in (400, 404)  # a number out of the schema's range: 400; a round it lacks: 404
    assert "round" in str(api.json())


def test_a_submitted_event_not_rated_shows_the_ratings_in_force_its_average_and_category(client, federation):
    event = federation.submitted_event
    entries = dict(
        RatingListEntry.objects.filter(rating_list=federation.latest, player__participations__event=event).values_list(
            "player__id_number", "rating"
        )
    )
    ratings = [r for r in entries.values() if r]
    assert ratings  # the list in force at the start (1 March; the event starts on the 11th) rates them
    page = text(client.get(f"/events/{event.pk}/"))
    average = round(sum(ratings) / len(ratings))
    assert f"<dd>{average}" in page
    category = tournament_category(average)
    assert ("<dd>—</dd>" not in page.split("Category")[1][:40]) == bool(category)
    for rating in ratings:
        assert f'<td class="num">{rating}</td>' in page
    assert "the list in force at the event" in page
    data = client.get(f"/api/v1/events/{event.pk}/").json()
    assert data["average_rating"] == average
    assert data["ratings_source"] == "in_force"


def test_pairings_of_a_round_list_each_board(client, incomplete):
    page = text(client.get(f"/events/{incomplete.pk}/rounds/1/"))
    boards = re.findall(r'<td class="result nowrap">([^<]*)</td>', page)
    assert boards == ["1 – 0", "½ – ½"]
    assert client.get(f"/events/{incomplete.pk}/rounds/2/").status_code == 200  # not paired yet: says so
    assert "not been paired yet" in text(client.get(f"/events/{incomplete.pk}/rounds/2/"))
    assert client.get(f"/events/{incomplete.pk}/rounds/6/").status_code == 404


def test_player_card_lists_games_with_opponent_rating_colour_result_and_change(client, federation):
    event = federation.rated_event
    star = event.participants.get(player=federation.star)
    page = text(client.get(f"/events/{event.pk}/players/{star.start_rank}/"))
    change = federation.latest.changes.get(player=federation.star, event=event)
    assert f"{change.change:+.2f}".replace("-", "−") in page
    games = page[page.index('<table class="player-games">') : page.index("</table>", page.index("player-games"))]
    assert games.count("<tr class=") == event.rounds
    assert len(re.findall(r"<td>(white|black)</td>", games)) == event.rounds
    opponents = re.findall(rf'href="/events/{event.pk}/players/(\d+)/"', games)
    assert str(star.start_rank) not in opponents
    assert len(opponents) == event.rounds
    assert client.get(f"/events/{event.pk}/players/999/").status_code == 404


def test_starting_list_and_facts_name_the_chief_arbiter_organiser_and_last_update(client, federation):
    event = federation.rated_event
    Event.objects.filter(pk=event.pk).update(chief_arbiter_name="IA Ana Pérez", organiser="Club Madrid")
    page = text(client.get(f"/events/{event.pk}/start-list/"))
    assert "IA Ana Pérez" in page
    assert "Club Madrid" in page
    assert "Last update" in page
    ranks = re.findall(r'<tr><td class="num">(\d+)</td>', page)
    assert ranks == [str(n) for n in range(1, event.participants.count() + 1)]
    data = client.get(f"/api/v1/events/{event.pk}/").json()["event"]
    assert data["chief_arbiter"] == "IA Ana Pérez"
    assert data["organiser"] == "Club Madrid"
    assert data["last_update"]


def test_events_index_searches_and_filters(client, federation):
    def names(**query) -> list[str]:
        response = client.get("/events/", query)
        assert response.status_code == 200
        return re.findall(r'<th scope="row" class="name"><a href="/events/\d+/">([^<]*)</a>', text(response))

    assert set(names()) == {"Spring Closed", "Summer Open"}
    assert names(q="summer") == ["Summer Open"]
    assert names(q="open paris") == ["Summer Open"]  # every word, in the name or the place
    assert names(system=EventSystem.ROUND_ROBIN) == ["Spring Closed"]
    assert names(federation="fra") == ["Summer Open"]
    assert names(date_from="2026-03-05") == ["Summer Open"]
    assert names(date_to="2026-03-05") == ["Spring Closed"]
    assert names(rating_type="blitz") == []
    api = client.get("/api/v1/events/", {"q": "summer"}).json()
    assert [e["name"] for e in api["results"]] == ["Summer Open"]


def test_events_index_names_a_bad_filter(client, federation):
    response = client.get("/events/", {"date_from": "2026-13-45", "federation": "SPAIN"})
    assert response.status_code == 400
    page = text(response)
    assert "From: Enter a valid date." in page
    assert "Federation:" in page
    assert client.get("/api/v1/events/", {"date_from": "yesterday"}).status_code == 400


def test_crosstable_csv_has_every_player_with_points(client, federation):
    event = federation.rated_event
    response = client.get(f"/events/{event.pk}/crosstable.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    header, body = rows[0], rows[1:]
    assert header[:3] == ["Rk", "SNo", "Name"]
    assert "SB" in header
    assert "Pts" in header
    assert len(body) == event.participants.count()
    star = next(row for row in body if row[2].startswith(federation.star.surname))
    from public.selectors.events import event_crosstable

    star_row = next(r for r in event_crosstable(event).rows if r.standing.player_id == federation.star.pk)
    assert float(star[header.index("Pts")]) == star_row.standing.points


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


@pytest.mark.parametrize("unicode_font", [True, False], ids=["dejavu", "core-font"])
def test_crosstable_pdf_reads_back_with_names_and_points_even_non_latin(client, federation, monkeypatch, unicode_font):
    if not unicode_font:
        monkeypatch.setattr(pdf, "UNICODE_FONT_DIRECTORIES", ())
    elif pdf.unicode_font() is None:
        pytest.skip("no DejaVu Sans on this machine: the core-font case covers the fallback")
    federation.star.surname, federation.star.given_names = "Łukasiewicz-Иванов", "Zoë 李"
    federation.star.save()
    event = federation.rated_event
    response = client.get(f"/events/{event.pk}/crosstable.pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    content = pdf_text(response.content)
    assert event.name in content
    expected = "Łukasiewicz-Иванов" if unicode_font else "Lukasiewicz-??????"
    assert expected in content
    for name in event.participants.exclude(player=federation.star).values_list("player__surname", flat=True):
        assert name in content
    assert re.search(r"\bPts\b", content)
    assert re.search(r"\bSB\b", content)


def test_pdf_text_keeps_latin1_and_transliterates_the_rest():
    assert pdf.pdf_text("García Núñez") == "García Núñez"
    assert pdf.pdf_text("Łódź Dvořák") == "Lódz Dvorák"
    assert pdf.pdf_text("Иван 李") == "???? ?"


def test_event_pages_query_counts(client, federation, django_assert_num_queries):
    with django_assert_num_queries(7):  # event, changes, participants, games, list in force, its entries, timeline
        assert client.get(f"/events/{federation.submitted_event.pk}/").status_code == 200
    for path in ("rounds/1/", "start-list/", "players/1/", "crosstable.csv"):
        with django_assert_num_queries(5):  # event, changes, participants, games, status timeline
            assert client.get(f"/events/{federation.rated_event.pk}/{path}").status_code == 200


def test_round_robin_page_is_an_n_by_n_grid(client, federation):
    event = federation.rated_event
    page = text(client.get(f"/events/{event.pk}/"))
    n = event.participants.count()
    assert page.count('<td class="num cell self">×</td>') == n
    header = page[page.index("<thead>") : page.index("</thead>")]
    assert "SB" in header
    assert "BH" not in header
    assert "R1<" not in header


def test_tie_breaks_print_in_quarters_without_a_decimal_separator():
    from public.selectors.events import fraction_text

    # Sonneborn-Berger runs in quarters (½ x 1½ = ¾): the halves-only points filter printed 2.75 as "3"
    assert [fraction_text(v) for v in (0, 0.25, 0.5, 2.75, 10, 3.5)] == ["0", "¼", "½", "2¾", "10", "3½"]
