"""Officials see what is waiting for the broker, and can send it now."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from core.admin import OfficialsReadOnly

from .models import PendingTask
from .services import pending_tasks_send


class SentFilter(admin.SimpleListFilter):
    title = _("state")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("pending", "pending"), ("sent", "sent")]

    def queryset(self, request, queryset):
        if self.value() == "pending":
            return queryset.filter(sent_at__isnull=True)
        if self.value() == "sent":
            return queryset.filter(sent_at__isnull=False)
        return queryset


@admin.register(PendingTask)
class PendingTaskAdmin(OfficialsReadOnly, admin.ModelAdmin):
    list_display = ["name", "args", "created_at", "state", "attempts", "finished_at", "last_attempt_at", "last_error"]
    list_filter = [SentFilter, "name"]
    search_fields = ["name", "task_id"]
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in PendingTask._meta.fields]
    actions = ["send_now"]
    show_full_result_count = False

    @admin.display(description=_("state"), ordering="sent_at")
    def state(self, obj):
        return f"sent {obj.sent_at:%Y-%m-%d %H:%M:%S}" if obj.sent_at else "PENDING"

    @admin.action(description=_("Send the selected pending tasks now"))
    def send_now(self, request, queryset):
        report = pending_tasks_send(queryset)
        if report.failed:
            self.message_user(
                request,
                f"Sent {report.sent}; the broker refused the next one ({report.error}). "
                f"{report.pending} task(s) stay pending.",
                messages.ERROR,
            )
        else:
            self.message_user(request, f"Sent {report.sent} task(s).", messages.SUCCESS)


# Webhook endpoints and deliveries (outbox/admin_webhooks.py), registered with this module.
from . import admin_webhooks  # noqa: E402, F401
