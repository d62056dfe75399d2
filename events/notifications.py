"""E-mail to the arbiter about their event (issue 15): registration confirmed, refused, rated.

Sent by the Celery task ``events.tasks.send_event_email`` (queued through the outbox in the transaction that
made the change), through Django's e-mail backend (``settings.EMAIL_BACKEND``: the console by default), in the
federation's language (``settings.LANGUAGE_CODE``: a worker has no request to take one from).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from events.models import Event
from outbox.labels import task_labels_register

log = logging.getLogger(__name__)

EMAIL_TASK = "events.tasks.send_event_email"
EMAILS_TASK = "events.tasks.send_events_email"  # the same message about many events (a publication)
task_labels_register(  # the names the admin lists these tasks by (outbox.labels)
    {EMAIL_TASK: gettext_lazy("E-mail an arbiter about their event"), EMAILS_TASK: gettext_lazy("E-mail arbiters")}
)
SUBJECTS = {
    "registration_confirmed": gettext_lazy("Registration confirmed: %(name)s"),
    "refused": gettext_lazy("Event refused: %(name)s"),
    "rated": gettext_lazy("Event rated: %(name)s"),
}


def event_email_send(event_id: int, kind: str, reason: str = "") -> int:
    """Send the ``kind`` message about event ``event_id`` to its chief arbiter; the number of messages sent
    (0 when the event is gone or its chief arbiter has no address: nothing to retry)."""
    event = Event.objects.filter(pk=event_id).select_related("chief_arbiter", "rated_on").first()
    if event is None or kind not in SUBJECTS:
        log.warning("event e-mail %s for event %s: nothing to send", kind, event_id)
        return 0
    arbiter = event.chief_arbiter
    if arbiter is None or not arbiter.email:
        log.info("event e-mail %s for event %s: the chief arbiter has no e-mail address", kind, event_id)
        return 0
    with translation.override(settings.LANGUAGE_CODE):
        subject, body = SUBJECTS[kind] % {"name": event.name}, _email_body(event, kind, reason)
    return send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [arbiter.email])


def _email_body(event: Event, kind: str, reason: str) -> str:
    lines = [_("Event: %(name)s (#%(pk)s)") % {"name": event.name, "pk": event.pk}]
    if event.start_date and event.end_date:
        dates = {"start": f"{event.start_date:%Y-%m-%d}", "end": f"{event.end_date:%Y-%m-%d}"}
        lines.append(_("Dates: %(start)s to %(end)s") % dates)
    if kind == "registration_confirmed":
        lines.append(_("The rating officer has confirmed the registration of this event."))
        late = _("Late: %(rule)s (%(detail)s)")
        lines += [late % {"rule": flag["rule"], "detail": flag["detail"]} for flag in event.deadline_flags]
    elif kind == "refused":
        lines.append(_("The rating officer has refused this event. Reason: %(reason)s") % {"reason": reason})
    else:
        rated_on = event.rated_on
        if rated_on:
            lines.append(_("This event was rated on the %(list)s list.") % {"list": rated_on})
        else:
            lines.append(_("This event was rated."))
    return "\n".join(lines) + "\n"
