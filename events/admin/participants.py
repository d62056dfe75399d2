"""The participants of the event page, light at any size: shown a page of start ranks at a time
(``?participants=N``), the player chosen by name or ID number through the admin's autocomplete (PlayerAdmin's
search), labelled from one query per page rather than one per row.

A page only holds some of the participants, so the formset also checks what is entered against the others
(a player entered twice, a start rank given twice) with one more query, before the database would refuse it.
"""

from django.contrib import admin, messages
from django.contrib.admin.widgets import AutocompleteSelect, RelatedFieldWidgetWrapper
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.admin import admin_user
from core.pagination import whole_number
from events.admin.autocomplete import EventAutocompleteMixin, player_choice_label
from events.admin.permissions import EventChildInline
from events.admin.transitions import allowed_event
from events.admin.urls import admin_view_urls
from events.forms import (
    BaseParticipantFormSet,
    CachedModelChoiceField,
    ParticipantForm,
    ParticipantsPasteForm,
    marked_for_deletion,
)
from events.models import Participant
from events.roles import event_results_editable_by
from events.selectors import participant_ratings_in_force
from events.services_participants import PARTICIPANT_ENTRY_STATUSES, event_participants_add
from players.models import Player

PARTICIPANTS_PER_PAGE = 25


def participant_page(request) -> int:
    """The page of participants shown (``?participants=N``, from 1)."""
    value = request.GET.get("participants", "")
    number = whole_number(value)  # never int() on the request's digits: thousands of them raise (issue 32)
    return number if number and number < 10**6 else 1


def participant_rank_range(page: int) -> tuple[int, int]:
    """The start ranks of page ``page`` (inclusive): pages are by start rank, so a saved page stays put."""
    return (page - 1) * PARTICIPANTS_PER_PAGE + 1, page * PARTICIPANTS_PER_PAGE


