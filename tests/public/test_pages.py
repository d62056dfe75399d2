"""The public pages, driven through Django's test client on data built with the ORM."""

import datetime
import re
from xml.etree import ElementTree

import pytest
from django.utils import timezone

from events.models import Event, EventStatus
from players.models import Player
from tests.public.conftest import LATEST, build_federation

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return response.content.decode()


def test_home_shows_latest_list_of_each_type_with_top_players_and_search(client, federation):
    response = client.get("/")
    assert response.status_code == 200
    page = text(response)
    assert "/lists/2026-03-01/standard/" in page
    assert "/lists/2026-03-01/rapid/" in page
    best = federation.latest.entries.filter(rating__isnull=False, inactive=False).order_by("-rating").first()
    assert best.player.name in page
    assert 'name="q"' in page


def test_search_by_name_prefix_lists_matching_players_case_insensitively(client, federation):
    response = client.get("/players/", {"q": "surname000"})
    page = text(response)
    assert response.status_code == 200
    assert len(re.findall(r'href="/players/\d+/">Surname000\d,', page)) == 10  # Surname0000 .. Surname0009
    assert "Surname0011" not in page


def test_search_by_id_number_goes_straight_to_the_profile(client, federation):
    response = client.get("/players/", {"q": str(federation.star.id_number)})
    assert response.status_code == 302
    assert response["Location"] == f"/players/{federation.star.id_number}/"


def test_search_without_match_says_how_to_search(client, federation):
    page = text(client.get("/players/", {"q": "Nobody"}))
    assert "No player matches" in page
    assert "Nobody" in page


def test_profile_shows_ratings_ranks_k_class_and_birth_year_only(client, federation):
    player = federation.players[1]
    player.birth_date = datetime.date(1957, 6, 15)
    player.save()
    response = client.get(f"/players/{player.id_number}/")
    page = text(response)
    assert response.status_code == 200
    rating = federation.ratings[(player.pk, "standard", LATEST)]
    assert f'<p class="big">{rating}' in page
    assert "1957" in page
    assert "1957-06-15" not in page
    assert "15/06/1957" not in page
    # world rank: active rated players above on the current list, plus one
    above = federation.latest.entries.filter(rating__gt=rating, inactive=False).count()
    assert re.search(rf"<dt>Rank</dt><dd>{above + 1}</dd>", page)
    assert "<dt>K</dt><dd>10</dd>" in page
    assert "International master" in page or "Grandmaster" in page  # rating class (seed 000)


def test_profile_flags_an_inactive_player_and_gives_no_rank(client, federation):
    inactive = federation.players[3]
    page = text(client.get(f"/players/{inactive.id_number}/"))
    assert '<span class="badge"' in page
    assert "inactive" in page
    assert "<dt>Rank</dt>" not in page


def test_profile_history_chart_is_an_svg_document_with_one_point_per_published_rating(client, federation):
    page = text(client.get(f"/players/{federation.star.id_number}/"))
    # the profile embeds the chart, a document of its own (the page reads the newest lists only: issue 17)
    chart_url = f"/players/{federation.star.id_number}/chart.svg"
    assert f'<object class="history-chart" data="{chart_url}" type="image/svg+xml"' in page
    response = client.get(chart_url)
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert response["X-Frame-Options"] == "SAMEORIGIN"  # the site's DENY would leave the embedded chart blank
    svg = text(response)
    assert svg.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"')
    ElementTree.fromstring(svg)  # well-formed XML: a browser shows nothing of a broken SVG document
    assert ">Standard</text>" in svg
    assert ">Rapid</text>" in svg  # the legend
    assert 'stroke="#1d4ed8"' in svg  # standard
    assert 'stroke="#c2410c"' in svg  # rapid
    assert svg.count("<circle") == len(federation.lists["standard"]) + len(federation.lists["rapid"])
    assert "<script" not in page  # no JavaScript needed


