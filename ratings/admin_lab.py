"""The rating laboratory in the admin, for officials (core.roles.is_official): one-off adjustments with their
preview, backtest runs (a Celery job with progress; compare side by side; CSV). Thin: ratings.services
(adjustments, laboratory, backtest) compute."""

import csv
import json

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.admin import OfficialsOnly
from core.charts import Frame, polyline
from events.models import RatingType
from ratings import tasks
from ratings.engine import PRESETS
from ratings.models import BacktestRun, RatingAdjustment, RatingPolicy
from ratings.services import rating_policy_for
from ratings.services.adjustments import rating_adjustment_preview
from ratings.services.backtest import BacktestError, backtest_rules
from ratings.services.laboratory import backtest_run_create, backtest_runs_compare, backtest_runs_csv


@admin.register(RatingAdjustment)
class RatingAdjustmentAdmin(OfficialsOnly, admin.ModelAdmin):
    """Attach a one-off adjustment to a list date; its preview shows who moves and what it does to the pool.
    Once a published list has applied it, it is frozen (that list's rules keep it)."""

    list_display = ["name", "rating_type", "list_date", "formula", "threshold", "factor", "order", "applied_to"]
    list_filter = ["rating_type"]
    fields = [
        "name",
        "rating_type",
        "list_date",
        "formula",
        "threshold",
        "factor",
        "order",
        "source",
        "applied_to",
        "preview",
    ]
    readonly_fields = ["applied_to", "preview"]

    # Officials only; once a published list has applied the adjustment it is frozen (that list's rules keep it).
    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and (obj is None or obj.applied_to_id is None)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and (obj is None or obj.applied_to_id is None)

    @admin.display(description=_("Preview"))
    def preview(self, adjustment):
        if adjustment.pk is None:
            return _("Save to see the preview.")
        preview = rating_adjustment_preview(adjustment)
        return mark_safe(render_to_string("admin/ratings/adjustment_preview.html", {"preview": preview}))

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


# --------------------------------------------------------------------------------------------------------
# Presets by name: officials choose "FIDE B.02 2024 (as amended 1 Oct 2025)", not a slug; the slug follows it
# (the stable name scripts and the lists' frozen rules use: DESIGN.md, the rules)
# --------------------------------------------------------------------------------------------------------
def preset_label(slug: str) -> str:
    preset = PRESETS.get(slug)
    return f"{gettext(preset.name)} ({slug})" if preset is not None else slug


def preset_choices() -> list[tuple[str, str]]:
    """Every preset by its name, newest first within a family, the slug in brackets."""
    ordered = sorted(PRESETS.values(), key=lambda p: (p.family != "fide", p.family, -p.effective_from.toordinal()))
    return [(preset.slug, preset_label(preset.slug)) for preset in ordered]


# --------------------------------------------------------------------------------------------------------
# Backtest runs: queue (a Celery job with a progress bar), compare side by side, export CSV
# --------------------------------------------------------------------------------------------------------
class BacktestRunForm(forms.ModelForm):
    rules_preset = forms.ChoiceField(label=_("Rules preset"), choices=preset_choices)

    class Meta:
        model = BacktestRun
        fields = ["rating_type", "rules_preset", "overrides", "start", "end"]
        labels = {"rating_type": _("Rating type"), "overrides": _("Overrides"), "start": _("From"), "end": _("To")}
        help_texts = {
            "overrides": _("KEY=VALUE, one per line (k_factor, difference_cap, k_times_n_cap, rating_floor, ...)"),
            "start": _("From the ratings in force on this date (default: the first list)"),
            "end": _("Last list date replayed (default: the newest)"),
        }


