"""copy_columns: rows given column by column (NumPy arrays), with NumPy writing COPY's binary format
(encode_rows) on PostgreSQL."""

from __future__ import annotations

import datetime
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from django.db import connections, models

from core.bulk.fields import (
    _COPY_SIGNATURE,
    _PG_EPOCH_DAYS,
    _copy_types,
    _db_value_function,
    _defaults,
    _driver_ready,
    _field,
    _insert_statement,
    _is_json,
    _json_text,
    _python_values,
)
from core.bulk.rows import copy_in

if TYPE_CHECKING:
    from psycopg import Copy


ENCODE_ROWS = 20_000  # rows per byte image in copy_columns (memory: rows x widest row, a few MB)
_SIGNATURE = _COPY_SIGNATURE + struct.pack(">ii", 0, 0)  # no flags, no header extension
_TRAILER = struct.pack(">h", -1)
_NULL = struct.pack(">i", -1)
# integer send formats and the values they hold
_INTEGERS = {
    "int2": (">i2", -(2**15), 2**15 - 1),
    "int4": (">i4", -(2**31), 2**31 - 1),
    "int8": (">i8", None, None),
}
_WIDTH = {"int2": 2, "int4": 4, "int8": 8, "float8": 8, "bool": 1, "date": 4, "timestamptz": 8}
_DOCUMENTS = ("json", "jsonb")  # joined row by row (long)
_NONE = np.array(None, dtype=object)  # compared with an object array: which values are None (NULL)


def copy_columns(
    model: type[models.Model],
    columns: dict[str, np.ndarray | Sequence[Any]],
    *,
    using: str = "default",
    table: str | None = None,
) -> int:
    """Insert one row per position of the ``columns`` (field names or attnames -> equal-length arrays) into
    ``model``'s table (or ``table``, one shaped like it: a list's partition, ratings.services.entry_storage);
    columns left out get the ORM's defaults, as with copy_rows. Returns the number of rows."""
    fields = [_field(model, name) for name in columns]
    lengths = {len(values) for values in columns.values()}
    if len(lengths) > 1:
        raise ValueError(f"copy_columns: the columns of {model.__name__} differ in length ({sorted(lengths)})")
    count = lengths.pop() if lengths else 0
    if not count:
        return 0
    extra, defaults = _defaults(model, fields)
    values = list(columns.values()) + [np.full(count, value, dtype=object) for value in defaults]
    fields += extra
    connection = connections[using]
    if connection.vendor != "postgresql":
        # One INSERT run for every row of a chunk. The numbers, text and booleans _python_values gives are
        # what the driver takes: only the other columns (dates, JSON, ...) go through the field's conversion,
        # which for a list of 1.3 M entries cost more than SQLite spent storing them (get_db_prep_save per value).
        prepare = [None if _driver_ready(field) else _db_value_function(field, connection) for field in fields]
        statement = _insert_statement(connection, model, fields, table)
        with connection.cursor() as cursor:
            for start in range(0, count, ENCODE_ROWS):  # converted a chunk at a time (memory bounded by the chunk)
                chunk = [
                    _python_values(field, column[start : start + ENCODE_ROWS])
                    for field, column in zip(fields, values, strict=True)
                ]
                chunk = [
                    python if convert is None else [convert(value) for value in python]
                    for convert, python in zip(prepare, chunk, strict=True)
                ]
                cursor.executemany(statement, list(zip(*chunk, strict=True)))
        return count
    types = _copy_types(connection, fields, table or model._meta.db_table)
    values = [
        [v if v is None or isinstance(v, str) else _json_text(field, v) for v in column] if _is_json(field) else column
        for field, column in zip(fields, values, strict=True)
    ]
    # documents last: each row is then its fixed part (one slice of the chunk's image) and its documents
    order = sorted(range(len(fields)), key=lambda i: types[i] in _DOCUMENTS)
    fields, types, values = [fields[i] for i in order], [types[i] for i in order], [values[i] for i in order]
    names = [f"{model.__name__}.{field.name}" for field in fields]
    with copy_in(connection, model, fields, table=table) as copy:
        write_binary(copy, values, types, names)
    return count


