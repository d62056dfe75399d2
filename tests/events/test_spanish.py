"""The lifecycle in Spanish (issue 15 through the admin, the public pages and e-mail): the statuses, the admin
screens (event page, registration, refusal, TRF upload and its check report), the registration form, the public
"rated events" / "awaiting rating" pages and the e-mails to the arbiter."""

import dataclasses
import datetime as dt

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone, translation

from events.models import EventStatus, IntegrityCheck, RatingType, Result
from events.services import event_register, event_registration_approve, event_submit
from events.trf import TrfRoundEntry
from events.trf_services import event_import_trf
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.events.test_registration import registration, run_queued_emails
from tests.events.test_trf_import import build_trf, four_players
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db

SPANISH = {"HTTP_ACCEPT_LANGUAGE": "es"}


def test_the_statuses_and_the_integrity_checks_have_spanish_labels():
    with translation.override("es"):
        assert [str(label) for label in EventStatus.labels] == [
            "Registrado",
            "Borrador",
            "Comprobado",
            "Enviado para valoración",
            "Valorado",
            "Corregido, pendiente de nueva valoración",
            "Rechazado",
        ]
        assert str(IntegrityCheck.SINGLE_CLUB.label) == "Un solo club, resultados muy alejados del Elo"
        assert str(RatingType.STANDARD.label) == "Estándar"
    assert str(EventStatus.SUBMITTED.label) == "Submitted for rating"  # and English still in English


def test_the_event_page_of_a_draft_speaks_spanish():
    arbiter = make_arbiter()
    players = four_players()
    players[2] = dataclasses.replace(players[2], rounds=[*players[2].rounds, TrfRoundEntry(2, None, "w", "1")])
    event = event_import_trf(build_trf(players), file_name="es.trf", user=arbiter).event

    page = client_for(arbiter).get(reverse("admin:events_event_change", args=[event.pk]), **SPANISH)

    text = page.content.decode()
    for spanish in (
        "Antes de poder enviar este torneo para valoración:",
        "Estado: <strong>Borrador</strong>",
        ">Comprobar</button>",
        ">Exportar TRF</a>",
        "<h2>Historial</h2>",
        "<th>cuándo</th><th>quién</th><th>de</th><th>a</th><th>lista</th><th>motivo</th>",
    ):
        assert spanish in text, spanish
    for english in ("Before this event can be submitted", "Timeline", ">Check</button>", "No status change"):
        assert english not in text, english


def test_registration_refusal_and_upload_screens_speak_spanish():
    arbiter = make_arbiter()
    client = client_for(arbiter)
    register = client.get(reverse("admin:events_event_register"), **SPANISH).content.decode()
    for spanish in ("Registre el torneo antes de que empiece", "Árbitros adjuntos", "Fecha de inicio", "Estándar"):
        assert spanish in register, spanish
    start = timezone.localdate() + dt.timedelta(days=60)
    wrong_way = client.post(
        reverse("admin:events_event_register"),
        {"name": "X", "city": "Y", "start_date": start, "end_date": start - dt.timedelta(days=1), "rounds": "5"}
        | {"rating_type": "rapid", "system": "swiss"},
        **SPANISH,
    ).content.decode()
    assert "El torneo termina" in wrong_way
    assert "antes de empezar" in wrong_way

    check = client.post(
        "/admin/events/event/upload-trf/",
        {"file": SimpleUploadedFile("open.trf", build_trf(four_players())), "check_only": "on"},
        **SPANISH,
    ).content.decode()
    assert "Comprobado, no se ha importado nada: 4 jugadores" in check
    assert "<h2>Partidas no valoradas</h2>" in check
    assert "Solo comprobar" in check

    event = make_event(name="Refusable", rounds=1, chief_arbiter=arbiter)
    refuse = client_for(make_officer()).get(reverse("admin:events_event_refuse", args=[event.pk]), **SPANISH)
    assert "Refusable: estado <strong>borrador</strong>" in refuse.content.decode()
    assert 'value="Rechazar el torneo"' in refuse.content.decode()


def test_the_public_awaiting_page_shows_spanish_statuses():
    arbiter = make_arbiter()
    event = make_event(name="Awaiting Open", rounds=1, chief_arbiter=arbiter)
    a, b = make_participants(event, [make_player(surname="Ames"), make_player(surname="Baker")])
    make_game(event, 1, a, b, result=Result.DRAW)
    event_submit(event, user=arbiter)
    page = client_for(arbiter).get(reverse("events:awaiting"), **SPANISH).content.decode()
    assert "Torneos pendientes de valoración" in page
    assert "<td>Enviado para valoración</td>" in page


def test_the_arbiters_emails_are_in_the_federations_language(settings):
    settings.LANGUAGE_CODE = "es"
    arbiter = make_arbiter()
    arbiter.email = "arbitro@example.org"
    arbiter.save()
    event = event_register(registration(name="Abierto de Bilbao"), user=arbiter)
    event_registration_approve(event, user=make_officer())
    run_queued_emails()
    (message,) = mail.outbox
    assert message.subject == "Registro confirmado: Abierto de Bilbao"
    assert "El responsable de Elo ha confirmado el registro de este torneo." in message.body
    assert "Fechas: del 2026-06-01 al 2026-06-05" in message.body


def test_a_refused_status_change_and_the_third_party_admin_names_speak_spanish():
    from django.core.exceptions import ValidationError
    from django.db import transaction
    from django.utils import translation

    from events.models import EventStatus
    from events.services import events_status_change
    from tests.factories import make_event

    event = make_event(status=EventStatus.RATED)
    with translation.override("es"), pytest.raises(ValidationError) as refused, transaction.atomic():
        events_status_change([event], EventStatus.DRAFT, user=None)
    assert "no puede pasar a" in refused.value.messages[0]
    with translation.override("es"):
        # django-axes and django-simple-history ship no Spanish: the project's catalogue gives it
        assert translation.gettext("access attempts") == "intentos de acceso"
        assert translation.gettext("Change history: %s") == "Historial de cambios: %s"
