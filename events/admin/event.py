"""The event page of the admin: the event with its participants (a page at a time) and, when asked for, its
games by round; the rounds box, the standings preview, the status buttons and the timeline; the URLs of the
event's other views (events/admin/: upload, rounds, lifecycle, corrections).

Access (events/roles.py, applied by events/admin/permissions.py) is enforced on the server for every view.
Writes go through events/services.py.
"""

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.admin.widgets import RelatedFieldWidgetWrapper
from django.db.models import Count, Q
from django.http import HttpResponseRedirect
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.admin import admin_user
from events.admin.autocomplete import StaffSelect, StaffSelectMultiple, autocomplete_admin_urls
from events.admin.corrections import correct_view
from events.admin.games import GameInline, entry_round
from events.admin.lifecycle import lifecycle_admin_urls, lifecycle_context
from events.admin.participants import (
    ParticipantInline,
    participant_page,
    participant_pages,
    participants_add_urls,
    related_icons_off,
)
from events.admin.permissions import EventAccess
from events.admin.rounds import round_admin_urls
from events.admin.transitions import transition_run, transition_view
from events.admin.upload import trf_admin_urls
from events.forms import EventForm
from events.models import Event, Game
from events.roles import (
    event_correctable_by,
    event_returnable_to_draft_by,
    event_staff,
    event_submittable_by,
    user_sees_all_events,
)
from events.services import event_create, event_games_update, event_return_to_draft, event_submit


def localize_moment(moment) -> str:
    return f"{timezone.localtime(moment):%Y-%m-%d %H:%M}" if moment else "—"


