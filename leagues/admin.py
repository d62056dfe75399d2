"""Leagues in the admin: competitions, seasons, divisions (fixtures and rating actions), teams with their squads,
matches with the match card entry screen (``<match>/card/``) and the captains' confirmation. Thin: every write is
a leagues service; an action says what it will do on a page of its own before doing it."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from simple_history.admin import SimpleHistoryAdmin

from core.admin import admin_user
from leagues import rules
from leagues.models import (
    Board,
    BoardResult,
    Competition,
    Division,
    LeagueRound,
    Match,
    Penalty,
    Season,
    SquadEntry,
    Team,
)
from leagues.services import division_fixtures_generate, match_card_check, match_card_save, match_confirm
from leagues.services_rating import division_rate_ready, division_slice_plan
from leagues.tasks import RATE_DIVISION_TASK
from outbox.services import enqueue_after_commit

# More divisions than this submitted at once are queued, one task each (a season's hundreds take minutes).
DIVISIONS_AT_ONCE = 5


@admin.register(Competition)
class CompetitionAdmin(SimpleHistoryAdmin):
    list_display = ("name", "kind", "federation", "rating_type", "boards_per_match", "rating_policy")
    list_filter = ("kind", "rating_type", "rating_policy")
    prepopulated_fields = {"slug": ("name",)}
    search_fields = ("name",)


@admin.register(Season)
class SeasonAdmin(SimpleHistoryAdmin):
    list_display = ("competition", "name", "start_date", "end_date")
    list_filter = ("competition",)
    prepopulated_fields = {"slug": ("name",)}


class TeamInline(admin.TabularInline):
    model = Team
    extra = 0
    autocomplete_fields = ("club",)
    fields = ("club", "designation", "captain")


class FixturesForm(forms.Form):
    first_date = forms.DateField(label=gettext_lazy("Date of round 1"), widget=forms.DateInput(attrs={"type": "date"}))
    days_between = forms.IntegerField(label=gettext_lazy("Days between rounds"), min_value=1, max_value=60, initial=7)
    home_and_away = forms.BooleanField(label=gettext_lazy("Home and away"), required=False, initial=True)


@admin.register(Division)
class DivisionAdmin(SimpleHistoryAdmin):
    list_display = ("__str__", "level", "promotion_count", "relegation_count", "team_count")
    list_filter = ("season__competition",)
    inlines = [TeamInline]
    actions = ["draw_fixtures", "rate_complete_slices"]

    @admin.display(description=gettext_lazy("teams"))
    def team_count(self, division: Division) -> int:
        return division.teams.count()

    @admin.action(description=gettext_lazy("Draw all-play-all fixtures (Berger tables)"), permissions=["change"])
    def draw_fixtures(self, request: HttpRequest, queryset) -> HttpResponse | None:
        form = FixturesForm(request.POST if "_apply" in request.POST else None)
        if "_apply" in request.POST and form.is_valid():
            for division in queryset:
                try:
                    matches = division_fixtures_generate(division, user=admin_user(request), **form.cleaned_data)
                except ValidationError as refusal:
                    messages.error(request, " ".join(refusal.messages))
                else:
                    messages.success(
                        request,
                        _("%(division)s: %(count)s matches drawn.") % {"division": division, "count": len(matches)},
                    )
            return None
        plans = []
        for division in queryset:
            teams = division.teams.count()
            rounds = max(0, teams - 1 + teams % 2)
            plans.append((division, teams, rounds, teams * (teams - 1) // 2))
        return TemplateResponse(
            request,
            "admin/leagues/division/fixtures.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "form": form,
                "plans": plans,
                "selected": queryset.values_list("pk", flat=True),
                "action": "draw_fixtures",
                "checkbox": ACTION_CHECKBOX_NAME,
                "title": _("Draw fixtures"),
            },
        )

    @admin.action(description=gettext_lazy("Submit complete slices for rating"), permissions=["change"])
    def rate_complete_slices(self, request: HttpRequest, queryset) -> HttpResponse | None:
        if "_apply" in request.POST and queryset.count() > DIVISIONS_AT_ONCE:
            with transaction.atomic():  # rule 9: many divisions are a job for the workers, one task each
                for pk in queryset.values_list("pk", flat=True):
                    enqueue_after_commit(RATE_DIVISION_TASK, pk, admin_user(request).pk)
            messages.info(
                request,
                _("%(count)s divisions queued: their complete slices are submitted in the background.")
                % {"count": queryset.count()},
            )
            return None
        if "_apply" in request.POST:
            for division in queryset:
                for outcome in division_rate_ready(division, user=admin_user(request)):
                    if outcome.submitted:
                        messages.success(
                            request,
                            _("%(event)s: %(games)s games submitted for rating.")
                            % {"event": outcome.event.name, "games": outcome.games},
                        )
                    else:
                        messages.warning(
                            request,
                            _("%(event)s kept as a draft: %(problems)s")
                            % {"event": outcome.event.name, "problems": " ".join(outcome.problems)},
                        )
            return None
        plans = [
            (division, division_slice_plan(division)) for division in queryset.select_related("season__competition")
        ]
        return TemplateResponse(
            request,
            "admin/leagues/division/slices.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "plans": plans,
                "selected": queryset.values_list("pk", flat=True),
                "action": "rate_complete_slices",
                "checkbox": ACTION_CHECKBOX_NAME,
                "title": _("Submit complete slices for rating"),
            },
        )


class SquadInline(admin.TabularInline):
    model = SquadEntry
    extra = 1
    autocomplete_fields = ("player",)
    fields = ("board_order", "player", "registered_on", "left_on")


@admin.register(Team)
class TeamAdmin(SimpleHistoryAdmin):
    list_display = ("__str__", "division", "captain")
    list_filter = ("division__season__competition", "division")
    list_select_related = ("club", "division__season__competition", "captain")
    search_fields = ("club__name",)
    autocomplete_fields = ("club",)
    inlines = [SquadInline]


@admin.register(LeagueRound)
class LeagueRoundAdmin(SimpleHistoryAdmin):
    list_display = ("division", "number", "date")
    list_filter = ("division__season__competition",)


class PenaltyInline(admin.TabularInline):
    model = Penalty
    extra = 0
    fields = ("team", "match_points", "game_points", "reason")


@admin.register(Match)
class MatchAdmin(SimpleHistoryAdmin):
    list_display = ("__str__", "round", "date", "status", "card_link")
    list_filter = ("status", "round__division__season__competition", "round__division")
    list_select_related = ("home__club", "away__club", "round__division__season__competition")
    readonly_fields = ("status", "home_confirmed_at", "away_confirmed_at", "rated_event", "card_link")
    fields = ("round", "home", "away", "date", "venue", *readonly_fields)
    inlines = [PenaltyInline]

    @admin.display(description=gettext_lazy("match card"))
    def card_link(self, match: Match) -> str:
        if match.pk is None:
            return ""
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:leagues_match_card", args=[match.pk]), _("Enter the card")
        )

    def get_urls(self):
        return [
            path("<path:object_id>/card/", self.admin_site.admin_view(self.card_view), name="leagues_match_card"),
            *super().get_urls(),
        ]

    def card_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        match = self.get_object(request, unquote(object_id))
        if match is None:
            return HttpResponseRedirect(reverse("admin:leagues_match_changelist"))
        match = Match.objects.select_related(
            "round__division__season__competition", "home__club", "away__club", "rated_event"
        ).get(pk=match.pk)
        editable = self.has_change_permission(request, match)
        return card_page(self, request, match, editable)


def card_page(model_admin: MatchAdmin, request: HttpRequest, match: Match, editable: bool) -> HttpResponse:
    """The match card: one row a board (home ID, away ID, result), pasted line-ups read into the rows, problems
    named before saving; breaches saved only when accepted; the captains' confirmation."""
    competition = match.round.division.season.competition
    lines = _saved_lines(match)
    errors: list[str] = []
    breaches: list[str] = []
    paste_text = ""
    if request.method == "POST":
        user = admin_user(request)
        if "_confirm" in request.POST:
            try:
                match_confirm(match, user=user, side=request.POST["_confirm"])
                messages.success(request, _("Card confirmed."))
                return HttpResponseRedirect(request.path)
            except ValidationError as refusal:
                errors = refusal.messages
        elif not editable:
            raise PermissionDenied
        elif "_paste" in request.POST:
            paste_text = request.POST.get("lineups", "")
            lines, errors = rules.parse_card(paste_text)
            errors += [
                _("Board %(board)s: a match of %(competition)s has boards 1 to %(boards)s.")
                % {"board": line.board, "competition": competition, "boards": competition.boards_per_match}
                for line in lines
                if line.board > competition.boards_per_match
            ]
            if not errors:
                paste_text = ""
                messages.info(
                    request,
                    _("%(count)s board(s) read; nothing is saved until you save the card.") % {"count": len(lines)},
                )
        else:
            lines, errors = _posted_lines(request.POST, competition.boards_per_match)
            if not errors:
                check = match_card_check(match, lines)
                errors, breaches = check.errors, check.breaches
            if not errors and "_save" in request.POST and (not breaches or request.POST.get("accept_breaches")):
                try:
                    match_card_save(match, lines, user=user, accept_breaches=bool(breaches))
                except ValidationError as refusal:
                    errors = refusal.messages
                else:
                    model_admin.log_change(request, match, "Match card saved")
                    messages.success(request, _("The card of %(match)s is saved.") % {"match": match})
                    return HttpResponseRedirect(request.path)
    return TemplateResponse(
        request,
        "admin/leagues/match/card.html",
        {
            **model_admin.admin_site.each_context(request),
            "opts": model_admin.opts,
            "match": match,
            "title": str(match),
            "rows": _rows(lines, competition.boards_per_match),
            "results": BoardResult.choices,
            "squads": _squads(match),
            "errors": errors,
            "breaches": breaches,
            "paste_text": paste_text,
            "editable": editable and match.rated_event_id is None,
        },
    )


