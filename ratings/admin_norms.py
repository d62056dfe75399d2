"""Title norms in the admin (B.01 1.4): each event's norm report for its arbiters and the officials, and a norm
calculator an arbiter fills in — the same service and engine as /events/<pk>/norms/ and POST /api/v1/norms/check/.

Arbiters see the events they may see (events/roles.py), drafts included; nothing here writes.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext_lazy as _

from core.admin import OfficialsOnly
from events.admin.permissions import EventAccess
from events.roles import event_is_visible_to
from ratings.engine.norms import EXEMPTIONS, NORM_TITLES, SYSTEMS, NormEvent, NormGame, NormPlayer, check_norms
from ratings.models import EventNorms, NormRecord
from ratings.services.norms import event_norm_report, norm_rules, norms_countersign

RESULTS = ("1", "0.5", "0", "+", "-", "bye")


class NormCalculatorForm(forms.Form):
    federation = forms.RegexField(r"^[A-Za-z]{3}$", label=_("Player's federation"), max_length=3)
    sex = forms.ChoiceField(label=_("Sex"), choices=[("M", _("Male")), ("F", _("Female"))])
    rounds = forms.IntegerField(label=_("Rounds of the event"), min_value=1, max_value=99)
    system = forms.ChoiceField(label=_("System"), choices=[(s, s) for s in SYSTEMS])
    exemption = forms.ChoiceField(
        label=_("Exemption (1.4.3a-d)"), choices=[(e, e or "—") for e in EXEMPTIONS], required=False
    )
    title = forms.ChoiceField(
        label=_("Title"), choices=[("", _("all"))] + [(t, t) for t in NORM_TITLES], required=False
    )
    games = forms.CharField(
        label=_("Games"),
        widget=forms.Textarea(attrs={"rows": 12, "cols": 60}),
        help_text=_(
            "One game a line: round, opponent's rating (or 'unrated'), title, federation, result (1, 0.5, 0, +, -, "
            "bye), separated by spaces or commas. Example: 1 2450 GM FRA 1"
        ),
    )

    def clean_games(self) -> list[NormGame]:
        games = []
        for number, line in enumerate(self.cleaned_data["games"].splitlines(), 1):
            fields = line.replace(",", " ").split()
            if not fields:
                continue
            if len(fields) != 5:
                raise forms.ValidationError(
                    _("Line %(n)s: five values expected, found %(k)s") % {"n": number, "k": len(fields)}
                )
            rnd, rating, title, federation, result = fields
            if not rnd.isdigit() or not 1 <= len(rnd) <= 2 or int(rnd) < 1:
                raise forms.ValidationError(_("Line %(n)s: the round must be a number from 1 to 99") % {"n": number})
            if rating.lower() != "unrated" and not (rating.isdigit() and len(rating) <= 4):
                raise forms.ValidationError(_("Line %(n)s: the rating must be a number or 'unrated'") % {"n": number})
            if result not in RESULTS:
                raise forms.ValidationError(
                    _("Line %(n)s: the result must be one of 1, 0.5, 0, +, -, bye") % {"n": number}
                )
            games.append(
                NormGame(
                    round=int(rnd),
                    result=result,
                    opponent=f"#{number}",
                    opponent_rating=None if rating.lower() == "unrated" else int(rating),
                    opponent_title="" if title in {"-", "—"} else title.upper(),
                    opponent_federation=federation.upper(),
                )
            )
        if not games:
            raise forms.ValidationError(_("Enter at least one game."))
        return games


@admin.register(EventNorms)
class EventNormsAdmin(EventAccess, admin.ModelAdmin):
    """The list of events; an event's page is its norm report."""

    list_display = ["name", "start_date", "system", "rounds", "status"]
    list_filter = ["status", "system"]
    search_fields = ["name", "city"]
    event_field = "pk"

    def event_of(self, obj):
        return obj

    def get_queryset(self, request):
        return self.visible_rows(request, super().get_queryset(request))

    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None):
        return self.has_module_permission(request) and (obj is None or event_is_visible_to(obj, request.user))

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_urls(self):
        return [
            path("calculator/", self.admin_site.admin_view(self.calculator_view), name="ratings_eventnorms_calculator"),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        event = self.get_object(request, object_id)
        if event is None or not self.has_view_permission(request, event):
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        report = event_norm_report(event)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Title norms: %(name)s") % {"name": event.name},
            "event": event,
            "report": report,
            "made": [(line, norm) for line in report for norm in line.norms if norm.norm],
        }
        return TemplateResponse(request, "admin/ratings/event_norms.html", context)

    def calculator_view(self, request):
        form = NormCalculatorForm(request.POST or None)
        results = None
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                results = check_norms(
                    NormPlayer(data["federation"].upper(), data["sex"]),
                    NormEvent(rounds=data["rounds"], system=data["system"], exemption=data["exemption"] or ""),
                    data["games"],
                    data["title"] or None,
                    norm_rules(),
                )
            except ValueError as error:
                form.add_error(None, str(error))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Norm calculator"),
            "form": form,
            "results": results,
        }
        return TemplateResponse(request, "admin/ratings/norm_calculator.html", context)


@admin.register(NormRecord)
class NormRecordAdmin(OfficialsOnly, admin.ModelAdmin):
    """The norms made in this database's events; the rating officer countersigns their IT1 certificates."""

    list_display = ["title", "player", "event", "games", "performance", "countersigned_at", "countersigned_by"]
    list_filter = ["title", ("countersigned_at", admin.EmptyFieldListFilter)]
    search_fields = ["player__surname", "player__search_key", "event__name"]
    list_select_related = ["player", "event", "countersigned_by"]
    actions = ["countersign"]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description=_("Countersign the IT1 certificates of the selected norms"))
    def countersign(self, request, queryset):
        try:
            signed = norms_countersign(list(queryset), user=request.user)
        except ValidationError as error:
            self.message_user(request, " ".join(error.messages), messages.ERROR)
            return
        self.message_user(request, _("%(n)s certificate(s) countersigned.") % {"n": signed}, messages.SUCCESS)