@admin.register(Event)
class EventAdmin(EventAccess, admin.ModelAdmin):
    form = EventForm
    # Status second, dates and kind in one column each: the whole row fits 1280 px beside the admin's menu and
    # filters, so the status is never cut off (issue 32).
    list_display = ["event_name", "event_status", "dates", "kind", "participant_count", "chief", "rated_on_list"]
    list_filter = ["status", "rating_type", "system", "federation"]
    search_fields = ["name", "city"]
    date_hierarchy = "end_date"
    list_select_related = ["rated_on", "federation", "chief_arbiter"]
    autocomplete_fields = ["federation"]
    inlines = [ParticipantInline, GameInline]
    actions = ["submit_for_rating", "return_to_draft"]

    class Media:  # the event pages' additions to the admin's look (static/css/admin_desk.css, its events block)
        css = {"all": ["css/admin_desk.css"]}

    # --- the form: what an arbiter fills in; the record of the event read-only and folded away (issue 32) ---

    RECORD_FIELDS = [
        "event_status",
        "submitted",
        "rated_on_list",
        "source_file",
        "results_to_enter",
        "created",
        "updated",
    ]

    def get_fieldsets(self, request, obj=None):
        fieldsets = [
            (
                None,
                {
                    "fields": [
                        "name",
                        "city",
                        "federation",
                        ("start_date", "end_date"),
                        ("rating_type", "system", "rounds"),
                        "time_control",
                    ]
                },
            ),
            (
                _("Organiser and arbiters"),
                {
                    "fields": [
                        "organiser",
                        *self.assignment_fields(request),
                        "chief_arbiter_name",
                        ("chief_arbiter_title", "chief_arbiter_licence"),
                    ]
                },
            ),
            (
                _("Title norms"),
                {
                    "fields": ["norm_exemption"],
                    "description": _(
                        "What FIDE's title regulations read of the event (B.01 1.1, 1.4.3): the Chief Arbiter's "
                        "title above, and whether the event is exempt from the federation mix."
                    ),
                },
            ),
        ]
        if obj is not None and obj.pk:
            fieldsets.append(
                (
                    _("Record"),
                    {
                        "classes": ["collapse"],
                        "fields": self.RECORD_FIELDS,
                        "description": _("Kept by the system: the status changes with the buttons above."),
                    },
                )
            )
        return fieldsets

    # --- access (events/admin/permissions.py: the event is the row itself) ---

    event_field = "pk"

    def event_of(self, obj):
        return obj

    def get_queryset(self, request):
        # Explicit order: Meta.ordering is not applied to GROUP BY queries (autocomplete pages them).
        events = (
            super()
            .get_queryset(request)
            .annotate(participant_count=Count("participants"))
            .order_by(*Event._meta.ordering)
        )
        return self.visible_rows(request, events)

    def has_submit_permission(self, request):
        return request.user.has_perm("events.submit_event")

    def get_readonly_fields(self, request, obj=None):
        # results_to_enter: what the file lacked; it is settled by entering the games, never by editing it
        return [*self.RECORD_FIELDS, "chief", "assigned_arbiters"]

    def assignment_fields(self, request) -> list[str]:
        if user_sees_all_events(request.user):
            return ["chief_arbiter", "arbiters"]
        return ["chief", "assigned_arbiters"]  # assignments are the rating officer's: shown, not chosen

    # The record and the list's columns, labelled in the user's language (the model's names are English only).

    @admin.display(description=gettext_lazy("Name"), ordering="name")
    def event_name(self, event):
        return event.name

    @admin.display(description=gettext_lazy("Status"), ordering="status")
    def event_status(self, event):
        return str(event.get_status_display()).replace("-", "\u2011")  # "re-rating" never breaks at its hyphen

    @admin.display(description=gettext_lazy("Chief arbiter"), ordering="chief_arbiter__username")
    def chief(self, event):
        return event.chief_arbiter or "—"

    @admin.display(description=gettext_lazy("Arbiters"))
    def assigned_arbiters(self, event):
        return ", ".join(user.username for user in event.arbiters.all()) or "—"

    @admin.display(description=gettext_lazy("Rated on"), ordering="rated_on")
    def rated_on_list(self, event):
        return event.rated_on or "—"

    @admin.display(description=gettext_lazy("Submitted"))
    def submitted(self, event):
        return localize_moment(event.submitted_at)

    @admin.display(description=gettext_lazy("File"))
    def source_file(self, event):
        return event.source_file_name or "—"

    @admin.display(description=gettext_lazy("Created"))
    def created(self, event):
        return localize_moment(event.created_at)

    @admin.display(description=gettext_lazy("Last changed"))
    def updated(self, event):
        return localize_moment(event.updated_at)

    @admin.display(description=gettext_lazy("Results without opponent"))
    def results_to_enter(self, event):
        """The file's results without an opponent, one line each (not the stored JSON)."""
        rows = event.results_without_opponent or []
        if not rows:
            return "—"
        return format_html_join(
            "",
            "<div>{}</div>",
            (
                (
                    _("Round %(round)s, start rank %(rank)s: %(result)s (line %(line)s)")
                    % {
                        "round": row.get("round"),
                        "rank": row.get("start_rank"),
                        "result": row.get("result"),
                        "line": row.get("line"),
                    },
                )
                for row in rows
            ),
        )

    @admin.display(description=gettext_lazy("Dates"), ordering="end_date")
    def dates(self, event):
        if event.start_date is None:
            return "—"
        if event.end_date is None or event.end_date == event.start_date:
            return f"{event.start_date:%Y-%m-%d}"
        end = (
            f"{event.end_date:%m-%d}" if event.end_date.year == event.start_date.year else f"{event.end_date:%Y-%m-%d}"
        )
        return f"{event.start_date:%Y-%m-%d} – {end}"

    @admin.display(description=gettext_lazy("Event type"), ordering="rating_type")
    def kind(self, event):
        rounds = _("%(count)s rounds") % {"count": event.rounds}
        parts = [event.get_rating_type_display(), event.get_system_display(), rounds]
        return " · ".join(str(part) for part in parts if part)

    def get_inline_instances(self, request, obj=None):
        inlines = super().get_inline_instances(request, obj)
        if obj is None or not (entry_round(request) or request.GET.get("round") == "all"):
            # Games are entered by starting rank once the participants are saved: on the round entry screen
            # (events/admin/rounds.py), or here only when asked for (?round=N, ?round=all); the event page
            # itself stays light whatever the size of the event.
            inlines = [inline for inline in inlines if not isinstance(inline, GameInline)]
        return inlines

    # Staff are chosen as the official types (events/admin/autocomplete.py), never rendered as a select of every
    # staff member into the page: the event page stays light whatever the federation's size (issue 32).
    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "chief_arbiter":
            kwargs["queryset"] = event_staff()
            kwargs["widget"] = StaffSelect(db_field, self.admin_site, url_name="events_event_staff_choices")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "arbiters":
            kwargs["queryset"] = event_staff()
            kwargs["widget"] = StaffSelectMultiple(db_field, self.admin_site, url_name="events_event_staff_choices")
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        formfield = super().formfield_for_dbfield(db_field, request, **kwargs)
        if formfield is not None and isinstance(formfield.widget, RelatedFieldWidgetWrapper):
            related_icons_off(formfield.widget)  # the event form never edits or deletes a federation or a user
        return formfield

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
        else:
            event_create(obj, user=admin_user(request))  # an arbiter's new event is theirs (event_create)

    def save_formset(self, request, form, formset, change):
        if formset.model is not Game:
            return super().save_formset(request, form, formset, change)
        result = event_games_update(form.instance, user=admin_user(request), edits=formset.edits())
        # What construct_change_message reads for the admin's history.
        formset.new_objects = result.created
        formset.changed_objects = result.changed
        formset.deleted_objects = result.deleted

    def response_change(self, request, obj):
        response = super().response_change(request, obj)
        round_ = entry_round(request)
        if round_ and "_continue" in request.POST:
            return HttpResponseRedirect(f"{request.path}?round={round_}")
        return response

    @admin.display(description=gettext_lazy("players"), ordering="participant_count")
    def participant_count(self, event):
        return event.participant_count

    # --- the change page: rounds, standings preview, status buttons, corrections ---

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None and obj.pk:
            context.update(self.entry_context(request, obj))
        return super().render_change_form(request, context, add, change, form_url, obj)

    def entry_context(self, request, event):
        user = request.user
        counts = {
            row["round"]: row
            for row in Game.objects.filter(event=event)
            .values("round")
            .annotate(games=Count("pk"), pending=Count("pk", filter=Q(result="*")))
        }
        last_round = max([event.rounds, *counts])
        rounds = [
            {
                "number": n,
                "games": counts.get(n, {}).get("games", 0),
                "pending": counts.get(n, {}).get("pending", 0),
            }
            for n in range(1, last_round + 1)
        ]
        return {
            "entry_round": entry_round(request),
            "entry_rounds": rounds,
            "participant_pages": participant_pages(event, participant_page(request)),
            "corrections": list(event.corrections.select_related("user")[:20]),
            "can_submit": event_submittable_by(event, user),
            "can_return_to_draft": event_returnable_to_draft_by(event, user),
            "can_correct": event_correctable_by(event, user),
            **lifecycle_context(request, event),
        }

    def get_urls(self):
        prefix = f"{self.opts.app_label}_{self.opts.model_name}"
        return [
            *trf_admin_urls(self),  # TRF upload / download views (events/admin/upload.py)
            *round_admin_urls(self),  # the round entry screen (events/admin/rounds.py)
            *lifecycle_admin_urls(self),
            *autocomplete_admin_urls(self),  # players and staff as the arbiter types (events/admin/autocomplete.py)
            *participants_add_urls(self),  # many participants at once (events/admin/participants.py)
            path(
                "<path:object_id>/submit/",
                self.admin_site.admin_view(self.submit_view),
                name=f"{prefix}_submit",
            ),
            path(
                "<path:object_id>/return-to-draft/",
                self.admin_site.admin_view(self.return_to_draft_view),
                name=f"{prefix}_return_to_draft",
            ),
            path(
                "<path:object_id>/correct/",
                self.admin_site.admin_view(lambda request, object_id: correct_view(self, request, object_id)),
                name=f"{prefix}_correct",
            ),
            *super().get_urls(),
        ]

    # --- what the views of events/admin/ share ---

    def event_or_redirect(self, request, object_id):
        """(event, None), or (None, the change page's answer) for an unknown event or one not this user's."""
        event = self.get_object(request, unquote(object_id))
        if event is None:  # unknown, or not this user's: the same answer as the change page
            return None, self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        return event, None

    def change_url(self, event):
        return reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[event.pk])

    def status_run(self, request, event, service, done: str) -> bool:
        """A status service of the buttons and actions: "<event>: <done>." when it went through."""
        message = _("%(name)s: %(done)s.") % {"name": event.name, "done": done.lower()}
        return transition_run(self, request, event, service, log=done, message=message)

    def submit_view(self, request, object_id):
        return transition_view(
            self,
            request,
            object_id,
            event_submittable_by,
            lambda event: self.status_run(request, event, event_submit, _("Submitted for rating")),
        )

    def return_to_draft_view(self, request, object_id):
        return transition_view(
            self,
            request,
            object_id,
            event_returnable_to_draft_by,
            lambda event: self.status_run(request, event, event_return_to_draft, _("Returned to draft")),
        )

    # --- actions ---

    @admin.action(description=gettext_lazy("Submit selected events for rating"), permissions=["submit"])
    def submit_for_rating(self, request, queryset):
        self._bulk(
            request,
            queryset,
            event_submittable_by,
            event_submit,
            _("Submitted for rating"),
            _("is not a draft you can submit"),
        )

    @admin.action(description=gettext_lazy("Return selected submitted events to draft"), permissions=["submit"])
    def return_to_draft(self, request, queryset):
        self._bulk(
            request,
            queryset,
            event_returnable_to_draft_by,
            event_return_to_draft,
            _("Returned to draft"),
            _("is not a submitted event you can return to draft"),
        )

    def _bulk(self, request, queryset, allowed, service, done: str, refused: str) -> None:
        for event in queryset:
            if not allowed(event, request.user):
                message = _("%(name)s %(refused)s.") % {"name": event.name, "refused": refused}
                self.message_user(request, message, messages.WARNING)
                continue
            self.status_run(request, event, service, done)
