"""Writing the audit trail. Call ``audit_record`` inside the same transaction as the action it records, so the
record exists exactly when the action does."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeAlias

from django.contrib.contenttypes.models import ContentType
from django.db import models

from .models import AuditEvent

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

# Who acts in a service: a request's user (signed in or anonymous), or None for scheduled jobs and commands.
Actor: TypeAlias = "User | AnonymousUser | None"


def acting_user(actor: Actor) -> User | None:
    """The user ``actor`` stands for, as the audit trail and simple_history record it: None for jobs and
    anonymous users."""
    return actor if actor is not None and actor.is_authenticated else None


def audit_record(
    actor: Actor,
    action: str,
    obj: object,
    reason: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> AuditEvent:
    """Record that ``actor`` did ``action`` to ``obj``, why, and the state before and after.

    ``actor``: a user, or None for scheduled jobs (anonymous users are recorded as None).
    ``action``: one of ``audit.models.AuditAction`` (e.g. ``"rating_list.publish"``) or another dotted name.
    ``obj``: the model instance acted on (its type and primary key are kept), or a plain description.
    ``before`` / ``after``: JSON-able dicts (dates, datetimes, decimals and UUIDs are fine); see
    ``model_snapshot`` for a model's fields.
    """
    user = acting_user(actor)
    if not action or len(action) > 40:
        raise ValueError(f"audit_record: action must be 1..40 characters, got {action!r}")
    object_type: ContentType | None = None
    object_id = ""
    if isinstance(obj, models.Model):
        object_type = ContentType.objects.get_for_model(obj, for_concrete_model=False)
        object_id = str(obj.pk) if obj.pk is not None else ""
    return AuditEvent.objects.create(
        actor=user,
        actor_name=user.get_username() if user is not None else "",
        action=action,
        object_type=object_type,
        object_id=object_id,
        object_repr=str(obj)[:300],
        reason=reason or "",
        before=before,
        after=after,
    )


def model_snapshot(instance: models.Model, fields: Iterable[str] | None = None) -> dict[str, Any]:
    """The concrete field values of ``instance`` (foreign keys as primary keys) for ``before`` / ``after``."""
    wanted = set(fields) if fields is not None else None
    snapshot: dict[str, Any] = {}
    for field in instance._meta.concrete_fields:
        if wanted is not None and field.name not in wanted and field.attname not in wanted:
            continue
        snapshot[field.name] = getattr(instance, field.attname)
    return snapshot
