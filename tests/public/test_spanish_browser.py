"""Spanish everywhere (issue 32): real Chromium walks the key pages in Spanish — the public site and the admin as
an arbiter and as a rating officer — and reads the text a user sees. It fails on common English UI words
(ENGLISH) in that text, once the data (player, event, club and federation names, usernames) is taken out, and
on a page that writes decimals both ways ("1896,0" beside "1896.0"). Before the fix the admin read "Events >
Events", "Add event", "By status", "Name:", the round screen "bye ½ (H)", the timeline "rated on Standard …".

Screenshots of every page go to SHOTS when it is set (the engineer's look at them)."""

import datetime as dt
import os
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from audit.models import AuditEvent
from events.models import Event, EventStatus, IntegrityCheck, IntegrityFlag, Result
from players.models import Club, Federation, Player
from ratings.services import rating_list_publish
from tests.browsers import BROWSER_MARKS
from tests.events.test_admin_roles import make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants
from tests.ratings.scenarios import MAR, build_federation

pytestmark = [*BROWSER_MARKS, pytest.mark.django_db(transaction=True)]
SHOTS = os.environ.get("SPANISH_SHOTS")  # a folder: keep the screenshots for a look

# Common English words of an interface; none of them is a Spanish word (so "No", "Club", "Total", "Final" and
# "Blitz" are left out). Matched as whole words, case-sensitively for the capitalised ones.
_ENGLISH_WORDS = (
    "Name Event Events Round Rounds Status Rating Ratings Add Change Changes Delete Save Search Date Yes Player "
    "Players Games Game Points Result Results White Black Back Submit Check Home Federation Federations Rank "
    "Score Opponent Title Sex Show Filter All None Draft Published Rated Submitted Upload File Import Export "
    "Previous Next Average Performance Clear Reason Start End Type Select Action Edit History Close Open Enter "
    "Preview Publish Welcome Logout Password Recent Actions Unknown Male Female Win Draw Loss Bye bye forfeit "
    "Page Arbiter Arbiters Chief Rules Flag Flags Merge Calculation Expected Active Inactive Entries Period "
    "Standings Crosstable Pairings Board Download rating ratings the and with for from not yet this that is are "
    "was has have will of"
)
ENGLISH = frozenset(_ENGLISH_WORDS.split())
# A decimal written the English way: "1896.0", not a rule's number ("B.02 8.1.2", "1.4.3a") or a date.
ENGLISH_DECIMAL = re.compile(r"(?<![\w.\-])\d+\.\d+(?![\w.])")
SPANISH_DECIMAL = re.compile(r"(?<![\w,])\d+,\d+(?![\w,])")
RULE_NUMBER = re.compile(r"\b(?:[A-Z]\.\d+(?:\.\d+)*|\d+\.\d+\.\d+\w*|tabla \d+\.\d+(?:\.\d+)*)")


@pytest.fixture
def federation(transactional_db):
    """The scenario's federation with its March list published, a draft event with a bye and a game not yet
    played, a submitted event held by an open integrity flag, and the two staff roles signed in."""
    _, _, (winter, _cup) = build_federation()
    rating_list_publish("standard", MAR)
    arbiter, officer = make_arbiter(), make_officer()
    draft = make_event(
        name="Torneo Borrador", status=EventStatus.DRAFT, rounds=3, start_date=dt.date(2026, 4, 10), rating_type=""
    )
    draft.arbiters.add(arbiter)
    people = list(Player.objects.order_by("id_number")[:5])
    entrants = make_participants(draft, people)
    make_game(draft, 1, entrants[0], entrants[1], Result.WHITE_WIN, board=1)
    make_game(draft, 1, entrants[2], entrants[3], Result.PENDING, board=2)
    make_game(draft, 1, entrants[4], None, Result.HALF_POINT_BYE)
    held = make_event(name="Torneo Retenido", status=EventStatus.SUBMITTED, start_date=dt.date(2026, 2, 1))
    IntegrityFlag.objects.create(event=held, kind=IntegrityCheck.DUPLICATE_EVENT, rule="90 %", evidence={})
    sessions = {}
    for user in (arbiter, officer):
        client = Client()
        client.force_login(user)
        sessions[user.username] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"winter": winter, "draft": draft, "held": held, "player": people[0], "sessions": sessions}


