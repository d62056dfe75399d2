"""read_columns: some columns of a queryset into NumPy arrays, by COPY ... TO STDOUT on PostgreSQL (binary,
or text when a column is text), values_list elsewhere."""

from __future__ import annotations

import struct
from typing import Any, TypeAlias, cast

import numpy as np
from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import QuerySet

from core.bulk.fields import _COPY_HEADER, _COPY_SIGNATURE, _PG_EPOCH_DAYS, _is_postgresql

CHUNK_ROWS = 16384  # values per array when read_columns sends rows in chunks (chunk_by)


# What read_columns returns for each kind of column, and what stands for NULL.
#   int64 / int32 / int16: NULL -> the ``null`` value given (default 0)
#   float64: NULL -> NaN;  bool: NULL -> False;  date: datetime64[D], NULL -> NaT
#   text: an object array of str, NULL -> None (read in COPY's text format, so all columns of that read are)
#   ("chars", n): text of at most n characters (a varchar(n) column: codes, titles, sex) read in the binary
#   format as n character codes, so the other columns stay binary too; an object array, NULL -> None
_NULL_DATE = -(2**31)
_NULL_INT = -(2**63)  # stands for NULL while an integer column travels (replaced by the caller's ``null``)

# a column's kind, or (kind, null) for an integer column whose NULL reads as null / a chars column's length
ColumnSpec: TypeAlias = str | tuple[str, int]
KINDS = ("int64", "int32", "int16", "float64", "bool", "date", "text", "chars")
_PG_CAST = {"int64": "int8", "int32": "int4", "int16": "int2", "float64": "float8", "bool": "bool"}
_PG_WIDTH = {"int64": 8, "int32": 4, "int16": 2, "float64": 8, "bool": 1, "date": 4}
# the binary form of each kind's fixed-width expression (read_columns' chunk_by)
_SEND = {
    "int64": "int8send",
    "int32": "int4send",
    "int16": "int2send",
    "float64": "float8send",
    "bool": "boolsend",
    "date": "int4send",
}
_BIG_ENDIAN = {"int64": ">i8", "int32": ">i4", "int16": ">i2", "float64": ">f8", "bool": "?", "date": ">i4"}


def read_columns(
    queryset: QuerySet[Any],
    columns: dict[str, ColumnSpec],
    *,
    using: str | None = None,
    chunk_by: str | None = None,
) -> dict[str, np.ndarray]:
    """The values of ``columns`` (ORM lookups, e.g. ``"white__player_id"``) of ``queryset`` as NumPy arrays.

    ``columns`` maps each lookup to its kind (see KINDS), or to ``(kind, null)`` for an integer column whose
    NULL should read as ``null`` instead of 0. Rows come in the queryset's order. One query.

    ``chunk_by`` (PostgreSQL, no text columns): an integer column of ``columns`` whose values are dense (a
    primary key). The database then packs the rows' binary values into one bytea per CHUNK_ROWS values of
    that column (string_agg of int8send(...) || ..., GROUP BY key / CHUNK_ROWS): the client receives a
    hundred COPY rows instead of a million (each costs it a few microseconds, more than the database spends
    on a simple join) and reads each chunk with one frombuffer. Rows come in no particular order.
    """
    for lookup, spec in columns.items():
        kind = spec[0] if isinstance(spec, tuple) else spec
        if kind == "chars" and not (isinstance(spec, tuple) and spec[1] >= 1):
            raise ValueError(f"read_columns: {lookup!r}: give the most characters, e.g. ('chars', 3)")
        if kind not in KINDS:
            raise ValueError(f"read_columns: {lookup!r} has unknown kind {kind!r} (one of {', '.join(KINDS)})")
    if chunk_by is not None and chunk_by not in columns:
        raise ValueError(f"read_columns: chunk_by {chunk_by!r} must be one of the columns read")
    using = using or queryset.db
    lookups = list(columns)
    if not _is_postgresql(using):
        return _read_columns_orm(queryset, columns, lookups)
    return _read_columns_postgresql(queryset, columns, lookups, using, chunk_by)


