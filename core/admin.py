"""Admin building blocks shared by the apps (this module registers nothing)."""

from core.roles import is_official


class ReadOnly:
    """Nobody adds, edits or deletes here: the rows are written by services (lists, audit, outbox...)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class OfficialsReadOnly(ReadOnly):
    """Read-only, and visible to officials only (superusers, "Rating officers")."""

    def has_module_permission(self, request):
        return is_official(request.user)

    def has_view_permission(self, request, obj=None):
        return is_official(request.user)
