"""Real Chromium draws the arbiters' and trainers' directories, an arbiter's page and the admin's CSV upload at
390 px and 1280 px, in English and Spanish: no page scrolls sideways, and the Spanish page is in Spanish.
Screenshots are kept under /tmp/shots/membership/ for looking at."""

import datetime
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from events.models import EventStatus
from membership.models import Licence
from tests.browsers import BROWSER_MARKS
from tests.factories import make_event, make_federation, make_player

SHOTS = Path("/tmp/shots/membership")
pytestmark = BROWSER_MARKS


@pytest.fixture
def directory(transactional_db):
    esp = make_federation()
    user = User.objects.create_user("principal")
    people = [
        ("Fernández-Villaverde Rodríguez", "María de los Ángeles", "IA", "arbiter"),
        ("Arbitro", "Ana", "FA", "arbiter"),
        ("Nacional", "Nicolás", "NA", "arbiter"),
        ("Entrenadora", "Eva", "FT", "trainer"),
    ]
    holders = []
    for surname, given, grade, kind in people:
        player = make_player(surname=surname, given_names=given, federation=esp)
        Licence.objects.create(kind=kind, grade=grade, player=player, number=f"{grade}-{player.id_number}",
                               user=user if not holders else None, valid_from=datetime.date(2019, 3, 1))  # fmt: skip
        holders.append(player)
    for n in range(3):
        make_event(name=f"Open Internacional de Ajedrez Ciudad de Salamanca {2024 + n}", city="Salamanca",
                   federation=esp, chief_arbiter=user, status=EventStatus.RATED,
                   start_date=datetime.date(2024 + n, 7, 1))  # fmt: skip
    staff = User.objects.create_superuser("officer", "o@example.org", "x")
    client = Client()
    client.force_login(staff)
    return holders, client.cookies[settings.SESSION_COOKIE_NAME].value


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("width", [390, 1280])
def test_directory_pages_fit_and_speak_the_language(browser, live_server, directory, width, language):
    holders, session = directory
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language,
                                  extra_http_headers={"Accept-Language": language})  # fmt: skip
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}])
    page = context.new_page()
    pages = {
        "arbiters": ("/arbiters/", {"en": "Arbiters", "es": "Árbitros"}),
        "arbiter": (f"/arbiters/{holders[0].id_number}/", {"en": "Events directed", "es": "Torneos dirigidos"}),
        "trainers": ("/trainers/", {"en": "Trainers", "es": "Entrenadores"}),
        "import": ("/admin/membership/membership/import/", {"en": "Import memberships", "es": "Importar afiliaciones"}),
    }
    for name, (url, words) in pages.items():
        page.goto(live_server.url + url)
        page.screenshot(path=str(SHOTS / f"{name}-{language}-{width}.png"), full_page=True)
        assert words[language] in page.content(), (name, language)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, (name, width, overflow)
    context.close()
