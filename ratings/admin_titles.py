"""Titles in the admin (issue 33): the title awards (an official records one through
ratings.services.titles.title_award_record; recorded awards are read-only, their history kept) and the
candidates for titles by rating a publication found, with the one-click "Record award" the officers'
dashboard shows (templates/admin/ratings/_desk_title_candidates.html)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from simple_history.admin import SimpleHistoryAdmin

from core.admin import OfficialsOnly, OfficialsReadOnly, admin_user
from players.models import TitleAward
from ratings.models import TitleCandidate
from ratings.services.titles import (
    TITLE_AWARD_PERMISSION,
    title_award_check,
    title_award_record,
    title_candidate_award,
)


class TitleAwardForm(forms.ModelForm):
    class Meta:
        model = TitleAward
        fields = ["player", "title", "date", "method", "reference"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        player = data.get("player")
        if player is not None and not self.errors:
            data["reference"] = title_award_check(
                player, data["title"], date=data["date"], method=data["method"], reference=data.get("reference", "")
            )  # a ValidationError names its field: shown there, nothing saved
        return data


@admin.register(TitleAward)
class TitleAwardAdmin(OfficialsOnly, SimpleHistoryAdmin):
    form = TitleAwardForm
    list_display = ["player", "title", "date", "method", "reference", "recorded_by", "created_at"]
    list_filter = ["title", "method"]
    list_select_related = ["player", "recorded_by"]
    search_fields = ["=player__id_number", "player__surname"]
    raw_id_fields = ["player"]
    date_hierarchy = "date"

    def get_readonly_fields(self, request: HttpRequest, obj: TitleAward | None = None) -> list[str]:
        # A recorded award is the record: a mistake is answered by a new award, its history kept.
        return ["player", "title", "date", "method", "reference", "recorded_by", "created_at"] if obj else []

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.has_perm(TITLE_AWARD_PERMISSION)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: TitleAward, form: forms.ModelForm, change: bool) -> None:
        data = form.cleaned_data
        award = title_award_record(
            data["player"],
            data["title"],
            date=data["date"],
            method=data["method"],
            reference=data["reference"],
            user=admin_user(request),
        )
        obj.pk = award.pk  # the admin's messages and redirect name the award the service wrote


@admin.register(TitleCandidate)
class TitleCandidateAdmin(OfficialsReadOnly, admin.ModelAdmin):
    list_display = ["player", "title", "rating", "games", "rating_list", "award"]
    list_filter = ["title", "rating_list__list_date"]
    list_select_related = ["player", "rating_list", "award"]
    search_fields = ["=player__id_number", "player__surname"]
    actions = ["record_awards"]

    def get_urls(self) -> list[Any]:
        record = self.admin_site.admin_view(require_POST(self.record_view))
        return [path("<int:pk>/record/", record, name="ratings_titlecandidate_record"), *super().get_urls()]

    def record_view(self, request: HttpRequest, pk: int) -> HttpResponseRedirect:
        """The dashboard's "Record award" (POST): the candidate's title through the service."""
        candidate = get_object_or_404(TitleCandidate.objects.select_related("player", "rating_list"), pk=pk)
        self._record(request, [candidate])
        return HttpResponseRedirect(request.POST.get("next") or reverse("admin:index"))

    @admin.action(description="Record the award of the selected titles by rating")
    def record_awards(self, request: HttpRequest, queryset: QuerySet[TitleCandidate]) -> None:
        self._record(request, list(queryset.select_related("player", "rating_list")))

    def _record(self, request: HttpRequest, candidates: list[TitleCandidate]) -> None:
        if not request.user.has_perm(TITLE_AWARD_PERMISSION):
            raise PermissionDenied
        for candidate in candidates:
            try:
                award = title_candidate_award(candidate, user=admin_user(request))
            except ValidationError as exc:
                self.message_user(request, f"{candidate.player}: {' '.join(exc.messages)}", messages.ERROR)
            else:
                self.message_user(
                    request,
                    _("%(title)s recorded for %(player)s (%(date)s).")
                    % {"title": award.title, "player": candidate.player, "date": award.date.isoformat()},
                )