def write_binary(copy: Copy, columns: list[Any], types: list[str], names: list[str]) -> None:
    """Every row of ``columns`` (equal lengths; ``types`` and ``names`` as for encode_rows) into psycopg's
    binary ``copy``: the signature, each chunk of ENCODE_ROWS rows encoded by NumPy, the trailer. A chunk is
    sent while the next is encoded (copy_in's writer thread)."""
    count = len(columns[0])
    copy.write(_SIGNATURE)
    for start in range(0, count, ENCODE_ROWS):
        stop = min(start + ENCODE_ROWS, count)
        copy.write(encode_rows([column[start:stop] for column in columns], types, names))
    copy.write(_TRAILER)


class _Encoded(NamedTuple):
    lengths: np.ndarray  # bytes of each row's value; -1: NULL
    data: np.ndarray  # uint8 (rows, widest): each row's bytes, left-aligned


def encode_rows(columns: list[Any], types: list[str], names: list[str]) -> bytes:
    """The rows of ``columns`` (equal lengths; PostgreSQL type names in ``types``, documents last) in COPY's
    binary format, without the signature and trailer."""
    n = len(columns[0])
    documents = [i for i, pg_type in enumerate(types) if pg_type in _DOCUMENTS]
    fixed = [
        _encode(column, pg_type, name)
        for column, pg_type, name in zip(columns, types, names, strict=True)
        if pg_type not in _DOCUMENTS
    ]
    width = 2 + sum(4 + column.data.shape[1] for column in fixed)
    image = np.empty((n, width), dtype=np.uint8)
    keep = None  # every byte of the image is kept unless a column has NULLs or short values
    image[:, :2] = np.frombuffer(struct.pack(">h", len(types)), dtype=np.uint8)
    at = 2
    for column in fixed:
        w = column.data.shape[1]
        image[:, at : at + 4] = column.lengths.astype(">i4").view(np.uint8).reshape(n, 4)
        image[:, at + 4 : at + 4 + w] = column.data
        used = np.maximum(column.lengths, 0)
        if w and (used < w).any():
            if keep is None:
                keep = np.ones((n, width), dtype=bool)
            keep[:, at + 4 : at + 4 + w] = np.arange(w) < used[:, None]
        at += 4 + w
    if keep is None:
        packed = image.reshape(-1)
        row_ends = np.arange(1, n + 1) * width
    else:
        packed = image[keep]  # row-major: each row's kept bytes, rows in order
        row_ends = np.cumsum(keep.sum(axis=1))
    if not documents:
        return packed.tobytes()
    # each row: its fixed part, then its documents
    fixed_bytes = packed.tobytes()
    texts = [_documents(columns[i], types[i]) for i in documents]
    pieces = []
    start = 0
    for row, end in enumerate(row_ends.tolist()):
        pieces.append(fixed_bytes[start:end])
        pieces.extend(text[row] for text in texts)
        start = end
    return b"".join(pieces)


def _documents(values: Sequence[str | None], pg_type: str) -> list[bytes]:
    """Each JSON document as a field: length, (jsonb: the version byte), UTF-8 text; NULL for None."""
    version = b"\x01" if pg_type == "jsonb" else b""
    out = []
    for value in values:
        if value is None:
            out.append(_NULL)
            continue
        payload = version + value.encode()
        out.append(struct.pack(">i", len(payload)) + payload)
    return out


