"""The admin's TRF upload as an arbiter uses it (issue 32, slice "TRF upload in the admin"): a rating type asked
for, "Import this file" after a check, unrated games by name, a file onto an event being entered, names without
a comma, the same warning on many lines said once; in English and Spanish."""

import dataclasses
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from audit.models import AuditEvent
from events.models import Event, EventStatus, Game, Participant, Result
from events.trf import WARNING, TrfProblem, group_problems
from events.trf_services import event_import_trf
from players.models import Player
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.events.test_trf_import import build_trf, four_players, row_counts
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db

UPLOAD_URL = "/admin/events/event/upload-trf/"
SPANISH = {"HTTP_ACCEPT_LANGUAGE": "es"}


def upload(client, data: bytes, name: str = "open.trf", url: str = UPLOAD_URL, headers=None, **fields):
    return client.post(url, {"file": SimpleUploadedFile(name, data), **fields}, **(headers or {}))


def checked_digest(page: str) -> str:
    return re.search(r'name="checked" value="([0-9a-f]{64})"', page)[1]


# ---------------------------------------------------------------- a rating type is asked for, never left empty


def test_as_the_file_says_refuses_a_file_without_a_rating_type_and_imports_it_once_chosen():
    arbiter = make_arbiter()
    client = client_for(arbiter)
    data = build_trf(four_players(), tournament_type="Swiss")  # 092 names no rating type
    before = row_counts()

    page = upload(client, data).content.decode()

    assert row_counts() == before  # nothing written: no draft without a rating type
    assert 'id="trf-needs-rating-type"' in page
    assert "choose Standard, Rapid or Blitz under &#x27;Rating type&#x27;" in page
    assert 'id="trf-import-checked"' in page  # the file is kept: choosing the type needs no second upload

    client.post(UPLOAD_URL, {"checked": checked_digest(page), "rating_type": "rapid"})

    event = Event.objects.get()
    assert (event.rating_type, event.status, Participant.objects.filter(event=event).count()) == (
        "rapid",
        EventStatus.DRAFT,
        4,
    )


def test_a_check_of_a_file_without_a_rating_type_says_so_and_an_empty_choice_is_refused_again():
    client = client_for(make_arbiter())
    page = upload(client, build_trf(four_players(), tournament_type="Swiss"), check_only="on").content.decode()
    assert 'id="trf-checked"' in page
    assert "choose Standard, Rapid or Blitz" in page

    again = client.post(UPLOAD_URL, {"checked": checked_digest(page), "rating_type": ""}).content.decode()

    assert not Event.objects.exists()
    assert 'id="trf-needs-rating-type"' in again


def test_a_rating_type_the_file_names_needs_no_choice():
    upload(client_for(make_arbiter()), build_trf(four_players(), tournament_type="Swiss blitz"))
    assert Event.objects.get().rating_type == "blitz"


# ------------------------------------------------------------------------------ "Import this file" after a check


def test_the_check_report_offers_to_import_exactly_the_checked_file():
    arbiter = make_arbiter()
    client = client_for(arbiter)
    data = build_trf(four_players())
    page = upload(client, data, check_only="on").content.decode()
    assert not Event.objects.exists()
    assert ">Import this file</button>" in page

    imported = client.post(UPLOAD_URL, {"checked": checked_digest(page), "rating_type": ""}).content.decode()

    event = Event.objects.get()
    assert 'id="trf-imported"' in imported
    assert (event.name, event.rating_type, Game.objects.filter(event=event).count()) == ("Test Open", "standard", 4)
    # imported once: the kept file is gone, a second post imports nothing
    twice = client.post(UPLOAD_URL, {"checked": checked_digest(page)}).content.decode()
    assert Event.objects.count() == 1
    assert "The checked file is no longer kept" in twice


def test_a_forged_or_foreign_digest_imports_nothing():
    ann, bob = client_for(make_arbiter("ann")), client_for(make_arbiter("bob"))
    page = upload(ann, build_trf(four_players()), check_only="on").content.decode()

    bob.post(UPLOAD_URL, {"checked": checked_digest(page)})  # Bob's session never held Ann's file
    ann.post(UPLOAD_URL, {"checked": "0" * 64})

    assert not Event.objects.exists()


def test_a_refused_file_offers_no_import():
    data = build_trf(four_players()).replace(b"    2 w 1", b"    2 x 1", 1)
    page = upload(client_for(make_arbiter()), data, check_only="on").content.decode()
    assert 'id="trf-refused"' in page
    assert 'id="trf-import-checked"' not in page