@admin.register(BacktestRun)
class BacktestRunAdmin(OfficialsOnly, admin.ModelAdmin):
    """Pick a preset and overrides, run (a job; the page shows its progress), keep the results, compare
    runs side by side (select them, action "Compare"), export CSV."""

    form = BacktestRunForm
    add_form_template = "admin/ratings/backtestrun/add_form.html"
    list_display = ["__str__", "preset", "overrides", "start", "end", "status", "progress", "summary"]
    list_filter = ["status", "rating_type", "rules_preset"]
    actions = ["compare_runs", "export_csv"]

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["rating_type", "rules_preset", "overrides", "start", "end"]
        return ["rating_type", "rules_preset", "overrides", "start", "end", "status", "progress", "report"]

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else self.get_fields(request, obj)

    @admin.display(description=_("rules preset"), ordering="rules_preset")
    def preset(self, run):
        return preset_label(run.rules_preset)

    def get_changeform_initial_data(self, request):
        # The default preset is the one the federation rates this type with (its policy), never a fixed slug.
        initial = super().get_changeform_initial_data(request)
        rating_type = initial.get("rating_type") or RatingType.STANDARD
        if rating_type in RatingType.values:
            initial.setdefault("rules_preset", rating_policy_for(rating_type).rules_preset)
        return initial

    @admin.display(description=_("progress"))
    def progress(self, run):
        return render_to_string("admin/ratings/backtest_progress.html", {"run": run})

    @admin.display(description=_("summary"))
    def summary(self, run):
        if not run.result:
            return run.error or "-"
        s = run.result["summary"]
        return f"log loss {s['log_loss']}, Brier {s['brier']}, RMSE {s['rmse']}, differences {s['differences']}"

    @admin.display(description=_("report"))
    def report(self, run):
        if not run.result:
            return run.error or "-"
        context = {"run": run, "calibration": calibration_chart([run])}
        return mark_safe(render_to_string("admin/ratings/backtest_report.html", context))

    def save_model(self, request, obj, form, change):
        if change:
            return
        try:
            run = backtest_run_create(
                rating_type=obj.rating_type,
                rules_preset=obj.rules_preset,
                overrides=obj.overrides,
                start=obj.start,
                end=obj.end,
                user=request.user,
            )
        except ValidationError as error:
            raise ValidationError(error.messages) from None
        obj.pk = run.pk
        tasks.queue_backtest(run.pk)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)

        policies = {p.rating_type: p for p in RatingPolicy.objects.all()}
        in_use = "; ".join(
            f"{label}: {preset_label(policies[value].rules_preset)}"
            for value, label in RatingType.choices
            if value in policies
        )
        if "rules_preset" in form.base_fields and in_use:
            form.base_fields["rules_preset"].help_text = _("The federation's policies: %(presets)s.") % {
                "presets": in_use
            }
            # Changing the type moves an untouched preset to that type's policy (templates/admin/ratings/backtestrun).
            form.base_fields["rating_type"].widget.attrs["data-policy-presets"] = json.dumps(
                {rating_type: policy.rules_preset for rating_type, policy in policies.items()}
            )

        class Checked(form):  # the service's checks, shown on the form's fields
            def clean(self):
                data = super().clean()
                try:
                    backtest_rules(
                        data.get("rules_preset", ""), BacktestRun(overrides=data.get("overrides", "")).override_list
                    )
                except BacktestError as error:
                    self.add_error("overrides" if "--set" in str(error) else "rules_preset", str(error))
                start, end = data.get("start"), data.get("end")
                if start and end and end < start:
                    self.add_error("end", "the last list date is before the start")
                return data

        return Checked

    @admin.action(description=_("Compare the selected runs side by side"))
    def compare_runs(self, request, queryset):
        runs = list(queryset.order_by("pk"))
        context = {
            **self.admin_site.each_context(request),
            "title": "Compare backtest runs",
            "compare": backtest_runs_compare(runs),
            "calibration": calibration_chart([run for run in runs if run.result]),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/ratings/backtest_compare.html", context)

    @admin.action(description=_("Export the selected runs as CSV"))
    def export_csv(self, request, queryset):
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="backtests.csv"'
        writer = csv.writer(response)
        for row in backtest_runs_csv(list(queryset.order_by("pk"))):
            writer.writerow(row)
        return response


CHART_COLOURS = ["#1d4ed8", "#c2410c", "#15803d", "#7c3aed", "#a16207", "#be123c"]
CALIBRATION_FRAME = Frame(width=640, height=300, left=50, right=10, top=10, bottom=30)


def calibration_chart(runs) -> dict:
    """Expected vs actual score of the favourite by 50-point bucket, one line pair per run (inline SVG)."""
    frame = CALIBRATION_FRAME
    buckets = sorted({row["from"] for run in runs for row in run.result["calibration"]})
    if not buckets:
        return {"empty": True}
    x = frame.x(0, max(buckets) + 50 or 50)
    y = frame.y(0.5, 1.0)  # the favourite's score: 0.5 .. 1.0

    lines = []
    for i, run in enumerate(runs):
        rows = [row for row in run.result["calibration"] if row["games"]]
        colour = CHART_COLOURS[i % len(CHART_COLOURS)]
        lines.append(
            {
                "label": f"#{run.pk} {run.result['rules']}",
                "colour": colour,
                "expected": polyline((x(r["from"] + 25), y(r["expected"])) for r in rows),
                "actual": polyline((x(r["from"] + 25), y(r["actual"])) for r in rows),
            }
        )
    ticks = [{"y": y(v), "label": f"{v:.1f}"} for v in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)]
    every = max(1, len(buckets) // 8)
    return {
        "empty": False,
        **frame.box(),
        "label_y": frame.height - 8,
        "y_ticks": ticks,
        "x_ticks": [{"x": x(b), "label": b} for b in buckets[::every]],
        "lines": lines,
    }
