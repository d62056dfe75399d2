"""E-mail to the arbiter about their event (issue 15): registration confirmed, refused, rated.

Sent by the Celery task ``events.tasks.send_event_email`` (queued through the outbox in the transaction that
made the change), through Django's e-mail backend (``settings.EMAIL_BACKEND``: the console by default).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail

from events.models import Event

log = logging.getLogger(__name__)

EMAIL_TASK = "events.tasks.send_event_email"
EMAILS_TASK = "events.tasks.send_events_email"  # the same message about many events (a publication)
SUBJECTS = {
    "registration_confirmed": "Registration confirmed: {name}",
    "refused": "Event refused: {name}",
    "rated": "Event rated: {name}",
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
    lines = [f"Event: {event.name} (#{event.pk})"]
    if event.start_date and event.end_date:
        lines.append(f"Dates: {event.start_date:%Y-%m-%d} to {event.end_date:%Y-%m-%d}")
    if kind == "registration_confirmed":
        lines.append("The rating officer has confirmed the registration of this event.")
        lines += [f"Late: {flag['rule']} ({flag['detail']})" for flag in event.deadline_flags]
    elif kind == "refused":
        lines.append(f"The rating officer has refused this event. Reason: {reason}")
    else:
        rated_on = event.rated_on
        lines.append(f"This event was rated on the {rated_on} list." if rated_on else "This event was rated.")
    return send_mail(
        SUBJECTS[kind].format(name=event.name),
        "\n".join(lines) + "\n",
        settings.DEFAULT_FROM_EMAIL,
        [arbiter.email],
    )
