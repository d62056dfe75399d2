"""The registry in the admin: federations, players, duplicate-player merges.

Merging (and reversing a merge) is for rating officers: the actions and views check ``players.merge_player``
on the server, and the service checks it again. Merges go through players/services.py only.
"""

from contextvars import ContextVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.options import IS_POPUP_VAR
from django.contrib.admin.utils import unquote
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .models import Club, Federation, Player, PlayerMerge
from .selectors import likely_duplicates
from .services import player_facts, player_merge, player_merge_plan, player_merge_reverse

# Whether the user rendering a player's page may merge (read by the "likely duplicates" field, which only
# receives the player): set per request by PlayerAdmin.change_view.
_may_merge: ContextVar[bool] = ContextVar("may_merge", default=False)


@admin.register(Federation)
class FederationAdmin(admin.ModelAdmin):
    list_display = ["code", "name"]
    search_fields = ["code", "name"]


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["name", "code", "federation", "city"]
    list_filter = ["federation"]
    search_fields = ["name", "code", "city"]
    autocomplete_fields = ["federation"]


class PlayerMergeForm(forms.Form):
    """The record to keep, picked by name or ID number (the admin's autocomplete), and why."""

    kept = forms.ModelChoiceField(
        label=_("Keep this player"),
        queryset=Player.objects.filter(merged_into__isnull=True),
        help_text=_(
            "The record that stays; the selected duplicates are merged into it. Type a surname or an ID number."
        ),
        error_messages={"invalid_choice": _("Pick the player to keep from the list (an active record).")},
        # The autocomplete of the player admin (its search: surname prefix or ID number).
        widget=AutocompleteSelect(Player._meta.get_field("merged_into"), admin.site),
    )
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 3, "cols": 70}))

    def clean_kept(self):
        player = self.cleaned_data["kept"]
        if player.merged_into_id:
            raise ValidationError(f"{player} was itself merged into another record; keep that record instead.")
        return player

    def clean_reason(self):
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise ValidationError(_("Give the reason for the merge."))
        return reason


# The rows a merge moves, named for the dry run (players.services.PlayerRows keys); unnamed keys read as written.
MOVED_ROWS = {
    "participants": _("event participations (with their games)"),
    "rating_changes": _("rating changes"),
    "list_entries": _("rating list lines"),
    "shadow_entries": _("shadow list lines"),
}


class ReverseMergeForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 70}))

    def clean_reason(self):
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise ValidationError(_("Give the reason for reversing the merge."))
        return reason


