"""The arbiter's TRF upload (/admin/events/event/upload-trf/) and TRF download of an event.

Thin views over ``events.trf_services``: the upload form (file, rating type, submit), the problems of a
refused file by line and column, or the warnings, likely duplicates and a link to the event created.
Wired into ``EventAdmin.get_urls`` by ``trf_admin_urls(model_admin)``.

Permissions: uploading needs ``events.add_event`` (arbiters and rating officers have it), submitting at
once also ``events.submit_event``; the download needs the right to view that event.
"""

from django import forms
from django.conf import settings
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from events.admin.urls import admin_view_urls
from events.models import RatingType
from events.trf_services import event_export_trf, event_import_trf


class TrfUploadForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("TRF file"),
        help_text=gettext_lazy(
            "The tournament report file from the pairing program (TRF16 or TRF-2026: .trf, .txt, .tab)."
        ),
    )
    rating_type = forms.ChoiceField(
        label=gettext_lazy("Rating type"),
        choices=[("", gettext_lazy("As the file says (otherwise standard)")), *RatingType.choices],
        required=False,
    )
    submit = forms.BooleanField(
        required=False,
        label=gettext_lazy("Submit for rating"),
        help_text=gettext_lazy("Send the event to the rating officer at once (every game needs a result)."),
    )
    check_only = forms.BooleanField(
        required=False,
        label=gettext_lazy("Check only"),
        help_text=gettext_lazy(
            "The full report (problems, players matched or to be created, games rated or not and why) "
            "without importing anything. With 'Submit for rating', checks it as a submission."
        ),
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_file(self):
        upload = self.cleaned_data["file"]
        limit = settings.TRF_UPLOAD_MAX_BYTES
        if upload.size > limit:
            raise forms.ValidationError(
                _("%(name)s is %(size)s bytes; a TRF file may have at most %(limit)s bytes.")
                % {"name": upload.name, "size": f"{upload.size:,}", "limit": f"{limit:,}"}
            )
        return upload

    def clean_submit(self):
        submit = self.cleaned_data["submit"]
        if submit and not self.user.has_perm("events.submit_event"):
            raise forms.ValidationError(_("You may not submit events for rating; upload it as a draft."))
        return submit


def trf_admin_urls(model_admin) -> list:
    """URL patterns for EventAdmin.get_urls (before the admin's own ``<path:object_id>/`` patterns)."""
    return admin_view_urls(
        model_admin,
        [
            ("upload-trf/", upload_trf_view, "upload_trf"),
            ("<path:object_id>/export-trf/", export_trf_view, "export_trf"),
        ],
    )


def upload_trf_view(model_admin, request):
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    outcome = None
    if request.method == "POST":
        form = TrfUploadForm(request.POST, request.FILES, user=request.user)
        if form.is_valid():
            upload = form.cleaned_data["file"]
            outcome = event_import_trf(
                upload.read(),
                file_name=upload.name,
                user=request.user,
                rating_type=form.cleaned_data["rating_type"] or None,
                submit=form.cleaned_data["submit"],
                check_only=form.cleaned_data["check_only"],
            )
            if outcome.event is not None:
                model_admin.log_addition(request, outcome.event, f"Imported from the TRF file {upload.name}")
                form = TrfUploadForm(user=request.user)
    else:
        form = TrfUploadForm(user=request.user)
    opts = model_admin.opts
    prefix = f"admin:{opts.app_label}_{opts.model_name}"
    event = outcome.event if outcome is not None else None
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Upload a TRF file"),
        "check_only": outcome is not None and outcome.check_only,
        "opts": opts,
        "form": form,
        "outcome": outcome,
        "event": event,
        "event_url": reverse(f"{prefix}_change", args=[event.pk]) if event else "",
        "export_url": reverse(f"{prefix}_export_trf", args=[event.pk]) if event else "",
        "max_bytes": settings.TRF_UPLOAD_MAX_BYTES,
    }
    return TemplateResponse(request, "admin/events/event/upload_trf.html", context)


def export_trf_view(model_admin, request, object_id):
    event = model_admin.get_object(request, unquote(object_id))
    if event is None or not model_admin.has_view_permission(request, event):
        raise PermissionDenied
    text = event_export_trf(event)
    response = HttpResponse(text.encode("utf-8"), content_type="text/plain; charset=utf-8")
    name = slugify(event.name) or "event"
    response["Content-Disposition"] = f'attachment; filename="{name}-{event.pk}.trf"'
    return response