# ---------------------------------------------------------------------------------- unrated games by their names


def test_games_not_rated_name_the_players():
    page = upload(client_for(make_arbiter()), build_trf(four_players()), check_only="on").content.decode()
    unrated = page[page.index('id="trf-unrated"') :]
    assert "Gamma, Gus" in unrated
    assert "Delta, Dora" in unrated
    assert "Beta, Bert" in unrated  # the half-point bye, round 2


# ---------------------------------------------------------------------- a file onto an event entered by hand


def hand_entered_event(arbiter):
    """A draft entered by hand: Alpha, Beta and Zulu; round 1 Alpha-Beta 1-0, Zulu a bye."""
    event = make_event(name="Hand Open", rounds=2, chief_arbiter=arbiter, rating_type="standard")
    players = [
        make_player(surname="Alpha", given_names="Anna", id_number=101),
        make_player(surname="Beta", given_names="Bert", id_number=102),
        make_player(surname="Zulu", given_names="Zed", id_number=109),
    ]
    a, b, z = make_participants(event, players)
    make_game(event, 1, a, b, result=Result.WHITE_WIN)
    make_game(event, 1, z, None, result=Result.FULL_POINT_BYE)
    return event


def test_a_file_replaces_the_rounds_of_an_event_in_entry_after_showing_what_changes():
    arbiter = make_arbiter()
    client = client_for(arbiter)
    event = hand_entered_event(arbiter)
    url = reverse("admin:events_event_upload_trf_into", args=[event.pk])
    data = build_trf(four_players(ids=("101", "102", "", "")), name="Renamed in the file")
    assert "Upload TRF" in client.get(reverse("admin:events_event_change", args=[event.pk])).content.decode()

    report = upload(client, data, url=url).content.decode()

    # nothing changed yet; the report says what would
    assert Participant.objects.filter(event=event).count() == 3
    assert Game.objects.filter(event=event).count() == 2
    change = report[report.index('id="trf-replacement"') :]
    assert "<td>3</td><td>4</td>" in change  # players now / from the file
    assert "<td>2</td><td>4</td>" in change  # games
    assert "Gamma, Gus" in change
    assert "Delta, Dora" in change
    assert "1 player leaves the event:</strong> Zulu, Zed" in change
    assert "Replace the rounds and results of Hand Open" in report

    client.post(url, {"checked": checked_digest(report)})

    event.refresh_from_db()
    assert event.name == "Hand Open"  # the event's own name kept
    assert sorted(Participant.objects.filter(event=event).values_list("player__surname", flat=True)) == [
        "Alpha",
        "Beta",
        "Delta",
        "Gamma",
    ]
    assert Game.objects.filter(event=event).count() == 4
    assert Player.objects.filter(surname="Zulu").exists()  # the player record stays; only the entry goes
    audit = AuditEvent.objects.get(action="event.replace_trf")
    assert (audit.before, audit.after["games"]) == ({"players": 3, "games": 2}, 4)


def test_a_registered_event_becomes_a_draft_with_the_files_results():
    arbiter = make_arbiter()
    event = make_event(name="Registered Open", rounds=2, chief_arbiter=arbiter, status=EventStatus.REGISTERED)
    url = reverse("admin:events_event_upload_trf_into", args=[event.pk])
    client = client_for(arbiter)
    report = upload(client, build_trf(four_players()), url=url).content.decode()
    client.post(url, {"checked": checked_digest(report)})
    event.refresh_from_db()
    assert (event.status, event.rating_type) == (EventStatus.DRAFT, "standard")
    assert event.status_changes.filter(to_status=EventStatus.DRAFT, reason__contains="results replaced").exists()


def test_a_submitted_event_takes_no_file():
    officer = make_officer()
    arbiter = make_arbiter()
    event = hand_entered_event(arbiter)
    Event.objects.filter(pk=event.pk).update(status=EventStatus.SUBMITTED)
    url = reverse("admin:events_event_upload_trf_into", args=[event.pk])

    page = client_for(officer).get(url).content.decode()
    assert 'id="trf-into-closed"' in page
    assert 'type="file"' not in page
    outcome = event_import_trf(build_trf(four_players()), file_name="x.trf", user=officer, into=event)
    assert outcome.event is None
    assert "a file replaces the results only of an event not yet submitted" in outcome.errors[0].message
    assert Game.objects.filter(event=event).count() == 2


