"""reserve_ids: primary keys taken from a table's sequence, for rows written by COPY (which returns no keys)."""

from __future__ import annotations

import numpy as np
from django.db import connections, models

from core.bulk.read import _copy_out_binary


def reserve_ids(model: type[models.Model], count: int, *, using: str = "default") -> np.ndarray:
    """``count`` new primary keys for ``model``, taken from its sequence, so rows written with copy_rows can
    be referred to (COPY returns no keys). On PostgreSQL nextval() (other sessions never get them); on SQLite
    the table's AUTOINCREMENT counter is moved past them inside the caller's transaction."""
    connection = connections[using]
    table = model._meta.db_table
    if count <= 0:
        return np.zeros(0, dtype=np.int64)
    if connection.vendor == "postgresql":
        column = model._meta.pk.column
        select = "SELECT nextval(pg_get_serial_sequence(%s, %s))::int8 FROM generate_series(1, %s)"
        return _copy_out_binary(connection, select, [table, column, int(count)], ["int64"])[0]
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT MAX("{model._meta.pk.column}") FROM "{table}"')
        top = cursor.fetchone()[0] or 0
        cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [table])
        row = cursor.fetchone()
        first = max(top, row[0] if row else 0) + 1
        last = first + count - 1
        if row:
            cursor.execute("UPDATE sqlite_sequence SET seq = %s WHERE name = %s", [last, table])
        else:
            cursor.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, last])
    return np.arange(first, last + 1, dtype=np.int64)
