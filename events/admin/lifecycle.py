"""The event lifecycle in the admin (issue 15): the timeline, "check", the officials' refusal with a reason and
their submission of an event whose play is incomplete, with a reason (issue 32). Integrity flags are listed on
the event's page and cleared on their own pages (events/admin/flags.py).

Wired into ``EventAdmin`` by ``lifecycle_admin_urls(model_admin)`` and ``lifecycle_context(request, event)``.
Permissions come from events/roles.py: an arbiter checks only their own events; only officials
(``events.review_event``) refuse. Writes go through events/services.py (``events_status_change``).
"""

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.admin import admin_user
from events.admin.transitions import allowed_event, transition_run, transition_view
from events.admin.urls import admin_view_urls
from events.forms import ReasonForm
from events.models import Event, EventStatus, EventStatusChange, IntegrityFlag
from events.roles import (
    event_checkable_by,
    event_incomplete_overridable_by,
    event_refusable_by,
    event_registration_approvable_by,
    event_staff,
    event_submittable_by,
    integrity_flags_clearable_by,
)
from events.services import (
    Registration,
    event_check,
    event_missing_for_rating,
    event_refuse,
    event_register,
    event_registration_approve,
    event_submission_problems,
    event_submit,
)

TIMELINE_ROWS = 100
EDITABLE_STATUSES = (EventStatus.REGISTERED, EventStatus.DRAFT, EventStatus.CHECKED, EventStatus.REFUSED)


class RefusalForm(ReasonForm):
    reason_help = gettext_lazy("Why the event is refused; the arbiter is shown it on the event's timeline.")
    reason_missing = gettext_lazy("Give the reason for the refusal.")


class OverrideForm(ReasonForm):
    reason_help = gettext_lazy(
        "Why the event is rated as it stands (e.g. 'stopped after round 3: the venue closed'); shown on its "
        "timeline and kept in the audit trail."
    )
    reason_missing = gettext_lazy("Give the reason for submitting the event incomplete.")


class RegistrationForm(forms.ModelForm):
    """What a rating authority asks when an event is registered before play (issue 15)."""

    class Meta:
        model = Event
        fields = [
            "name",
            "city",
            "federation",
            "start_date",
            "end_date",
            "rounds",
            "rating_type",
            "time_control",
            "system",
            "arbiters",
            "organiser",
            "expected_players",
            "strong_field",
        ]
        labels = {
            "name": gettext_lazy("Name"),
            "city": gettext_lazy("City"),
            "federation": gettext_lazy("Federation"),
            "start_date": gettext_lazy("Start date"),
            "end_date": gettext_lazy("End date"),
            "rounds": gettext_lazy("Rounds"),
            "rating_type": gettext_lazy("Rating type"),
            "time_control": gettext_lazy("Time control"),
            "system": gettext_lazy("System"),
            "arbiters": gettext_lazy("Deputy arbiters"),
            "organiser": gettext_lazy("Organiser"),
            "expected_players": gettext_lazy("Expected players"),
            "strong_field": gettext_lazy("Strong field"),
        }
        help_texts = {
            "time_control": gettext_lazy("e.g. 90 min + 30 s from move 1"),
            "strong_field": gettext_lazy(
                "A player rated over 2700 or a woman over 2500 takes part (FIDE: register 30 days before the start)"
            ),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("start_date", "end_date", "rating_type", "city"):
            self.fields[name].required = True

    def clean(self):
        data = super().clean()
        start, end = data.get("start_date"), data.get("end_date")
        if start and end and end < start:
            self.add_error(
                "end_date",
                _("The event ends (%(end)s) before it starts (%(start)s).")
                % {"end": f"{end:%Y-%m-%d}", "start": f"{start:%Y-%m-%d}"},
            )
        return data

    def registration(self) -> Registration:
        data = self.cleaned_data
        return Registration(
            name=data["name"],
            city=data["city"],
            federation_id=data["federation"].pk if data.get("federation") else None,
            start_date=data["start_date"],
            end_date=data["end_date"],
            rounds=data["rounds"],
            rating_type=data["rating_type"],
            system=data["system"],
            time_control=data["time_control"],
            organiser=data["organiser"],
            expected_players=data["expected_players"],
            strong_field=data["strong_field"],
            deputies=tuple(user.pk for user in data.get("arbiters") or []),
        )


def event_timeline(event: Event) -> list[EventStatusChange]:
    """The event's status changes, oldest first, with who and the list (one query)."""
    return list(
        EventStatusChange.objects.filter(event=event)
        .select_related("user", "rating_list")
        .order_by("at", "id")[:TIMELINE_ROWS]
    )


def lifecycle_context(request, event: Event) -> dict:
    return {
        "timeline": event_timeline(event),
        "can_check": event_checkable_by(event, request.user),
        "can_refuse": event_refusable_by(event, request.user),
        "can_approve_registration": event_registration_approvable_by(event, request.user),
        "integrity_flags": list(IntegrityFlag.objects.filter(event=event).select_related("cleared_by")),
        "can_clear_flags": integrity_flags_clearable_by(event, request.user),
        # Officials submit an event whose play is incomplete with a reason (issue 32, submit_incomplete_view).
        "can_submit_incomplete": event_submittable_by(event, request.user)
        and event_incomplete_overridable_by(event, request.user),
        # What an incomplete import left to fix before submission (issue 15), while it can still be fixed.
        "missing": event_missing_for_rating(event) if event.status in EDITABLE_STATUSES else [],
    }


def lifecycle_admin_urls(model_admin) -> list:
    return admin_view_urls(
        model_admin,
        [
            ("register/", register_view, "register"),
            ("<path:object_id>/approve-registration/", approve_registration_view, "approve_registration"),
            ("<path:object_id>/submit-incomplete/", submit_incomplete_view, "submit_incomplete"),
            ("<path:object_id>/check/", check_view, "check"),
            ("<path:object_id>/refuse/", refuse_view, "refuse"),
        ],
    )


def check_view(model_admin, request, object_id):
    """draft → checked when nothing stops a submission; otherwise every problem as a message."""

    def check(event):
        try:
            problems = event_check(event, user=admin_user(request))
        except ValidationError as exc:
            problems = exc.messages
        if problems:
            for problem in problems:
                model_admin.message_user(request, problem, messages.ERROR)
        else:
            model_admin.log_change(request, event, "Checked")
            model_admin.message_user(
                request, _("%(name)s: checked, ready for submission.") % {"name": event.name}, messages.SUCCESS
            )

    return transition_view(model_admin, request, object_id, event_checkable_by, check)


def refuse_view(model_admin, request, object_id):
    """Officials refuse a registered, draft, checked or submitted event, with the reason the arbiter sees."""
    event, redirect = allowed_event(model_admin, request, object_id, event_refusable_by)
    if redirect:
        return redirect
    form = RefusalForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            event_refuse(event, user=admin_user(request), reason=form.cleaned_data["reason"])
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            model_admin.log_change(request, event, f"Refused: {form.cleaned_data['reason']}")
            model_admin.message_user(request, _("%(name)s: refused.") % {"name": event.name}, messages.SUCCESS)
            return HttpResponseRedirect(model_admin.change_url(event))
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Refuse %(name)s") % {"name": event.name},
        "opts": model_admin.opts,
        "original": event,
        "event": event,
        "form": form,
    }
    return TemplateResponse(request, "admin/events/event/refuse.html", context)


