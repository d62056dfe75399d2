"""Officials see what is waiting for the broker, and can send it now."""

from django.contrib import admin, messages
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from core.admin import OfficialsReadOnly

from .labels import pending_task_state, task_label
from .models import PendingTask
from .services import pending_tasks_send


class SentFilter(admin.SimpleListFilter):
    title = "state"
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
    list_display = ["task", "args", "created_at", "state", "attempts", "last_attempt_at", "last_error"]
    list_filter = [SentFilter, "name"]
    search_fields = ["name", "task_id"]
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in PendingTask._meta.fields]
    actions = ["send_now"]
    show_full_result_count = False

    # The task in words (outbox.labels), its registered name below it for the logs.
    @admin.display(description=_("task"), ordering="name")
    def task(self, obj):
        return format_html("{}<br><small>{}</small>", task_label(obj.name), obj.name)

    @admin.display(description=_("state"), ordering="sent_at")
    def state(self, obj):
        return pending_task_state(obj)

    @admin.action(description="Send the selected pending tasks now")
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


# The beat schedule's periodic tasks (django-celery-beat) with what each does in words (outbox.labels).
def _periodic_tasks_with_labels() -> None:
    from django_celery_beat.admin import PeriodicTaskAdmin
    from django_celery_beat.models import PeriodicTask

    class LabelledPeriodicTaskAdmin(PeriodicTaskAdmin):
        list_display = ("name", "does", *PeriodicTaskAdmin.list_display[1:])

        @admin.display(description=_("what it does"), ordering="task")
        def does(self, obj):
            return format_html("{}<br><small>{}</small>", task_label(obj.task), obj.task)

    if admin.site.is_registered(PeriodicTask):
        admin.site.unregister(PeriodicTask)
    admin.site.register(PeriodicTask, LabelledPeriodicTaskAdmin)


_periodic_tasks_with_labels()

# Webhook endpoints and deliveries (outbox/admin_webhooks.py), registered with this module.
from . import admin_webhooks  # noqa: E402, F401
