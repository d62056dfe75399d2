"""Who sees and changes what in the event admin, written once for every page whose rows belong to an event.

The rules are events/roles.py's: a row is visible when its event is (rating officers see every event, arbiters
the events they are assigned to); it is changed or deleted when its event's results may be edited through the
ordinary forms (status and assignment: drafts by their arbiters, submitted events by rating officers, rated
events only through the "correct results" view). Querysets are limited the same way, so that changelists,
change pages, history, autocomplete and actions never reach another arbiter's event.
"""

from events.roles import event_is_visible_to, event_results_editable_by, events_visible_to, user_sees_all_events


class EventAccess:
    """Permissions that follow the event of the row (``event_of``); ``event_field`` is the lookup from the rows
    to their event, which ``visible_rows`` limits to the events the user may see."""

    event_field = "event"

    def event_of(self, obj):
        return obj.event

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) and (
            obj is None or event_is_visible_to(self.event_of(obj), request.user)
        )

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and (
            obj is None or event_results_editable_by(self.event_of(obj), request.user)
        )

    def has_delete_permission(self, request, obj=None):
        # Rated events are part of published lists (and protected by their rating changes): never deleted.
        return super().has_delete_permission(request, obj) and (
            obj is None or event_results_editable_by(self.event_of(obj), request.user)
        )

    def visible_rows(self, request, rows):
        if user_sees_all_events(request.user):
            return rows
        return rows.filter(**{f"{self.event_field}__in": events_visible_to(request.user).values("pk")})


class EventChildInline(EventAccess):
    """Inlines of the event page: ``obj`` is the parent event; adding follows editing."""

    def event_of(self, obj):
        return obj

    def has_add_permission(self, request, obj=None):
        return super().has_add_permission(request, obj) and (
            obj is None or event_results_editable_by(obj, request.user)
        )

    def get_queryset(self, request):
        # Defence in depth: the parent event is already limited, the rows are too.
        return self.visible_rows(request, super().get_queryset(request))
