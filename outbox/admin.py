"""Officials see what is waiting for the broker, and can send it now."""

import json

from django.contrib import admin, messages
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from core.admin import OfficialsReadOnly

from .labels import pending_task_state, task_label
from .models import PendingTask
from .services import pending_tasks_send


class SentFilter(admin.SimpleListFilter):
    title = _("state")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("pending", _("waiting to be sent")), ("sent", _("sent"))]

    def queryset(self, request, queryset):
        if self.value() == "pending":
            return queryset.filter(sent_at__isnull=True)
        if self.value() == "sent":
            return queryset.filter(sent_at__isnull=False)
        return queryset


class TaskFilter(admin.SimpleListFilter):
    """Tasks by what they do (outbox.labels), not by their registered names."""

    title = _("task")
    parameter_name = "name"

    def lookups(self, request, model_admin):
        names = PendingTask.objects.order_by().values_list("name", flat=True).distinct()
        return sorted(((name, task_label(name)) for name in names), key=lambda choice: choice[1])

    def queryset(self, request, queryset):
        return queryset.filter(name=self.value()) if self.value() else queryset


@admin.register(PendingTask)
class PendingTaskAdmin(OfficialsReadOnly, admin.ModelAdmin):
    list_display = ["task", "arguments", "asked", "state", "attempts", "last_error"]
    list_filter = [SentFilter, TaskFilter]
    search_fields = ["name", "task_id"]
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in PendingTask._meta.fields]
    actions = ["send_now"]
    show_full_result_count = False

    # The task in words (outbox.labels), its registered name below it for the logs.
    @admin.display(description=_("task"), ordering="name")
    def task(self, obj):
        return format_html("{}<br><small>{}</small>", task_label(obj.name), obj.name)

    @admin.display(description=_("arguments"))
    def arguments(self, obj):
        # each argument on one line (a date or an id list never breaks inside)
        return format_html_join(", ", '<span class="nowrap">{}</span>', ((json.dumps(arg),) for arg in obj.args))

    @admin.display(description=_("asked"), ordering="created_at")
    def asked(self, obj):
        return format_html('<span class="nowrap">{}</span>', f"{obj.created_at:%Y-%m-%d %H:%M}")

    @admin.display(description=_("state"), ordering="sent_at")
    def state(self, obj):
        return pending_task_state(obj)

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


# The beat schedule's periodic tasks (django-celery-beat) with what each does in words (outbox.labels).
def _periodic_tasks_with_labels() -> None:
    from django_celery_beat.admin import PeriodicTaskAdmin
    from django_celery_beat.models import PeriodicTask

    class LabelledPeriodicTaskAdmin(PeriodicTaskAdmin):
        list_display = ("name", "does", "enabled", "scheduler", "last_run_at")  # the schedule in one column

        @admin.display(description=_("what it does"), ordering="task")
        def does(self, obj):
            return format_html("{}<br><small>{}</small>", task_label(obj.task), obj.task)

    if admin.site.is_registered(PeriodicTask):
        admin.site.unregister(PeriodicTask)
    admin.site.register(PeriodicTask, LabelledPeriodicTaskAdmin)


_periodic_tasks_with_labels()

# Webhook endpoints and deliveries (outbox/admin_webhooks.py), registered with this module.
from . import admin_webhooks  # noqa: E402, F401
