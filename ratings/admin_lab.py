"""The rating laboratory in the admin, for officials (core.roles.is_official): one-off adjustments with their
preview. Thin: ratings.services.adjustments computes."""

from django.contrib import admin
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from core.roles import is_official
from ratings.models import RatingAdjustment
from ratings.services.adjustments import rating_adjustment_preview


class OfficialsOnly:
    """Visible and editable by officials only."""

    def has_module_permission(self, request):
        return is_official(request.user)

    def has_view_permission(self, request, obj=None):
        return is_official(request.user)

    def has_add_permission(self, request):
        return is_official(request.user)

    def has_change_permission(self, request, obj=None):
        return is_official(request.user) and (obj is None or obj.applied_to_id is None)

    def has_delete_permission(self, request, obj=None):
        return is_official(request.user) and (obj is None or obj.applied_to_id is None)


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

    @admin.display(description="Preview")
    def preview(self, adjustment):
        if adjustment.pk is None:
            return "Save to see the preview."
        preview = rating_adjustment_preview(adjustment)
        return mark_safe(render_to_string("admin/ratings/adjustment_preview.html", {"preview": preview}))  # noqa: S308 (escaped template)

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
