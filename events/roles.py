"""Who may do what with events: the two staff roles and the access rules every admin view applies.

Two groups are kept in step with the code after every ``migrate`` (a ``post_migrate`` handler rather than a
one-off data migration, so that permissions added later — e.g. a ratings ``publish`` permission — reach the
groups, and so that test databases flushed between tests get them back):

- **Arbiters** see and edit only the events they are assigned to (``Event.chief_arbiter`` or
  ``Event.arbiters``), with their participants and games; they may submit them for rating.
- **Rating officers** see everything (``events.manage_all_events``), correct rated events, publish lists and
  merge duplicate players: every permission of the players, events, ratings and schedule apps.

Access is decided by permissions, never by group names, so a federation may regroup them in the admin.
"""

from django.apps import apps as global_apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q, QuerySet

from core.roles import ARBITERS_GROUP as ARBITERS
from core.roles import RATING_OFFICERS_GROUP as RATING_OFFICERS
from events.models import CORRECTABLE_STATUSES, STATUS_TRANSITIONS, Event, EventStatus

REFUSABLE_STATUSES = [status for status, following in STATUS_TRANSITIONS.items() if EventStatus.REFUSED in following]

__all__ = ["ARBITERS", "RATING_OFFICERS"]  # re-exported: the one spelling of the group names

# "app_label.codename", or "app_label.*" for every permission of the app (including ones added later).
ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    ARBITERS: (
        "events.view_event",
        "events.add_event",
        "events.change_event",
        "events.delete_event",
        "events.submit_event",
        "events.view_participant",
        "events.add_participant",
        "events.change_participant",
        "events.delete_participant",
        "events.view_game",
        "events.add_game",
        "events.change_game",
        "events.delete_game",
        "events.view_eventcorrection",
        # Looking players up while entering participants; newcomers they register are marked needs_review.
        "players.view_player",
        "players.add_player",
        "players.view_federation",
        # Their own personal API token (events/admin/tokens.py shows each user only theirs).
        "authtoken.view_tokenproxy",
        "authtoken.add_tokenproxy",
        "authtoken.delete_tokenproxy",
    ),
    RATING_OFFICERS: (
        "events.*",
        "players.*",
        "ratings.*",
        "audit.*",
        "django_celery_beat.*",
        "authtoken.view_tokenproxy",
        "authtoken.add_tokenproxy",
        "authtoken.delete_tokenproxy",
    ),
}


# The statuses in which the arbiters of an event enter its results through the ordinary forms (issue 15).
ARBITER_ENTRY_STATUSES = [EventStatus.REGISTERED, EventStatus.DRAFT, EventStatus.CHECKED]


def user_sees_all_events(user) -> bool:
    return bool(user.is_active and user.has_perm("events.manage_all_events"))


def events_visible_to(user) -> QuerySet[Event]:
    """Every event for rating officers; for anyone else the events they are chief arbiter or arbiter of."""
    events = Event.objects.all()
    if user_sees_all_events(user):
        return events
    if isinstance(user, AnonymousUser) or not user.is_active:
        return events.none()
    assigned = Event.arbiters.through.objects.filter(user_id=user.pk).values("event_id")
    return events.filter(Q(chief_arbiter_id=user.pk) | Q(pk__in=assigned))


def events_editable_by(user) -> QuerySet[Event]:
    """The events whose games ``user`` may enter through the ordinary forms (event_results_editable_by)."""
    statuses = (
        [*ARBITER_ENTRY_STATUSES, EventStatus.SUBMITTED] if user_sees_all_events(user) else ARBITER_ENTRY_STATUSES
    )
    return events_visible_to(user).filter(status__in=statuses)


def event_is_visible_to(event: Event, user) -> bool:
    if user_sees_all_events(user):
        return True
    if not user.is_active or event.pk is None:
        return False
    if event.chief_arbiter_id == user.pk:
        return True
    # Asked several times per admin page (view/change/inline permissions): remember the answer on the event.
    cache = event.__dict__.setdefault("_assigned_users", {})
    if user.pk not in cache:
        cache[user.pk] = event.arbiters.filter(pk=user.pk).exists()
    return cache[user.pk]


