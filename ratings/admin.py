"""Rating officers' admin: policies and their schedule, draft previews to browse, publication, republication.

Every action here only queues a Celery task after the transaction commits (ratings/tasks.py); the work is done
by ratings.services in the worker, single-flight, so a double click publishes once.
"""

import datetime

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.admin import ReadOnly, admin_user
from events.models import RatingType
from outbox.labels import pending_task_outcome, pending_task_state, task_label
from outbox.models import PendingTask
from ratings import services, tasks
from ratings.admin_lab import preset_choices, preset_label
from ratings.engine import PRESETS
from ratings.models import (
    PlayerRating,
    RatingChange,
    RatingList,
    RatingListEntry,
    RatingListEntryRow,
    RatingListStatus,
    RatingPolicy,
    entry_key_split,
)
from ratings.selectors import rating_lists_desk


def _changelist_link(model, label: str, count: int, **filters) -> str:
    """The count as a link to those rows (the column's title names them; the label is the link's title)."""
    if not count:
        return "0"
    url = reverse(f"admin:ratings_{model._meta.model_name}_changelist")
    query = "&".join(f"{key}={value}" for key, value in filters.items())
    return format_html('<a href="{}?{}" title="{} {}">{}</a>', url, query, count, label, count)


class RatingPolicyForm(forms.ModelForm):
    """Presets chosen by name (ratings.admin_lab.preset_choices), never typed as slugs."""

    rules_preset = forms.ChoiceField(label=_("Rules preset"), choices=preset_choices)
    shadow_preset = forms.ChoiceField(
        label=_("Shadow preset"),
        required=False,
        choices=lambda: [("", _("none")), *preset_choices()],
        help_text=_("A second preset computed beside each published list, shown as unofficial; never mixed in."),
    )

    class Meta:
        model = RatingPolicy
        fields = ["rating_type", "rules_preset", "list_months", "closing_days", "shadow_preset"]
        labels = {"rating_type": _("Rating type"), "list_months": _("List months"), "closing_days": _("Closing days")}
        help_texts = {
            "list_months": _("Months with a list on the 1st, comma-separated"),
            "closing_days": _("Events ending on or before (list date − this many days) are rated on the list"),
        }


@admin.register(RatingPolicy)
class RatingPolicyAdmin(admin.ModelAdmin):
    """Saving a policy moves its beat schedule (Periodic tasks) to the new list months."""

    form = RatingPolicyForm
    change_list_template = "admin/ratings/ratinglist/change_list.html"  # leads to "Preview or publish" too
    list_display = ["rating_type", "preset", "list_months", "closing_days", "next_list"]
    actions = ["compute_preview", "publish_now"]

    @admin.display(description=_("rules preset"), ordering="rules_preset")
    def preset(self, policy):
        return preset_label(policy.rules_preset)

    @admin.display(description=_("next list"))
    def next_list(self, policy):
        try:
            return services.rating_list_next_date(policy.rating_type, timezone.localdate())
        except ValueError:
            return "-"

    def save_model(self, request, obj, form, change):
        services.rating_policy_save(obj)  # the crontab follows list_months

    @admin.action(description=_("Compute a draft preview of the next list"), permissions=["change"])
    def compute_preview(self, request, queryset):
        for policy in queryset:
            list_date = services.rating_list_next_date(policy.rating_type, timezone.localdate())
            tasks.queue_preview(policy.rating_type, list_date, request.user)
            self.message_user(
                request,
                f"{policy.get_rating_type_display()} {list_date}: preview queued; it appears "
                "under Rating lists (status draft) when the worker has computed it.",
            )

    @admin.action(description=_("Publish the due list now"), permissions=["change"])
    def publish_now(self, request, queryset):
        today = timezone.localdate()
        for policy in queryset:
            try:
                list_date = services.rating_list_due(policy.rating_type, today)
            except services.RatingListRefused as exc:
                self.message_user(request, str(exc), messages.WARNING)
                continue
            tasks.queue_publication(policy.rating_type, list_date, request.user)
            self.message_user(request, f"{policy.get_rating_type_display()} {list_date}: publication queued.")


# --------------------------------------------------------------------------------------------------------
# "Preview or publish": one page for the officer (choose the type and list date, preview as a draft, then
# publish), each request queued as today (ratings.tasks through the outbox) and followed on a progress page.
# --------------------------------------------------------------------------------------------------------
LIST_TASKS = (
    "ratings.compute_rating_list_preview",
    tasks.PUBLISH_TASK,
    "ratings.republish_rating_lists",
)
ENTRIES_PER_PAGE = 100


