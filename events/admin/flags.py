"""The integrity flags' own list and pages in the admin (issue 32): officials find every open flag, filter by
state, event and check, read the evidence, and clear a flag with a reason — from the list (one flag or several
at once) or from the flag's own page.

Before this, the only Clear button sat inside the event's change form: browsers drop a form nested in another,
so the button re-saved the event and the flag stayed open (and the event waited off every list). Every form
here is a form of its own. Who may clear is events/roles.py's (``integrity_flags_clearable_by``: officials,
never the event's arbiters); the write is ``events.services.integrity_flag_clear`` (audited, a reason required).
Rows are limited to the events the user sees (events/admin/permissions.py); nobody adds, edits or deletes a flag.
"""

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from core.admin import ReadOnly, admin_user
from core.pagination import whole_number
from events.admin.permissions import EventAccess
from events.forms import ReasonForm
from events.models import Event, IntegrityFlag
from events.roles import integrity_flags_clearable_by
from events.services import integrity_flag_clear

# Events offered by the list's event filter: those with an open flag (the ones an official acts on).
EVENT_CHOICES = 50


class ClearForm(ReasonForm):
    reason_help = gettext_lazy(
        "Why the flag does not stop the rating (e.g. 'two sections of one festival, checked with the organiser'); "
        "kept with the event's record and in the audit trail."
    )
    reason_missing = gettext_lazy("Give the reason for clearing the flag.")


class FlagStateFilter(admin.SimpleListFilter):
    """Open flags first: the list opens on what still holds events off the lists."""

    title = gettext_lazy("state")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [
            ("open", _("Open flags")),
            ("cleared", _("Cleared flags")),
            ("all", _("All flags")),
        ]

    def queryset(self, request, queryset):
        value = self.value() or "open"
        if value == "open":
            return queryset.filter(cleared_at__isnull=True)
        if value == "cleared":
            return queryset.filter(cleared_at__isnull=False)
        return queryset

    def choices(self, changelist):
        current = self.value() or "open"
        for value, label in self.lookup_choices:
            yield {
                "selected": current == value,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": label,
            }


class FlagEventFilter(admin.SimpleListFilter):
    """The flags of one event: offered for the events with an open flag, and for the one chosen (a link from the
    event's page or the dashboard)."""

    title = gettext_lazy("event")
    parameter_name = "event"

    def lookups(self, request, model_admin):
        events = Event.objects.filter(integrity_flags__cleared_at__isnull=True)
        chosen = whole_number(self.value())  # never int() on the request's digits (issue 32)
        if chosen is not None:
            events = events | Event.objects.filter(pk=chosen)
        rows = model_admin.visible_rows(request, IntegrityFlag.objects.filter(event__in=events.values("pk")))
        shown = Event.objects.filter(pk__in=rows.values("event_id")).order_by("-end_date", "-pk")[:EVENT_CHOICES]
        return [(str(event.pk), str(event)) for event in shown]

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        chosen = whole_number(value)
        if chosen is None:
            return queryset.none()
        return queryset.filter(event_id=chosen)


