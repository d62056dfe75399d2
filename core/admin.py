"""Admin building blocks shared by the apps (this module registers nothing)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpRequest

from core.roles import is_official


def admin_user(request: HttpRequest) -> User:
    """The user of an admin request, who acts in the services it calls.

    ``AdminSite.admin_view`` serves admin pages to signed-in active staff only, so the refusal below is the
    type checker's proof of that, not a check that can be reached through the site.
    """
    user = request.user
    if not user.is_authenticated:
        raise PermissionDenied("The admin acts for signed-in users only.")
    return user


class ReadOnly:
    """Nobody adds, edits or deletes here: the rows are written by services (lists, audit, outbox...)."""

    def has_add_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return False


class OfficialsOnly:
    """Visible and editable by officials only (superusers, "Rating officers")."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return is_official(request.user)

    def has_view_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return is_official(request.user)

    def has_add_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return is_official(request.user)

    def has_change_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return is_official(request.user)

    def has_delete_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return is_official(request.user)


class OfficialsReadOnly(ReadOnly, OfficialsOnly):
    """Read-only (ReadOnly comes first), and visible to officials only."""
