"""The lifecycle pages in headless Chromium at desktop (1280 px) and phone (390 px) widths: the event page
with where it stands, the events awaiting rating and those rated on a list."""

import shutil

import pytest

from ratings.services import rating_list_publish
from tests.public.test_browser import decode_png, screenshot
from tests.ratings.scenarios import MAR, build_federation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
KEEP = None  # set to a folder path to keep the screenshots for a look


@pytest.mark.parametrize("size", ["1280,1400", "390,2000"])
def test_lifecycle_pages_render_at_desktop_and_phone_widths(live_server, tmp_path, size):
    _, _, (winter, _cup) = build_federation()
    rating_list_publish("standard", MAR)
    width = int(size.split(",")[0])
    for name, path in (
        ("event", f"/events/{winter.pk}/"),
        ("rated", f"/lists/{MAR.isoformat()}/standard/events/"),
        ("awaiting", "/events/awaiting-rating/"),
    ):
        target = tmp_path / f"{name}-{width}.png"
        data = screenshot(f"{live_server.url}{path}", target, size=size)
        shot_width, height, rows = decode_png(data)
        assert shot_width == width
        assert height > 0
        assert any(row != rows[-1] for row in rows[:200])  # something is drawn at the top of the page
        if KEEP:
            shutil.copy(target, f"{KEEP}/{target.name}")
