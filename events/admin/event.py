"""The arbiter's and rating officer's admin for events: event → participants → rounds → games.

Access (events/roles.py) is enforced on the server for every view: querysets are limited to the events the
user may see (changelist, change, delete, history, autocomplete, actions all go through them), and per-object
permissions follow the status — drafts are edited by their arbiters, submitted events by rating officers,
rated events only through the "correct results" view. Writes go through events/services.py.
"""

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.forms import inlineformset_factory
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.admin import ReadOnly, admin_user
from events.admin_lifecycle import lifecycle_admin_urls, lifecycle_context
from events.admin_participants import (
    CachedAutocompleteSelect,
    PagedParticipantFormSet,
    participant_page,
    participant_pages,
    participant_rank_range,
)
from events.forms import (
    BaseGameFormSet,
    CachedModelChoiceField,
    CorrectionForm,
    EventForm,
    GameAdminForm,
    GameForm,
    ParticipantForm,
)
from events.models import Event, EventCorrection, Game, Participant
from events.roles import (
    event_correctable_by,
    event_is_visible_to,
    event_results_editable_by,
    event_returnable_to_draft_by,
    event_staff,
    event_submittable_by,
    events_editable_by,
    events_visible_to,
    user_sees_all_events,
)
from events.services import (
    event_correct,
    event_create,
    event_games_update,
    event_return_to_draft,
    event_submit,
)
from players.models import Player

MAX_EXTRA_GAME_ROWS = 200


def entry_round(request) -> int | None:
    """The round shown on the event page (``?round=N``), or None for all rounds."""
    value = request.GET.get("round", "")
    return int(value) if value.isascii() and value.isdigit() and int(value) > 0 else None


# --- inlines -------------------------------------------------------------------------------------------


class EventChildInline:
    """Inline permissions follow the parent event: visible → view; editable (status, assignment) → change."""

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) and (obj is None or event_is_visible_to(obj, request.user))

    def has_add_permission(self, request, obj=None):
        return super().has_add_permission(request, obj) and (
            obj is None or event_results_editable_by(obj, request.user)
        )

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and (
            obj is None or event_results_editable_by(obj, request.user)
        )

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and (
            obj is None or event_results_editable_by(obj, request.user)
        )

    def get_queryset(self, request):
        rows = super().get_queryset(request)
        if user_sees_all_events(request.user):
            return rows
        # Defence in depth: the parent event is already limited, the rows are too.
        return rows.filter(event__in=events_visible_to(request.user).values("pk"))


