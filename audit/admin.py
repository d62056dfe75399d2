"""The audit trail in the admin: read-only, for superusers and the "Rating officers" group only."""

from __future__ import annotations

import datetime
import json

from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.core.serializers.json import DjangoJSONEncoder
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from core.admin import OfficialsReadOnly

from .models import AuditEvent, HistoryRecord
from .selectors import HISTORY_TYPES, NO_USER, TRACKED, HistoryFilter, history_entries, history_rows

HISTORY_PAGE_SIZE = 50


def _json_value(value) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False)


def before_after_table(before: dict | None, after: dict | None):
    """An HTML table of the keys whose values differ (every key when one side is missing)."""
    before, after = before or {}, after or {}
    keys = [k for k in dict.fromkeys([*before, *after]) if before.get(k) != after.get(k)]
    if not keys:
        return "—"
    rows = format_html_join(
        "",
        "<tr><th>{}</th><td>{}</td><td>{}</td></tr>",
        ((k, _json_value(before.get(k)), _json_value(after.get(k))) for k in keys),
    )
    return format_html(
        '<table class="audit-diff"><thead><tr><th>field</th><th>before</th><th>after</th></tr>'
        "</thead><tbody>{}</tbody></table>",
        rows,
    )


@admin.register(AuditEvent)
class AuditEventAdmin(OfficialsReadOnly, admin.ModelAdmin):
    list_display = ["at", "actor_display", "action", "object_repr", "reason_short"]
    list_filter = ["action", ("actor", admin.RelatedOnlyFieldListFilter), "at", "object_type"]
    search_fields = ["object_repr", "reason", "actor_name", "=object_id"]
    date_hierarchy = "at"
    list_select_related = ["actor"]
    readonly_fields = ("at", "actor_display", "action", "object_type", "object_id", "object_repr", "reason", "changes")
    fields = readonly_fields
    show_full_result_count = False

    @admin.display(description=_("who"), ordering="actor_name")
    def actor_display(self, obj):
        return obj.actor_name or "system (scheduled job)"

    @admin.display(description=_("reason"))
    def reason_short(self, obj):
        return obj.reason if len(obj.reason) <= 80 else obj.reason[:79] + "…"

    @admin.display(description=_("before → after"))
    def changes(self, obj):
        return before_after_table(obj.before, obj.after)


@admin.register(AccessAttempt)
class SignInFailureAdmin(OfficialsReadOnly, AccessAttemptAdmin):
    """django-axes' failed sign-ins (core/security.py), for officials; read-only but for lifting a lock."""

    list_display = ["attempt_time", "username", "ip_address", "failures_since_start", "user_agent", "path_info"]
    list_filter = ["attempt_time", "path_info"]

    def has_delete_permission(self, request, obj=None):
        # Deleting an account's (or an address's) failures lifts its sign-in lock.
        return request.user.is_active and request.user.is_superuser


def _history_filter(request) -> tuple[HistoryFilter, list[str]]:
    """The filter named by the query string, and a message for each value that had to be ignored."""
    problems = []
    kinds = tuple(k for k in request.GET.getlist("model") if k in TRACKED)
    user: int | str | None = None
    raw_user = request.GET.get("user", "")
    if raw_user == NO_USER:
        user = NO_USER
    elif raw_user:
        if raw_user.isdigit():
            user = int(raw_user)
        else:
            problems.append(f"user {raw_user!r} is not a user id; showing every user")
    history_type = request.GET.get("type", "")
    if history_type not in HISTORY_TYPES:
        if history_type:
            problems.append(f"type {history_type!r} is not one of + ~ -; showing every type")
        history_type = ""
    dates = {}
    for name in ("date_from", "date_to"):
        raw = request.GET.get(name, "").strip()
        if raw:
            try:
                dates[name] = datetime.date.fromisoformat(raw)
            except ValueError:
                problems.append(f"{name.replace('_', ' ')} {raw!r} is not a date (YYYY-MM-DD); ignored")
    object_id = None
    raw_object = request.GET.get("object", "").strip()
    if raw_object:
        if raw_object.isdigit() and len(kinds) == 1:
            object_id = int(raw_object)
        else:
            problems.append("object needs a numeric id and exactly one model; ignored")
    found = HistoryFilter(kinds=kinds, user=user, history_type=history_type, object_id=object_id, **dates)
    return found, problems


@admin.register(HistoryRecord)
class HistoryRecordAdmin(OfficialsReadOnly, admin.ModelAdmin):
    """Every recorded change to players, events, participants and games, newest first."""

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}_changelist"
        return [path("", self.admin_site.admin_view(self.changelist_view), name=name)]

    def changelist_view(self, request, extra_context=None):
        if not self.has_view_permission(request):
            raise PermissionDenied
        filters, problems = _history_filter(request)
        for problem in problems:
            messages.warning(request, problem)
        paginator = Paginator(history_rows(filters), HISTORY_PAGE_SIZE)
        page = paginator.get_page(request.GET.get("p"))
        query = request.GET.copy()
        query.pop("p", None)
        users = get_user_model().objects.filter(is_staff=True).order_by("username").only("id", "username")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Change history",
            "subtitle": None,
            "entries": history_entries(page.object_list),
            "page": page,
            "paginator": paginator,
            "query": query.urlencode(),
            "filters": filters,
            "model_choices": [(kind, apps_label) for kind, apps_label in _kind_labels()],
            "type_choices": list(HISTORY_TYPES.items()),
            "user_choices": [(str(u.pk), u.username) for u in users],
            "no_user": NO_USER,
            "selected_user": request.GET.get("user", ""),
            "date_from": request.GET.get("date_from", ""),
            "date_to": request.GET.get("date_to", ""),
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/audit/historyrecord/change_list.html", context)


def _kind_labels():
    from .selectors import tracked_history_models

    for kind, history_model in tracked_history_models().items():
        yield kind, str(history_model.instance_type._meta.verbose_name_plural)