class MergedFilter(admin.SimpleListFilter):
    title = _("merged")
    parameter_name = "merged"

    def lookups(self, request, model_admin):
        return [("no", _("Active records")), ("yes", _("Merged into another"))]

    def queryset(self, request, queryset):
        if self.value() == "no":
            return queryset.filter(merged_into__isnull=True)
        if self.value() == "yes":
            return queryset.filter(merged_into__isnull=False)
        return queryset


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = [
        "id_number",
        "surname",
        "given_names",
        "federation",
        "title",
        "sex",
        "birth_year",
        "needs_review",
        "merged_into",
    ]
    list_filter = ["needs_review", MergedFilter, "federation", "title", "women_title", "sex"]
    search_fields = ["=id_number", "search_name"]
    list_select_related = ["federation", "merged_into"]
    autocomplete_fields = ["federation", "club"]
    show_full_result_count = False  # no COUNT(*) over two million players on every page
    actions = ["merge_into"]

    def get_search_results(self, request, queryset, search_term):
        # Names are searched by prefix on the indexed upper-case copy ("CARLSEN, M" finds Magnus).
        term = search_term.strip()
        if term and not (term.isascii() and term.isdigit()):
            return queryset.filter(search_name__startswith=term.upper()), False
        return super().get_search_results(request, queryset, search_term)

    def get_readonly_fields(self, request, obj=None):
        fields = ["merged_into"]  # set and cleared only by the merge service
        if obj is not None and obj.needs_review:
            fields.append("duplicates")
        if not request.user.has_perm("players.change_player"):
            fields.append("needs_review")
        return fields

    def save_model(self, request, obj, form, change):
        if not change and (not request.user.has_perm("players.change_player") or IS_POPUP_VAR in request.POST):
            # A newcomer registered by an arbiter, or from an event's participant box (the "+" popup, as the
            # TRF import registers newcomers), waits for the rating officer's duplicate check.
            obj.needs_review = True
        super().save_model(request, obj, form, change)

    def has_merge_permission(self, request) -> bool:
        return request.user.has_perm("players.merge_player")

    @admin.display(description=_("likely duplicates"))
    def duplicates(self, player):
        candidates = likely_duplicates(player)
        if not candidates:
            return "none found (same surname start and birth year, or same name)"
        may_merge = _may_merge.get()
        rows = format_html_join(
            "",
            '<li><a href="{}">{}</a> — {} {}{}</li>',
            (
                (
                    reverse("admin:players_player_change", args=[c.pk]),
                    c,
                    c.federation_id or "",
                    c.birth_year or "",
                    format_html(
                        ' — <a href="{}?kept={}">merge this record into it</a>',
                        reverse("admin:players_player_merge", args=[player.pk]),
                        c.id_number,
                    )
                    if may_merge
                    else "",
                )
                for c in candidates
            ),
        )
        return format_html("<ul>{}</ul>", rows)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        token = _may_merge.set(self.has_merge_permission(request))
        try:
            response = super().change_view(request, object_id, form_url, extra_context)
            if hasattr(response, "render"):
                response.render()  # the duplicates field renders now, while the flag is set
            return response
        finally:
            _may_merge.reset(token)

    # --- merge: the changelist action ("merge into…") and the same form for one player ---

    @admin.action(description=_("Merge into…"), permissions=["merge"])
    def merge_into(self, request, queryset):
        selected = list(queryset.order_by("search_name", "pk"))
        if "apply" in request.POST or "preview" in request.POST:
            form = PlayerMergeForm(request.POST)
            if form.is_valid() and "apply" in request.POST and self._apply_merges(request, form, selected):
                return None  # back to the changelist with the messages
        else:
            form = PlayerMergeForm()
        return self._merge_page(request, form, selected, action=True)

    def get_urls(self):
        return [
            path(
                "<path:object_id>/merge/",
                self.admin_site.admin_view(self.merge_view),
                name="players_player_merge",
            ),
            *super().get_urls(),
        ]

    def merge_view(self, request, object_id):
        if not self.has_merge_permission(request):
            raise PermissionDenied
        player = self.get_object(request, unquote(object_id))
        if player is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        if request.method == "POST":
            form = PlayerMergeForm(request.POST)
            if form.is_valid() and "apply" in request.POST and self._apply_merges(request, form, [player]):
                kept = form.cleaned_data["kept"]
                return HttpResponseRedirect(reverse("admin:players_player_change", args=[kept.pk]))
        else:
            # "merge this record into it" links name the kept record by its ID number
            kept = Player.objects.filter(id_number=request.GET.get("kept") or None).only("pk").first()
            form = PlayerMergeForm(initial={"kept": kept.pk if kept else None})
        return self._merge_page(request, form, [player], action=False)

    def _apply_merges(self, request, form, players) -> bool:
        kept, reason = form.cleaned_data["kept"], form.cleaned_data["reason"]
        merging = [p for p in players if p.pk != kept.pk]
        if not merging:
            form.add_error("kept", "Select the duplicates to merge, not only the record to keep.")
            return False
        try:
            with transaction.atomic():  # one user action, one transaction: all the merges or none
                merges = [player_merge(kept, player, user=request.user, reason=reason) for player in merging]
        except ValidationError as exc:
            for message in exc.messages:
                form.add_error(None, message)
            return False
        for merge in merges:
            self.log_change(request, merge.merged, f"Merged into {kept} ({reason})")
            left = sum(len(ids) for ids in merge.moved["left_on_merged"].values())
            note = (
                (
                    f" {left} list line(s) stayed on the merged record because both players were on "
                    "those lists; check the kept rating before the next list."
                )
                if left
                else ""
            )
            self.message_user(
                request,
                f"{merge.merged} merged into {kept}.{note}",
                messages.WARNING if left else messages.SUCCESS,
            )
        return True

    def _merge_page(self, request, form, players, *, action: bool):
        kept = form.is_bound and not form.errors.get("kept") and getattr(form, "cleaned_data", {}).get("kept")
        if not form.is_bound and form.initial.get("kept"):
            kept = Player.objects.filter(pk=form.initial["kept"]).first()
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Merge duplicate players"),
            "opts": self.opts,
            "form": form,
            "players": players,
            "action": action,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
            "media": self.media + form.media,
            **(self._merge_preview(kept, players) if kept else {}),
        }
        return TemplateResponse(request, "admin/players/player/merge_into.html", context)

    def _merge_preview(self, kept, players) -> dict:
        """The two (or more) records side by side and the dry run of each merge (players.services)."""
        merging = [p for p in players if p.pk != kept.pk]
        shown = [kept, *merging]
        rows = [
            (gettext("ID number"), [p.id_number for p in shown]),
            (gettext("Name"), [f"{p.surname}, {p.given_names}" for p in shown]),
            (gettext("Born"), [p.birth_date or p.birth_year or "—" for p in shown]),
            (gettext("Sex"), [p.get_sex_display() or "—" for p in shown]),
            (gettext("Federation"), [p.federation_id or "—" for p in shown]),
            (gettext("Title"), [" ".join(filter(None, [p.title, p.women_title])) or "—" for p in shown]),
            (gettext("Needs review"), [gettext("yes") if p.needs_review else gettext("no") for p in shown]),
        ]
        rows += [(label, [values.get(p.pk, "—") for p in shown]) for label, values in player_facts(shown)]
        plans = []
        for player in merging:
            plan = player_merge_plan(kept, player)
            plans.append(
                {
                    "player": player,
                    "refusal": plan.refusal,
                    "moves": [(MOVED_ROWS.get(k, k.replace("_", " ")), n) for k, n in plan.moves.items() if n],
                    "stays": [(MOVED_ROWS.get(k, k.replace("_", " ")), n) for k, n in plan.stays.items() if n],
                    "earlier": plan.earlier_merged,
                }
            )
        return {
            "kept_player": kept,
            "compare": [(label, values, len({str(v) for v in values}) > 1) for label, values in rows],
            "shown": shown,
            "plans": plans,
            "refused": any(plan["refusal"] for plan in plans) or not merging,
        }