class ParticipantInline(EventChildInline, admin.TabularInline):
    model = Participant
    form = ParticipantForm
    formset = PagedParticipantFormSet  # a page of start ranks at a time (events/admin_participants.py)
    extra = 0
    autocomplete_fields = ["player"]  # by name or ID number (PlayerAdmin.search_fields); "+" registers one
    fields = ["start_rank", "player", "rating"]
    ordering = ["start_rank"]

    def get_queryset(self, request):
        first, last = participant_rank_range(participant_page(request))
        # each row is labelled with its player
        return super().get_queryset(request).select_related("player").filter(start_rank__range=(first, last))

    def get_formset(self, request, obj=None, **kwargs):
        request._entry_event = obj
        return super().get_formset(request, obj, **kwargs)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "player":
            # Labels and validation from one query for the page's players, not one per row.
            event = getattr(request, "_entry_event", None)
            cache = {}
            if event is not None and event.pk:
                first, last = participant_rank_range(participant_page(request))
                players = Player.objects.filter(
                    participations__event=event, participations__start_rank__range=(first, last)
                )
                cache = {str(p.pk): p for p in players}
            return db_field.formfield(
                form_class=CachedModelChoiceField,
                cache=cache,
                widget=CachedAutocompleteSelect(db_field, self.admin_site, cache=cache),
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


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
    verbose_name_plural = "games (by round)"

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

    @admin.display(description="White")
    def white_rank(self, game):
        return game.white.start_rank if game.white_id else ""

    @admin.display(description="Black")
    def black_rank(self, game):
        return game.black.start_rank if game.black_id else "bye"

    @admin.display(description="White player")
    def white_player(self, game):
        return game.white.player.name if game.white_id else ""

    @admin.display(description="Black player")
    def black_player(self, game):
        return game.black.player.name if game.black_id else ("—" if game.pk else "")


# --- events --------------------------------------------------------------------------------------------


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    form = EventForm
    list_display = [
        "name",
        "start_date",
        "end_date",
        "rating_type",
        "system",
        "rounds",
        "participant_count",
        "status",
        "chief_arbiter",
        "rated_on",
    ]
    list_filter = ["status", "rating_type", "system", "federation"]
    search_fields = ["name", "city"]
    date_hierarchy = "end_date"
    list_select_related = ["rated_on", "federation", "chief_arbiter"]
    autocomplete_fields = ["federation"]
    filter_horizontal = ["arbiters"]
    inlines = [ParticipantInline, GameInline]
    actions = ["submit_for_rating", "return_to_draft"]

    # --- access ---

    def get_queryset(self, request):
        # Explicit order: Meta.ordering is not applied to GROUP BY queries (autocomplete pages them).
        events = (
            super()
            .get_queryset(request)
            .annotate(participant_count=Count("participants"))
            .order_by(*Event._meta.ordering)
        )
        if user_sees_all_events(request.user):
            return events
        return events.filter(pk__in=events_visible_to(request.user).values("pk"))

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) and (obj is None or event_is_visible_to(obj, request.user))

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and (
            obj is None or event_results_editable_by(obj, request.user)
        )

    def has_delete_permission(self, request, obj=None):
        # Rated events are part of published lists (and protected by their rating changes): never deleted.
        return super().has_delete_permission(request, obj) and (
            obj is None or event_results_editable_by(obj, request.user)
        )

    def has_submit_permission(self, request):
        return request.user.has_perm("events.submit_event")

    def get_readonly_fields(self, request, obj=None):
        # results_without_opponent: what the file lacked; it is settled by entering the games, never by editing it
        fields = ["status", "submitted_at", "rated_on", "created_at", "updated_at", "results_without_opponent"]
        if not user_sees_all_events(request.user):
            fields += ["chief_arbiter", "arbiters"]  # assignments are the rating officer's
        return fields

    def get_inline_instances(self, request, obj=None):
        inlines = super().get_inline_instances(request, obj)
        if obj is None or not (entry_round(request) or request.GET.get("round") == "all"):
            # Games are entered by starting rank once the participants are saved: on the round entry screen
            # (events/admin_rounds.py), or here only when asked for (?round=N, ?round=all); the event page
            # itself stays light whatever the size of the event.
            inlines = [inline for inline in inlines if not isinstance(inline, GameInline)]
        return inlines

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "chief_arbiter":
            kwargs["queryset"] = event_staff()
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "arbiters":
            kwargs["queryset"] = event_staff()
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
        else:
            event_create(obj, user=admin_user(request))  # an arbiter's new event is theirs (event_create)

    def save_formset(self, request, form, formset, change):
        if formset.model is not Game:
            return super().save_formset(request, form, formset, change)
        result = event_games_update(form.instance, user=admin_user(request), edits=formset.edits())
        # What construct_change_message reads for the admin's history.
        formset.new_objects = result.created
        formset.changed_objects = result.changed
        formset.deleted_objects = result.deleted

    def response_change(self, request, obj):
        response = super().response_change(request, obj)
        round_ = entry_round(request)
        if round_ and "_continue" in request.POST:
            return HttpResponseRedirect(f"{request.path}?round={round_}")
        return response

    @admin.display(description="players", ordering="participant_count")
    def participant_count(self, event):
        return event.participant_count

    # --- the change page: rounds, standings preview, status buttons, corrections ---

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None and obj.pk:
            context.update(self._entry_context(request, obj))
        return super().render_change_form(request, context, add, change, form_url, obj)

    def _entry_context(self, request, event):
        user = request.user
        counts = {
            row["round"]: row
            for row in Game.objects.filter(event=event)
            .values("round")
            .annotate(games=Count("pk"), pending=Count("pk", filter=Q(result="*")))
        }
        last_round = max([event.rounds, *counts])
        rounds = [
            {
                "number": n,
                "games": counts.get(n, {}).get("games", 0),
                "pending": counts.get(n, {}).get("pending", 0),
            }
            for n in range(1, last_round + 1)
        ]
        return {
            "entry_round": entry_round(request),
            "entry_rounds": rounds,
            "participant_pages": participant_pages(event, participant_page(request)),
            "corrections": list(event.corrections.select_related("user")[:20]),
            "can_submit": event_submittable_by(event, user),
            "can_return_to_draft": event_returnable_to_draft_by(event, user),
            "can_correct": event_correctable_by(event, user),
            **lifecycle_context(request, event),
        }

    def get_urls(self):
        from events.admin_rounds import round_admin_urls  # the round entry screen (events/admin_rounds.py)
        from events.admin_upload import trf_admin_urls  # TRF upload / download views (events/admin_upload.py)

        prefix = f"{self.opts.app_label}_{self.opts.model_name}"
        return [
            *trf_admin_urls(self),
            *round_admin_urls(self),
            *lifecycle_admin_urls(self),
            path(
                "<path:object_id>/submit/",
                self.admin_site.admin_view(self.submit_view),
                name=f"{prefix}_submit",
            ),
            path(
                "<path:object_id>/return-to-draft/",
                self.admin_site.admin_view(self.return_to_draft_view),
                name=f"{prefix}_return_to_draft",
            ),
            path(
                "<path:object_id>/correct/",
                self.admin_site.admin_view(self.correct_view),
                name=f"{prefix}_correct",
            ),
            *super().get_urls(),
        ]

    def _event_or_redirect(self, request, object_id):
        event = self.get_object(request, unquote(object_id))
        if event is None:  # unknown, or not this user's: the same answer as the change page
            return None, self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        return event, None

    def _change_url(self, event):
        return reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[event.pk])

    def submit_view(self, request, object_id):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        event, redirect = self._event_or_redirect(request, object_id)
        if redirect:
            return redirect
        if not event_submittable_by(event, request.user):
            raise PermissionDenied
        self._run(request, event, event_submit, _("Submitted for rating"))
        return HttpResponseRedirect(self._change_url(event))

    def return_to_draft_view(self, request, object_id):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        event, redirect = self._event_or_redirect(request, object_id)
        if redirect:
            return redirect
        if not event_returnable_to_draft_by(event, request.user):
            raise PermissionDenied
        self._run(request, event, event_return_to_draft, _("Returned to draft"))
        return HttpResponseRedirect(self._change_url(event))

    def _run(self, request, event, service, done: str) -> bool:
        try:
            service(event, user=admin_user(request))
        except ValidationError as exc:
            self.message_user(request, " ".join(exc.messages), messages.ERROR)
            return False
        self.log_change(request, event, done)
        message = _("%(name)s: %(done)s.") % {"name": event.name, "done": done.lower()}
        self.message_user(request, message, messages.SUCCESS)
        return True

    def correct_view(self, request, object_id):
        """Change the games of a rated event: the only way its results change; records who, when and why."""
        event, redirect = self._event_or_redirect(request, object_id)
        if redirect:
            return redirect
        if not event_correctable_by(event, request.user):
            raise PermissionDenied
        round_ = entry_round(request)
        formset_class = inlineformset_factory(
            Event,
            Game,
            form=GameForm,
            formset=BaseGameFormSet,
            fields=GameForm.Meta.fields,
            extra=1 if round_ else 0,
            can_delete=True,
        )
        formset_class.entry_round = round_
        games = (
            Game.objects.filter(event=event)
            .select_related("white__player", "black__player")
            .order_by("round", "board", "pk")
        )
        if round_:
            games = games.filter(round=round_)
        if request.method == "POST":
            with transaction.atomic():
                form = CorrectionForm(request.POST)
                formset = formset_class(
                    request.POST,
                    instance=event,
                    queryset=games.select_for_update(of=("self",)),
                    prefix="games",
                )
                if form.is_valid() and formset.is_valid():
                    try:
                        correction = event_correct(
                            event,
                            user=admin_user(request),
                            reason=form.cleaned_data["reason"],
                            edits=formset.edits(),
                        )
                    except ValidationError as exc:
                        form.add_error(None, exc)
                    else:
                        count = len(correction.changes["games"])
                        self.log_change(request, event, f"Corrected {count} game(s): {correction.reason}")
                        self.message_user(
                            request,
                            f"{event.name}: correction recorded ({count} game(s)); the event awaits re-rating.",
                            messages.SUCCESS,
                        )
                        return HttpResponseRedirect(self._change_url(event))
        else:
            form = CorrectionForm()
            formset = formset_class(instance=event, queryset=games, prefix="games")
        context = {
            **self.admin_site.each_context(request),
            "title": f"Correct the results of {event.name}",
            "opts": self.opts,
            "original": event,
            "event": event,
            "form": form,
            "formset": formset,
            "entry_round": round_,
            "entry_rounds": range(1, event.rounds + 1),
            "media": self.media + form.media + formset.media,
        }
        return TemplateResponse(request, "admin/events/event/correct.html", context)

    # --- actions ---

    @admin.action(description=gettext_lazy("Submit selected events for rating"), permissions=["submit"])
    def submit_for_rating(self, request, queryset):
        self._bulk(
            request,
            queryset,
            event_submittable_by,
            event_submit,
            _("Submitted for rating"),
            _("is not a draft you can submit"),
        )

    @admin.action(description=gettext_lazy("Return selected submitted events to draft"), permissions=["submit"])
    def return_to_draft(self, request, queryset):
        self._bulk(
            request,
            queryset,
            event_returnable_to_draft_by,
            event_return_to_draft,
            _("Returned to draft"),
            _("is not a submitted event you can return to draft"),
        )

    def _bulk(self, request, queryset, allowed, service, done: str, refused: str) -> None:
        for event in queryset:
            if not allowed(event, request.user):
                message = _("%(name)s %(refused)s.") % {"name": event.name, "refused": refused}
                self.message_user(request, message, messages.WARNING)
                continue
            self._run(request, event, service, done)


