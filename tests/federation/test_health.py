"""/health/ for load balancers: 200 when the database, the broker and the migrations are fine; 503 naming
what failed otherwise. The checks run in worker threads with their own connections, as in production, so
these tests use committed data (transactional_db)."""

import pytest
from django.db import connections
from django.db.migrations.recorder import MigrationRecorder

pytestmark = pytest.mark.django_db(transaction=True)


def health(client):
    response = client.get("/health/?format=json")
    return response.status_code, response.json()


def test_healthy_answers_200_with_each_check(client):
    status, body = health(client)
    assert status == 200, body
    assert set(body.values()) == {"OK"}
    assert {name.split("(")[0] for name in body} == {"Database", "Broker", "Migrations"}


def test_pending_migration_answers_503_naming_it(client):
    recorder = MigrationRecorder(connections["default"])
    latest = recorder.migration_qs.filter(app="ratings").order_by("-id").first()
    recorder.record_unapplied(latest.app, latest.name)
    try:
        status, body = health(client)
    finally:
        recorder.record_applied(latest.app, latest.name)
    assert status == 503
    migrations = next(value for name, value in body.items() if name.startswith("Migrations"))
    assert f"ratings.{latest.name}" in migrations
    assert health(client)[0] == 200


def test_unreachable_broker_answers_503(client, settings):
    # Nothing listens on port 1 of 127.0.0.1: the connection is refused at once.
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    status, body = health(client)
    assert status == 503
    broker = next(value for name, value in body.items() if name.startswith("Broker"))
    assert "broker unreachable" in broker


def test_unreachable_database_answers_503(client):
    shared = connections.settings["default"]
    saved = dict(shared)
    if shared["ENGINE"].endswith("sqlite3"):
        shared["NAME"] = "/nonexistent-folder/db.sqlite3"
    else:
        shared["PORT"] = "1"
    try:
        status, body = health(client)
    finally:
        shared.clear()
        shared.update(saved)
    assert status == 503
    database = next(value for name, value in body.items() if name.startswith("Database"))
    assert database != "OK"
