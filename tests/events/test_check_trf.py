"""Check before submitting (issue 15): "check only" in the admin upload, POST /api/v1/events/check-trf/ with an
arbiter's personal token, and the tokens' admin (each user manages only their own)."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.authtoken.models import Token

from events.trf import TrfPlayer
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer, make_staff
from tests.events.test_trf_import import CORPUS, build_trf, four_players, row_counts
from tests.factories import make_player

pytestmark = pytest.mark.django_db

UPLOAD_URL = "/admin/events/event/upload-trf/"
CHECK_URL = "/api/v1/events/check-trf/"
TOKENS_URL = "/admin/authtoken/tokenproxy/"


def token_client(user) -> Client:
    token = Token.objects.create(user=user)
    return Client(HTTP_AUTHORIZATION=f"Token {token.key}")


# --- admin: check only ---------------------------------------------------------------------------------


def test_check_only_upload_reports_everything_and_writes_nothing():
    make_player(id_number=4100018, surname="Alpha", given_names="Anna")
    make_player(id_number=4100999, surname="Beta", given_names="Bert")  # likely duplicate of a new player
    players = four_players(ids=("4100018", "", "", ""))
    client = client_for(make_arbiter())
    before = row_counts()

    response = client.post(UPLOAD_URL, {"file": SimpleUploadedFile("open.trf", build_trf(players)), "check_only": "on"})

    assert response.status_code == 200
    assert row_counts() == before
    page = response.content.decode()
    assert 'id="trf-checked"' in page
    assert "Checked, nothing imported: 4 players" in page
    assert "1 matched by ID number, 3 to be created" in page
    assert "matched: Alpha, Anna" in page
    assert "Beta, Bert (4100999, same name)" in page
    assert 'id="trf-unrated"' in page
    assert "forfeit" in page
    assert "bye" in page


def test_check_only_of_a_bad_file_names_line_and_column_and_writes_nothing():
    data = build_trf(four_players()).replace(b"    2 w 1", b"    2 x 1", 1)
    before = row_counts()
    response = client_for(make_arbiter()).post(
        UPLOAD_URL, {"file": SimpleUploadedFile("bad.trf", data), "check_only": "on"}
    )
    assert row_counts() == before
    page = response.content.decode()
    assert "Checked, nothing imported: the file would be refused" in page
    assert 'class="trf-error"' in page


# --- API -----------------------------------------------------------------------------------------------


def test_the_api_checks_a_body_with_an_arbiters_token_and_writes_nothing():
    make_player(id_number=4100018, surname="Alpha", given_names="Anna")
    client = token_client(make_arbiter())
    before = row_counts()

    response = client.post(CHECK_URL, build_trf(four_players(ids=("4100018", "", "", ""))), content_type="text/plain")

    assert response.status_code == 200, response.content
    assert row_counts() == before
    report = response.json()
    assert {"errors", "warnings", "players", "games", "rated_games", "matches"} <= set(report)
    assert (report["errors"], report["players"], report["games"], report["rated_games"]) == ([], 4, 4, 2)
    assert [m["status"] for m in report["matches"]] == ["matched", "new", "new", "new"]
    assert report["matches"][0]["player"] == {"id_number": 4100018, "name": "Alpha, Anna"}
    assert sorted(g["why"] for g in report["not_rated"]) == ["bye", "forfeit"]


def test_the_api_takes_a_multipart_file_field_and_reports_problems_by_line():
    data = build_trf(four_players()).replace(b"    2 w 1", b"    2 x 1", 1)
    response = token_client(make_arbiter()).post(CHECK_URL, {"file": SimpleUploadedFile("bad.trf", data)})
    assert response.status_code == 200
    errors = response.json()["errors"]
    assert errors
    assert all(error["line"] for error in errors)
    assert response.json()["matches"] == []


def test_the_api_checks_a_real_file_as_a_submission():
    real = CORPUS / "sklangen_example1_karl_mala_2005.trf"
    if not real.is_file():
        pytest.skip(f"{real} is absent: the real files live in ../shared/data/trf, never in the repository")
    data = real.read_bytes()
    before = row_counts()
    report = token_client(make_officer()).post(CHECK_URL, data, content_type="application/octet-stream").json()
    assert row_counts() == before
    assert report["errors"] == []
    assert report["players"] > 0
    assert report["games"] >= report["rated_games"] > 0


@pytest.mark.parametrize(
    ("headers", "expected"),
    [({}, 401), ({"HTTP_AUTHORIZATION": "Token not-a-token"}, 401)],
)
def test_the_api_refuses_without_a_valid_token(headers, expected):
    response = Client(**headers).post(CHECK_URL, build_trf(four_players()), content_type="text/plain")
    assert response.status_code == expected
    assert "detail" in response.json()


def test_the_api_refuses_a_user_who_is_not_an_arbiter():
    response = token_client(make_staff("clerk")).post(CHECK_URL, build_trf(four_players()), content_type="text/plain")
    assert response.status_code == 403


def test_an_empty_body_or_a_form_without_file_is_a_clear_400():
    client = token_client(make_arbiter())
    assert client.post(CHECK_URL, b"", content_type="text/plain").json() == {
        "detail": "Send the TRF file as the request body or as the 'file' field of a multipart form."
    }
    assert client.post(CHECK_URL, {"other": "x"}).json() == {"detail": "The multipart form has no 'file' field."}


def test_a_file_over_the_limit_is_refused_before_it_is_read(settings):
    settings.TRF_UPLOAD_MAX_BYTES = 1024
    response = token_client(make_arbiter()).post(CHECK_URL, b"012 x\n" * 400, content_type="text/plain")
    assert response.status_code == 413
    assert "at most 1,024 bytes" in response.json()["detail"]


def test_a_player_without_name_or_id_is_an_error_with_its_line():
    players = four_players()
    players[1] = TrfPlayer(**{**players[1].__dict__, "name": ""})
    report = token_client(make_arbiter()).post(CHECK_URL, build_trf(players), content_type="text/plain").json()
    assert any("player 2 has no name" in error["message"] and error["line"] for error in report["errors"])


# --- tokens in the admin -------------------------------------------------------------------------------


def test_an_arbiter_generates_sees_and_revokes_only_their_own_token():
    arbiter, other = make_arbiter(), make_arbiter("other")
    theirs = Token.objects.create(user=other)
    client = client_for(arbiter)

    response = client.post(f"{TOKENS_URL}add/", {}, follow=True)
    mine = Token.objects.get(user=arbiter)
    assert f"Your API token is {mine.key}" in response.content.decode()
    listing = client.get(TOKENS_URL).content.decode()
    assert mine.key in listing
    assert theirs.key not in listing
    again = client.get(f"{TOKENS_URL}add/", follow=True)  # one token each: revoke it first
    assert "You already have a token" in again.content.decode()
    assert Token.objects.filter(user=arbiter).count() == 1
    assert client.get(f"{TOKENS_URL}{other.pk}/delete/").status_code == 302  # not theirs: "does not exist"
    client.post(f"{TOKENS_URL}{arbiter.pk}/delete/", {"post": "yes"})
    assert not Token.objects.filter(user=arbiter).exists()
    assert Token.objects.filter(pk=theirs.pk).exists()