def _spec(spec: ColumnSpec) -> tuple[str, int]:
    return spec if isinstance(spec, tuple) else (spec, 0)


def _read_columns_orm(
    queryset: QuerySet[Any], columns: dict[str, ColumnSpec], lookups: list[str]
) -> dict[str, np.ndarray]:
    rows = list(queryset.values_list(*lookups))
    values = list(zip(*rows, strict=True)) if rows else [() for _ in lookups]
    out: dict[str, np.ndarray] = {}
    for lookup, column in zip(lookups, values, strict=True):
        kind, null = _spec(columns[lookup])
        if kind == "float64":
            out[lookup] = np.array([np.nan if v is None else v for v in column], dtype=np.float64)
        elif kind == "date":
            out[lookup] = np.array(
                [np.datetime64("NaT") if v is None else v for v in column], dtype="datetime64[D]"
            ).reshape(-1)
        elif kind == "bool":
            out[lookup] = np.array([bool(v) for v in column], dtype=bool)
        elif kind in ("text", "chars"):
            out[lookup] = np.array(column, dtype=object).reshape(-1)
        else:
            out[lookup] = np.array([null if v is None else v for v in column], dtype=kind)
    return out


def _read_columns_postgresql(
    queryset: QuerySet[Any], columns: dict[str, ColumnSpec], lookups: list[str], using: str, chunk_by: str | None
) -> dict[str, np.ndarray]:
    connection = connections[using]
    try:
        sql, params = queryset.values_list(*lookups).query.sql_with_params()
    except EmptyResultSet:  # e.g. .none() or filter(id__in=[]): no query to run
        return _read_columns_orm(queryset.none(), columns, lookups)
    aliases = ", ".join(f"c{i}" for i in range(len(lookups)))
    specs = [_spec(columns[lookup]) for lookup in lookups]
    if any(kind == "text" for kind, _ in specs):
        select = f"SELECT * FROM ({sql}) AS q({aliases})"
        kinds = ["text" if kind == "chars" else kind for kind, _ in specs]
        values = _copy_out_text(connection, select, params, kinds)
    else:
        expressions, kinds = [], []
        for i, (kind, extra) in enumerate(specs):
            if kind == "chars":  # the length (-1: NULL), then each character's code (0 past the end)
                expressions.append(f"COALESCE(char_length(c{i}), -1)::int4")
                expressions += [f"COALESCE(ascii(substr(c{i}, {k}, 1)), 0)::int4" for k in range(1, extra + 1)]
                kinds += ["int32"] * (extra + 1)
            else:
                expressions.append(_fixed_width(f"c{i}", kind, extra))
                kinds.append(kind)
        if chunk_by is None:
            select = f"SELECT {', '.join(expressions)} FROM ({sql}) AS q({aliases})"
            flat = iter(_copy_out_binary(connection, select, params, kinds))
        else:
            named = ", ".join(f"{expression} AS a{k}" for k, expression in enumerate(expressions))
            key = f"c{lookups.index(chunk_by)}"
            packed = " || ".join(f"{_SEND[kind]}(a{k})" for k, kind in enumerate(kinds))
            select = (
                f"SELECT string_agg({packed}, ''::bytea) FROM (SELECT {named}, {key} AS chunk_key "
                f"FROM ({sql}) AS q({aliases})) AS r GROUP BY chunk_key / {CHUNK_ROWS}"
            )
            flat = iter(_copy_out_packed(connection, select, params, kinds))
        values = [
            _characters(next(flat), [next(flat) for _ in range(extra)]) if kind == "chars" else next(flat)
            for kind, extra in specs
        ]
    out = {}
    for lookup, (kind, null), column in zip(lookups, specs, values, strict=True):
        if kind in ("int64", "int32", "int16"):
            column = np.where(column == _NULL_INT, null, column).astype(kind)
        out[lookup] = column
    return out


