"""Games in the admin: the games of the event page (by round, ``?round=N`` or ``?round=all``) and the stand-alone
game admin. Writes go through events.services.event_games_update (the optimistic lock: every form carries the
version its editor saw)."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core.admin import admin_user
from core.pagination import whole_number
from events.admin.permissions import EventAccess, EventChildInline
from events.forms import BaseGameFormSet, GameAdminForm, GameForm
from events.models import Game, Participant
from events.roles import events_editable_by
from events.services import event_games_update

MAX_EXTRA_GAME_ROWS = 200


def entry_round(request) -> int | None:
    """The round shown on the event page (``?round=N``), or None for all rounds."""
    value = request.GET.get("round", "")
    number = whole_number(value)  # never int() on the request's digits: thousands of them raise (issue 32)
    return number if number else None


class GameInline(EventChildInline, admin.TabularInline):
    model = Game
    form = GameForm
    # django-stubs types this as a formset of exactly ModelForm[Any]; one of GameForms is what the admin takes.
    formset = BaseGameFormSet  # type: ignore[assignment]
    template = "admin/events/event/game_inline.html"
    extra = 0
    fields = [
        "round",
        "board",
        "white_rank",
        "white_player",
        "black_rank",
        "black_player",
        "result",
        "date",
        "expected_version",
    ]
    readonly_fields = ["white_player", "black_player"]
    ordering = ["round", "board", "id"]
    verbose_name_plural = pgettext_lazy("round entry", "games (by round)")

    def get_fields(self, request, obj=None):
        fields = list(super().get_fields(request, obj))
        if not self.has_change_permission(request, obj):
            fields.remove("expected_version")
        return fields

    def get_queryset(self, request):
        games = super().get_queryset(request).select_related("white__player", "black__player")
        round_ = entry_round(request)
        if round_:
            games = games.filter(round=round_)
        if request.method == "POST":
            # Optimistic lock: the versions compared by the forms cannot change until this request commits.
            games = games.select_for_update(of=("self",))
        return games

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        return type(formset.__name__, (formset,), {"entry_round": entry_round(request)})

    def get_extra(self, request, obj=None, **kwargs):
        round_ = entry_round(request)
        if not round_ or obj is None or not self.has_add_permission(request, obj):
            return 0
        # Rows for the pairings still missing in this round (every participant once, byes included).
        participants = Participant.objects.filter(event=obj).count()
        games = Game.objects.filter(event=obj, round=round_).count()
        return max(0, min(MAX_EXTRA_GAME_ROWS, (participants + 1) // 2 - games))

    @admin.display(description=pgettext_lazy("round entry", "White player"))
    def white_player(self, game):
        return game.white.player.name if game.white_id else ""

    @admin.display(description=pgettext_lazy("round entry", "Black player"))
    def black_player(self, game):
        return game.black.player.name if game.black_id else ("—" if game.pk else "")


@admin.register(Game)
class GameAdmin(EventAccess, admin.ModelAdmin):
    form = GameAdminForm
    list_display = ["event", "round", "board", "white", "black", "result", "version"]
    list_filter = ["result", "event__rating_type", "event__status"]
    list_select_related = ["event", "white__player", "black__player"]
    search_fields = ["event__name", "=white__player__id_number", "=black__player__id_number"]
    autocomplete_fields = ["event"]
    fields = ["event", "round", "board", "white_rank", "black_rank", "result", "date", "expected_version"]
    show_full_result_count = False

    def get_queryset(self, request):
        games = super().get_queryset(request).select_related("event", "white__player", "black__player")
        return self.visible_rows(request, games)

    def get_object(self, request, object_id, from_field=None):
        game = super().get_object(request, object_id, from_field)
        if game is not None and request.method == "POST":
            # Optimistic lock: hold the row while the form compares versions and the service writes.
            game = self.get_queryset(request).select_for_update(of=("self",)).get(pk=game.pk)
        return game

    def get_fields(self, request, obj=None):
        fields = list(super().get_fields(request, obj))
        if obj is not None and not self.has_change_permission(request, obj):
            fields.remove("expected_version")
        return fields

    def get_readonly_fields(self, request, obj=None):
        return ["event"] if obj is not None else []

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "event":
            kwargs["queryset"] = events_editable_by(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        result = event_games_update(obj.event, user=admin_user(request), edits=[form.to_edit()])
        saved = result.created[0] if result.created else (result.changed[0][0] if result.changed else None)
        if saved is not None:
            obj.pk, obj.version = saved.pk, saved.version

    @admin.display(description=_("White"))
    def white_rank(self, game):
        return game.white.start_rank

    @admin.display(description=_("Black"))
    def black_rank(self, game):
        return game.black.start_rank if game.black_id else _("bye")
