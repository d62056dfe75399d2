from django.contrib import admin

from .models import Federation, Player, PlayerMerge


@admin.register(Federation)
class FederationAdmin(admin.ModelAdmin):
    list_display = ["code", "name"]
    search_fields = ["code", "name"]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["id_number", "surname", "given_names", "federation", "title", "sex", "birth_year", "needs_review"]
    list_filter = ["federation", "title", "women_title", "sex", "needs_review"]
    search_fields = ["=id_number", "search_name"]
    list_select_related = ["federation"]
    autocomplete_fields = ["federation"]
    raw_id_fields = ["merged_into"]
    show_full_result_count = False  # no COUNT(*) over two million players on every page

    def get_search_results(self, request, queryset, search_term):
        # Names are searched by prefix on the indexed upper-case copy ("CARLSEN, M" finds Magnus).
        term = search_term.strip()
        if term and not term.isdigit():
            return queryset.filter(search_name__startswith=term.upper()), False
        return super().get_search_results(request, queryset, search_term)


@admin.register(PlayerMerge)
class PlayerMergeAdmin(admin.ModelAdmin):
    list_display = ["merged", "kept", "merged_by", "merged_at", "reversed_at"]
    list_select_related = ["merged", "kept", "merged_by"]
    raw_id_fields = ["kept", "merged"]
    readonly_fields = ["moved", "merged_by", "merged_at", "reversed_by", "reversed_at"]
