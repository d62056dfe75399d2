"""What each column is and how its values travel: a model field's COPY type, the ORM's defaults for the
columns left out, JSON as text, a NumPy column as the Python values the ORM writes, and the SQL statements
naming a table's columns. Shared by the writers and readers of core.bulk."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, cast

import numpy as np
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone

AnyField: TypeAlias = "models.Field[Any, Any]"  # a model's concrete field, of whatever type


class JsonText(str):
    """A JSON document already written as text, for a JSON column in copy_rows: sent as it is (no parse and
    dump round trip for millions of documents). Other values of JSON columns are Python objects."""


# PostgreSQL counts days from 2000-01-01; NumPy from 1970-01-01.
_PG_EPOCH_DAYS = (datetime.date(2000, 1, 1) - datetime.date(1970, 1, 1)).days
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
_COPY_HEADER = len(_COPY_SIGNATURE) + 8  # signature, flags, header extension length (0)


# Binary COPY sends each value in the column's own type; these are the type names psycopg knows.
_PG_TYPES = {
    "AutoField": "int4",
    "BigAutoField": "int8",
    "BigIntegerField": "int8",
    "BooleanField": "bool",
    "CharField": "text",
    "DateField": "date",
    "DateTimeField": "timestamptz",
    "FloatField": "float8",
    "IntegerField": "int4",
    "PositiveIntegerField": "int4",
    "PositiveSmallIntegerField": "int2",
    "SmallIntegerField": "int2",
    "TextField": "text",
}


def _is_postgresql(using: str) -> bool:
    return connections[using].vendor == "postgresql"


def _field(model: type[models.Model], name: str) -> AnyField:
    """A concrete field by name or attname (``player`` and ``player_id`` both name the foreign key)."""
    for field in model._meta.concrete_fields:
        if name in (field.name, field.attname):
            return field
    raise ValueError(f"{model.__name__} has no column {name!r}")


def _pg_type(field: AnyField, connection: BaseDatabaseWrapper) -> str:
    if isinstance(field, models.ForeignKey):
        return _pg_type(field.target_field, connection)  # the target's type
    internal = field.get_internal_type()
    if internal == "JSONField":
        return str(field.db_type(connection))  # jsonb, or json (ratings.fields.GameLinesField)
    try:
        pg_type = _PG_TYPES[internal]
    except KeyError:
        raise ValueError(f"copy_rows: no COPY type for {field.model.__name__}.{field.name} ({internal})") from None
    return pg_type


_INTEGER_TYPES = ("int2", "int4", "int8")


def _copy_types(connection: BaseDatabaseWrapper, fields: Sequence[AnyField], table: str) -> list[str]:
    """The binary COPY types of ``fields`` in ``table``: the model's (_pg_type), except that an integer column is
    written in the width the table gives it (the entries' list and player: 4 bytes where the model's key is a
    bigint, ratings 0017); binary COPY refuses a value of another width."""
    types = [_pg_type(field, connection) for field in fields]
    if not any(pg_type in _INTEGER_TYPES for pg_type in types):
        return types
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname, typname FROM pg_attribute JOIN pg_type ON pg_type.oid = atttypid "
            "WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped AND typname IN ('int2', 'int4', 'int8')",
            [connection.ops.quote_name(table)],
        )
        physical = dict(cursor.fetchall())
    return [
        physical.get(field.column, pg_type) if pg_type in _INTEGER_TYPES else pg_type
        for field, pg_type in zip(fields, types, strict=True)
    ]


def _column_names(connection: BaseDatabaseWrapper, columns: Sequence[AnyField]) -> str:
    return ", ".join(connection.ops.quote_name(str(field.column)) for field in columns)


def _insert_statement(
    connection: BaseDatabaseWrapper, model: type[models.Model], columns: Sequence[AnyField], table: str | None = None
) -> str:
    """``INSERT INTO <model's table, or table> (<columns>) VALUES (%s, ...)``: one row's statement, for
    executemany."""
    target = connection.ops.quote_name(table or model._meta.db_table)
    return f"INSERT INTO {target} ({_column_names(connection, columns)}) VALUES ({', '.join(['%s'] * len(columns))})"


def _copy_statement(connection: BaseDatabaseWrapper, table: str, columns: Sequence[AnyField]) -> str:
    """``COPY <table> (<columns>) FROM STDIN`` (text format; binary callers add the option)."""
    return f"COPY {connection.ops.quote_name(table)} ({_column_names(connection, columns)}) FROM STDIN"


def _db_value_function(field: AnyField, connection: BaseDatabaseWrapper) -> Callable[[Any], Any]:
    """value -> what the database driver gets, as the ORM's INSERT would send it."""
    prepare = field.get_db_prep_save
    if field.get_internal_type() == "JSONField":
        return lambda value: value if isinstance(value, JsonText) else prepare(value, connection)
    return lambda value: prepare(value, connection)


