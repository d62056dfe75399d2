"""Membership's admin (officials only): settings, categories, memberships (with the CSV upload and a player's
history), policies, fee schedules with their lines, licences; every edit kept by simple_history. Thin: the
upload calls ``membership.services.imports``."""

from django import forms
from django.contrib import admin, messages
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _
from simple_history.admin import SimpleHistoryAdmin

from core.admin import OfficialsOnly, admin_user
from membership.models import (
    FeeSchedule,
    FeeScheduleLine,
    Licence,
    Membership,
    MembershipCategory,
    MembershipPolicy,
    MembershipSettings,
)
from membership.services.imports import memberships_import_csv

# An upload larger than this is refused before it is read (100,000 memberships take about 4 MB).
MAX_UPLOAD_BYTES = 50 * 1024 * 1024


class OfficialsHistoryAdmin(OfficialsOnly, SimpleHistoryAdmin):
    pass


@admin.register(MembershipSettings)
class MembershipSettingsAdmin(OfficialsHistoryAdmin):
    list_display = ("federation", "season_start_month", "season_start_day", "backdate_until_month",
                    "backdate_until_day", "status_public")  # fmt: skip


@admin.register(MembershipCategory)
class MembershipCategoryAdmin(OfficialsHistoryAdmin):
    list_display = ("name", "code", "federation", "kind", "min_age", "max_age", "price", "currency")
    list_filter = ("federation", "kind")


class MembershipUploadForm(forms.Form):
    file = forms.FileField(label=_("CSV file"), help_text=_("Columns: id_number, category, start, end (optional)."))
    federation = forms.CharField(
        label=_("Federation"), max_length=3, required=False, help_text=_("Empty: this installation's federation.")
    )


@admin.register(Membership)
class MembershipAdmin(OfficialsHistoryAdmin):
    list_display = ("player", "category", "start", "end", "season", "source", "price")
    list_filter = ("source", "category", "season")
    search_fields = ("player__id_number", "player__surname")
    raw_id_fields = ("player", "event")
    date_hierarchy = "start"
    list_select_related = ("player", "category")
    change_list_template = "membership/admin/membership_changelist.html"

    def get_urls(self):
        upload = path("import/", self.admin_site.admin_view(self.import_view), name="membership_membership_import")
        return [upload, *super().get_urls()]

    def import_view(self, request):
        if not self.has_add_permission(request):
            return HttpResponseRedirect(reverse("admin:index"))
        problems: list[str] = []
        form = MembershipUploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            if upload.size > MAX_UPLOAD_BYTES:
                problems = [str(_("The file is larger than 50 MB; split it."))]
            else:
                result = memberships_import_csv(upload.read(), user=admin_user(request),
                                                federation=form.cleaned_data["federation"],
                                                file_name=upload.name)  # fmt: skip
                problems = result.problems
                if not result.refused:
                    self.message_user(request, _("%(count)d memberships imported.") % {"count": result.written},
                                      messages.SUCCESS)  # fmt: skip
                    return HttpResponseRedirect(reverse("admin:membership_membership_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Import memberships from CSV"),
            "form": form,
            "problems": problems,
        }
        return render(request, "membership/admin/import.html", context)


@admin.register(MembershipPolicy)
class MembershipPolicyAdmin(OfficialsHistoryAdmin):
    list_display = ("federation", "rating_type", "effective_from", "kind", "members_only_action", "fee_basis",
                    "chief_arbiter_licence_required")  # fmt: skip
    list_filter = ("federation", "rating_type", "kind")


class FeeScheduleLineInline(admin.TabularInline):
    model = FeeScheduleLine
    extra = 0
    fields = ("order", "kind", "description", "rule", "amount", "minimum", "percent", "band_min", "band_max",
              "min_age", "max_age", "rating_types", "event_kinds", "valid_from", "valid_to")  # fmt: skip


@admin.register(FeeSchedule)
class FeeScheduleAdmin(OfficialsHistoryAdmin):
    list_display = ("name", "code", "federation", "currency", "effective_from", "effective_to")
    inlines = [FeeScheduleLineInline]


@admin.register(Licence)
class LicenceAdmin(OfficialsHistoryAdmin):
    list_display = ("player", "kind", "grade", "number", "valid_from", "valid_to", "user")
    list_filter = ("kind", "grade")
    search_fields = ("player__id_number", "player__surname", "number")
    raw_id_fields = ("player", "user")
    list_select_related = ("player", "user")