def _characters(lengths: np.ndarray, codes: list[np.ndarray]) -> np.ndarray:
    """Strings from per-row lengths and character codes, each distinct string built once. The codes of a row
    are packed into one integer key (a sort of one integer column, not of rows)."""
    if not lengths.size:
        return np.zeros(0, dtype=object)
    key = lengths.astype(np.int64) + 1  # 0: NULL
    bits = max(int(max(code.max() for code in codes)).bit_length(), 1)
    if bits * len(codes) + int(key.max()).bit_length() <= 63:
        for code in codes:
            key = (key << bits) | code.astype(np.int64)
    else:  # wide characters in long values: dense ranks, one character at a time
        for code in codes:
            values, rank = np.unique(code, return_inverse=True)
            _, key = np.unique(key * values.size + rank.reshape(-1), return_inverse=True)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    strings = [
        None if lengths[i] < 0 else "".join(chr(code[i]) for code in codes[: lengths[i]]) for i in first.tolist()
    ]
    return np.array(strings, dtype=object)[inverse.reshape(-1)]


def _fixed_width(column: str, kind: str, null: int) -> str:
    """A SELECT expression giving ``column`` as a never-NULL value of a fixed binary width."""
    if kind == "float64":
        return f"COALESCE({column}::float8, 'NaN'::float8)"
    if kind == "date":
        return f"COALESCE(({column} - DATE '2000-01-01'), {_NULL_DATE})::int4"
    if kind == "bool":
        return f"COALESCE({column}, false)"
    return f"COALESCE({column}, {int(null)})::{_PG_CAST[kind]}"


