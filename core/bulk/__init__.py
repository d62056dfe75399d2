"""Bulk reads and writes for millions of rows, for any model: COPY on PostgreSQL (psycopg 3), plain SQL elsewhere.

One behaviour on every database:

- :func:`copy_rows` inserts rows (tuples in the order of ``fields``) into a model's table. On PostgreSQL it is
  one ``COPY ... FROM STDIN (FORMAT BINARY)``; elsewhere (the embedded SQLite default) one INSERT run with
  ``executemany`` per batch. Like ``bulk_create`` it does not call ``save()`` or send signals, so callers
  fill derived columns themselves; field defaults are filled as the ORM would.
- :func:`copy_columns` is :func:`copy_rows` for data that is already in columns (NumPy arrays): the
  publication's entries and rating changes. On PostgreSQL NumPy writes COPY's binary format itself, a chunk
  of rows at a time: each chunk becomes one byte image with every value at its widest (a row per line of a
  2-D array), and one boolean mask drops what a row does not use (the bytes of NULLs, the unused width of
  short text), which leaves the rows in order, each as COPY reads it. Only long documents (JSON) are joined
  row by row in Python. No Python object is made per value: formatting a two-million-row list with psycopg's
  ``write_row`` cost the client more than the server needed to store the rows, so the server waited for it.
  Elsewhere the columns become Python values and go through copy_rows.
- :class:`BatchWriter` inserts or upserts (``INSERT ... ON CONFLICT DO UPDATE``) batch after batch of rows
  whose values are already what the database driver takes (the FIDE list import: players and entries).
- :func:`read_columns` reads some columns of a queryset into NumPy arrays. On PostgreSQL the query runs inside
  ``COPY (...) TO STDOUT (FORMAT BINARY)`` with every column cast to a fixed width and NULL replaced by a
  sentinel, so each row has the same size and NumPy reads the whole answer with one ``frombuffer`` (no Python
  object per value); text columns come in COPY's text format, split without a Python loop per row. Elsewhere
  ``values_list``.
- :func:`reserve_ids` takes primary keys from a table's sequence, so rows written by COPY (which returns no
  keys) can be referred to by the next rows.

All run on the caller's connection, inside the caller's transaction.

copy_columns' conventions for the columns (what the publication's arrays hold): NaN in a float array and NaT in
a date array are NULL, and so is None in an object array; a float array written to an integer column is
rounded to whole numbers. Text and JSON columns are object arrays or lists of str (JSON as its text, see
JsonText).

PostgreSQL binary COPY (documentation, "COPY", Binary Format): an 11-byte signature, a 32-bit flags field
and a 32-bit header extension length; then per row a 16-bit field count and per field a 32-bit length (-1:
NULL) followed by that many bytes in the type's send format (big-endian integers and floats, dates as days
since 2000-01-01, text as UTF-8, jsonb as a version byte 1 then the text, json as the text); a 16-bit -1 ends
the data.
"""

from core.bulk.columns import ENCODE_ROWS, copy_columns, encode_rows
from core.bulk.fields import JsonText
from core.bulk.ids import reserve_ids
from core.bulk.read import CHUNK_ROWS, KINDS, read_columns
from core.bulk.rows import BATCH_SIZE, copy_in, copy_rows
from core.bulk.upsert import BatchWriter, StagedUpsert

__all__ = [
    "BATCH_SIZE",
    "CHUNK_ROWS",
    "ENCODE_ROWS",
    "KINDS",
    "BatchWriter",
    "JsonText",
    "StagedUpsert",
    "copy_columns",
    "copy_in",
    "copy_rows",
    "encode_rows",
    "read_columns",
    "reserve_ids",
]