def pages(data) -> list[tuple[str | None, str]]:
    """(who is signed in, path): the key pages of the three users."""
    winter, draft, player = data["winter"], data["draft"], data["player"]
    day, other = MAR.isoformat(), Player.objects.exclude(pk=player.pk).order_by("id_number")[0]
    public = [
        "/",
        "/lists/",
        f"/lists/{day}/standard/",
        "/top/",
        f"/lists/{day}/standard/movers/",
        f"/lists/{day}/standard/events/",
        "/federations/",
        "/players/",
        f"/players/?q={player.surname}",
        f"/players/{player.id_number}/",
        f"/players/{player.id_number}/calculations/{day}/standard/",
        f"/players/{player.id_number}/vs/{other.id_number}/",
        "/events/",
        "/events/awaiting-rating/",
        f"/events/{winter.pk}/",
        f"/events/{winter.pk}/start-list/",
        f"/events/{winter.pk}/players/1/",
        f"/events/{data['held'].pk}/",
        "/calculator/",
        "/calculator/?games=1900+1",
        "/no-such-page/",
    ]
    arbiter = [
        "/admin/",
        "/admin/events/event/",
        f"/admin/events/event/{draft.pk}/change/",
        f"/admin/events/event/{draft.pk}/round/1/",
        f"/admin/events/event/{draft.pk}/participants/add/",
        "/admin/events/event/register/",
        "/admin/events/event/upload-trf/",
        "/admin/events/event/add/",
    ]
    officer = [
        "/admin/",
        f"/admin/events/event/{winter.pk}/change/",
        f"/admin/events/event/{winter.pk}/correct/",
        "/admin/events/integrityflag/",
        "/admin/events/game/",
        "/admin/ratings/ratinglist/",
        "/admin/ratings/ratingpolicy/",
        "/admin/players/player/",
        f"/admin/players/player/{player.pk}/change/",
        "/admin/audit/auditevent/",
    ]
    return [(None, path) for path in public] + [("arbiter", p) for p in arbiter] + [("officer", p) for p in officer]


def data_names() -> list[str]:
    """What the pages show as data, not as interface: longest first, so a full name goes before its surname."""
    names = {"arbiter", "officer"}
    for surname, given in Player.objects.values_list("surname", "given_names"):
        names |= {f"{surname}, {given}", f"{given} {surname}", surname, given}
    names |= set(Event.objects.values_list("name", flat=True))
    names |= set(Club.objects.values_list("name", flat=True)) | set(Federation.objects.values_list("name", flat=True))
    # the audit trail keeps each object's name as it was written at the time, and its action codes
    names |= set(AuditEvent.objects.values_list("object_repr", flat=True))
    names |= set(AuditEvent.objects.values_list("action", flat=True))
    return sorted((name for name in names if name), key=len, reverse=True)


def english_in(text: str, names: list[str]) -> list[str]:
    for name in names:
        text = text.replace(name, " ")
    found = []
    for line in text.splitlines():
        words = set(re.findall(r"[A-Za-z]+", line)) & ENGLISH
        if words:
            found.append(f"{', '.join(sorted(words))}: {line.strip()[:120]}")
    return found


def label_fits(select) -> bool:
    """The chosen option's text, in the select's font, is no wider than the select's text box."""
    return select.evaluate(
        """s => {
            const probe = document.createElement("span");
            const style = getComputedStyle(s);
            probe.style.font = style.font;
            probe.style.whiteSpace = "pre";
            probe.textContent = s.options[s.selectedIndex].text;
            document.body.appendChild(probe);
            const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
            const fits = probe.offsetWidth <= room;  // 16 px: the drop-down arrow
            probe.remove();
            return fits;
        }"""
    )


def decimals_both_ways(text: str) -> list[str]:
    text = RULE_NUMBER.sub(" ", text)
    english, spanish = ENGLISH_DECIMAL.findall(text), SPANISH_DECIMAL.findall(text)
    return english[:5] if english and spanish else []


@pytest.mark.parametrize("width", [1280, 390])
def test_key_pages_show_no_english_in_spanish(browser, live_server, federation, width):
    names = data_names()
    contexts = {}
    problems = []
    for who, path in pages(federation):
        if who not in contexts:
            contexts[who] = browser.new_context(
                viewport={"width": width, "height": 900}, locale="es", extra_http_headers={"Accept-Language": "es"}
            )
            if who:
                session = federation["sessions"][who]
                contexts[who].add_cookies(
                    [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}]
                )
        page = contexts[who].new_page()
        response = page.goto(f"{live_server.url}{path}")
        assert response is not None
        assert response.status == (404 if path == "/no-such-page/" else 200), path
        assert page.locator("html").get_attribute("lang") == "es", path
        text = page.title() + "\n" + page.locator("body").inner_text()
        if "/round/" in path:  # the bye's result shows its whole Spanish label ("desc. ½ (H)"), not cut short
            assert label_fits(page.locator("select.result").last), path
        problems += [f"{who or 'public'} {path}: {line}" for line in english_in(text, names)]
        problems += [f"{who or 'public'} {path}: decimals both ways {d}" for d in decimals_both_ways(text)]
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            slug = re.sub(r"[^a-z0-9]+", "-", f"{who or 'public'}{path}").strip("-")
            page.screenshot(path=str(Path(SHOTS) / f"{slug}-{width}.png"), full_page=True)
        page.close()
    for context in contexts.values():
        context.close()
    assert not problems, "English on Spanish pages:\n" + "\n".join(problems)