def _saved_lines(match: Match) -> list[rules.CardLine]:
    return [
        rules.CardLine(number, home, away, result)
        for number, home, away, result in Board.objects.filter(match=match)
        .order_by("number")
        .values_list("number", "home_player__id_number", "away_player__id_number", "result")
    ]


def _rows(lines: list[rules.CardLine], boards: int) -> list[rules.CardLine]:
    by_board = {line.board: line for line in lines}
    return [by_board.get(n, rules.CardLine(n, None, None, rules.PENDING)) for n in range(1, boards + 1)]


def _posted_lines(data, boards: int) -> tuple[list[rules.CardLine], list[str]]:
    """The card's rows as typed: the same reader as pasted line-ups, one row a line."""
    text = "\n".join(
        "\t".join(
            [
                str(n),
                data.get(f"b{n}-home", "").strip(),
                data.get(f"b{n}-away", "").strip(),
                data.get(f"b{n}-result", rules.PENDING),
            ]
        )
        for n in range(1, boards + 1)
    )
    lines, errors = rules.parse_card(text)
    errors = [error.replace("Line ", "Board ", 1) for error in errors]  # row n is board n
    return [line for line in lines if line.home_id or line.away_id or line.result != rules.PENDING], errors


def _squads(match: Match) -> dict[str, list[SquadEntry]]:
    entries = SquadEntry.objects.filter(team__in=(match.home_id, match.away_id)).select_related("player")
    return {
        "home": [e for e in entries if e.team_id == match.home_id],
        "away": [e for e in entries if e.team_id == match.away_id],
    }


@admin.register(Penalty)
class PenaltyAdmin(SimpleHistoryAdmin):
    list_display = ("team", "match", "match_points", "game_points", "reason")
    list_select_related = ("team__club", "match__home__club", "match__away__club")
