from django.contrib import admin

from .models import Event, Game, Participant


class ParticipantInline(admin.TabularInline):
    model = Participant
    extra = 0
    raw_id_fields = ["player"]
    fields = ["start_rank", "player", "rating"]


class GameInline(admin.TabularInline):
    model = Game
    extra = 0
    fields = ["round", "board", "white", "black", "result", "date"]
    ordering = ["round", "board", "id"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        # Offer only this event's participants as white/black.
        if db_field.name in ("white", "black"):
            event_id = request.resolver_match.kwargs.get("object_id") if request.resolver_match else None
            kwargs["queryset"] = Participant.objects.filter(event_id=event_id).select_related("player")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["name", "start_date", "end_date", "rating_type", "system", "rounds", "status", "rated_on"]
    list_filter = ["status", "rating_type", "system", "federation"]
    search_fields = ["name", "city"]
    date_hierarchy = "end_date"
    list_select_related = ["rated_on", "federation"]
    autocomplete_fields = ["federation"]
    filter_horizontal = ["arbiters"]
    readonly_fields = ["rated_on", "submitted_at", "created_at", "updated_at"]
    inlines = [ParticipantInline, GameInline]


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["event", "round", "board", "white", "black", "result"]
    list_filter = ["result"]
    list_select_related = ["event", "white__player", "black__player"]
    raw_id_fields = ["event", "white", "black"]
    show_full_result_count = False