@admin.register(PlayerMerge)
class PlayerMergeAdmin(admin.ModelAdmin):
    """The record of merges (written by the merge service); rating officers reverse them from here."""

    list_display = ["merged", "kept", "merged_by", "merged_at", "reversed_at", "reason"]
    list_select_related = ["merged", "kept", "merged_by"]
    raw_id_fields = ["kept", "merged"]
    readonly_fields = (
        "merged",
        "kept",
        "reason",
        "moved",
        "merged_by",
        "merged_at",
        "reversed_by",
        "reversed_at",
        "reverse_reason",
    )
    fields = readonly_fields
    actions = ["reverse_merges"]
    show_full_result_count = False

    def has_add_permission(self, request):
        return False  # merges are made by the "merge into…" action on players

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # the record is what makes a merge reversible

    def has_merge_permission(self, request) -> bool:
        return request.user.has_perm("players.merge_player")

    @admin.action(description=_("Reverse the selected merges…"), permissions=["merge"])
    def reverse_merges(self, request, queryset):
        merges = list(queryset.select_related("merged", "kept"))
        if "apply" in request.POST:
            form = ReverseMergeForm(request.POST)
            if form.is_valid():
                try:
                    with transaction.atomic():
                        for merge in merges:
                            player_merge_reverse(merge, user=request.user, reason=form.cleaned_data["reason"])
                except ValidationError as exc:
                    for message in exc.messages:
                        form.add_error(None, message)
                else:
                    for merge in merges:
                        self.log_change(request, merge, f"Reversed ({form.cleaned_data['reason']})")
                    self.message_user(request, f"{len(merges)} merge(s) reversed.", messages.SUCCESS)
                    return None
        else:
            form = ReverseMergeForm()
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Reverse player merges"),
            "opts": self.opts,
            "form": form,
            "merges": merges,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/players/playermerge/reverse.html", context)