class ListRequestForm(forms.Form):
    rating_type = forms.ChoiceField(label=_("Rating type"), choices=RatingType.choices)
    list_date = forms.DateField(label=_("List date"), widget=forms.DateInput(attrs={"type": "date"}))


class PublishPages:
    """The officer's publication page and a queued task's progress (RatingListAdmin's extra URLs)."""

    def publication_urls(self):
        site = self.admin_site  # type: ignore[attr-defined]
        return [
            path("publish/", site.admin_view(self.publish_view), name="ratings_ratinglist_publish"),
            path("task/<int:task_id>/", site.admin_view(self.task_view), name="ratings_ratinglist_task"),
        ]

    def publish_view(self, request):
        if not self.has_view_permission(request):  # type: ignore[attr-defined]
            raise PermissionDenied
        today = timezone.localdate()
        if request.method == "POST":
            if not self.has_change_permission(request):  # type: ignore[attr-defined]
                raise PermissionDenied
            form = ListRequestForm(request.POST)
            if form.is_valid():
                queued = self._queue_request(request, form, publish=request.POST.get("do") == "publish", today=today)
                if queued is not None:
                    return HttpResponseRedirect(reverse("admin:ratings_ratinglist_task", args=[queued.pk]))
            failed = form
        else:
            failed = None
        return TemplateResponse(request, "admin/ratings/publish.html", self._publish_context(request, today, failed))

    def _queue_request(self, request, form, *, publish: bool, today: datetime.date) -> PendingTask | None:
        rating_type, list_date = form.cleaned_data["rating_type"], form.cleaned_data["list_date"]
        try:
            services.rating_list_request_check(rating_type, list_date, today, publish=publish)
        except services.RatingListRefused as exc:
            form.add_error("list_date", str(exc))
            return None
        user = admin_user(request)
        if publish:
            return tasks.queue_publication(rating_type, list_date, user)
        return tasks.queue_preview(rating_type, list_date, user)

    def _publish_context(self, request, today: datetime.date, failed: ListRequestForm | None) -> dict:
        types = list(RatingType.values)
        desk = rating_lists_desk(types)
        cards = []
        for value, label in RatingType.choices:  # three rating types: a fixed number of reads
            policy = services.rating_policy_for(value)
            next_date = services.rating_list_next_date(value, today)
            form = failed if failed is not None and failed.data.get("rating_type") == value else None
            cards.append(
                {
                    "rating_type": value,
                    "label": label,
                    "policy": policy,
                    "preset_name": preset_label(policy.rules_preset).removesuffix(f" ({policy.rules_preset})"),
                    "next_date": next_date,
                    "closing_html": _nowrap(f"{policy.closing_date(next_date):%Y-%m-%d}"),
                    "draft_computed_html": _nowrap(f"{timezone.localtime(draft.computed_at):%Y-%m-%d %H:%M}")
                    if (draft := desk[value]["draft"])
                    else "",
                    "due": next_date <= today,
                    "newest": desk[value]["newest"],
                    "draft": desk[value]["draft"],
                    "form": form or ListRequestForm(initial={"rating_type": value, "list_date": next_date}),
                }
            )
        recent = PendingTask.objects.filter(name__in=LIST_TASKS).order_by("-created_at", "-id")[:10]
        return {
            **self.admin_site.each_context(request),  # type: ignore[attr-defined]
            "title": gettext("Preview or publish a rating list"),
            "opts": RatingList._meta,
            "cards": cards,
            "today": today,
            "may_change": self.has_change_permission(request),  # type: ignore[attr-defined]
            "recent": [_task_row(task) for task in recent],
        }

    def task_view(self, request, task_id: int):
        if not self.has_view_permission(request):  # type: ignore[attr-defined]
            raise PermissionDenied
        task = get_object_or_404(PendingTask, pk=task_id, name__in=LIST_TASKS)
        row = _task_row(task)
        state, value = pending_task_outcome(task)
        refused = value.get("refused", "") if isinstance(value, dict) else ""
        row["done"] = task.finished_at is not None or state in ("SUCCESS", "FAILURE")
        rating_list = _task_list(task) if row["done"] else None
        if row["done"] and not refused and (state == "FAILURE" or rating_list is None):
            # No list came of it and the result backend kept no reason (or an error): say what stands in the way now.
            refused = value if state == "FAILURE" else _refusal_now(task)
        row["failed"], row["error"] = bool(refused), refused
        context = {
            **self.admin_site.each_context(request),  # type: ignore[attr-defined]
            "title": row["label"],
            "opts": RatingList._meta,
            "task": row,
            "rating_list": None if refused else rating_list,
        }
        return TemplateResponse(request, "admin/ratings/task_progress.html", context)