@admin.register(IntegrityFlag)
class IntegrityFlagAdmin(EventAccess, ReadOnly, admin.ModelAdmin):
    # A phone shows the first columns: the check (the flag's page), its event, the Clear button, then the rest.
    list_display = ["kind", "event_link", "clear_link", "state", "rule", "raised"]
    list_display_links = ["kind"]
    list_filter = [FlagStateFilter, "kind", FlagEventFilter]
    search_fields = ["event__name", "rule"]
    list_select_related = ["event", "cleared_by"]
    list_per_page = 50
    ordering = ["-created_at", "-pk"]
    fields = ["event_link", "kind", "rule", "evidence_table", "created_at", "state"]
    readonly_fields = ["event_link", "kind", "rule", "evidence_table", "created_at", "state"]
    actions = ["clear_selected"]

    def get_queryset(self, request):
        return self.visible_rows(request, super().get_queryset(request).select_related("event", "cleared_by"))

    def has_clear_permission(self, request) -> bool:
        return request.user.has_perm("events.clear_integrityflag")

    # --- columns and fields ---

    @admin.display(description=gettext_lazy("raised"), ordering="created_at")
    def raised(self, flag):
        return flag.created_at.strftime("%Y-%m-%d %H:%M")

    @admin.display(description=gettext_lazy("event"), ordering="event__name")
    def event_link(self, flag):
        url = reverse("admin:events_event_change", args=[flag.event_id])
        return format_html(
            '<a href="{}">{}</a> <small>{}</small>', url, flag.event.name, flag.event.get_status_display()
        )

    @admin.display(description=gettext_lazy("state"), ordering="cleared_at")
    def state(self, flag):
        if flag.cleared_at is None:
            return format_html('<strong class="flag-open">{}</strong>', _("open: the event waits off the lists"))
        return format_html(
            '<span class="flag-cleared">{}</span>',
            _("cleared %(at)s by %(who)s: %(reason)s")
            % {
                "at": flag.cleared_at.strftime("%Y-%m-%d %H:%M"),
                "who": flag.cleared_by or "—",
                "reason": flag.clear_reason,
            },
        )

    @admin.display(description="")
    def clear_link(self, flag):
        if flag.cleared_at is not None:
            return ""
        url = reverse("admin:events_integrityflag_change", args=[flag.pk])
        return format_html('<a class="button" href="{}#clear-flag">{}</a>', url, _("Clear…"))

    @admin.display(description=gettext_lazy("evidence"))
    def evidence_table(self, flag):
        rows = format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", sorted(flag.evidence.items()))
        return format_html('<table class="flag-evidence">{}</table>', rows) if flag.evidence else "—"

    # --- the flag's own page: its clear form sits outside the admin's (read-only) change form ---

    def change_view(self, request, object_id, form_url="", extra_context=None):
        flag = self.get_object(request, unquote(object_id))
        extra = dict(extra_context or {})
        if flag is not None:
            extra["can_clear"] = flag.cleared_at is None and integrity_flags_clearable_by(flag.event, request.user)
            extra["clear_form"] = ClearForm()
            extra["event_flags_url"] = reverse("admin:events_integrityflag_changelist") + f"?event={flag.event_id}"
        return super().change_view(request, object_id, form_url, extra)

    def get_urls(self):
        return [
            path(
                "<path:object_id>/clear/",
                self.admin_site.admin_view(self.clear_view),
                name="events_integrityflag_clear",
            ),
            *super().get_urls(),
        ]

    def clear_view(self, request, object_id):
        """POST: clear one flag with the reason typed on its page; back to the page with what happened."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        flag = self.get_object(request, unquote(object_id))
        if flag is None:  # unknown, or an event this user does not see: the change page's answer
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        if not integrity_flags_clearable_by(flag.event, request.user):
            raise PermissionDenied
        form = ClearForm(request.POST)
        if not form.is_valid():
            self.message_user(request, " ".join(form.errors["reason"]), messages.ERROR)
        else:
            self._clear(request, [flag], form.cleaned_data["reason"])
        return HttpResponseRedirect(reverse("admin:events_integrityflag_change", args=[flag.pk]))

    # --- the list's action: several flags, one reason, on a page of its own ---

    @admin.action(description=gettext_lazy("Clear the selected flags…"), permissions=["clear"])
    def clear_selected(self, request, queryset: QuerySet[IntegrityFlag]):
        flags = [flag for flag in queryset.select_related("event") if flag.cleared_at is None]
        refused = [flag for flag in flags if not integrity_flags_clearable_by(flag.event, request.user)]
        if refused:
            raise PermissionDenied
        if not flags:
            self.message_user(request, _("The selected flags are already cleared."), messages.WARNING)
            return None
        form = ClearForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            self._clear(request, flags, form.cleaned_data["reason"])
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": _("Clear integrity flags"),
            "opts": self.opts,
            "flags": flags,
            "form": form,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
            "media": self.media,
        }
        return TemplateResponse(request, "admin/events/integrityflag/clear_selected.html", context)

    def _clear(self, request, flags: list[IntegrityFlag], reason: str) -> None:
        cleared = 0
        for flag in flags:
            try:
                integrity_flag_clear(flag, user=admin_user(request), reason=reason)
            except ValidationError as exc:
                self.message_user(request, f"{flag.event.name}: {' '.join(exc.messages)}", messages.ERROR)
                continue
            self.log_change(request, flag, f"Cleared: {reason}")
            cleared += 1
        if cleared:
            message = ngettext(
                "%(n)s flag cleared; the reason is kept with the event's record.",
                "%(n)s flags cleared; the reason is kept with each event's record.",
                cleared,
            ) % {"n": cleared}
            self.message_user(request, message, messages.SUCCESS)
