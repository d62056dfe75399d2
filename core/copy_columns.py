"""Insert rows given column by column (NumPy arrays): the publication's entries and rating changes.

:func:`copy_columns` is :func:`core.bulk_copy.copy_rows` for data that is already in columns. On
PostgreSQL NumPy writes COPY's binary format itself, a chunk of rows at a time: each chunk becomes one byte
image with every value at its widest (a row per line of a 2-D array), and one boolean mask drops what a row
does not use (the bytes of NULLs, the unused width of short text), which leaves the rows in order, each as
COPY reads it. Only long documents (JSON) are joined row by row in Python. No Python object is made per
value: formatting a two-million-row list with psycopg's ``write_row`` cost the client more than the server
needed to store the rows, so the server waited for it. Elsewhere (the embedded SQLite default) the columns
become Python values and go through copy_rows.

Conventions for the columns (what the publication's arrays hold): NaN in a float array and NaT in a date
array are NULL, and so is None in an object array; a float array written to an integer column is rounded to
whole numbers. Text and JSON columns are object arrays or lists of str (JSON as its text, see JsonText).

PostgreSQL binary COPY (documentation, "COPY", Binary Format): an 11-byte signature, a 32-bit flags field
and a 32-bit header extension length; then per row a 16-bit field count and per field a 32-bit length (-1:
NULL) followed by that many bytes in the type's send format (big-endian integers and floats, dates as days
since 2000-01-01, text as UTF-8, jsonb as a version byte 1 then the text, json as the text); a 16-bit -1 ends
the data.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from django.db import connections, models

from core.bulk_copy import (
    _COPY_SIGNATURE,
    _PG_EPOCH_DAYS,
    BATCH_SIZE,
    JsonText,
    _copy_rows_executemany,
    _defaults,
    _field,
    _is_json,
    _json_text,
    _pg_type,
    copy_in,
)

CHUNK_ROWS = 20_000  # rows per byte image (memory: rows x widest row, a few MB)
_SIGNATURE = _COPY_SIGNATURE + struct.pack(">ii", 0, 0)  # no flags, no header extension
_TRAILER = struct.pack(">h", -1)
_NULL = struct.pack(">i", -1)
# integer send formats and the values they hold
_INTEGERS = {
    "int2": (">i2", -(2**15), 2**15 - 1),
    "int4": (">i4", -(2**31), 2**31 - 1),
    "int8": (">i8", None, None),
}
_WIDTH = {"int2": 2, "int4": 4, "int8": 8, "float8": 8, "bool": 1, "date": 4}
_DOCUMENTS = ("json", "jsonb")  # joined row by row (long)


def copy_columns(
    model: type[models.Model], columns: dict[str, np.ndarray | Sequence], *, using: str = "default"
) -> int:
    """Insert one row per position of the ``columns`` (field names or attnames -> equal-length arrays) into
    ``model``'s table; columns left out get the ORM's defaults, as with copy_rows. Returns the number of rows."""
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

        def rows():  # converted a chunk at a time (memory bounded by the chunk)
            for start in range(0, count, CHUNK_ROWS):
                chunk = [
                    _python_values(field, column[start : start + CHUNK_ROWS])
                    for field, column in zip(fields, values, strict=True)
                ]
                yield from zip(*chunk, strict=True)

        return _copy_rows_executemany(model, fields, rows(), using, batch_size=BATCH_SIZE)
    types = [_pg_type(field, connection) for field in fields]
    values = [
        [v if v is None or isinstance(v, str) else _json_text(field, v) for v in column] if _is_json(field) else column
        for field, column in zip(fields, values, strict=True)
    ]
    # documents last: each row is then its fixed part (one slice of the chunk's image) and its documents
    order = sorted(range(len(fields)), key=lambda i: types[i] in _DOCUMENTS)
    fields, types, values = [fields[i] for i in order], [types[i] for i in order], [values[i] for i in order]
    names = [f"{model.__name__}.{field.name}" for field in fields]
    with copy_in(connection, model, fields) as copy:  # a chunk is sent while the next is encoded
        copy.write(_SIGNATURE)
        for start in range(0, count, CHUNK_ROWS):
            stop = min(start + CHUNK_ROWS, count)
            copy.write(encode_rows([column[start:stop] for column in values], types, names))
        copy.write(_TRAILER)
    return count


class _Encoded(NamedTuple):
    lengths: np.ndarray  # bytes of each row's value; -1: NULL
    data: np.ndarray  # uint8 (rows, widest): each row's bytes, left-aligned


def encode_rows(columns: list, types: list[str], names: list[str]) -> bytes:
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


def _documents(values, pg_type: str) -> list[bytes]:
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


def _encode(values, pg_type: str, name: str) -> _Encoded:
    if pg_type == "text":
        return _encode_text(values)
    n = len(values)
    width = _WIDTH.get(pg_type)
    if width is None:
        raise ValueError(f"copy_columns: {name}: no binary encoding for {pg_type}")
    array = np.asarray(values)
    if pg_type == "date":
        days = array.astype("datetime64[D]")
        null = np.isnat(days)
        raw = np.where(null, 0, days.astype(np.int64) - _PG_EPOCH_DAYS).astype(">i4")
    elif array.dtype == object:  # Python values (ORM defaults): None is NULL
        null = np.equal(array, None)
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
        if low is not None and whole.size and (whole.min() < low or whole.max() > high):
            bad = whole[(whole < low) | (whole > high)][0]
            raise ValueError(f"copy_columns: {name}: {bad} does not fit a {pg_type} column ({low}..{high})")
        raw = whole.astype(big_endian)
    lengths = np.where(null, -1, width).astype(np.int32)
    return _Encoded(lengths, np.ascontiguousarray(raw).view(np.uint8).reshape(n, width))


def _encode_text(values) -> _Encoded:
    """UTF-8 text: ASCII rows straight from their UCS-4 codes (one array operation), others one by one."""
    objects = np.asarray(values, dtype=object)
    null = np.equal(objects, None)
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


def _python_values(field: models.Field, values) -> list:
    """A column as the Python values the ORM writes (NaN / NaT -> None, floats into integer columns rounded)."""
    if _is_json(field):
        return [None if v is None else v if isinstance(v, JsonText) else _json_text(field, v) for v in values]
    array = np.asarray(values)
    if array.dtype.kind == "M":
        return array.astype("datetime64[D]").astype(object).tolist()
    if array.dtype.kind == "f":
        null = np.isnan(array)
        if field.get_internal_type() not in ("FloatField",):
            out = np.rint(np.where(null, 0.0, array)).astype(np.int64).astype(object)
        else:
            out = array.astype(object)
        out[null] = None
        return out.tolist()
    return array.tolist()
