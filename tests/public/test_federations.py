"""Federation pages and clubs: figures per rating type, the top-10 average, top lists, events, members; the
API twins; pinned query counts."""

import pytest

from players.models import Club, Federation, Player
from ratings.models import current_lists_check_queries
from tests.public.conftest import build_federation

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(db):
    federation = build_federation(players=40, lists=2, rapid_lists=1, event_players=6, submitted=False)
    esp = Federation.objects.get(code="ESP")
    club = Club.objects.create(name="Club Ajedrez Centro", code="CAC", federation=esp, city="Madrid")
    Player.objects.filter(pk__in=[p.pk for p in federation.players[1:6]]).update(club=club)
    federation.club = club  # replaces the fixture's Club Madrid in these tests
    return federation


def expected_figures(federation, code, rating_type="standard"):
    rating_list = federation.lists[rating_type][-1]
    rated = rating_list.entries.filter(federation=code, rating__isnull=False)
    active = rated.filter(inactive=False).order_by("position")
    best = [e.rating for e in active[:10]]
    return rated.count(), active.count(), round(sum(best) / 10) if len(best) == 10 else None


def test_federation_index_ranks_by_the_top_ten_average(client, world):
    html = client.get("/federations/").content.decode()
    for code in ("ESP", "FRA"):
        rated, active, average = expected_figures(world, code)
        assert average is not None
        assert (
            f'<td class="num">{rated}</td><td class="num">{active}</td><td class="num"><strong>{average}</strong>'
            in html
        )
    first = "ESP" if expected_figures(world, "ESP")[2] > expected_figures(world, "FRA")[2] else "FRA"
    assert html.index(f'href="/federations/{first}/"') < html.index(
        f'href="/federations/{"FRA" if first == "ESP" else "ESP"}/"'
    )
    spanish = client.get("/federations/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Federaciones" in spanish
    assert "Activos" in spanish


def test_federation_page_has_figures_top_list_events_and_clubs(client, world):
    html = client.get("/federations/esp/").content.decode()
    rated, active, average = expected_figures(world, "ESP")
    assert f"<dd>{rated}</dd>" in html
    assert f"<dd>{active}</dd>" in html
    assert f"<dd>{average}</dd>" in html
    top = world.latest.entries.filter(federation="ESP", inactive=False, rating__isnull=False).order_by("position")
    positions = [html.index(f'href="/players/{e.player.id_number}/"') for e in top[:20]]
    assert positions == sorted(positions)
    assert "Spring Closed" in html  # a rated event of ESP
    assert "Club Ajedrez Centro" in html
    assert "5 members" in html
    assert client.get("/federations/XYZ/").status_code == 404
    assert client.get("/federations/ES1/").status_code == 404
    assert "Mejores jugadores" in client.get("/federations/ESP/", HTTP_ACCEPT_LANGUAGE="es").content.decode()


def test_club_page_lists_members_with_ratings(client, world):
    html = client.get(f"/clubs/{world.club.pk}/").content.decode()
    members = world.players[1:6]
    for player in members:
        assert f'href="/players/{player.id_number}/"' in html
    assert "5 members" in html
    assert 'href="/federations/ESP/"' in html
    ratings = {e.player_id: e.rating for e in world.latest.entries.filter(player__in=members)}
    order = sorted(members, key=lambda p: -(ratings[p.pk] or 0))
    assert [html.index(f'href="/players/{p.id_number}/"') for p in order] == sorted(
        html.index(f'href="/players/{p.id_number}/"') for p in order
    )
    assert client.get("/clubs/999999/").status_code == 404
    profile = client.get(f"/players/{members[0].id_number}/").content.decode()
    assert f'href="/clubs/{world.club.pk}/"' in profile


def test_federation_query_counts(client, world, django_assert_num_queries):
    # federation, newest lists, the ranking of federations (counts, top tens; then cached), per type
    # (standard, rapid) the top list, events, clubs
    with django_assert_num_queries(8):
        assert client.get("/federations/ESP/").status_code == 200
    with django_assert_num_queries(6):  # the counts now from the cached ranking
        assert client.get("/federations/ESP/").status_code == 200
    with django_assert_num_queries(2):  # newest lists, names; the ranking is cached
        assert client.get("/federations/").status_code == 200
    with django_assert_num_queries(3 + current_lists_check_queries()):  # club, members, their ratings (+ check)
        assert client.get(f"/clubs/{world.club.pk}/").status_code == 200


def test_federation_query_count_does_not_grow(client, db, django_assert_num_queries):
    build_federation(players=120, lists=2, rapid_lists=1, event_players=6, submitted=False)
    with django_assert_num_queries(8):
        assert client.get("/federations/ESP/").status_code == 200


def test_api_federations_and_clubs(client, world):
    ranking = client.get("/api/v1/federations/").json()
    esp = next(row for row in ranking if row["code"] == "ESP")
    rated, active, average = expected_figures(world, "ESP")
    standard = next(t for t in esp["types"] if t["rating_type"] == "standard")
    assert (standard["rated"], standard["active"], standard["top_average"]) == (rated, active, average)
    detail = client.get("/api/v1/federations/ESP/").json()
    assert detail["name"] == "Spain"
    assert detail["types"][0]["top"][0]["rank"] == 1
    assert detail["clubs"][0]["member_count"] == 5
    assert detail["events"][0]["name"] == "Spring Closed"
    club = client.get(f"/api/v1/clubs/{world.club.pk}/").json()
    assert len(club["members"]) == 5
    assert club["federation"] == "ESP"
    assert {r["rating_type"] for r in club["members"][0]["ratings"]} == {"standard", "rapid"}
    assert client.get("/api/v1/federations/QQQ/").status_code == 404


def test_club_is_editable_in_the_admin(admin_client, world):
    player = world.players[7]
    response = admin_client.get(f"/admin/players/player/{player.pk}/change/")
    assert response.status_code == 200
    assert 'name="club"' in response.content.decode()
    assert admin_client.get("/admin/players/club/").status_code == 200
    assert admin_client.get(f"/admin/players/club/{world.club.pk}/change/").status_code == 200


@pytest.mark.parametrize(
    ("url", "spanish"),
    [
        ("/clubs/{club}/", "miembros"),
        ("/players/{star}/?tab=games", "Partidas valoradas"),
        ("/players/{star}/?tab=opponents", "Rivales"),
        ("/players/{star}/", "Historial del jugador"),
    ],
)
def test_new_pages_speak_spanish(client, world, url, spanish):
    html = client.get(
        url.format(club=world.club.pk, star=world.star.id_number), HTTP_ACCEPT_LANGUAGE="es"
    ).content.decode()
    assert spanish.lower() in html.lower()