# Fields whose conversion (get_db_prep_save) leaves the int, float, str, bool and None of _python_values as they
# are on SQLite (an integer field's int(), a char field's str(), ...).
_DRIVER_READY = frozenset(
    {
        "AutoField",
        "BigAutoField",
        "BigIntegerField",
        "BooleanField",
        "CharField",
        "FloatField",
        "IntegerField",
        "PositiveBigIntegerField",
        "PositiveIntegerField",
        "PositiveSmallIntegerField",
        "SmallAutoField",
        "SmallIntegerField",
        "TextField",
    }
)


def _driver_ready(field: AnyField) -> bool:
    """Whether copy_columns sends _python_values' values of ``field`` as they are (see _DRIVER_READY)."""
    if isinstance(field, models.ForeignKey):
        return _driver_ready(field.target_field)
    # (Django's own field classes only: a project's field may convert differently)
    return type(field).__module__.startswith("django.db.models.") and field.get_internal_type() in _DRIVER_READY


def _defaults(model: type[models.Model], columns: list[AnyField]) -> tuple[list[AnyField], tuple[Any, ...]]:
    """The columns ``rows`` leave out that the ORM would fill (field defaults, auto_now / auto_now_add), with
    their values: COPY, unlike bulk_create, only knows the database's own defaults."""
    given = {field.attname for field in columns}
    extra: list[AnyField] = []
    values: list[Any] = []
    now = timezone.now()
    for field in model._meta.concrete_fields:
        if field.attname in given or field.primary_key:
            continue
        if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            value = now
        else:
            value = field.get_default()  # the field's default, "" for text, None otherwise
            if value is None:
                continue  # NULL, or the database refuses the row (as it would refuse the ORM's INSERT)
        extra.append(field)
        values.append(value)
    return extra, tuple(values)


def _is_json(field: AnyField) -> bool:
    return field.get_internal_type() == "JSONField"


def _json_text(field: AnyField, value: Any) -> JsonText:
    """A JSON column's value as the ORM would store it (the field's get_prep_value, e.g. GameLinesField's)."""
    if isinstance(value, JsonText):
        return value
    return JsonText(json.dumps(field.get_prep_value(value), cls=getattr(field, "encoder", None) or DjangoJSONEncoder))


def _python_values(field: AnyField, values: Any) -> list[Any]:
    """A column as the Python values the ORM writes (NaN / NaT -> None, floats into integer columns rounded)."""
    if _is_json(field):
        return [None if v is None else v if isinstance(v, JsonText) else _json_text(field, v) for v in values]
    array = np.asarray(values)
    if array.dtype.kind == "S":  # UTF-8 bytes (see _encode_text)
        return [value.decode() for value in array.tolist()]
    if array.dtype.kind == "M":
        return cast("list[Any]", array.astype("datetime64[D]").astype(object).tolist())
    if array.dtype.kind == "f":
        null = np.isnan(array)
        if field.get_internal_type() not in ("FloatField",):
            out = np.rint(np.where(null, 0.0, array)).astype(np.int64).astype(object)
        else:
            out = array.astype(object)
        out[null] = None
        return cast("list[Any]", out.tolist())
    return cast("list[Any]", array.tolist())
