"""What the event pages and the event API read from a request: the index's search form and ``?round=N``.

One definition for both, so the page and the API accept and refuse the same input with the same words."""

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from events.models import Event, EventSystem, RatingType

# What the form accepts, also written into the API's schema (public/api/events.py) so the two cannot differ.
SEARCH_MAX_LENGTH = 100
FEDERATION_PATTERN = r"^[A-Za-z]{3}$"
ROUND_MAX = 9999  # more rounds than any event has: four digits at most


class EventSearchForm(forms.Form):
    """The events index's filters; every field optional (an empty form lists every public event)."""

    q = forms.CharField(required=False, max_length=SEARCH_MAX_LENGTH, label=gettext_lazy("Name or place"))
    system = forms.ChoiceField(
        required=False, choices=[("", gettext_lazy("Any system")), *EventSystem.choices], label=gettext_lazy("System")
    )
    rating_type = forms.ChoiceField(
        required=False, choices=[("", gettext_lazy("Any type")), *RatingType.choices], label=gettext_lazy("Type")
    )
    federation = forms.RegexField(
        required=False, regex=FEDERATION_PATTERN, label=gettext_lazy("Federation"), max_length=3
    )
    date_from = forms.DateField(required=False, label=gettext_lazy("From"), widget=forms.DateInput({"type": "date"}))
    date_to = forms.DateField(required=False, label=gettext_lazy("To"), widget=forms.DateInput({"type": "date"}))


def round_asked(request, event: Event) -> tuple[int | None, str]:
    """``?round=N`` as a round of the event, or an error naming the parameter and the rounds it may be."""
    value = request.GET.get("round", "")
    if not value:
        return None, ""
    if value.isdigit() and len(value) <= len(str(ROUND_MAX)) and 1 <= int(value) <= event.rounds:
        return int(value), ""
    return None, _("“round=%(value)s” is not a round of this event: choose one from 1 to %(rounds)s.") % {
        "value": value[:20],
        "rounds": event.rounds,
    }
