"""Corrections of rated events in the admin: the "correct results" view (the only way a rated event's results
change; it records who, when and why) and the read-only record of corrections. The correction is written by
events.services.event_correct_entered, in one transaction with the lock on the games its forms compare.

The view shows one round at a time (``?round=N``, the first by default) or one player's games (``?player=<start
rank>``): never every game of the event at once, which made a 300-player Swiss 14,000 px tall (issue 32)."""

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.forms import inlineformset_factory
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _

from core.admin import ReadOnly, admin_user
from events.admin.games import entry_round
from events.admin.permissions import EventAccess
from events.admin.transitions import allowed_event
from events.forms import BaseGameFormSet, CorrectionForm, GameForm
from events.models import Event, EventCorrection, Game, Participant
from events.roles import event_correctable_by
from events.services import event_correct_entered


def correct_view(model_admin, request, object_id):
    """Change the games of a rated event: the only way its results change; records who, when and why."""
    event, redirect = allowed_event(model_admin, request, object_id, event_correctable_by)
    if redirect:
        return redirect
    player = correction_player(request, event)
    round_ = None if player is not None else entry_round(request) or 1
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
    games = games.filter(Q(white=player) | Q(black=player)) if player is not None else games.filter(round=round_)
    if request.method == "POST":
        form = CorrectionForm(request.POST)
        formsets = []

        def entered(locked_games):
            # Read under the service's lock: the versions the forms compare cannot change until it commits.
            formsets.append(formset_class(request.POST, instance=event, queryset=locked_games, prefix="games"))
            if form.is_valid() and formsets[0].is_valid():
                return form.cleaned_data["reason"], formsets[0].edits()
            return None

        try:
            correction = event_correct_entered(event, user=admin_user(request), games=games, entered=entered)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            if correction is not None:
                count = len(correction.changes["games"])
                model_admin.log_change(request, event, f"Corrected {count} game(s): {correction.reason}")
                model_admin.message_user(
                    request,
                    _("%(name)s: correction recorded (%(count)s game(s)); the event awaits re-rating.")
                    % {"name": event.name, "count": count},
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(model_admin.change_url(event))
        formset = formsets[0]
    else:
        form = CorrectionForm()
        formset = formset_class(instance=event, queryset=games, prefix="games")
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Correct the results of %(name)s") % {"name": event.name},
        "opts": model_admin.opts,
        "original": event,
        "event": event,
        "form": form,
        "formset": formset,
        "entry_round": round_,
        "entry_rounds": range(1, max(event.rounds, round_ or 1) + 1),
        "player": player,
        "player_asked": request.GET.get("player", ""),
        "media": model_admin.media + form.media + formset.media,
    }
    return TemplateResponse(request, "admin/events/event/correct.html", context)


def correction_player(request, event) -> Participant | None:
    """The participant whose games are shown (``?player=<start rank>``), or None."""
    value = request.GET.get("player", "").strip()
    if not (value.isascii() and value.isdigit() and len(value) < 7):
        return None
    return Participant.objects.filter(event=event, start_rank=int(value)).select_related("player").first()


@admin.register(EventCorrection)
class EventCorrectionAdmin(EventAccess, ReadOnly, admin.ModelAdmin):
    """The record of corrections; written only by the "correct results" view, never edited."""

    list_display = ["event", "user", "created_at", "status_before", "game_count", "reason"]
    list_select_related = ["event", "user"]
    search_fields = ["event__name", "reason"]
    readonly_fields = ("event", "user", "created_at", "status_before", "reason", "changes_table")
    fields = readonly_fields
    show_full_result_count = False

    def get_queryset(self, request):
        corrections = super().get_queryset(request).select_related("event", "user")
        return self.visible_rows(request, corrections)

    @admin.display(description=_("games"))
    def game_count(self, correction):
        return len(correction.changes.get("games", []))

    @admin.display(description=_("changes"))
    def changes_table(self, correction):
        def side(state, colour):
            if not state:
                return "—"
            rank = state.get(f"{colour}_rank")
            return f"{rank} ({state.get(f'{colour}_player')})" if rank else _("bye")

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