def test_profile_history_table_links_each_list_and_its_calculation(client, federation):
    page = text(client.get(f"/players/{federation.star.id_number}/"))
    for rating_list in federation.lists["standard"]:
        assert f"/lists/{rating_list.list_date:%Y-%m-%d}/standard/" in page
    assert f"/players/{federation.star.id_number}/calculations/2026-03-01/standard/" in page
    assert "Spring Closed" in page


def test_profile_live_rating_comes_from_submitted_events_through_the_engine(client, federation):
    page = text(client.get(f"/players/{federation.star.id_number}/"))
    live = page[page.index("Live rating (unofficial)") : page.index("Rating history")]
    assert "Summer Open" in live
    # the star (rating R, K 10) beat player 2 and drew player 3: ΔR by table 8.1.2 from current ratings
    from ratings.engine.calculator import calculate_change
    from ratings.engine.presets import get_preset

    star, second, third = federation.players[:3]
    rating = lambda p: federation.ratings[(p.pk, "standard", LATEST)]  # noqa: E731
    expected = calculate_change(
        rating(star),
        10,
        [rating(second), rating(third)],
        [1.0, 0.5],
        get_preset("fide-2024"),
        list_date=timezone.localdate(),
    )
    assert f"<strong>{expected.new_rating:.0f}</strong>" in live


def test_merged_player_profile_redirects_to_the_kept_player(client, federation):
    kept, merged = federation.players[4], federation.players[5]
    merged.merged_into = kept
    merged.save()
    response = client.get(f"/players/{merged.id_number}/")
    assert response.status_code == 301
    assert response["Location"] == f"/players/{kept.id_number}/"
    chart = client.get(f"/players/{merged.id_number}/chart.svg")
    assert chart.status_code == 301
    assert chart["Location"] == f"/players/{kept.id_number}/chart.svg"


def test_unknown_player_is_404(client, db):
    assert client.get("/players/999999999/").status_code == 404
    assert client.get("/players/999999999/chart.svg").status_code == 404


def test_a_player_without_a_published_rating_has_no_chart(client, federation):
    newcomer = Player.objects.create(id_number=77000001, surname="Newcomer", given_names="Nadia", federation_id="ESP")
    page = text(client.get(f"/players/{newcomer.id_number}/"))
    assert "history-chart" not in page
    assert "No published rating yet." in page
    svg = text(client.get(f"/players/{newcomer.id_number}/chart.svg"))  # asked for anyway: a valid document
    assert ">No published rating yet.</text>" in svg
    ElementTree.fromstring(svg)


def test_calculation_page_lists_every_game_with_d_pd_delta_and_marks_capped_ratings(client, federation):
    star = federation.star
    response = client.get(f"/players/{star.id_number}/calculations/2026-03-01/standard/")
    page = text(response)
    assert response.status_code == 200
    change = federation.latest.changes.get(player=star)
    body = page[page.index('<table class="calc">') : page.index("</table>")]
    assert body[body.index("<tbody>") : body.index("</tbody>")].count("<tr>") == len(change.details)
    for line in change.details:
        assert f"{line['expected_score']:.2f}" in body
        opponent = Player.objects.get(id_number=line["opponent"])
        assert opponent.name in body
    assert f"{change.change:+.2f}".replace("-", "−") in page


def test_calculation_page_marks_a_rating_replaced_by_the_400_point_rule(client, db):
    fed = build_federation(players=40, event_players=40, submitted=False)
    strongest = fed.players[0]
    change = fed.latest.changes.get(player=strongest)
    assert any(line.get("capped") for line in change.details)
    page = text(client.get(f"/players/{strongest.id_number}/calculations/2026-03-01/standard/"))
    assert 'class="capped"' in page
    assert "*</span>" in page


def test_calculation_page_is_404_for_a_list_that_does_not_exist(client, federation):
    url = f"/players/{federation.star.id_number}/calculations/2025-02-01/standard/"
    assert client.get(url).status_code == 404


def test_list_index_links_every_current_list_and_downloads(client, federation):
    page = text(client.get("/lists/"))
    for rating_list in federation.lists["standard"]:
        day = f"{rating_list.list_date:%Y-%m-%d}"
        assert f"/lists/{day}/standard/" in page
        assert f"/lists/{day}/standard.txt" in page


