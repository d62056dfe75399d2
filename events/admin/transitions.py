"""The event admin's status views, written once: fetch the event, check the permission, call the service, say
what happened, back to the event's page.

Used by the buttons of the event page (submit, return to draft, check, approve a registration, clear a flag;
events/admin/event.py and events/admin/lifecycle.py), by the form views that start the same way (refuse,
correct results) and by the bulk actions. Permissions are events/roles.py's; writes are events/services.py's.
"""

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseNotAllowed, HttpResponseRedirect

from core.admin import admin_user


def allowed_event(model_admin, request, object_id, allowed):
    """(event, None) when ``allowed(event, user)``; (None, the change page's answer) for an unknown event or one
    the user may not see; PermissionDenied when they see it but may not do this."""
    event, redirect = model_admin.event_or_redirect(request, object_id)
    if redirect:
        return None, redirect
    if not allowed(event, request.user):
        raise PermissionDenied
    return event, None


def transition_view(model_admin, request, object_id, allowed, act):
    """A status button: POST only; ``act(event)`` calls the service and gives the messages."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    event, redirect = allowed_event(model_admin, request, object_id, allowed)
    if redirect:
        return redirect
    act(event)
    return HttpResponseRedirect(model_admin.change_url(event))


def transition_run(model_admin, request, event, service, *, log: str, message: str) -> bool:
    """``service(event, user=...)``; its refusal as an error message, or the change logged and ``message``."""
    try:
        service(event, user=admin_user(request))
    except ValidationError as exc:
        model_admin.message_user(request, " ".join(exc.messages), messages.ERROR)
        return False
    model_admin.log_change(request, event, log)
    model_admin.message_user(request, message, messages.SUCCESS)
    return True
