"""The arbiter's TRF upload (/admin/events/event/upload-trf/, and /<pk>/upload-trf/ onto an event being
entered) and TRF download of an event.

Thin views over ``events.trf_services``: the upload form (file, rating type, submit), the problems of a
refused file by line and column (the same problem on many lines said once), or the warnings, likely
duplicates and a link to the event created. Wired into ``EventAdmin.get_urls`` by ``trf_admin_urls``.

A checked file is kept in the uploader's session (issue 32), named by its SHA-256, so that the check report
offers "Import this file" and imports exactly the bytes that were checked, without a second upload; the same
keeps a file refused only because it names no rating type, for the arbiter to choose one. A file goes onto an
existing event only after its report (what changes) and a confirmation.

Permissions: uploading needs ``events.add_event`` (arbiters and rating officers have it), uploading onto an
event the right to change it, submitting at once also ``events.submit_event``; the download needs the right to
view that event.
"""

import base64
import hashlib

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
from events.models import Event, RatingType
from events.trf_services import TRF_REPLACEABLE_STATUSES, TrfImportOutcome, event_export_trf, event_import_trf

SESSION_KEY = "events.trf_checked"  # the one file kept per session: {"sha256", "name", "data", "event"}


class TrfUploadForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("TRF file"),
        help_text=gettext_lazy(
            "The tournament report file from the pairing program (TRF16 or TRF-2026: .trf, .txt, .tab)."
        ),
    )
    rating_type = forms.ChoiceField(
        label=gettext_lazy("Rating type"),
        choices=[("", gettext_lazy("As the file says (asked for when it does not say)")), *RatingType.choices],
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

    def __init__(self, *args, user, into: Event | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        if into is not None:  # onto an event: always checked first, then confirmed (TrfCheckedForm)
            del self.fields["check_only"]
            if into.rating_type:
                del self.fields["rating_type"]

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
        return _submit_allowed(self.cleaned_data["submit"], self.user)


class TrfCheckedForm(forms.Form):
    """Import the file the report was made of (kept in the session under its SHA-256), with the rating type
    and submission chosen now; onto an event, its button is the confirmation, under the report of what changes."""

    checked = forms.CharField(widget=forms.HiddenInput, max_length=64)
    rating_type = forms.ChoiceField(
        label=gettext_lazy("Rating type"),
        choices=[("", gettext_lazy("As the file says (asked for when it does not say)")), *RatingType.choices],
        required=False,
    )
    submit = forms.BooleanField(required=False, label=gettext_lazy("Submit for rating"))

    def __init__(self, *args, user, into: Event | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        if into is not None and into.rating_type:
            del self.fields["rating_type"]

    def clean_submit(self):
        return _submit_allowed(self.cleaned_data["submit"], self.user)


def _submit_allowed(submit: bool, user) -> bool:
    if submit and not user.has_perm("events.submit_event"):
        raise forms.ValidationError(_("You may not submit events for rating; upload it as a draft."))
    return submit


def trf_admin_urls(model_admin) -> list:
    """URL patterns for EventAdmin.get_urls (before the admin's own ``<path:object_id>/`` patterns)."""
    return admin_view_urls(
        model_admin,
        [
            ("upload-trf/", upload_trf_view, "upload_trf"),
            ("<path:object_id>/upload-trf/", upload_trf_into_view, "upload_trf_into"),
            ("<path:object_id>/export-trf/", export_trf_view, "export_trf"),
        ],
    )


def upload_trf_view(model_admin, request):
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    return _upload(model_admin, request, None)


def upload_trf_into_view(model_admin, request, object_id):
    """A file onto an event being entered by hand (issue 32): checked, shown with what changes, confirmed."""
    target = model_admin.get_object(request, unquote(object_id))
    if target is None or not model_admin.has_change_permission(request, target):
        raise PermissionDenied
    return _upload(model_admin, request, target)


def _upload(model_admin, request, target: Event | None):
    outcome: TrfImportOutcome | None = None
    form = TrfUploadForm(user=request.user, into=target)
    checked_form = None
    kept = name = lost = ""  # kept: the SHA-256 of the file kept for "Import this file"
    if request.method == "POST" and "checked" in request.POST:
        checked_form = TrfCheckedForm(request.POST, user=request.user, into=target)
        stored = _kept_file(request, request.POST["checked"], target) if checked_form.is_valid() else None
        if checked_form.is_valid() and stored is None:
            checked_form = None
            lost = _(
                "The checked file is no longer kept (it was imported, a later upload replaced it, or your "
                "session ended): upload it again."
            )
        elif stored is not None:
            (data, name), kept = stored, checked_form.cleaned_data["checked"]
            outcome = _import(request, data, name, checked_form.cleaned_data, target, check_only=False)
    elif request.method == "POST":
        form = TrfUploadForm(request.POST, request.FILES, user=request.user, into=target)
        if form.is_valid():
            upload = form.cleaned_data["file"]
            data, name = upload.read(), upload.name
            check_only = target is not None or form.cleaned_data.get("check_only", False)
            outcome = _import(request, data, name, form.cleaned_data, target, check_only=check_only)
            kept = _keep_file(request, data, name, target) if _importable(outcome) else ""
    if outcome is not None and outcome.event is not None:
        request.session.pop(SESSION_KEY, None)
        if target is None:
            model_admin.log_addition(request, outcome.event, f"Imported from the TRF file {name}")
        else:
            model_admin.log_change(request, outcome.event, f"Rounds and results replaced from the TRF file {name}")
        form, kept = TrfUploadForm(user=request.user, into=outcome.event if target else None), ""
    if kept and outcome is not None:
        submit = bool(request.POST.get("submit")) and request.user.has_perm("events.submit_event")
        initial = {"checked": kept, "rating_type": outcome.rating_type, "submit": submit}
        checked_form = TrfCheckedForm(initial=initial, user=request.user, into=target)
        rating_type = checked_form.fields.get("rating_type")
        if outcome.needs_rating_type and isinstance(rating_type, forms.ChoiceField):  # the file does not say
            rating_type.choices = [("", "—"), *RatingType.choices]
    values = {"outcome": outcome, "target": target, "form": form, "checked_form": checked_form, "lost": lost}
    return TemplateResponse(request, "admin/events/event/upload_trf.html", _context(model_admin, request, values))


def _import(request, data: bytes, name: str, cleaned: dict, target: Event | None, *, check_only: bool):
    return event_import_trf(
        data,
        file_name=name,
        user=request.user,
        rating_type=cleaned.get("rating_type") or None,
        submit=cleaned.get("submit", False),
        check_only=check_only,
        require_rating_type=True,  # issue 32: never a draft without a rating type from the admin
        into=target,
    )


def _importable(outcome: TrfImportOutcome) -> bool:
    """A report worth an "Import this file": nothing refused it but, at most, the rating type to choose."""
    if outcome.event is not None:
        return False
    return not outcome.errors or (outcome.needs_rating_type and len(outcome.errors) == 1)


def _keep_file(request, data: bytes, name: str, target: Event | None) -> str:
    digest = hashlib.sha256(data).hexdigest()
    request.session[SESSION_KEY] = {
        "sha256": digest,
        "name": name[:255],
        "data": base64.b64encode(data).decode("ascii"),
        "event": target.pk if target is not None else None,
    }
    return digest


def _kept_file(request, digest: str, target: Event | None) -> tuple[bytes, str] | None:
    """The kept file when it is the one checked (same SHA-256, same target event), else None."""
    stored = request.session.get(SESSION_KEY)
    if not stored or stored.get("sha256") != digest or stored.get("event") != (target.pk if target else None):
        return None
    data = base64.b64decode(stored["data"])
    if hashlib.sha256(data).hexdigest() != digest:
        return None
    return data, stored["name"]


def _context(model_admin, request, values: dict) -> dict:
    opts = model_admin.opts
    prefix = f"admin:{opts.app_label}_{opts.model_name}"
    outcome, target = values["outcome"], values["target"]
    event = outcome.event if outcome is not None else None
    return {
        **model_admin.admin_site.each_context(request),
        "title": _("Upload a TRF file")
        if target is None
        else _("Upload a TRF file into %(event)s") % {"event": target},
        "check_only": outcome is not None and outcome.check_only,
        "opts": opts,
        "form": values["form"],
        "checked_form": values["checked_form"],
        "lost": values["lost"],
        "outcome": outcome,
        "event": event,
        "target": target,
        "target_open": target is None or target.status in TRF_REPLACEABLE_STATUSES,
        "target_url": reverse(f"{prefix}_change", args=[target.pk]) if target else "",
        "event_url": reverse(f"{prefix}_change", args=[event.pk]) if event else "",
        "export_url": reverse(f"{prefix}_export_trf", args=[event.pk]) if event else "",
        "max_bytes": settings.TRF_UPLOAD_MAX_BYTES,
    }


def export_trf_view(model_admin, request, object_id):
    event = model_admin.get_object(request, unquote(object_id))
    if event is None or not model_admin.has_view_permission(request, event):
        raise PermissionDenied
    text = event_export_trf(event)
    response = HttpResponse(text.encode("utf-8"), content_type="text/plain; charset=utf-8")
    name = slugify(event.name) or "event"
    response["Content-Disposition"] = f'attachment; filename="{name}-{event.pk}.trf"'
    return response
