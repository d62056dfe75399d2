"""The fee statement API and the public licence directories (issue 35), with their query counts."""

import datetime

import pytest
from django.contrib.auth.models import User

from events.models import EventStatus, EventSystem, RatingType
from membership.models import Licence
from tests.factories import make_federation, make_player
from tests.ratings.scenarios import event_with_games

pytestmark = pytest.mark.django_db


def event(count: int, status=EventStatus.SUBMITTED, **fields):
    group = [make_player() for _ in range(count)]
    made = event_with_games(group, [(0, 1, 1.0)], start=datetime.date(2026, 4, 1), status=status, **fields)
    return made, group


def test_fees_api_answers_fides_statement_for_a_swiss(client, django_assert_num_queries):
    swiss, _ = event(12)
    with django_assert_num_queries(5):  # event, participants, games, schedules, lines
        response = client.get(f"/api/v1/events/{swiss.pk}/fees/")
    assert response.status_code == 200
    body = response.json()
    assert body["lines"] == [{
        "description": "Swiss and team events: per player",
        "rule": "FIDE Financial Rules 2020, Appendix 2: EUR 1 per player",
        "quantity": 12, "unit_price": "1.00", "amount": "12.00", "currency": "EUR", "schedule": "fide",
    }]  # fmt: skip
    assert (body["total"], body["currency"]) == ("12.00", "EUR")


def test_fees_api_round_robin_band_and_rapid_waiver(client):
    rr, _ = event(4)
    rr.system = EventSystem.ROUND_ROBIN
    rr.save()
    rr.participants.update(rating=2380)
    assert client.get(f"/api/v1/events/{rr.pk}/fees/").json()["total"] == "40.00"  # €10 band × 4
    rapid, _ = event(30, rating_type=RatingType.RAPID)
    body = client.get(f"/api/v1/events/{rapid.pk}/fees/").json()
    assert body["total"] == "0.00"
    assert body["lines"][0]["description"].startswith("Rapid and blitz rating fees waived")


def test_fees_of_a_draft_are_not_public(client):
    draft, _ = event(4, status=EventStatus.DRAFT)
    assert client.get(f"/api/v1/events/{draft.pk}/fees/").status_code == 404


def test_directories_list_valid_licences_with_their_events(client, django_assert_num_queries):
    esp = make_federation()
    arbiter_user = User.objects.create_user("ca")
    ia = make_player(surname="Arbitro", given_names="Ana", federation=esp)
    lapsed = make_player(surname="Caducado", given_names="Luis", federation=esp)
    coach = make_player(surname="Entrenador", given_names="Eva", federation=esp)
    Licence.objects.create(
        kind="arbiter", grade="IA", player=ia, user=arbiter_user, valid_from=datetime.date(2020, 1, 1)
    )
    Licence.objects.create(kind="arbiter", grade="NA", player=lapsed, valid_from=datetime.date(2020, 1, 1),
                           valid_to=datetime.date(2021, 1, 1))  # fmt: skip
    Licence.objects.create(kind="trainer", grade="FT", player=coach, valid_from=datetime.date(2020, 1, 1))
    directed, _ = event(4, name="Open Arbitrado")
    directed.chief_arbiter = arbiter_user
    directed.save()
    with django_assert_num_queries(1):
        page = client.get("/arbiters/")
    text = page.content.decode()
    assert "Arbitro, Ana" in text
    assert "Caducado" not in text
    assert "Entrenador" not in text
    assert client.get("/api/v1/arbiters/").json()["results"] == [{
        "id_number": ia.id_number, "name": "Arbitro, Ana", "federation": "ESP", "grade": "IA",
        "valid_from": "2020-01-01", "valid_to": None, "events": 1,
    }]  # fmt: skip
    with django_assert_num_queries(2):
        holder = client.get(f"/arbiters/{ia.id_number}/")
    assert "Open Arbitrado" in holder.content.decode()
    assert client.get(f"/arbiters/{lapsed.id_number + 999}/").status_code == 404
    trainers = client.get("/trainers/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Entrenador, Eva" in trainers
    assert "Arbitro" not in trainers
    assert [row["name"] for row in client.get("/api/v1/trainers/").json()["results"]] == ["Entrenador, Eva"]