def _nowrap(text: str) -> str:
    """A date or a time inside a sentence, kept on one line."""
    return format_html('<span class="nowrap">{}</span>', text)


def _task_row(task: PendingTask) -> dict:
    rating_type, list_date = [*task.args, None, None][:2]
    return {
        "task": task,
        "label": task_label(task.name),
        "state": pending_task_state(task),
        "rating_type": RatingType(rating_type).label if rating_type in RatingType.values else rating_type,
        "list_date": list_date,
        "url": reverse("admin:ratings_ratinglist_task", args=[task.pk]),
    }


def _task_list(task: PendingTask) -> RatingList | None:
    """The list a finished preview or publication left: the draft computed since it was asked, or the current
    published list of its date."""
    rating_type, list_date = task.args[0], datetime.date.fromisoformat(task.args[1])
    lists = RatingList.objects.filter(rating_type=rating_type, list_date=list_date)
    if task.name == "ratings.compute_rating_list_preview":
        return lists.filter(status=RatingListStatus.DRAFT, computed_at__gte=task.created_at).first()
    return lists.current().first()


def _refusal_now(task: PendingTask) -> str:
    list_date = datetime.date.fromisoformat(task.args[1])
    publish = task.name != "ratings.compute_rating_list_preview"
    try:
        services.rating_list_request_check(task.args[0], list_date, timezone.localdate(), publish=publish)
    except services.RatingListRefused as exc:
        return str(exc)
    return gettext("The job ended without a new list; see the worker's log.")


# --------------------------------------------------------------------------------------------------------
# A list's own page: its summary in words and its entries, paged (rank, name, federation, old, change, new)
# --------------------------------------------------------------------------------------------------------
ENTRY_FILTERS = {
    "all": (_("all rated"), {"position__isnull": False}),
    "new": (_("new ratings"), {"is_new_rating": True}),
    "dropped": (_("below the floor"), {"dropped_below_floor": True}),
    "unrated": (_("unrated"), {"rating__isnull": True}),
    "inactive": (_("inactive"), {"inactive": True}),
}


def list_entries_page(rating_list: RatingList, show: str, page_number: str | None) -> dict:
    """One page of a list's entries. All rated entries are paged by their position (a page of a two-million-line
    list is a range of positions, not an OFFSET: ratings.models.RatingListEntry); the filtered views are small."""
    show = show if show in ENTRY_FILTERS else "all"
    entries = RatingListEntry.objects.filter(rating_list=rating_list, **ENTRY_FILTERS[show][1])
    if show == "all":
        count = rating_list.rated_count
        paginator = Paginator(range(count), ENTRIES_PER_PAGE)
        page = paginator.get_page(page_number)
        rows = entries.filter(position__gte=page.start_index(), position__lte=page.end_index()).order_by("position")
    else:
        paginator = Paginator(
            entries.order_by("position", "player_id").values_list("player_id", flat=True), ENTRIES_PER_PAGE
        )
        page = paginator.get_page(page_number)
        rows = entries.filter(player_id__in=list(page.object_list)).order_by("position", "player_id")
    entries_on_page = list(rows.select_related("player"))
    # A rating that fell below the floor is published empty: its old value is the previous list's (one query),
    # and the rating it fell to is that plus the change (B.02 rating floor), shown in the notes.
    fell = [e.player_id for e in entries_on_page if e.rating is None and e.change is not None]
    before = dict(
        RatingListEntry.objects.filter(rating_list_id=rating_list.previous_id, player_id__in=fell).values_list(
            "player_id", "rating"
        )
        if fell and rating_list.previous_id
        else []
    )
    lines = []
    for entry in entries_on_page:
        old = None if entry.is_new_rating else _old_rating(entry)
        if entry.player_id in before:
            old = before[entry.player_id]
        fell_to = None
        if entry.player_id in before and old is not None and entry.change is not None:
            fell_to = old + entry.change
        line = {"entry": entry, "player": entry.player, "old": old, "change": _signed(entry.change), "fell_to": fell_to}
        lines.append(line)
    return {
        "show": show,
        "filters": [(key, label) for key, (label, _filter) in ENTRY_FILTERS.items()],
        "page": page,
        "paginator": paginator,
        "lines": lines,
        "page_range": paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1),
    }