def _copy_out_packed(connection: BaseDatabaseWrapper, select: str, params: Any, kinds: list[str]) -> list[np.ndarray]:
    """Run ``COPY (select) TO STDOUT (FORMAT BINARY)`` where each row is one bytea of packed fixed-width
    records (the columns' send functions, concatenated), into one NumPy array per column."""
    data = _copy_out(connection, f"COPY ({select}) TO STDOUT (FORMAT BINARY)", params)
    if not data.startswith(_COPY_SIGNATURE):
        raise RuntimeError("read_columns: PostgreSQL did not answer in COPY's binary format")
    record = np.dtype([(f"value{i}", _BIG_ENDIAN[kind]) for i, kind in enumerate(kinds)])
    chunks, at = [], _COPY_HEADER
    while struct.unpack_from(">h", data, at)[0] != -1:  # a row's field count; -1 is the trailer
        (size,) = struct.unpack_from(">i", data, at + 2)
        if size % record.itemsize:
            raise RuntimeError(f"read_columns: {size} bytes are not whole records of {record.itemsize}")
        chunks.append(np.frombuffer(data, dtype=record, count=size // record.itemsize, offset=at + 6))
        at += 6 + size
    table = np.concatenate(chunks) if chunks else np.zeros(0, dtype=record)
    return [_native(table[f"value{i}"], kind) for i, kind in enumerate(kinds)]


def _native(values: np.ndarray, kind: str) -> np.ndarray:
    """Big-endian values as COPY sends them -> a native array of the kind (dates: datetime64[D], NaT)."""
    if kind == "date":
        days = values.astype(np.int64)
        dates = (days + _PG_EPOCH_DAYS).astype("datetime64[D]")
        dates[days == _NULL_DATE] = np.datetime64("NaT")
        return dates
    return values.astype(kind)  # native byte order, contiguous


def _copy_out_binary(connection: BaseDatabaseWrapper, select: str, params: Any, kinds: list[str]) -> list[np.ndarray]:
    """Run ``COPY (select) TO STDOUT (FORMAT BINARY)``, every column a fixed width, into NumPy arrays."""
    data = _copy_out(connection, f"COPY ({select}) TO STDOUT (FORMAT BINARY)", params)
    if not data.startswith(_COPY_SIGNATURE):
        raise RuntimeError("read_columns: PostgreSQL did not answer in COPY's binary format")
    dtype = [("fields", ">i2")]
    for i, kind in enumerate(kinds):
        dtype += [(f"length{i}", ">i4"), (f"value{i}", _BIG_ENDIAN[kind])]
    record = np.dtype(dtype)
    body = len(data) - _COPY_HEADER - 2  # the trailer is a field count of -1
    count, rest = divmod(body, record.itemsize)
    if rest:
        raise RuntimeError(f"read_columns: {body} bytes are not whole rows of {record.itemsize} bytes")
    table = np.frombuffer(data, dtype=record, count=count, offset=_COPY_HEADER)
    if count and (
        (table["fields"] != len(kinds)).any()
        or any((table[f"length{i}"] != _PG_WIDTH[kind]).any() for i, kind in enumerate(kinds))
    ):
        raise RuntimeError("read_columns: a row does not have the fixed width expected (a NULL slipped through?)")
    return [_native(table[f"value{i}"], kind) for i, kind in enumerate(kinds)]


_TEXT_ESCAPES = {"\\\\": "\\", "\\t": "\t", "\\n": "\n", "\\r": "\r", "\\b": "\b", "\\f": "\f", "\\v": "\v"}


def _unescape(value: str) -> str | None:
    """One field of COPY's text format: \\N is NULL; backslash sequences stand for control characters."""
    if value == "\\N":
        return None
    if "\\" not in value:
        return value
    out, i = [], 0
    while i < len(value):
        pair = value[i : i + 2]
        if pair in _TEXT_ESCAPES:
            out.append(_TEXT_ESCAPES[pair])
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def _copy_out_text(connection: BaseDatabaseWrapper, select: str, params: Any, kinds: list[str]) -> list[np.ndarray]:
    """Run ``COPY (select) TO STDOUT`` (text format) and split it into columns with C-level string and list
    operations (a Python loop per value only for a column holding backslash sequences)."""
    text = _copy_out(connection, f"COPY ({select}) TO STDOUT", params).decode("utf-8")
    width = len(kinds)
    fields = text.replace("\n", "\t").split("\t") if text else [""]
    fields.pop()  # after the last row's newline
    if len(fields) % width:
        raise RuntimeError(f"read_columns: {len(fields)} text fields are not whole rows of {width}")
    escaped = "\\" in text  # NULL is \N; control characters in a value are backslash sequences
    del text
    out = []
    for i, kind in enumerate(kinds):
        column = fields[i::width]
        if kind == "text":
            texts = cast("list[str | None]", column)  # (the same list: no copy of a million values)
            if escaped and any("\\" in value for value in column):
                texts = [_unescape(value) for value in column]
            out.append(np.array(texts, dtype=object).reshape(-1))
            continue
        if escaped and "\\N" in column:
            missing = {"bool": "f", "float64": "NaN", "date": "NaT"}.get(kind, str(_NULL_INT))
            column = [missing if value == "\\N" else value for value in column]
        if kind == "bool":
            out.append(np.array(column, dtype="U1") == "t")
        elif kind == "float64":
            out.append(np.array(column, dtype=np.float64).reshape(-1))
        elif kind == "date":
            out.append(np.array(column, dtype="datetime64[D]").reshape(-1))
        else:
            out.append(np.array(column, dtype=np.int64).reshape(-1))
    return out


def _copy_out(connection: BaseDatabaseWrapper, statement: str, params: Any) -> bytes:
    chunks: list[bytes] = []
    # Raw psycopg COPY bypasses Django's cursor wrapper: wrap its errors so a lost connection is
    # django.db.OperationalError, which the publication tasks retry (ratings/tasks.py RETRY).
    with (
        connection.wrap_database_errors,
        connection.cursor() as cursor,
        cursor.cursor.copy(statement, params or None) as copy,
    ):
        chunks.extend(bytes(chunk) for chunk in copy)
    return b"".join(chunks)