def list_rows(page: str) -> list[str]:
    body = page[page.index('<table class="list">') :]
    body = body[body.index("<tbody>") : body.index("</tbody>")]
    return re.findall(r'href="/players/(\d+)/"', body)


def test_list_page_shows_rated_players_best_first_100_per_page(client, db):
    fed = build_federation(players=150, event_players=4, submitted=False)
    first = text(client.get("/lists/2026-03-01/standard/"))
    second = text(client.get("/lists/2026-03-01/standard/", {"page": 2}))
    ids = list_rows(first) + list_rows(second)
    assert len(list_rows(first)) == 100
    assert len(ids) == 149  # the unrated entry is not on the published list
    ratings = [fed.ratings[(Player.objects.get(id_number=i).pk, "standard", LATEST)] for i in ids]
    assert ratings == sorted(ratings, reverse=True)


@pytest.mark.parametrize(
    ("params", "keep"),
    [
        ({"federation": "FRA"}, lambda p, e: e.federation == "FRA"),
        ({"sex": "F"}, lambda p, e: e.sex == "F"),
        ({"age_group": "U20"}, lambda p, e: e.birth_year >= 2006),
        ({"age_group": "50+"}, lambda p, e: e.birth_year <= 1976),
        ({"title": "IM"}, lambda p, e: e.title == "IM"),
        ({"title": "WGM"}, lambda p, e: "WGM" in (e.title, e.women_title)),
        ({"active": "1"}, lambda p, e: not e.inactive),
    ],
)
def test_list_page_filters(client, federation, params, keep):
    page = text(client.get("/lists/2026-03-01/standard/", params))
    shown = set(map(int, list_rows(page)))
    expected = {
        e.player.id_number
        for e in federation.latest.entries.select_related("player")
        if e.rating is not None and keep(e.player, e)
    }
    assert expected
    assert shown == expected


def test_list_page_sorts_by_name_and_by_change(client, federation):
    by_name = list_rows(text(client.get("/lists/2026-03-01/standard/", {"sort": "name"})))
    names = [Player.objects.get(id_number=i).search_name for i in by_name]
    assert names == sorted(names)
    by_change = list_rows(text(client.get("/lists/2026-03-01/standard/", {"sort": "-change"})))
    changes = [federation.latest.entries.get(player__id_number=i).change for i in by_change]
    assert changes == sorted(changes, reverse=True)


def test_list_page_shows_movers_since_the_previous_list(client, federation):
    page = text(client.get("/lists/2026-03-01/standard/"))
    movers = page[page.index("Movers since the previous list") : page.index('<table class="list">')]
    top_gain = federation.latest.entries.filter(change__gt=0).order_by("-change", "player_id").first()
    top_loss = federation.latest.entries.filter(change__lt=0).order_by("change", "player_id").first()
    assert top_gain.player.name in movers
    assert top_loss.player.name in movers


def test_movers_are_the_biggest_changes_with_ties_by_player_and_fewer_when_few_moved(federation):
    from public.selectors.ratings import list_movers

    entries = federation.latest.entries
    ids = list(entries.order_by("player_id").values_list("player_id", flat=True))
    entries.update(change=0)
    entries.filter(player_id__in=ids[:7]).update(change=10)  # seven tied at the fifth place and beyond
    entries.filter(player_id=ids[-1]).update(change=30)
    entries.filter(player_id__in=ids[-3:-1]).update(change=-4)  # two losses only
    gains, losses = list_movers(federation.latest)
    assert [(e.player_id, e.change) for e in gains] == [(ids[-1], 30)] + [(pk, 10) for pk in ids[:4]]
    assert [(e.player_id, e.change) for e in losses] == [(pk, -4) for pk in ids[-3:-1]]


def test_list_page_is_404_for_an_unpublished_or_impossible_date(client, federation):
    assert client.get("/lists/2026-05-01/standard/").status_code == 404
    assert client.get("/lists/2026-02-30/standard/").status_code == 404
    assert client.get("/lists/2026-03-01/bullet/").status_code == 404


