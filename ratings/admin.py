"""Rating officers' admin: policies and their schedule, draft previews to browse, publication, republication.

Every action here only queues a Celery task after the transaction commits (ratings/tasks.py); the work is done
by ratings.services in the worker, single-flight, so a double click publishes once.
"""

from django.contrib import admin, messages
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from core.admin import ReadOnly
from ratings import services, tasks
from ratings.models import (
    PlayerRating,
    RatingChange,
    RatingList,
    RatingListEntryRow,
    RatingPolicy,
    entry_key_split,
)


def _changelist_link(model, label: str, count: int, **filters) -> str:
    if not count:
        return "0"
    url = reverse(f"admin:ratings_{model._meta.model_name}_changelist")
    query = "&".join(f"{key}={value}" for key, value in filters.items())
    return format_html('<a href="{}?{}">{} {}</a>', url, query, count, label)


@admin.register(RatingPolicy)
class RatingPolicyAdmin(admin.ModelAdmin):
    """Saving a policy moves its beat schedule (Periodic tasks) to the new list months."""

    list_display = ["rating_type", "rules_preset", "list_months", "closing_days", "next_list"]
    actions = ["compute_preview", "publish_now"]

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


@admin.register(RatingList)
class RatingListAdmin(admin.ModelAdmin):
    list_display = [
        "list_date",
        "rating_type",
        "version",
        "status",
        "rules_preset",
        "entries_link",
        "rated_count",
        "new_ratings_link",
        "dropped_link",
        "changes_link",
        "event_count",
        "published_at",
        "superseded_by",
    ]
    list_filter = ["rating_type", "status", "is_imported", "rules_preset"]
    date_hierarchy = "list_date"
    list_select_related = ["superseded_by", "published_by"]
    readonly_fields = [f.name for f in RatingList._meta.fields]
    actions = ["publish_drafts", "republish_corrections"]

    @admin.display(description=_("entries"))
    def entries_link(self, obj):
        return _changelist_link(RatingListEntryRow, "entries", obj.entry_count, rating_list__id__exact=obj.pk)

    @admin.display(description=_("new ratings"))
    def new_ratings_link(self, obj):
        return _changelist_link(
            RatingListEntryRow,
            "new",
            obj.new_rating_count,
            rating_list__id__exact=obj.pk,
            is_new_rating__exact=1,
        )

    @admin.display(description=_("below the floor"))
    def dropped_link(self, obj):
        return _changelist_link(
            RatingListEntryRow,
            "dropped",
            obj.dropped_count,
            rating_list__id__exact=obj.pk,
            dropped_below_floor__exact=1,
        )

    @admin.display(description=_("rating changes"))
    def changes_link(self, obj):
        url = reverse("admin:ratings_ratingchange_changelist")
        return format_html('<a href="{}?rating_list__id__exact={}">browse</a>', url, obj.pk)

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


# The admin start page (admin_dashboard) and the laboratory's admin (admin_lab) register themselves.
from ratings import admin_dashboard, admin_lab  # noqa: E402, F401