# --- games ---------------------------------------------------------------------------------------------


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
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
        if user_sees_all_events(request.user):
            return games
        return games.filter(event__in=events_visible_to(request.user).values("pk"))

    def get_object(self, request, object_id, from_field=None):
        game = super().get_object(request, object_id, from_field)
        if game is not None and request.method == "POST":
            # Optimistic lock: hold the row while the form compares versions and the service writes.
            game = self.get_queryset(request).select_for_update(of=("self",)).get(pk=game.pk)
        return game

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) and (
            obj is None or event_is_visible_to(obj.event, request.user)
        )

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and (
            obj is None or event_results_editable_by(obj.event, request.user)
        )

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and (
            obj is None or event_results_editable_by(obj.event, request.user)
        )

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

    @admin.display(description="White")
    def white_rank(self, game):
        return game.white.start_rank

    @admin.display(description="Black")
    def black_rank(self, game):
        return game.black.start_rank if game.black_id else "bye"


# --- corrections ---------------------------------------------------------------------------------------


@admin.register(EventCorrection)
class EventCorrectionAdmin(ReadOnly, admin.ModelAdmin):
    """The record of corrections; written only by the "correct results" view, never edited."""

    list_display = ["event", "user", "created_at", "status_before", "game_count", "reason"]
    list_select_related = ["event", "user"]
    search_fields = ["event__name", "reason"]
    readonly_fields = ("event", "user", "created_at", "status_before", "reason", "changes_table")
    fields = readonly_fields
    show_full_result_count = False

    def get_queryset(self, request):
        corrections = super().get_queryset(request).select_related("event", "user")
        if user_sees_all_events(request.user):
            return corrections
        return corrections.filter(event__in=events_visible_to(request.user).values("pk"))

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) and (
            obj is None or event_is_visible_to(obj.event, request.user)
        )

    @admin.display(description="games")
    def game_count(self, correction):
        return len(correction.changes.get("games", []))

    @admin.display(description="changes")
    def changes_table(self, correction):
        def side(state, colour):
            if not state:
                return "—"
            rank = state.get(f"{colour}_rank")
            return f"{rank} ({state.get(f'{colour}_player')})" if rank else "bye"

        def line(state):
            if not state:
                return "—"
            return (
                f"round {state['round']} board {state['board'] or '–'}: {side(state, 'white')} – "
                f"{side(state, 'black')} {state['result']}"
            )

        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (change["game"], change["action"], line(change["before"]), line(change["after"]))
                for change in correction.changes.get("games", [])
            ),
        )
        return format_html(
            "<table><thead><tr><th>game</th><th>action</th><th>before</th><th>after</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            rows,
        )


# Personal API tokens (events/admin_tokens.py): registered with the admin when this module is.
from events import admin_tokens  # noqa: E402, F401
