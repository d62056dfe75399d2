"""BatchWriter inserts and upserts rows as the ORM would store them, on SQLite and PostgreSQL alike: columns
left out get the model's defaults, an upsert changes only the columns it names, and the database's refusals
arrive as Django's errors."""

import datetime

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from core.bulk import BatchWriter
from players.models import Player
from tests.factories import make_federation

pytestmark = pytest.mark.django_db

FIELDS = ["id_number", "surname", "given_names", "search_name", "birth_year", "federation", "created_at"]


def driver_now() -> object:
    return connection.ops.adapt_datetimefield_value(timezone.now())


def test_batch_writer_inserts_rows_and_fills_the_columns_left_out_with_the_orm_defaults():
    federation = make_federation()
    now = driver_now()
    writer = BatchWriter(Player, FIELDS)
    writer.write(
        [
            (910001, "Aronian", "Levon", "ARONIAN, LEVON", 1982, federation.code, now),
            (910002, "Ding", "", "DING", None, None, now),
        ]
    )
    writer.write([])  # nothing to write: no query
    first, second = Player.objects.filter(id_number__in=[910001, 910002]).order_by("id_number")
    assert (first.surname, first.given_names, first.birth_year, first.federation_id) == (
        "Aronian",
        "Levon",
        1982,
        federation.code,
    )
    assert (second.birth_year, second.federation_id) == (None, None)
    # left out: the field defaults (blank text, False) and auto_now (the time of the write)
    assert (first.sex, first.title, first.needs_review, first.merged_into_id) == ("", "", False, None)
    assert first.updated_at is not None
    assert abs(first.updated_at - timezone.now()) < datetime.timedelta(minutes=1)


def test_batch_writer_upsert_updates_only_the_named_columns_of_existing_rows_and_inserts_the_others():
    federation = make_federation()
    created = timezone.now() - datetime.timedelta(days=30)
    Player.objects.create(id_number=920001, surname="Old", given_names="Name", title="GM", federation=federation)
    Player.objects.filter(id_number=920001).update(created_at=created)
    writer = BatchWriter(
        Player, FIELDS, conflict=("id_number",), update=("surname", "given_names", "search_name", "birth_year")
    )
    now = driver_now()
    for _ in range(2):  # the same writer twice: the staging table is emptied between batches
        writer.write(
            [
                (920001, "New", "Name", "NEW, NAME", 1990, federation.code, now),
                (920002, "Fresh", "", "FRESH", 2001, federation.code, now),
            ]
        )
    assert Player.objects.filter(id_number__in=[920001, 920002]).count() == 2
    updated = Player.objects.get(id_number=920001)
    assert (updated.surname, updated.search_name, updated.birth_year) == ("New", "NEW, NAME", 1990)
    assert updated.title == "GM"  # not named in update: kept
    assert abs(updated.created_at - created) < datetime.timedelta(seconds=1)  # kept
    assert Player.objects.get(id_number=920002).surname == "Fresh"


def test_batch_writer_refusal_by_the_database_is_django_integrity_error():
    now = driver_now()
    writer = BatchWriter(Player, FIELDS)
    with pytest.raises(IntegrityError), transaction.atomic():
        writer.write([(-5, "Negative", "", "NEGATIVE", None, None, now)])  # player_id_number_positive
