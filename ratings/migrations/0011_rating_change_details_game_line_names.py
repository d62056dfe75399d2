"""Rating change details under the engine's game-line names (ratings.engine.game_line): "delta" becomes
"rating_change", "change" becomes "weighted_change", and "counted" ("rated" / "pooled" / "not rated") becomes two
flags, "rated" and "counted" (rated or pooled), as the calculator has always named them. Reversible.

The names are written out here, not imported: a migration must keep meaning what it meant when written.
Documents are rewritten in batches of rows by primary key, as JSON text (PostgreSQL keeps them as json,
migration 0010; SQLite as text), in the {"columns": [...], "rows": [[...], ...]} form ratings.fields stores.
"""

import json

from django.db import migrations

BATCH = 2_000
OLD = (
    "game",
    "round",
    "colour",
    "opponent",
    "opponent_rating",
    "opponent_rating_used",
    "capped",
    "difference",
    "expected_score",
    "score",
    "delta",
    "change",
    "counted",
)
NEW = (
    "game",
    "round",
    "colour",
    "opponent",
    "opponent_rating",
    "opponent_rating_used",
    "capped",
    "difference",
    "expected_score",
    "score",
    "rated",
    "rating_change",
    "weighted_change",
    "counted",
)


def line_forward(line: dict) -> dict:
    counted = line.get("counted")
    renamed = {"delta": "rating_change", "change": "weighted_change"}
    out = {renamed.get(key, key): value for key, value in line.items() if key != "counted"}
    if isinstance(counted, str):
        out["rated"] = counted == "rated"
        out["counted"] = counted in ("rated", "pooled")
    elif counted is not None:
        out["counted"] = counted
    return _ordered(out, NEW)


def line_backward(line: dict) -> dict:
    renamed = {"rating_change": "delta", "weighted_change": "change"}
    out = {renamed.get(key, key): value for key, value in line.items() if key not in ("rated", "counted")}
    if "rated" in line or "counted" in line:
        out["counted"] = "rated" if line.get("rated") else ("pooled" if line.get("counted") else "not rated")
    return _ordered(out, OLD)


def _ordered(line: dict, order: tuple[str, ...]) -> dict:
    known = {key: line[key] for key in order if key in line}
    return {**known, **{key: value for key, value in line.items() if key not in known}}


def document(text: str | None, convert) -> str | None:
    """A stored details document (compact or a plain list of lines) rewritten line by line, compact."""
    if text is None:
        return None
    value = json.loads(text) if isinstance(text, str) else text
    if isinstance(value, dict) and set(value) == {"columns", "rows"}:
        value = [dict(zip(value["columns"], row, strict=True)) for row in value["rows"]]
    if not isinstance(value, list) or not value or not all(isinstance(line, dict) for line in value):
        return json.dumps(value, separators=(",", ":"))
    lines = [convert(line) for line in value]
    columns = list(lines[0])
    if any(list(line) != columns for line in lines):
        return json.dumps(lines, separators=(",", ":"))
    return json.dumps({"columns": columns, "rows": [list(line.values()) for line in lines]}, separators=(",", ":"))


def rewrite(convert):
    def run(apps, schema_editor):
        connection = schema_editor.connection
        as_text = "details::text" if connection.vendor == "postgresql" else "details"
        placeholder = "%s::json" if connection.vendor == "postgresql" else "%s"
        last = 0
        with connection.cursor() as cursor:
            while True:
                cursor.execute(
                    f"SELECT id, {as_text} FROM ratings_ratingchange WHERE id > %s ORDER BY id LIMIT %s", [last, BATCH]
                )
                rows = cursor.fetchall()
                if not rows:
                    return
                last = rows[-1][0]
                updates = [(document(text, convert), pk) for pk, text in rows]
                cursor.executemany(f"UPDATE ratings_ratingchange SET details = {placeholder} WHERE id = %s", updates)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0010_rating_change_details_as_json"),
    ]

    operations = [
        migrations.RunPython(rewrite(line_forward), rewrite(line_backward)),
    ]
