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


def staged_columns(rows: list[tuple]) -> list:
    import numpy as np

    id_numbers, surnames, births = zip(*rows, strict=True)
    return [
        np.array(id_numbers, dtype=np.int64),
        np.array([s.encode() for s in surnames], dtype="S"),
        np.array([np.nan if b is None else b for b in births], dtype=np.float64),
    ]


@pytest.mark.parametrize("rebuild_at", [None, 1])
def test_staged_upsert_updates_what_differs_inserts_the_rest_and_returns_every_key(rebuild_at):
    from core.bulk import StagedUpsert

    kept = Player.objects.create(id_number=930001, surname="Same", birth_year=1990)
    changed = Player.objects.create(id_number=930002, surname="Old", birth_year=1991)
    stamp = Player.objects.filter(pk=kept.pk).values_list("updated_at", flat=True).get()
    upsert = StagedUpsert(
        Player,
        ["id_number", "surname", "birth_year"],
        key="id_number",
        update=("surname", "birth_year", "updated_at"),
        compare=("surname", "birth_year"),
        rebuild_at=rebuild_at,
    )
    upsert.add_columns(staged_columns([(930001, "Same", 1990), (930002, "New", None)]))
    upsert.add_columns(staged_columns([(930003, "Ding", 1992), (930004, "Firouzja", None)]))

    keys, ids, created = upsert.finish()

    stored = dict(Player.objects.filter(id_number__gte=930001).values_list("id_number", "pk"))
    assert dict(zip(keys.tolist(), ids.tolist(), strict=True)) == stored
    assert len(stored) == 4
    assert created == 2
    # two new among four, and the table held two: a first load's rebuild when asked for from one row
    assert upsert.rebuilt is (rebuild_at is not None)
    assert Player.objects.filter(pk=kept.pk).values_list("updated_at", flat=True).get() == stamp  # left alone
    assert Player.objects.values_list("surname", "birth_year").get(pk=changed.pk) == ("New", None)
    assert Player.objects.values_list("surname", "birth_year").get(id_number=930003) == ("Ding", 1992)


def test_staged_upsert_write_upserts_the_rows_staged_so_far_and_starts_a_new_stage():
    from core.bulk import StagedUpsert

    Player.objects.create(id_number=940001, surname="Old", birth_year=1980)
    upsert = StagedUpsert(Player, ["id_number", "surname", "birth_year"], key="id_number", update=("surname",))
    upsert.add_rows([(940001, "New", 1980), (940002, "Carlsen", 1990)])
    assert upsert.write() == 1  # one inserted, one updated
    upsert.add_rows([(940002, "Carlsen, Magnus", 1990), (940003, "Caruana", 1992)])  # a new stage
    assert upsert.write() == 1
    assert upsert.write() == 0  # nothing staged
    stored = dict(Player.objects.filter(id_number__gte=940001).values_list("id_number", "surname"))
    assert stored == {940001: "New", 940002: "Carlsen, Magnus", 940003: "Caruana"}


def test_batch_writer_upsert_is_on_one_unique_field():
    with pytest.raises(ValueError, match="one unique field"):
        BatchWriter(Player, FIELDS, conflict=("id_number", "surname"), update=("surname",))