def participant_pages(event, page: int) -> dict:
    """Links of the participant pages of ``event`` (one query)."""
    last_rank = Participant.objects.filter(event=event).order_by("-start_rank").values_list("start_rank", flat=True)
    highest = next(iter(last_rank), 0)
    count = max(1, -(-highest // PARTICIPANTS_PER_PAGE))
    first, last = participant_rank_range(page)
    return {
        "numbers": range(1, count + 1),
        "current": page,
        "first": first,
        "last": last,
        "per_page": PARTICIPANTS_PER_PAGE,
    }


class CachedAutocompleteSelect(EventAutocompleteMixin, AutocompleteSelect):
    """The events side's player autocomplete (events/admin/autocomplete.py: ID number, federation, birth year and
    rating in each choice), its selected options labelled from a dict loaded once for the page."""

    def __init__(self, field, admin_site, *, cache: dict[str, object], **kwargs):
        super().__init__(field, admin_site, **kwargs)
        self.cache = cache

    def optgroups(self, name, value, attr=None):
        selected = [str(v) for v in value if str(v) not in self.choices.field.empty_values]
        if not all(key in self.cache for key in selected):
            return super().optgroups(name, value, attr)
        default = (None, [], 0)
        groups = [default]
        if not self.is_required and not self.allow_multiple_selected:
            default[1].append(self.create_option(name, "", "", False, 0))
        for index, key in enumerate(selected):
            label = player_choice_label(self.cache[key], with_rating=False)
            default[1].append(self.create_option(name, key, label, True, index))
        return groups


class PagedParticipantFormSet(BaseParticipantFormSet):
    """The participants of one page, checked against the event's other participants too. A new participant
    entered without a starting rank gets the next free one: after the event's highest and every rank typed in
    the same submission (one query)."""

    def add_fields(self, form, index) -> None:
        super().add_fields(form, index)
        form.next_start_rank = self._next_start_rank

    def _next_start_rank(self) -> int:
        if not hasattr(self, "_last_rank"):
            highest = 0
            if self.instance.pk is not None:
                ranks = Participant.objects.filter(event=self.instance).order_by("-start_rank")
                highest = next(iter(ranks.values_list("start_rank", flat=True)), 0)
            typed = [
                whole_number(str(value))  # the posted digits, read safely (a field's own error names a bad one)
                for key, value in self.data.items()
                if key.startswith(f"{self.prefix}-") and key.endswith("-start_rank")
            ]
            self._last_rank = max([highest, *(rank for rank in typed if rank is not None and rank < 10**6)])
        self._last_rank += 1
        return self._last_rank

    def clean(self) -> None:
        super().clean()
        if any(self.errors) or self.non_form_errors():
            return
        entered = [
            form
            for form in self.forms
            if getattr(form, "cleaned_data", None)
            and not marked_for_deletion(self, form)
            and form.cleaned_data.get("player") is not None
            and form.cleaned_data.get("start_rank") is not None
        ]
        if not entered or self.instance.pk is None:
            return
        shown = [form.instance.pk for form in self.forms if form.instance.pk]
        players = {form.cleaned_data["player"].pk: form.cleaned_data["player"] for form in entered}
        ranks = {form.cleaned_data["start_rank"]: form.cleaned_data["player"] for form in entered}
        others = (
            Participant.objects.filter(event=self.instance)
            .exclude(pk__in=shown)
            .filter(Q(player_id__in=players) | Q(start_rank__in=ranks))
            .select_related("player")
        )
        problems = []
        for other in others:
            if other.player_id in players:
                problems.append(
                    f"{players[other.player_id]} already takes part with starting rank {other.start_rank} "
                    "(on another page of participants); a player takes part in an event once."
                )
            if other.start_rank in ranks:
                problems.append(
                    f"Starting rank {other.start_rank} is already given to {other.player} (on another page of "
                    f"participants); ranks are unique."
                )
        if problems:
            raise ValidationError(problems)
        self._fill_ratings([form for form in entered if form.instance.pk is None])

    def _fill_ratings(self, new_forms) -> None:
        """A new participant entered without a rating gets the rating in force at the event's start (one query)."""
        missing = [form for form in new_forms if form.cleaned_data.get("rating") is None]
        event = self.instance
        if not missing or event.start_date is None or not event.rating_type:
            return  # (a draft without dates or rating type has no list in force yet)
        found = participant_ratings_in_force(
            event.rating_type, event.start_date, [form.cleaned_data["player"].pk for form in missing]
        )
        for form in missing:
            rating = found.get(form.cleaned_data["player"].pk)
            if rating is not None:
                form.cleaned_data["rating"] = form.instance.rating = rating


class ParticipantInline(EventChildInline, admin.TabularInline):
    model = Participant
    form = ParticipantForm
    template = "admin/events/event/participants_inline.html"  # the tabular inline, with "Add many at once"
    verbose_name_plural = gettext_lazy("Participants")
    formset = PagedParticipantFormSet  # a page of start ranks at a time (below)
    extra = 0
    autocomplete_fields = ["player"]  # by name or ID number (PlayerAdmin.search_fields); "+" registers one
    fields = ["start_rank", "player", "rating"]
    ordering = ["start_rank"]

    def get_queryset(self, request):
        first, last = participant_rank_range(participant_page(request))
        # each row is labelled with its player
        return super().get_queryset(request).select_related("player").filter(start_rank__range=(first, last))

    def get_formset(self, request, obj=None, **kwargs):
        request._entry_event = obj
        formset = super().get_formset(request, obj, **kwargs)
        # Read by the inline's template: the link to paste many participants at once.
        formset.paste_allowed = obj is not None and obj.pk is not None and participants_addable_by(obj, request.user)
        return formset

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "player":
            # Labels and validation from one query for the page's players, not one per row.
            event = getattr(request, "_entry_event", None)
            cache = {}
            if event is not None and event.pk:
                first, last = participant_rank_range(participant_page(request))
                players = Player.objects.filter(
                    participations__event=event, participations__start_rank__range=(first, last)
                ).select_related("federation")
                cache = {str(p.pk): p for p in players}
            widget = CachedAutocompleteSelect(
                db_field,
                self.admin_site,
                cache=cache,
                url_name="events_event_player_choices",
                event_pk=event.pk if event is not None else None,
            )
            return db_field.formfield(form_class=CachedModelChoiceField, cache=cache, widget=widget)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        formfield = super().formfield_for_dbfield(db_field, request, **kwargs)
        if formfield is not None and isinstance(formfield.widget, RelatedFieldWidgetWrapper):
            # A participant row removes the participant, never the player record (issue 32): no change, delete
            # or view icons beside the player; "+" still registers a newcomer (marked for the officer's review).
            related_icons_off(formfield.widget, keep_add=True)
        return formfield


def related_icons_off(wrapper: RelatedFieldWidgetWrapper, *, keep_add: bool = False) -> None:
    """No icons beside a related widget that change, delete or open the related record itself."""
    wrapper.can_change_related = wrapper.can_delete_related = wrapper.can_view_related = False
    wrapper.can_add_related = wrapper.can_add_related and keep_add


def participants_add_urls(model_admin) -> list:
    return admin_view_urls(
        model_admin, [("<path:object_id>/participants/add/", participants_add_view, "participants_add")]
    )


def participants_add_view(model_admin, request, object_id):
    """Paste a list of players (ID numbers or names): all are added, or none and each refused line is named."""
    event, redirect = allowed_event(model_admin, request, object_id, participants_addable_by)
    if redirect:
        return redirect
    form = ParticipantsPasteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            added = event_participants_add(event, user=admin_user(request), text=form.cleaned_data["players"])
        except ValidationError as exc:
            form.add_error("players", exc)
        else:
            first, last = added[0].start_rank, added[-1].start_rank
            model_admin.log_change(request, event, f"Added {len(added)} participant(s), ranks {first}–{last}")
            message = _("%(name)s: %(count)s participant(s) added, starting ranks %(first)s–%(last)s.") % {
                "name": event.name,
                "count": len(added),
                "first": first,
                "last": last,
            }
            model_admin.message_user(request, message, messages.SUCCESS)
            page = (first - 1) // PARTICIPANTS_PER_PAGE + 1
            return HttpResponseRedirect(f"{model_admin.change_url(event)}?participants={page}")
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Add participants to %(name)s") % {"name": event.name},
        "opts": model_admin.opts,
        "original": event,
        "event": event,
        "form": form,
        "media": model_admin.media + form.media,
    }
    return TemplateResponse(request, "admin/events/event/participants_add.html", context)


def participants_addable_by(event, user) -> bool:
    """Who may paste participants: those who may add a participant row (events/roles.py), while entry is open."""
    return (
        user.has_perm("events.add_participant")
        and event_results_editable_by(event, user)
        and event.status in PARTICIPANT_ENTRY_STATUSES
    )