def _constant(value: Any, count: int) -> np.ndarray:
    """A column of ``count`` times one value as the driver takes it (a datetime as datetime64 in UTC)."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.UTC).replace(tzinfo=None)
        return np.full(count, np.datetime64(value, "us"))
    return np.full(count, value, dtype=object)


def _encode(values: Any, pg_type: str, name: str) -> _Encoded:
    if pg_type == "text":
        return _encode_text(values)
    n = len(values)
    width = _WIDTH.get(pg_type)
    if width is None:
        raise ValueError(f"copy_columns: {name}: no binary encoding for {pg_type}")
    array = np.asarray(values)
    if pg_type == "timestamptz":  # datetime64 in UTC: microseconds since 2000-01-01 00:00 UTC; NaT is NULL
        micros = array.astype("datetime64[us]")
        null = np.isnat(micros)
        raw = np.where(null, 0, micros.astype(np.int64) - _PG_EPOCH_DAYS * 86_400_000_000).astype(">i8")
        lengths = np.where(null, -1, 8).astype(np.int32)
        return _Encoded(lengths, np.ascontiguousarray(raw).view(np.uint8).reshape(n, 8))
    if pg_type == "date":
        days = array.astype("datetime64[D]")
        null = np.isnat(days)
        raw = np.where(null, 0, days.astype(np.int64) - _PG_EPOCH_DAYS).astype(">i4")
    elif array.dtype == object:  # Python values (ORM defaults): None is NULL
        null = np.equal(array, _NONE)
        kind = bool if pg_type == "bool" else np.float64
        encoded = _encode(np.where(null, kind(0), array).astype(kind), pg_type, name)
        return encoded._replace(lengths=np.where(null, -1, encoded.lengths).astype(np.int32))
    elif pg_type == "bool":
        null = np.zeros(n, dtype=bool)
        raw = array.astype(np.uint8)
    elif pg_type == "float8":
        null = np.isnan(array) if array.dtype.kind == "f" else np.zeros(n, dtype=bool)
        raw = np.where(null, 0.0, array).astype(">f8")
    else:
        big_endian, low, high = _INTEGERS[pg_type]
        if array.dtype.kind == "f":
            null = np.isnan(array)
            whole = np.rint(np.where(null, 0.0, array)).astype(np.int64)
        else:
            null = np.zeros(n, dtype=bool)
            whole = array.astype(np.int64)
        if low is not None and high is not None and whole.size and (whole.min() < low or whole.max() > high):
            bad = whole[(whole < low) | (whole > high)][0]
            raise ValueError(f"copy_columns: {name}: {bad} does not fit a {pg_type} column ({low}..{high})")
        raw = whole.astype(big_endian)
    lengths = np.where(null, -1, width).astype(np.int32)
    return _Encoded(lengths, np.ascontiguousarray(raw).view(np.uint8).reshape(n, width))


def _encode_text(values: Any) -> _Encoded:
    """UTF-8 text: ASCII rows straight from their UCS-4 codes (one array operation), others one by one. A
    NumPy bytes (``S``) array is taken as UTF-8 already, as it is (no NULL; no NUL inside a value)."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "S":
        n, width = len(values), values.dtype.itemsize
        data = np.ascontiguousarray(values).view(np.uint8).reshape(n, width)
        return _Encoded(np.count_nonzero(data, axis=1).astype(np.int32), data)
    objects = np.asarray(values, dtype=object)
    null = np.equal(objects, _NONE)
    strings = np.where(null, "", objects).astype(str)  # fixed-width UCS-4, NUL-padded
    n = strings.size
    chars = strings.dtype.itemsize // 4
    codes = strings.view(np.uint32).reshape(n, chars) if chars else np.zeros((n, 0), dtype=np.uint32)
    lengths = np.count_nonzero(codes, axis=1)  # text holds no NUL (PostgreSQL refuses it)
    wide = np.flatnonzero((codes >= 128).any(axis=1)) if chars else np.zeros(0, dtype=np.int64)
    if not wide.size:
        data = codes.astype(np.uint8)
    else:  # characters beyond ASCII take 2 to 4 bytes: encode those rows in Python
        encoded = {int(i): strings[i].encode() for i in wide}
        widest = max(chars, max(len(b) for b in encoded.values()))
        data = np.zeros((n, widest), dtype=np.uint8)
        data[:, :chars] = codes.astype(np.uint8)
        for i, text in encoded.items():
            data[i, :] = 0
            data[i, : len(text)] = np.frombuffer(text, dtype=np.uint8)
            lengths[i] = len(text)
    return _Encoded(np.where(null, -1, lengths).astype(np.int32), data)
