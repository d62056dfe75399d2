"""Structured request logs: one JSON object per request (core/request_log.py)."""

import json
import logging

import pytest

pytestmark = pytest.mark.django_db


def records(caplog):
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "federation.request"]


def test_each_request_is_one_json_line(client, caplog):
    with caplog.at_level(logging.INFO, logger="federation.request"):
        response = client.get("/players/?q=smith", HTTP_X_REQUEST_ID="probe-42")
    (record,) = records(caplog)
    assert response["X-Request-ID"] == "probe-42"
    assert record["request_id"] == "probe-42"
    assert record["method"] == "GET"
    assert record["path"] == "/players/"  # the query string (a personal search) is not logged
    assert record["status"] == 200
    assert record["bytes"] == len(response.content)
    assert record["queries"] >= 1
    assert record["duration_ms"] >= 0
    assert record["user"] is None
    assert record["client"] == "127.0.0.1"


def test_refusals_are_logged_and_a_hostile_request_id_is_replaced(client, caplog):
    with caplog.at_level(logging.INFO, logger="federation.request"):
        response = client.get("/players/99999999/", HTTP_X_REQUEST_ID='"}\n{"forged": 1')
    (record,) = records(caplog)
    assert record["status"] == 404
    assert "forged" not in record
    assert len(record["request_id"]) == 32
    assert response["X-Request-ID"] == record["request_id"]


def test_signed_in_user_is_logged_by_id(admin_client, admin_user, caplog):
    with caplog.at_level(logging.INFO, logger="federation.request"):
        admin_client.get("/admin/")
    (record,) = records(caplog)
    assert record["user"] == admin_user.pk


def test_static_files_are_served_by_whitenoise(client, settings, tmp_path):
    from django.core.management import call_command

    settings.STATIC_ROOT = tmp_path
    call_command("collectstatic", "--no-input", verbosity=0)
    from django.test import Client

    response = Client().get("/static/admin/css/base.css", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "max-age" in response["Cache-Control"]
