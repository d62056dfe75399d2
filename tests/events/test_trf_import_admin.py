"""The admin's TRF upload (/admin/events/event/upload-trf/) and TRF download of an event."""

import datetime as dt

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from events.models import Event, EventStatus
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer, make_staff
from tests.events.test_trf_import import build_trf, four_players, row_counts

pytestmark = pytest.mark.django_db

UPLOAD_URL = "/admin/events/event/upload-trf/"


def upload(client, data: bytes, name: str = "open.trf", **fields):
    return client.post(UPLOAD_URL, {"file": SimpleUploadedFile(name, data), **fields})


def test_upload_page_is_at_its_address_for_users_who_may_add_events():
    assert reverse("admin:events_event_upload_trf") == UPLOAD_URL
    response = client_for(make_arbiter()).get(UPLOAD_URL)

    assert response.status_code == 200
    assert b'type="file"' in response.content
    assert b'name="rating_type"' in response.content
    assert b'name="submit"' in response.content


def test_staff_without_the_add_event_permission_cannot_upload():
    clerk = make_staff("clerk")

    assert client_for(clerk).get(UPLOAD_URL).status_code == 403
    assert upload(client_for(clerk), build_trf(four_players())).status_code == 403
    assert not Event.objects.exists()


def test_refused_upload_shows_line_column_and_reason_and_changes_nothing():
    arbiter = make_arbiter()
    data = build_trf(four_players()).replace(b"    2 w 1", b"    2 x 1", 1)
    before = row_counts()

    response = upload(client_for(arbiter), data, name="bad.trf")

    assert response.status_code == 200
    assert row_counts() == before
    page = response.content.decode()
    assert 'id="trf-refused"' in page
    assert "nothing was imported" in page
    problem = response.context["outcome"].errors[0]
    assert f"<td>{problem.line}</td><td>{problem.column}</td>" in page
    assert "is not w, b or -" in page


def test_accepted_upload_links_to_the_event_and_lists_warnings_and_duplicates():
    from tests.factories import make_player

    arbiter = make_arbiter()
    twin = make_player(surname="Gamma", given_names="Gus")

    response = upload(client_for(arbiter), build_trf(four_players(), name=""), rating_type="rapid")

    event = Event.objects.get()
    assert (event.rating_type, event.status, event.chief_arbiter) == ("rapid", EventStatus.DRAFT, arbiter)
    page = response.content.decode()
    assert 'id="trf-imported"' in page
    assert "4 players" in page
    assert reverse("admin:events_event_change", args=[event.pk]) in page
    assert reverse("admin:events_event_export_trf", args=[event.pk]) in page
    assert "no tournament name" in page  # a warning, listed
    assert 'id="trf-duplicates"' in page
    assert reverse("admin:players_player_change", args=[twin.pk]) in page
    assert LogEntry.objects.filter(object_id=str(event.pk), user=arbiter).exists()


def test_upload_can_submit_the_event_for_users_who_may_submit():
    officer = make_officer()

    upload(client_for(officer), build_trf(four_players()), submit="on")

    assert Event.objects.get().status == EventStatus.SUBMITTED


def test_submit_is_refused_to_users_without_the_submit_permission():
    clerk = make_staff("clerk")
    clerk.user_permissions.add(Permission.objects.get(codename="add_event"))

    response = upload(client_for(clerk), build_trf(four_players()), submit="on")

    assert response.status_code == 200
    assert not Event.objects.exists()
    assert "You may not submit events for rating" in response.content.decode()


def test_file_larger_than_the_upload_limit_is_refused_before_reading(settings):
    settings.TRF_UPLOAD_MAX_BYTES = 1024
    data = build_trf(four_players(), city="x" * 40) + b"### padding\r\n" * 200
    assert len(data) > 1024

    response = upload(client_for(make_arbiter()), data)

    assert response.status_code == 200
    assert not Event.objects.exists()
    assert "a TRF file may have at most 1,024 bytes" in response.content.decode()


def test_export_downloads_the_event_for_those_who_may_see_it():
    ann, bob = make_arbiter("ann"), make_arbiter("bob")
    data = build_trf(four_players(), start_date=dt.date(2026, 5, 2), end_date=dt.date(2026, 5, 3))
    upload(client_for(ann), data)
    event = Event.objects.get()
    url = reverse("admin:events_event_export_trf", args=[event.pk])

    response = client_for(ann).get(url)

    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="test-open-{event.pk}.trf"'
    assert b"042 2026/05/02\r\n" in response.content
    assert response.content.count(b"\r\n001 ") == 4
    assert client_for(bob).get(url).status_code in (302, 403, 404)  # not Bob's event


def test_event_pages_link_the_upload_and_the_export():
    ann = make_arbiter("ann")
    changelist = client_for(ann).get("/admin/events/event/")
    assert f'href="{UPLOAD_URL}"'.encode() in changelist.content

    upload(client_for(ann), build_trf(four_players()))
    event = Event.objects.get()
    change = client_for(ann).get(reverse("admin:events_event_change", args=[event.pk]))
    assert f'href="{reverse("admin:events_event_export_trf", args=[event.pk])}"'.encode() in change.content
