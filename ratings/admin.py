from django.contrib import admin

from .models import PlayerRating, RatingChange, RatingList, RatingListEntry, RatingPolicy


@admin.register(RatingPolicy)
class RatingPolicyAdmin(admin.ModelAdmin):
    list_display = ["rating_type", "rules_preset", "list_months", "closing_days"]


@admin.register(RatingList)
class RatingListAdmin(admin.ModelAdmin):
    list_display = ["list_date", "rating_type", "version", "status", "rules_preset", "entry_count",
                    "rated_count", "published_at", "superseded_by"]
    list_filter = ["rating_type", "status", "rules_preset"]
    date_hierarchy = "list_date"
    list_select_related = ["superseded_by", "published_by"]
    readonly_fields = [f.name for f in RatingList._meta.fields]

    def has_add_permission(self, request):
        return False  # lists are computed by the publication service, never typed in

    def has_delete_permission(self, request, obj=None):
        return False  # a published list is immutable


class ReadOnlyAdmin(admin.ModelAdmin):
    show_full_result_count = False

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(RatingListEntry)
class RatingListEntryAdmin(ReadOnlyAdmin):
    list_display = ["rating_list", "player", "rating", "games", "k_factor", "change", "inactive"]
    list_filter = ["rating_list__rating_type", "inactive"]
    list_select_related = ["rating_list", "player"]
    search_fields = ["=player__id_number"]
    raw_id_fields = ["player", "rating_list"]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ["rating_list", "player", "event", "games", "score", "expected_score", "k_factor", "change"]
    list_select_related = ["rating_list", "player", "event"]
    search_fields = ["=player__id_number"]
    raw_id_fields = ["player", "rating_list", "event"]


@admin.register(PlayerRating)
class PlayerRatingAdmin(ReadOnlyAdmin):
    list_display = ["player", "rating_type", "rating", "k_factor", "games", "inactive"]
    list_filter = ["rating_type", "inactive"]
    list_select_related = ["player"]
    search_fields = ["=player__id_number"]
    raw_id_fields = ["player", "rating_list"]
