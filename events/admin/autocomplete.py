"""The event page's autocompletes, served on the events side so that they say what the arbiter needs:

- players (a participant's player): each choice labelled with ID number, federation, birth year and the rating in
  force at the event's start, so namesakes are told apart (issue 32); merged records are never offered;
- staff (chief arbiter, arbiters): only the users an event may name (``events.roles.event_staff``), searched as
  the user types instead of a select of every staff member rendered into the page.

Each is Django's own ``AutocompleteJsonView`` (the same JSON, paging and term) with its label, its rows and who may
ask changed; the widgets are the admin's autocompletes pointed at these URLs.
"""

import datetime

from django.contrib.admin.views.autocomplete import AutocompleteJsonView
from django.contrib.admin.widgets import AutocompleteSelect, AutocompleteSelectMultiple
from django.db.models import Q
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from events.models import Event, RatingType
from events.roles import event_staff, user_sees_all_events
from events.selectors import participant_ratings_in_force


def player_choice_label(player, rating: int | None = None, *, with_rating: bool = True) -> str:
    """'Moreno, Elena (2400123) · ESP · b. 1990 · 2150': what tells two namesakes apart, said once for the
    autocomplete's choices and the rows already chosen."""
    parts = [str(player)]
    if player.federation_id:
        parts.append(player.federation.code if player.federation else str(player.federation_id))
    if player.birth_year:
        parts.append(_("b. %(year)s") % {"year": player.birth_year})
    if with_rating:
        parts.append(str(rating) if rating is not None else _("unrated"))
    return " · ".join(parts)


class PlayerChoicesView(AutocompleteJsonView):
    """PlayerAdmin's search (by ID number or name prefix), without merged records, labelled for the event."""

    def get_queryset(self):
        return super().get_queryset().filter(merged_into__isnull=True).select_related("federation")

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        players = list(context["object_list"])  # the page, read once
        context["object_list"] = players
        rating_type, day = self._rated_as()
        self.ratings = participant_ratings_in_force(rating_type, day, [p.pk for p in players]) if players else {}
        return context

    def _rated_as(self) -> tuple[str, datetime.date]:
        """The event's rating type and start (``?event=<pk>``); a new event: standard, today."""
        value = self.request.GET.get("event", "")
        found = None
        if value.isascii() and value.isdigit() and len(value) < 12:
            found = Event.objects.filter(pk=int(value)).values_list("rating_type", "start_date").first()
        rating_type, start = found or ("", None)
        return rating_type or RatingType.STANDARD, start or timezone.localdate()

    def serialize_result(self, obj, to_field_name):
        return {"id": str(getattr(obj, to_field_name)), "text": player_choice_label(obj, self.ratings.get(obj.pk))}


class StaffChoicesView(AutocompleteJsonView):
    """The users an event may name (chief arbiter, arbiters), for those who assign them: officials."""

    def has_perm(self, request, obj=None):
        return user_sees_all_events(request.user)

    def get_queryset(self):
        staff = event_staff()
        for word in self.term.split():
            staff = staff.filter(
                Q(username__icontains=word) | Q(first_name__icontains=word) | Q(last_name__icontains=word)
            )
        return staff

    def serialize_result(self, obj, to_field_name):
        return {"id": str(getattr(obj, to_field_name)), "text": staff_label(obj)}


def staff_label(user) -> str:
    full = user.get_full_name()
    return f"{user.username} ({full})" if full else user.username


class EventAutocompleteMixin:
    """An admin autocomplete widget asking one of the views above (``url_name``), with ``?event=<pk>``."""

    def __init__(self, field, admin_site, *, url_name: str, event_pk: int | None = None, **kwargs):
        super().__init__(field, admin_site, **kwargs)  # type: ignore[call-arg]
        self.events_url_name = url_name
        self.event_pk = event_pk

    def get_url(self):
        url = reverse(f"{self.admin_site.name}:{self.events_url_name}")  # type: ignore[attr-defined]
        return f"{url}?event={self.event_pk}" if self.event_pk else url


class StaffSelect(EventAutocompleteMixin, AutocompleteSelect):
    pass


class StaffSelectMultiple(EventAutocompleteMixin, AutocompleteSelectMultiple):
    pass


def autocomplete_admin_urls(model_admin) -> list:
    prefix = f"{model_admin.opts.app_label}_{model_admin.opts.model_name}"
    site = model_admin.admin_site
    return [
        path(
            "autocomplete/players/",
            site.admin_view(PlayerChoicesView.as_view(admin_site=site)),
            name=f"{prefix}_player_choices",
        ),
        path(
            "autocomplete/staff/",
            site.admin_view(StaffChoicesView.as_view(admin_site=site)),
            name=f"{prefix}_staff_choices",
        ),
    ]
