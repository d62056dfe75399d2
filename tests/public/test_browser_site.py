"""The site's newer pages drawn by real headless Chromium at desktop (1280 px) and phone (390 px) widths:
top lists, the list page's histogram, the player's record and head-to-head, federations and clubs."""

import os
from pathlib import Path

import pytest

from public.templatetags.site_charts import HISTOGRAM_COLOUR
from tests.public.conftest import build_federation
from tests.public.test_browser import decode_png, pixels_of, screenshot

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": "1280,1600", "phone": "390,2400"}
HEADER = bytes((0x0F, 0x2A, 0x4A))  # the site header band: the stylesheet was served
LINK = "#0b57d0"


def draw(url: str, tmp_path: Path, name: str) -> dict[str, tuple[int, int, list[bytes]]]:
    """The page at both widths, saved as PNG under the test's tmp dir (and var/screenshots when
    SCREENSHOTS_DIR says where)."""
    drawn = {}
    target = Path(os.environ.get("SCREENSHOTS_DIR", tmp_path))
    target.mkdir(parents=True, exist_ok=True)
    for label, size in WIDTHS.items():
        data = screenshot(url, target / f"{name}-{label}.png", size=size)
        width, height, rows = decode_png(data)
        assert width == int(size.split(",")[0])
        assert rows[5][3 * 100 : 3 * 100 + 3] == HEADER
        drawn[label] = (width, height, rows)
    return drawn


@pytest.fixture
def site(live_server, transactional_db):
    return live_server.url, build_federation(players=40, lists=6, rapid_lists=3, event_players=6)


def test_top_list_draws_at_both_widths(site, tmp_path):
    url, _ = site
    for label, (width, _, rows) in draw(f"{url}/top/?category=women", tmp_path, "top").items():
        links = pixels_of(LINK, width, rows, tolerance=40)
        # a name column of links on many lines
        assert len({y // 20 for _, y in links}) > 8, label


def test_list_histogram_draws_at_both_widths(site, tmp_path):
    url, _ = site
    for label, (width, _, rows) in draw(f"{url}/lists/2026-03-01/standard/", tmp_path, "list").items():
        bars = pixels_of(HISTOGRAM_COLOUR, width, rows)
        xs = [x for x, _ in bars]
        assert len(bars) > 500, label
        assert max(xs) - min(xs) > width * 0.5, label  # the bars span the page at both widths


def test_games_tab_and_head_to_head_draw_at_both_widths(site, tmp_path):
    url, federation = site
    star, other = federation.players[0], federation.players[1]
    pages = {
        "games": f"{url}/players/{star.id_number}/?tab=games",
        "statistics": f"{url}/players/{star.id_number}/?tab=statistics",
        "opponents": f"{url}/players/{star.id_number}/?tab=opponents",
        "vs": f"{url}/players/{star.id_number}/vs/{other.id_number}/",
    }
    for name, page in pages.items():
        for label, (width, _, rows) in draw(page, tmp_path, name).items():
            links = pixels_of(LINK, width, rows, tolerance=40)
            assert links, (name, label)  # event and opponent links drawn


def test_federation_and_club_pages_draw_at_both_widths(site, tmp_path):
    url, federation = site
    from players.models import Club, Player

    club = Club.objects.create(name="Club Ajedrez Centro", federation_id="ESP", city="Madrid")
    Player.objects.filter(pk__in=[p.pk for p in federation.players[1:8]]).update(club=club)
    for name, page in {
        "federations": f"{url}/federations/",
        "federation": f"{url}/federations/ESP/",
        "club": f"{url}/clubs/{club.pk}/",
    }.items():
        for label, (width, _, rows) in draw(page, tmp_path, name).items():
            links = pixels_of(LINK, width, rows, tolerance=40)
            assert len({y // 20 for _, y in links}) > 3, (name, label)


def test_movers_page_draws_at_both_widths(live_server, transactional_db, tmp_path):
    build_federation(players=40, lists=8, rapid_lists=1, event_players=6)
    for label, (width, _, rows) in draw(
        f"{live_server.url}/lists/2026-03-01/standard/movers/", tmp_path, "movers"
    ).items():
        assert len({y // 20 for _, y in pixels_of(LINK, width, rows, tolerance=40)}) > 10, label