def test_superseded_list_version_is_not_shown(client, federation):
    old = federation.latest
    old.status = "published"
    replacement = type(old).objects.create(
        rating_type="standard",
        list_date=old.list_date,
        version=2,
        closing_date=old.closing_date,
        status="draft",
        rules_preset="fide-2024",
        rules={},
    )
    old.superseded_by = replacement
    old.save()
    replacement.status = "published"
    replacement.save()
    page = text(client.get("/lists/2026-03-01/standard/"))
    assert "corrected (version 2)" in page
    assert list_rows(page) == []  # the new version has no entries here; the old ones are gone


def test_event_page_shows_standings_average_category_performance_and_changes(client, federation):
    event = federation.rated_event
    response = client.get(f"/events/{event.pk}/")
    page = text(response)
    assert response.status_code == 200
    table = page[page.index('<table class="crosstable round-robin">') : page.index("</table>")]
    rows = re.findall(rf'href="/events/{event.pk}/players/(\d+)/"', table)  # each name opens the player's card
    from public.selectors.events import event_crosstable

    crosstable = event_crosstable(event)
    assert rows == [str(row.standing.start_rank) for row in crosstable.rows]
    points = [row.standing.points for row in crosstable.rows]
    assert points == sorted(points, reverse=True)
    assert f"<dd>{crosstable.average_rating}" in page
    from ratings.engine.classes import roman

    assert crosstable.category == 5
    assert f"<dd>{roman(crosstable.category)}</dd>" in page  # Ra 2351-2375
    for row in crosstable.rows:
        assert row.performance is not None
        assert f">{row.performance}<" in table
    star_change = federation.latest.changes.get(player=federation.star, event=event)
    assert f"{star_change.change:+.2f}".replace("-", "−") in table


def test_submitted_event_is_public_and_draft_is_not(client, federation):
    assert client.get(f"/events/{federation.submitted_event.pk}/").status_code == 200
    draft = Event.objects.create(name="Draft", start_date=LATEST, end_date=LATEST, status=EventStatus.DRAFT)
    assert client.get(f"/events/{draft.pk}/").status_code == 404
    page = text(client.get("/events/"))
    assert "Summer Open" in page
    assert "Spring Closed" in page
    assert ">Draft<" not in page


def test_public_pages_are_cacheable_per_language(client, federation):
    for url in (
        "/",
        "/lists/2026-03-01/standard/",
        f"/players/{federation.star.id_number}/",
        f"/events/{federation.rated_event.pk}/",
    ):
        response = client.get(url)
        assert "max-age=300" in response["Cache-Control"]
        assert "public" in response["Cache-Control"]
        assert "Accept-Language" in response["Vary"]
        assert "Cookie" in response["Vary"]
        assert "csrftoken" not in response.cookies


def test_pages_render_in_spanish_from_accept_language(client, federation):
    page = text(client.get(f"/players/{federation.star.id_number}/", HTTP_ACCEPT_LANGUAGE="es"))
    assert '<html lang="es">' in page
    assert "Evolución del Elo" in page
    assert "Año de nacimiento" in page
    assert "Estándar" in page
    page = text(client.get("/lists/2026-03-01/standard/", HTTP_ACCEPT_LANGUAGE="es"))
    assert "Lista Estándar 2026-03-01" in page
    assert "Solo jugadores activos" in page


def test_language_switch_sets_the_cookie_and_returns_to_the_page(client, federation):
    response = client.post("/i18n/", {"language": "es", "next": "/lists/"})
    assert response.status_code == 302
    assert response["Location"] == "/lists/"
    assert response.cookies["django_language"].value == "es"
    assert "Listas de Elo" in text(client.get("/lists/"))


