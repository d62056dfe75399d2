"""Webhooks in the admin (issue 15): officials register endpoints and choose events; deliveries are logged
read-only with their response."""

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from core.admin import OfficialsOnly, OfficialsReadOnly

from .models import WebhookAttempt, WebhookDelivery, WebhookEndpoint


class WebhookEndpointForm(forms.ModelForm):
    # the labels of the model's fields, in the official's language (issue 32)
    url = forms.URLField(label=_("url"), max_length=500, assume_scheme="https")
    events = forms.MultipleChoiceField(
        label=_("event types"),
        choices=[(name, name) for name in WebhookEndpoint.EVENT_TYPES],
        widget=forms.CheckboxSelectMultiple,
    )

    class Meta:
        model = WebhookEndpoint
        fields = ["url", "secret", "events", "active"]


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(OfficialsOnly, admin.ModelAdmin):
    form = WebhookEndpointForm
    list_display = ["url", "events", "active", "created_at"]


class WebhookAttemptInline(OfficialsReadOnly, admin.TabularInline):
    """Every try of the delivery, with the receiver's answer (issue 15: deliveries logged with their response)."""

    model = WebhookAttempt
    fields = readonly_fields = ("number", "started_at", "duration_ms", "response_status", "response_body", "error")
    extra = 0
    can_delete = False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(OfficialsReadOnly, admin.ModelAdmin):
    inlines = [WebhookAttemptInline]
    _COLUMNS = ["event_type", "endpoint", "created_at", "attempts", "delivered_at", "response_status", "last_error"]
    list_display = tuple(_COLUMNS)
    list_filter = ["event_type", "response_status"]
    list_select_related = ["endpoint"]
    fields = [*_COLUMNS, "body", "response_body"]
    readonly_fields = [*_COLUMNS, "body", "response_body"]