def register_view(model_admin, request):
    """An arbiter registers an event before play; they become its chief arbiter."""
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    form = RegistrationForm(request.POST or None)
    form.fields["arbiters"].queryset = event_staff()
    if request.method == "POST" and form.is_valid():
        try:
            event = event_register(form.registration(), user=admin_user(request))
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            model_admin.log_addition(request, event, "Registered")
            late = "; ".join(
                _("late: %(rule)s (%(detail)s)") % {"rule": flag["rule"], "detail": flag["detail"]}
                for flag in event.deadline_flags
            )
            message = _("%(name)s: registered; a rating officer confirms it (you will be e-mailed).") % {
                "name": event.name
            }
            if late:
                message += " " + _("Flagged %(late)s.") % {"late": late}
            model_admin.message_user(request, message, messages.WARNING if late else messages.SUCCESS)
            return HttpResponseRedirect(model_admin.change_url(event))
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Register an event"),
        "opts": model_admin.opts,
        "form": form,
        "media": model_admin.media + form.media,
    }
    return TemplateResponse(request, "admin/events/event/register.html", context)


def approve_registration_view(model_admin, request, object_id):
    def approve(event):
        message = _("%(name)s: registration confirmed.") % {"name": event.name}
        transition_run(
            model_admin, request, event, event_registration_approve, log="Registration approved", message=message
        )

    return transition_view(model_admin, request, object_id, event_registration_approvable_by, approve)


def submit_incomplete_view(model_admin, request, object_id):
    """An official submits an event whose play is incomplete (issue 32): what is missing, named; what nobody may
    override (dates, rating type, new players' data) first fixed; then a reason, kept on the timeline."""

    def allowed(event, user):
        return event_submittable_by(event, user) and event_incomplete_overridable_by(event, user)

    event, redirect = allowed_event(model_admin, request, object_id, allowed)
    if redirect:
        return redirect
    blocking, incomplete = event_submission_problems(event)
    form = OverrideForm(request.POST or None)
    if request.method == "POST" and not blocking and form.is_valid():
        try:
            event_submit(event, user=admin_user(request), override_reason=form.cleaned_data["reason"])
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            model_admin.log_change(request, event, f"Submitted incomplete: {form.cleaned_data['reason']}")
            message = _("%(name)s: submitted for rating as it stands; the reason is on its timeline.") % {
                "name": event.name
            }
            model_admin.message_user(request, message, messages.SUCCESS)
            return HttpResponseRedirect(model_admin.change_url(event))
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Submit an incomplete event: %(name)s") % {"name": event.name},
        "opts": model_admin.opts,
        "original": event,
        "event": event,
        "blocking": blocking,
        "incomplete": incomplete,
        "form": form,
    }
    return TemplateResponse(request, "admin/events/event/submit_incomplete.html", context)
