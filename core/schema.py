"""The OpenAPI schema tells the truth (drf-spectacular's AutoSchema, DEFAULT_SCHEMA_CLASS): who may call an
operation, every status the server answers with its body, and the constraints the server enforces.

Views in ``public/api/`` need nothing of their own for this: an endpoint added later gets it too.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from drf_spectacular.openapi import AutoSchema
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.serializers import ListSerializer, Serializer

DETAIL = {
    "type": "object",
    "properties": {"detail": {"type": "string", "description": "What was refused, in plain words"}},
    "required": ["detail"],
}
FIELD_ERRORS = {
    "type": "object",
    "description": (
        'Either {"detail": "..."} (a malformed request: unreadable JSON, a NUL character, a bad '
        "Content-Length) or, per parameter or field at fault, a list of messages (nested for nested fields)"
    ),
    "additionalProperties": {},
}
# A NUL character in a query string is refused before any view runs (core.security.RequestScreeningMiddleware).
NO_NUL = "^[^\\u0000]*$"
FEDERATION_CODE = "^\\s*([A-Za-z]{3})?\\s*$"
# What ``\s`` matches in these patterns as schema validators read them (Unicode White_Space). Python's
# str.strip() removes more (the separators \x1c-\x1f): a server stripping with it would read a value the schema
# refuses as no value at all, so query values are stripped of these only (public.selectors.ratings.EntryFilters).
PATTERN_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def public_access(view: Any) -> bool:
    """Whether anyone may call the view without credentials (the public API's read-only or open views)."""
    from core.api import ReadOnly

    permissions = getattr(view, "permission_classes", [])
    return bool(permissions) and all(p in (ReadOnly, AllowAny) for p in permissions)


class TruthfulAutoSchema(AutoSchema):
    def get_auth(self) -> list[dict[str, list[str]]]:
        # Public operations are open to anonymous callers: no credentials needed (credentials sent anyway are
        # checked, and refused with 403 when wrong, which is documented below).
        if public_access(self.view):
            return [{}]
        return super().get_auth()

    def _map_serializer_field(self, field: Any, direction: str, bypass_extensions: bool = False) -> dict[str, Any]:
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if isinstance(field, ListSerializer) and schema.get("type") == "array":
            min_length = getattr(field, "min_length", None)
            max_length = getattr(field, "max_length", None)
            if not field.allow_empty:
                schema.setdefault("minItems", max(1, min_length or 0))
            elif min_length is not None:
                schema.setdefault("minItems", min_length)
            if max_length is not None:
                schema.setdefault("maxItems", max_length)
        return schema

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        for parameter in operation.get("parameters", []):
            schema = parameter.get("schema", {})
            if parameter.get("in") == "query" and schema.get("type") == "string":
                if not schema.get("enum"):
                    schema.setdefault("pattern", NO_NUL)
                elif "" not in schema["enum"]:
                    schema["enum"] = [*schema["enum"], ""]  # an empty filter is no filter
        responses = operation.setdefault("responses", {})
        has_input = bool(operation.get("parameters")) or "requestBody" in operation
        has_path = any(p.get("in") == "path" for p in operation.get("parameters", []))
        paginated = any(p.get("name") == "page" for p in operation.get("parameters", []))
        documented = {
            "403": _json(
                DETAIL,
                "Credentials were sent and are not valid (none are needed here)"
                if public_access(self.view)
                else "Not signed in, wrong credentials, or not allowed",
            ),
            "429": _json(DETAIL, "Too many requests from this address; the detail says when to retry"),
        }
        if has_input:
            documented["400"] = _json(FIELD_ERRORS, "Invalid parameters or body")
        if has_path or paginated:
            documented["404"] = _json(DETAIL, "No such object, or a page past the last one")
            if has_path:  # a path no route matches gets the site's 404 page
                documented["404"]["content"]["text/html"] = {"schema": {"type": "string"}}
        if "requestBody" in operation:
            documented["415"] = _json(DETAIL, "A body of a media type the operation does not read")
        for status, response in documented.items():
            given = responses.setdefault(status, response)
            given.setdefault("content", response["content"])  # a view's own description, with its body
        return operation


def json_type_error(field: Any, value: object) -> str | None:
    """Why ``value`` (as parsed from JSON) is not of the JSON type the schema gives ``field``, or None. DRF
    coerces ("2000" and true pass as numbers); the schema promises types, so the server holds to them."""
    from rest_framework import serializers

    if value is None:
        return None  # allow_null is DRF's own check
    if isinstance(field, serializers.BooleanField):
        ok = isinstance(value, bool)
    elif isinstance(field, serializers.IntegerField):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(field, serializers.FloatField | serializers.DecimalField):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif isinstance(field, serializers.ChoiceField | serializers.CharField):
        ok = isinstance(value, str)
    elif isinstance(field, ListSerializer | serializers.ListField):
        ok = isinstance(value, list)
    elif isinstance(field, serializers.Serializer):
        ok = isinstance(value, dict)
    else:
        return None
    if ok:
        return None
    return gettext("expected the JSON type the schema documents for this field, got a JSON %(type)s") % {
        "type": _JSON_NAMES.get(type(value), "value")
    }


_JSON_NAMES = {bool: "boolean", int: "number", float: "number", str: "string", list: "array", dict: "object"}


class StrictJSONSerializer(Serializer):
    # A serializer holding JSON input to the types its schema documents (no "2000" for an integer, no true for
    # a number): one refusal per field at fault, before DRF's own validation. (A comment, not a docstring: the
    # schema would show an inherited docstring as the description of every subclass.)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            errors = {}
            for name, field in self.fields.items():
                if name in data and not field.read_only:
                    problem = json_type_error(field, data[name])
                    if problem:
                        errors[name] = [problem]
            if errors:
                raise ValidationError(errors)
        return super().to_internal_value(data)