@pytest.mark.parametrize("url", ["/", "/players/", "/lists/", "/events/"])
def test_every_public_page_translates_its_headings(client, federation, url):
    english = text(client.get(url, HTTP_ACCEPT_LANGUAGE="en"))
    spanish = text(client.get(url, HTTP_ACCEPT_LANGUAGE="es"))
    heading = lambda page: re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)  # noqa: E731
    assert heading(english) != heading(spanish)


def test_calculation_lines_carry_the_engines_game_line_names():
    from public.selectors.ratings import calculation_line
    from ratings.engine.game_line import STORED_LINE_FIELDS

    stored = {
        "opponent": 5000002,
        "opponent_rating": 2700.0,
        "opponent_rating_used": 2500.0,
        "capped": True,
        "difference": -400.0,
        "expected_score": 0.08,
        "score": 1.0,
        "rating_change": 0.92,
        "weighted_change": 9.2,
    }
    line = calculation_line(stored)
    assert list(line) == list(STORED_LINE_FIELDS)
    assert (line["opponent_rating"], line["opponent_rating_used"]) == (2700.0, 2500.0)
    assert (line["rating_change"], line["weighted_change"], line["capped"]) == (0.92, 9.2, True)
    short = calculation_line({"opponent": 1, "opponent_rating": 2000, "expected_score": 0.36, "score": 0.5})
    assert short["opponent_rating_used"] == 2000
    assert short["rating_change"] == pytest.approx(0.14)


@pytest.mark.parametrize(
    "url",
    [
        "/players/99999999999999999999999/",
        "/events/99999999999999999999999/",
        "/api/v1/players/99999999999999999999999/",
        "/api/v1/events/99999999999999999999999/",
    ],
)
def test_an_id_too_long_for_the_database_is_404_not_an_error(client, db, url):
    assert client.get(url).status_code == 404


def test_searching_an_impossibly_long_number_finds_nobody(client, federation):
    assert "No player matches" in text(client.get("/players/", {"q": "9" * 30}))
    assert client.get("/api/v1/players/", {"q": "9" * 30}).json()["count"] == 0


def test_spanish_distinguishes_the_rating_change_column_from_the_language_button(client, federation):
    page = text(client.get("/lists/2026-03-01/standard/", HTTP_ACCEPT_LANGUAGE="es"))
    assert '<button type="submit">Cambiar</button>' in page
    assert ">Variación</a></th>" in page


def test_profile_history_chart_coordinates_have_decimal_points_in_spanish(client, federation):
    import re

    svg = text(client.get(f"/players/{federation.star.id_number}/chart.svg", HTTP_ACCEPT_LANGUAGE="es"))
    assert '<title id="chart-title">Evolución del Elo</title>' in svg  # the page's language
    centres = re.findall(r'\s(?:cx|cy)="([^"]*)"', svg)  # "226,0" (a decimal comma) is not an SVG number
    assert centres, centres[:6]
    assert all(re.fullmatch(r"-?\d+(\.\d+)?", value) for value in centres), centres[:6]


def test_live_rating_reads_the_players_participations_from_the_first_pending_event_on(federation):
    """The live games' query bounds the player's participations to those from the first event awaiting rating on,
    conditions the participants' (player, event) index (events 0008) answers alone, not every participation of the
    player's history (issue 17). Which plan the planner picks depends on the tables' statistics: the test checks
    the conditions and the index, not one plan."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from public.selectors.ratings import player_live_ratings, player_ratings

    star = federation.star
    ratings = player_ratings(star)
    with CaptureQueriesContext(connection) as queries:
        assert player_live_ratings(star, ratings)
    games = next(q["sql"] for q in queries.captured_queries if "UNION ALL" in q["sql"])
    first = Event.objects.filter(status=EventStatus.SUBMITTED).order_by("pk").values_list("pk", flat=True)[0]
    assert games.count(f'"events_participant"."player_id" = {star.pk}') == 2, games  # as white and as black
    assert games.count(f'"events_participant"."event_id" >= {first}') == 2, games
    with connection.cursor() as cursor:
        indexes = connection.introspection.get_constraints(cursor, "events_participant")
    assert indexes["participant_player_event"]["columns"] == ["player_id", "event_id"]
