"""Issue 33 in real Chromium at 390 px (a phone) and 1280 px, in English and Spanish: the profile's titles, the
list's new titles and the officers' dashboard section fit the window (no sideways scrolling, no clipped cell), and
their text is in the page's language. Screenshots under /tmp/shots/titles/."""

from pathlib import Path

from django.conf import settings
from django.test import Client

from players.models import TitleMethod
from ratings.models import RatingList, TitleCandidate
from ratings.services.titles import title_candidate_award
from tests.browsers import BROWSER_MARKS
from tests.events.test_admin_roles import make_officer
from tests.ratings.simulated_federation import publish_simulation

SHOTS = Path("/tmp/shots/titles")

pytestmark = BROWSER_MARKS

# Whatever lies outside the window sideways, and cells whose text is wider than their box, inside ``selector``.
OVERFLOW = """(selector) => {
    const root = document.querySelector(selector);
    if (!root) return [`no ${selector}`];
    const problems = [];
    if (document.documentElement.scrollWidth > window.innerWidth + 1)
        problems.push(`page ${document.documentElement.scrollWidth} wider than ${window.innerWidth}`);
    for (const cell of root.querySelectorAll("td, th, li, p, h2, h3")) {
        const box = cell.getBoundingClientRect();
        if (box.width && (box.right > window.innerWidth + 1 || box.left < -1))
            problems.push(`${cell.textContent.trim().slice(0, 40)} off-screen at ${box.right}`);
        if (cell.scrollWidth > cell.clientWidth + 1 && getComputedStyle(cell).overflowX !== "auto")
            problems.push(`${cell.textContent.trim().slice(0, 40)} clipped`);
    }
    return problems;
}"""

# Titles, dates, ratings and buttons broken over lines ("WF M", "2026-11-" / "01", "Rec ord").
BROKEN = """(selector) => [...document.querySelector(selector).querySelectorAll(
    "abbr.title, .date, .nowrap, button, td strong")].filter((element) => {
    if (!element.getClientRects().length) return false;
    if (getComputedStyle(element).display === "inline") return element.getClientRects().length > 1;
    const text = document.createRange();
    text.selectNodeContents(element);
    const tops = [...text.getClientRects()].map((line) => line.top).sort((a, b) => a - b);
    return tops.some((top, i) => i > 0 && top - tops[i - 1] > 8);  // (a smaller font on the same line sits lower)
}).map((element) => element.textContent.trim())"""

WORDS = {
    "en": {"profile": "Titles", "list": "New titles", "desk": "Titles by rating"},
    "es": {"profile": "Títulos", "list": "Nuevos títulos", "desk": "Títulos por Elo"},
}


def test_titles_fit_phone_and_desktop_in_both_languages(browser, live_server, transactional_db):
    publish_simulation(players=1000, months=6, seed=21)
    newest = RatingList.objects.current("standard").order_by("-list_date").first()
    officer = make_officer()
    candidates = list(TitleCandidate.objects.filter(rating_list=newest).select_related("player", "rating_list"))
    awarded = candidates[0]
    title_candidate_award(awarded, user=officer)
    assert awarded.player.title_awards.get().method == TitleMethod.RATING
    client = Client()
    client.force_login(officer)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    SHOTS.mkdir(parents=True, exist_ok=True)
    pages = [
        ("profile", f"/players/{awarded.player.id_number}/", "#titles"),
        ("list", f"/lists/{newest.list_date:%Y-%m-%d}/standard/", "#new-titles"),
        ("desk", "/admin/", "#desk-titles"),
    ]
    problems = []
    for language in ("en", "es"):
        for width in (390, 1280):
            context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
            context.add_cookies(
                [
                    {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url},
                    {"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url},
                ]
            )
            page = context.new_page()
            for name, url, selector in pages:
                assert page.goto(live_server.url + url).status == 200, url
                page.locator(selector).scroll_into_view_if_needed()
                page.screenshot(path=str(SHOTS / f"{name}-{language}-{width}.png"), full_page=True)
                page.locator(selector).screenshot(path=str(SHOTS / f"{name}-{language}-{width}-block.png"))
                assert WORDS[language][name] in page.locator(selector).inner_text(), (name, language)
                problems += [f"{name} {language} {width}: {p}" for p in page.evaluate(OVERFLOW, selector)]
                problems += [f"{name} {language} {width}: broken {t}" for t in page.evaluate(BROKEN, selector)]
            context.close()
    assert problems == []
