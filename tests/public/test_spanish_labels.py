"""Spanish everywhere (issue 32), piece by piece: the admin's model and field names, the round screen's byes, the
status timeline's reasons, the calculator's presets and its "why" for an initial rating. The browser walk over the
key pages is tests/public/test_spanish_browser.py."""

import dataclasses
import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import translation

from events.models import Event, EventStatus, EventStatusChange, Result
from events.selectors import RoundCell
from ratings.engine.calculator import calculate_initial_rating
from ratings.engine.presets import get_preset
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db
SPANISH = {"HTTP_ACCEPT_LANGUAGE": "es"}


def test_models_and_fields_have_spanish_names():
    with translation.override("es"):
        assert str(Event._meta.verbose_name_plural) == "torneos"
        assert str(Event._meta.get_field("start_date").verbose_name) == "fecha de inicio"
        assert str(Result.PENDING.label) == "Aún no jugada"
    assert str(Event._meta.get_field("start_date").verbose_name) == "start date"  # English stays English


def test_the_events_list_and_form_speak_spanish():
    client = client_for(make_officer())
    listing = client.get(reverse("admin:events_event_changelist"), **SPANISH).content.decode()
    crumbs = re.sub(r"\s+", " ", listing[listing.index('class="breadcrumbs"') :].split("</div>")[0])
    assert crumbs.endswith('<a href="/admin/events/">Torneos</a> &rsaquo; Torneos ')  # was "Torneos &rsaquo; Events"
    assert "Por ritmo" in listing  # the filter was "Por rating type"
    for english in ("By status", "By rating type", "Events</a>"):
        assert english not in listing, english
    form = client.get(reverse("admin:events_event_add"), **SPANISH).content.decode()
    assert "Añadir torneo" in form
    assert "Add event" not in form


def test_the_round_screen_names_byes_in_spanish():
    arbiter = make_arbiter()
    event = make_event(status=EventStatus.DRAFT, rounds=2, start_date=dt.date(2026, 4, 1))
    event.arbiters.add(arbiter)
    first, second, third = make_participants(event, [make_player() for _ in range(3)])
    make_game(event, 1, first, second, Result.WHITE_WIN, board=1)
    make_game(event, 1, third, None, Result.HALF_POINT_BYE)
    page = client_for(arbiter).get(f"/admin/events/event/{event.pk}/round/1/", **SPANISH).content.decode()
    assert "desc. ½ (H)" in page
    assert "bye ½ (H)" not in page
    with translation.override("es"):
        cell = RoundCell(1, None, "", Result.HALF_POINT_BYE, "½", 0.5, False)
        assert cell.text == "descanso ½"


def test_fixed_timeline_reasons_are_shown_in_spanish_and_free_text_as_written():
    event = make_event()
    fixed = EventStatusChange(event=event, to_status=EventStatus.DRAFT, reason="returned to draft")
    correction = EventStatusChange(event=event, to_status=EventStatus.CORRECTED, reason="correction: typo in round 3")
    free = EventStatusChange(event=event, to_status=EventStatus.REFUSED, reason="Sin árbitro titulado")
    imported = EventStatusChange(
        event=event, to_status=EventStatus.DRAFT, reason="results received: imported from a.trf"
    )
    with translation.override("es"):
        assert imported.reason_display == "resultados recibidos: importados de a.trf"
        assert fixed.reason_display == "devuelto a borrador"
        assert correction.reason_display == "corrección: typo in round 3"
        assert free.reason_display == "Sin árbitro titulado"
    assert fixed.reason_display == "returned to draft"


def test_the_calculator_page_names_presets_and_the_initial_rating_reason_in_spanish(client):
    page = client.get("/calculator/", {"games": "1900 1", "rules": "fide-2024"}, **SPANISH).content.decode()
    assert "Reglamento de Elo FIDE del 1 jul 2014" in page
    assert "FIDE rating regulations" not in page
    assert "1 partida(s) contra rivales con Elo contadas; se necesitan 5" in page
    assert "game(s) against rated opponents" not in page


def test_the_engine_reason_in_english_is_unchanged():
    rules = get_preset("fide-2024")
    initial = calculate_initial_rating([1900.0], [1.0], rules, list_date=dt.date(2026, 3, 1))
    assert initial.reason == "1 game(s) against rated opponents counted; 5 needed"
    assert "reason_parts" not in initial.to_dict()


def test_the_trf_readers_problems_are_grouped_and_shown_in_spanish():
    """The pure reader gives each problem as an English template and its values; the page translates it
    (events.trf_text), so 3 players without a sex read as one Spanish group, not three English lines."""
    from events.trf import parse_trf
    from events.trf.grouping import group_problems
    from events.trf_text import trf_group_text, trf_problem_text
    from tests.events.test_trf_import import build_trf, four_players

    players = [dataclasses.replace(p, sex="x") for p in four_players()[:3]] + four_players()[3:]
    parsed = parse_trf(build_trf(players))
    groups = [g for g in group_problems(parsed.problems) if "sex" in g.message]
    assert len(groups) == 1
    assert groups[0].count == 3
    assert groups[0].first.message == "player 1: sex 'x' is not m or w; ignored"  # the record stays English
    with translation.override("es"):
        assert trf_problem_text(groups[0].first) == "jugador 1: el sexo 'x' no es m ni w; se ignora"
        assert trf_group_text(groups[0]) == "jugador …: el sexo 'x' no es m ni w; se ignora"


def test_the_upload_check_report_speaks_spanish():
    from tests.events.test_trf_import import build_trf, four_players
    from tests.events.test_trf_upload_flow import SPANISH as ES
    from tests.events.test_trf_upload_flow import upload

    players = [dataclasses.replace(p, sex="x") for p in four_players()]
    page = upload(client_for(make_arbiter()), build_trf(players), check_only="on", headers=ES).content.decode()
    assert "jugador …: el sexo &#x27;x&#x27; no es m ni w; se ignora" in page
    assert "is not m or w" not in page


def test_the_game_forms_messages_speak_spanish():
    from events.forms import pairing_problems, participant_label, place_label

    event = make_event(name="Open", rounds=1)
    first, second = make_participants(event, [make_player(surname="Ruiz", given_names="Ana"), make_player()])
    rows = {"a": (2, 1, first.pk, second.pk)}
    with translation.override("es"):
        assert place_label(3, 2) == "Ronda 3, mesa 2"
        assert participant_label(first) == "Ruiz, Ana (n.º 1)"
        assert pairing_problems(event, rows, {1: first, 2: second}) == [
            "La ronda 2 tiene partidas pero Open solo tiene 1 rondas."
        ]
    assert place_label(3, 2) == "Round 3, board 2"


def test_the_trf_readers_reasons_inside_a_message_are_spanish_too():
    from events.trf.reader import parse_trf
    from events.trf_text import trf_problem_text

    result = parse_trf("012 Open\n999 what is this\n062 abc\n")
    with translation.override("es"):
        texts = [trf_problem_text(p) for p in result.problems]
    assert any("código de registro desconocido" in t for t in texts), texts
    assert not any("unknown record code" in t for t in texts), texts