def _signed(change: int | None) -> str:
    if change is None:
        return "—"
    return f"+{change}" if change > 0 else (f"\u2212{-change}" if change < 0 else "0")


def _old_rating(entry: RatingListEntry) -> int | None:
    """The rating before this list: the new one less the change (both as published; empty when unrated)."""
    if entry.change is None:
        return entry.rating
    if entry.rating is None:  # fell below the floor: the change says where from
        return None
    return entry.rating - entry.change


def rules_summary(rating_list: RatingList) -> list[tuple[str, object]]:
    """The frozen rules in words, for the list's page (the JSON stays in the database and the downloads)."""
    rules = rating_list.rules or {}
    preset = PRESETS.get(rating_list.rules_preset)
    rows: list[tuple[str, object]] = [
        (gettext("Rules preset"), preset_label(rating_list.rules_preset)),
        (gettext("Description"), rules.get("description") or (preset.description if preset else "")),
        (gettext("In force from"), rules.get("effective_from", "")),
        (gettext("Rating floor"), rules.get("rating_floor") or gettext("none")),
        (gettext("K × games cap"), rules.get("k_times_n_cap") or gettext("none")),
        (gettext("Rounding"), rules.get("rounding", "")),
        (gettext("Inactive after (months)"), rules.get("inactivity_months") or gettext("never")),
    ]
    if rules.get("adjustment"):
        rows.append((gettext("One-off adjustment"), gettext("yes (see the laboratory's adjustments)")))
    return rows


@admin.register(RatingList)
class RatingListAdmin(PublishPages, admin.ModelAdmin):
    # What an official scans a column of lists for, in the width a desk leaves beside the admin's menu and
    # filters: the preset is a filter; rated players, changes, rules and times are on each list's page.
    list_display = [
        "list_day",
        "rating_type",
        "state",
        "entries_link",
        "new_ratings_link",
        "dropped_link",
        "event_count",
    ]
    list_filter = ["rating_type", "status", "is_imported", "rules_preset"]
    date_hierarchy = "list_date"
    list_display_links = ["list_day"]
    list_select_related = ["superseded_by", "published_by"]
    readonly_fields = [f.name for f in RatingList._meta.fields]
    actions = ["publish_drafts", "republish_corrections"]
    change_form_template = "admin/ratings/ratinglist/change_form.html"
    change_list_template = "admin/ratings/ratinglist/change_list.html"
    # The list's page reads top-down: what it is, then its entries; the bookkeeping folds away.
    fieldsets = [
        (None, {"fields": ["rating_type", "list_date", "version", "status", "rules_preset"]}),
        (
            _("Period and counts"),
            {
                "classes": ["collapse"],
                "fields": [
                    "period_start",
                    "closing_date",
                    "previous",
                    "superseded_by",
                    "superseded_at",
                    "correction_reason",
                    "entry_count",
                    "rated_count",
                    "new_rating_count",
                    "dropped_count",
                    "event_count",
                    "game_count",
                    "is_imported",
                    "computed_at",
                    "published_at",
                    "published_by",
                ],
            },
        ),
    ]

    def get_urls(self):
        return [*self.publication_urls(), *super().get_urls()]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        rating_list = self.get_object(request, object_id)
        extra = dict(extra_context or {})
        if rating_list is not None:
            extra["entries"] = list_entries_page(rating_list, request.GET.get("show", "all"), request.GET.get("p"))
            extra["rules_rows"] = rules_summary(rating_list)
            extra["is_draft"] = rating_list.status == RatingListStatus.DRAFT
            extra["publish_url"] = reverse("admin:ratings_ratinglist_publish")
            extra["changes_link"] = self.changes_link(rating_list)
            extra["title"] = str(rating_list)
            # Nothing on this page is edited (lists are written by the publication service): no save buttons.
            extra.update(show_save=False, show_save_and_continue=False, show_save_and_add_another=False)
        return super().change_view(request, object_id, form_url, extra)

    @admin.display(description=_("entries"))
    def entries_link(self, obj):
        return _changelist_link(RatingListEntryRow, gettext("entries"), obj.entry_count, rating_list__id__exact=obj.pk)

    @admin.display(description=_("Events"), ordering="event_count")
    def events(self, obj):
        return obj.event_count

    @admin.display(description=_("new"))
    def new_ratings_link(self, obj):
        return _changelist_link(
            RatingListEntryRow,
            gettext("new"),
            obj.new_rating_count,
            rating_list__id__exact=obj.pk,
            is_new_rating__exact=1,
        )

    @admin.display(description=_("dropped"))
    def dropped_link(self, obj):
        return _changelist_link(
            RatingListEntryRow,
            gettext("dropped"),
            obj.dropped_count,
            rating_list__id__exact=obj.pk,
            dropped_below_floor__exact=1,
        )

    @admin.display(description=_("List date"), ordering="list_date")
    def list_day(self, obj):
        return format_html('<span class="nowrap">{}</span>', f"{obj.list_date:%Y-%m-%d}")

    @admin.display(description=_("status"), ordering="status")
    def state(self, obj):
        version = f" v{obj.version}" if obj.version > 1 else ""
        if obj.superseded_by_id:
            return format_html(
                "{}{}<br><small>{}</small>", obj.get_status_display(), version, gettext("superseded by a correction")
            )
        return f"{obj.get_status_display()}{version}"

    @admin.display(description=_("rating changes"))
    def changes_link(self, obj):
        url = reverse("admin:ratings_ratingchange_changelist")
        return format_html('<a href="{}?rating_list__id__exact={}">{}</a>', url, obj.pk, gettext("browse"))

    @admin.action(description=_("Publish the selected draft previews"), permissions=["change"])
    def publish_drafts(self, request, queryset):
        for rating_list in queryset:
            try:
                services.rating_list_draft_publishable(rating_list)
            except services.RatingListRefused as exc:
                self.message_user(request, str(exc), messages.WARNING)
                continue
            # The worker promotes the draft as it is if nothing it read has changed, else recomputes it.
            tasks.queue_publication(rating_list.rating_type, rating_list.list_date, request.user)
            self.message_user(request, f"{rating_list}: publication queued.")

    @admin.action(description=_("Republish from the selected list with the corrected events"), permissions=["change"])
    def republish_corrections(self, request, queryset):
        for rating_list in queryset:
            try:
                reason = services.rating_list_republication_reason(rating_list)
            except services.RatingListRefused as exc:
                self.message_user(request, str(exc), messages.WARNING)
                continue
            tasks.queue_republication(rating_list.rating_type, rating_list.list_date, reason, request.user)
            self.message_user(request, f"{rating_list}: republication of this list and every later one queued.")

    def has_add_permission(self, request):
        return False  # lists are computed by the publication service, never typed in

    def has_delete_permission(self, request, obj=None):
        return False  # a published list is immutable; a draft is replaced by the next preview