def event_results_editable_by(event: Event, user) -> bool:
    """May ``user`` change the event, its participants and games through the ordinary forms?

    Arbiters edit their events while registered, in draft or checked; a submitted event is frozen for them (the
    rating officer checks it, and may edit it or send it back to draft). Rated and corrected events change only
    through a correction (events.services.event_correct).
    """
    if event.pk is None:
        return True
    if event.status in ARBITER_ENTRY_STATUSES:
        return event_is_visible_to(event, user)
    if event.status == EventStatus.SUBMITTED:
        return user_sees_all_events(user)
    return False


def event_correctable_by(event: Event, user) -> bool:
    return (
        event.status in CORRECTABLE_STATUSES
        and user.has_perm("events.correct_event")
        and event_is_visible_to(event, user)
    )


def event_submittable_by(event: Event, user) -> bool:
    return (
        event.status in (EventStatus.DRAFT, EventStatus.CHECKED)
        and user.has_perm("events.submit_event")
        and event_is_visible_to(event, user)
    )


def event_checkable_by(event: Event, user) -> bool:
    return event.status == EventStatus.DRAFT and event_is_visible_to(event, user)


def event_returnable_to_draft_by(event: Event, user) -> bool:
    if event.status == EventStatus.REFUSED:  # reopening a refused event is the officials' decision
        return event_reviewable_by(event, user)
    return (
        event.status in (EventStatus.SUBMITTED, EventStatus.CHECKED)
        and user.has_perm("events.submit_event")
        and event_is_visible_to(event, user)
    )


def event_reviewable_by(event: Event, user) -> bool:
    """Officials (``events.review_event``) approve or refuse events and clear their flags; never arbiters."""
    return bool(user.is_active and user.has_perm("events.review_event") and event_is_visible_to(event, user))


def integrity_flags_clearable_by(event: Event, user) -> bool:
    """Officials clear flags (``events.clear_integrityflag``); never the event's arbiters."""
    return event_reviewable_by(event, user) and user.has_perm("events.clear_integrityflag")


def event_incomplete_overridable_by(event: Event, user) -> bool:
    """Officials may submit an event whose play is incomplete (issue 32: stopped early, a round never entered)
    with a written reason: the same officials who approve or refuse events (``events.review_event``)."""
    return user is not None and event_reviewable_by(event, user)


def event_registration_approvable_by(event: Event, user) -> bool:
    return (
        event.status == EventStatus.REGISTERED
        and event.registration_approved_at is None
        and event_reviewable_by(event, user)
    )


def event_refusable_by(event: Event, user) -> bool:
    return event.status in REFUSABLE_STATUSES and event_reviewable_by(event, user)


def roles_sync(sender=None, *, using: str = "default", apps=global_apps, **kwargs) -> None:
    """Create the two groups and add any permission they lack (``post_migrate`` receiver; idempotent).

    Only adds: permissions an administrator granted by hand stay. Runs once, after the last application's
    post_migrate (when every app's permissions exist).
    """
    last = [config for config in global_apps.get_app_configs() if config.models_module is not None][-1]
    if sender is not None and sender.label != last.label:
        return
    try:
        group_model = apps.get_model("auth", "Group")
        permission_model = apps.get_model("auth", "Permission")
    except LookupError:
        return
    for group_name, specs in ROLE_PERMISSIONS.items():
        group, _ = group_model.objects.using(using).get_or_create(name=group_name)
        query = Q(pk__in=[])
        for spec in specs:
            app_label, codename = spec.split(".", 1)
            if codename == "*":
                query |= Q(content_type__app_label=app_label)
            else:
                query |= Q(content_type__app_label=app_label, codename=codename)
        wanted = set(permission_model.objects.using(using).filter(query).values_list("pk", flat=True))
        have = set(group.permissions.values_list("pk", flat=True))
        if wanted - have:
            group.permissions.add(*(wanted - have))


def event_staff() -> QuerySet:
    """The users an event may name as chief arbiter or arbiter: active staff of the two roles, or superusers."""
    return (
        get_user_model()
        .objects.filter(is_active=True, is_staff=True)
        .filter(Q(groups__name__in=[ARBITERS, RATING_OFFICERS]) | Q(is_superuser=True))
        .distinct()
        .order_by("username")
    )
