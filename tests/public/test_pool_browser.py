"""The pool page in real headless Chromium, desktop (1280 px) and phone (390 px): the charts are drawn."""

import shutil

import pytest

from public.views.pool import LINE_COLOURS, PART_COLOURS
from ratings.models import RatingList
from tests.public import test_browser as browser
from tests.public.test_browser import decode_png, pixels_of, screenshot
from tests.ratings.simulated_federation import publish_simulation

pytestmark = pytest.mark.browser

SHOTS = ("desktop", "1280,2600", "en"), ("phone", "390,4200", "en"), ("phone-es", "390,4200", "es")


@pytest.mark.parametrize(("name", "size", "language"), SHOTS)
def test_pool_page_charts_render(live_server, transactional_db, tmp_path, name, size, language, request, monkeypatch):
    publish_simulation(players=200, months=6, seed=5)
    rating_list = RatingList.objects.current("standard").order_by("-list_date").first()
    path = tmp_path / f"pool-{name}.png"
    # the browser asks for the page in this language (Accept-Language), as a Spanish-speaking visitor's does
    monkeypatch.setattr(browser, "CHROMIUM_FLAGS", [*browser.CHROMIUM_FLAGS, f"--accept-lang={language}"])
    data = screenshot(f"{live_server.url}/lists/{rating_list.list_date}/standard/pool/", path, size=size)
    width, _, rows = decode_png(data)
    assert width == int(size.split(",")[0])
    blue = pixels_of(PART_COLOURS["from_games"], width, rows)
    green = pixels_of(PART_COLOURS["newcomers"], width, rows)
    red = pixels_of(PART_COLOURS["leavers"], width, rows)
    # the total and mean lines and the distribution bars span the chart; the ledger's bars are drawn
    xs = [x for x, _ in blue]
    assert len(blue) > 500, (len(blue), min(xs), max(xs))
    assert max(xs) - min(xs) > width * 0.6, (len(blue), min(xs), max(xs))
    assert max(xs) < width  # scaled to the screen, nothing cut off on the right
    assert len(green) > 20, (len(green), len(red))
    assert len(red) > 5, (len(green), len(red))
    # the distribution's bars (drawn from numeric attributes, in every language) fill much more than a swatch
    bars = pixels_of(LINE_COLOURS["distribution"], width, rows)
    assert len(bars) > (3000 if width > 1000 else 1000), len(bars)
    keep = request.config.getoption("--basetemp", None)
    if keep:  # keep the screenshot with the test run's files
        shutil.copy(path, tmp_path.parent / path.name)