class ReadOnlyAdmin(ReadOnly, admin.ModelAdmin):
    show_full_result_count = False


class EntryKeyAdmin(ReadOnlyAdmin):
    """Rows keyed by an entry's single key (ratings.models.entry_key): an entry is found by its list and
    player (the entries' primary key), not by the key computed on every row of the view."""

    def get_object(self, request, object_id, from_field=None):
        try:
            rating_list_id, player_id = entry_key_split(int(object_id))
        except (TypeError, ValueError):
            return None
        return self.get_queryset(request).filter(rating_list_id=rating_list_id, player_id=player_id).first()


@admin.register(RatingListEntryRow)
class RatingListEntryAdmin(EntryKeyAdmin):
    list_display = [
        "rating_list",
        "player",
        "rating",
        "change",
        "games",
        "k_factor",
        "inactive",
        "is_new_rating",
        "dropped_below_floor",
        "pool_games",
    ]
    list_filter = [
        "rating_list__rating_type",
        "rating_list__status",
        "is_new_rating",
        "dropped_below_floor",
        "inactive",
    ]
    list_select_related = ["rating_list", "player"]
    search_fields = ["=player__id_number", "player__search_name"]
    raw_id_fields = ["player", "rating_list"]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = [
        "rating_list",
        "player",
        "event",
        "rating_before",
        "games",
        "score",
        "expected_score",
        "k_factor",
        "change",
    ]
    list_filter = ["rating_list__rating_type", "rating_list__status"]
    list_select_related = ["rating_list", "player", "event"]
    search_fields = ["=player__id_number", "event__name"]
    raw_id_fields = ["player", "rating_list", "event"]


@admin.register(PlayerRating)
class PlayerRatingAdmin(EntryKeyAdmin):
    list_display = ["player", "rating_type", "rating", "k_factor", "games", "inactive"]
    list_filter = ["rating_type", "inactive"]
    list_select_related = ["player"]
    search_fields = ["=player__id_number"]
    raw_id_fields = ["player", "rating_list"]


# The admin start page (admin_dashboard), the norms (admin_norms) and titles (admin_titles) register themselves;
# the laboratory's admin (admin_lab) is imported above.
from ratings import admin_dashboard, admin_norms, admin_titles  # noqa: E402, F401
