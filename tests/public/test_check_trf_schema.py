"""``POST /api/v1/events/check-trf/`` (issue 32, found by schema fuzzing): the schema says what the server
requires (a body of at least one byte, or a form with a non-empty ``file``), and every body the schema accepts is
answered with a report, never a 400."""

import io
import json

import pytest
from django.core.management import call_command

from events.models import Event
from tests.events.test_admin_roles import make_arbiter
from tests.events.test_check_trf import CHECK_URL, token_client

pytestmark = pytest.mark.django_db


def _request_body() -> dict:
    out = io.StringIO()
    call_command("spectacular", "--format", "openapi-json", stdout=out)
    return json.loads(out.getvalue())["paths"][CHECK_URL]["post"]["requestBody"]


def test_the_schema_requires_a_body_of_at_least_one_byte_or_a_file():
    body = _request_body()
    assert body["required"] is True
    assert body["content"]["text/plain"]["schema"]["minLength"] == 1
    form = body["content"]["multipart/form-data"]["schema"]
    assert form["required"] == ["file"]
    assert form["properties"]["file"]["minLength"] == 1


@pytest.mark.parametrize("blank", [b"\n", b" ", b"\t\r\n  "])
def test_a_blank_body_valid_by_the_schema_is_a_report_saying_there_is_no_player(blank):
    response = token_client(make_arbiter()).post(CHECK_URL, blank, content_type="text/plain")
    assert response.status_code == 200, response.content
    assert [problem["message"] for problem in response.json()["errors"]] == [
        "no player records (001): nothing to import"
    ]
    assert not Event.objects.exists()


def test_only_what_the_schema_refuses_is_a_400():
    client = token_client(make_arbiter())
    assert client.post(CHECK_URL, b"", content_type="text/plain").status_code == 400
    assert client.post(CHECK_URL, {"other": "x"}).status_code == 400
