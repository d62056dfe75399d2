"""The arbiter's and rating officer's admin for events: event → participants → rounds → games, and the
personal API tokens.

Access (events/roles.py) is enforced on the server for every view: querysets are limited to the events the
user may see (changelist, change, delete, history, autocomplete, actions all go through them), and per-object
permissions follow the status — drafts are edited by their arbiters, submitted events by rating officers,
rated events only through the "correct results" view (events/admin/permissions.py). Writes go through
events/services.py; the status buttons share one shape (events/admin/transitions.py).

Modules: event (EventAdmin: the event page and its URLs), participants (the participants inline, a page at a
time), games (the games inline and GameAdmin), rounds (the round entry screen), lifecycle (registration,
check, refusal, timeline, integrity flags), corrections (the "correct results" view and the record), upload
(TRF upload and download), flags (the integrity flags' list and pages, where officials clear them), tokens
(personal API tokens), permissions, transitions. Importing this package
registers them with the admin site (Django's autodiscover imports it).
"""

from events.admin import corrections, event, flags, games, tokens

__all__ = ["corrections", "event", "flags", "games", "tokens"]