def test_an_arbiter_cannot_upload_onto_someone_elses_event():
    event = hand_entered_event(make_arbiter("ann"))
    url = reverse("admin:events_event_upload_trf_into", args=[event.pk])
    response = upload(client_for(make_arbiter("bob")), build_trf(four_players()), url=url)
    assert response.status_code in (302, 403, 404)
    assert Game.objects.filter(event=event).count() == 2


# ------------------------------------------------------------------------------------ names without a comma


def test_a_new_players_name_without_a_comma_is_kept_whole_with_a_warning_naming_its_line():
    players = four_players()
    players[2] = dataclasses.replace(players[2], name="Gus Gamma")
    outcome = event_import_trf(build_trf(players), file_name="n.trf", user=None)
    gus = Player.objects.get(surname="Gus Gamma")
    assert gus.given_names == ""
    (warning,) = [w for w in outcome.warnings if "has no comma" in w.message]
    data = build_trf(players)
    line = next(n for n, text in enumerate(data.split(b"\r\n"), start=1) if text.startswith(b"001    3"))
    assert (warning.line, warning.column) == (line, 15)
    assert warning.message.startswith("player 3 (Gus Gamma): the name has no comma")


# -------------------------------------------------------------------------- the same warning on many lines


def test_identical_warnings_on_many_lines_are_one_group_with_every_line():
    problems = [
        TrfProblem(line, 70, WARNING, f"player {line - 3} (Name {line}, X): birth date '1990' is not at columns 70-79")
        for line in range(4, 38)
    ] + [TrfProblem(2, 5, WARNING, "record 042: date 'x' not understood")]

    groups = group_problems(problems)

    assert [g.count for g in groups] == [1, 34]
    many = groups[1]
    assert many.lines == list(range(4, 38))
    assert many.message == "player …: birth date '1990' is not at columns 70-79"
    assert str(many).startswith("lines 4, 5, 6, 7, 8, 9, 10, 11 … (34 lines): warning: player …: birth date")


def test_the_upload_page_shows_34_identical_warnings_as_one_row():
    players = [
        dataclasses.replace(p, name=p.name.replace(", ", " "), start_rank=rank, rounds=[], points=None)
        for rank, p in enumerate(four_players() * 9, start=1)
    ][:34]
    page = upload(client_for(make_arbiter()), build_trf(players), check_only="on").content.decode()
    problems = page[page.index('id="trf-problems"') :]
    assert problems.count("the name has no comma") == 35  # the group's message and, folded, each line's
    assert "(34 lines)" in problems
    assert problems.count('class="trf-warning trf-group"') == 1


# ------------------------------------------------------------------------------------------------ in Spanish


def test_the_upload_flow_speaks_spanish():
    client = client_for(make_arbiter())
    players = four_players()
    players[2] = dataclasses.replace(players[2], name="Gus Gamma")
    page = upload(
        client, build_trf(players, tournament_type="Swiss"), check_only="on", headers=SPANISH
    ).content.decode()
    for spanish in (
        "Comprobado, no se ha importado nada: 4 jugadores",
        "Importar este archivo",
        "elija Estándar, Rápido o Blitz en «Ritmo»",
        "jugador 3 (Gus Gamma): el nombre no tiene coma",
        "incomparecencia",
    ):
        assert spanish in page, spanish
    for english in ("Import this file", "choose Standard", "has no comma", ">forfeit<"):
        assert english not in page, english

    event = hand_entered_event(make_arbiter("eva"))
    url = reverse("admin:events_event_upload_trf_into", args=[event.pk])
    report = upload(
        client_for(event.chief_arbiter), build_trf(four_players()), url=url, headers=SPANISH
    ).content.decode()
    for spanish in ("Lo que el archivo cambia en este torneo", "Sustituir las rondas y resultados de Hand Open"):
        assert spanish in report, spanish


def test_a_submitted_round_entry_is_untouched_by_a_check():
    arbiter = make_arbiter()
    event = hand_entered_event(arbiter)
    before = row_counts()
    outcome = event_import_trf(build_trf(four_players()), file_name="x.trf", user=arbiter, into=event, check_only=True)
    assert outcome.replacement is not None
    assert outcome.replacement.games_before == 2
    assert row_counts() == before
