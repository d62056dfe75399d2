"""Writes to events: entering games, the status flow and corrections.

The status flow (issue 15): registered → draft (results received) → checked → submitted → rated on a list
(→ corrected → re-rated), or refused with a reason. Every move goes through ``events_status_change``, the
one function that writes an event's status and its timeline (``EventStatusChange``).

Every function is one transaction and refuses bad requests with ``django.core.exceptions.ValidationError``
whose message names the event, round and players. Permissions (who may call) are the caller's business —
the admin checks them with events/roles.py — except that each function refuses a status it does not apply to.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from simple_history.utils import bulk_create_with_history, bulk_update_with_history

from audit.models import AuditAction
from audit.services import Actor, acting_user, audit_record
from events.deadlines import DeadlineFlag, registration_flag, submission_flags
from events.models import (
    CORRECTABLE_STATUSES,
    STATUS_TRANSITIONS,
    Event,
    EventCorrection,
    EventStatus,
    EventStatusChange,
    Game,
    IntegrityFlag,
    Participant,
    Result,
)
from events.notifications import EMAIL_TASK, EMAILS_TASK
from events.roles import event_incomplete_overridable_by, user_sees_all_events
from events.services_completeness import event_incomplete, event_round_counts
from outbox.services import enqueue_after_commit
from outbox.webhooks import webhooks_notify

ENTRY_STATUSES = (EventStatus.REGISTERED, EventStatus.DRAFT, EventStatus.CHECKED, EventStatus.SUBMITTED)
GAME_FIELDS = ("round", "board", "white", "black", "result", "date")
# Rounds parked out of the way while pairings are rewritten (see _games_apply); smallint max is 32767.
_PARKING_ROUND = 32767


@dataclass(frozen=True)
class GameEdit:
    """One change to an event's games: a new game (``game_id`` None), a change, or a deletion.

    ``expected_version`` is the ``Game.version`` the editor saw (optimistic lock); None skips the check.
    """

    game_id: int | None = None
    round: int | None = None
    board: int | None = None
    white_id: int | None = None
    black_id: int | None = None
    result: str = Result.PENDING
    date: datetime.date | None = None
    expected_version: int | None = None
    delete: bool = False


@dataclass
class GamesUpdate:
    """What ``event_games_update`` / ``event_correct`` did; ``changes`` is the before/after record."""

    created: list[Game] = field(default_factory=list)
    changed: list[tuple[Game, list[str]]] = field(default_factory=list)
    deleted: list[Game] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)


def events_status_change(
    events: Sequence[Event],
    to: str,
    *,
    user: Actor,
    reason: str = "",
    rating_list_id: int | None = None,
) -> list[EventStatusChange]:
    """THE status transition: move ``events`` (read in the caller's transaction, locked for a single event) to
    ``to``, with one timeline row each (who, when, from, to, why, on which list) and a history record each.

    Refused (ValidationError naming the event) when a status may not follow the current one
    (``STATUS_TRANSITIONS``). ``submitted_at`` is set on submission and cleared on a return to draft;
    ``rated_on`` is set to ``rating_list_id`` when the event becomes rated. A fixed number of queries whatever
    the number of events (the publication moves all of a list's events in batches).
    """
    assert connection.in_atomic_block, "events_status_change must run inside the caller's transaction"
    if to not in EventStatus.values:
        raise ValidationError(f"Unknown event status {to!r}.")
    refused = [event for event in events if to not in STATUS_TRANSITIONS[event.status]]
    if refused:
        raise ValidationError(
            [
                _("%(event)s is %(status)s; it cannot become %(to)s.")
                % {
                    "event": event.name,
                    "status": event.get_status_display().lower(),
                    "to": str(EventStatus(to).label).lower(),
                }
                for event in refused
            ]
        )
    if not events:
        return []
    now = timezone.now()
    actor = acting_user(user)
    values: dict[str, Any] = {"status": to, "updated_at": now}
    if to == EventStatus.SUBMITTED:
        values["submitted_at"] = now
    elif to in (EventStatus.DRAFT, EventStatus.REGISTERED):
        values["submitted_at"] = None
    if to == EventStatus.RATED:
        values["rated_on_id"] = rating_list_id
    Event.objects.filter(pk__in=[event.pk for event in events]).update(**values)
    changes = [
        EventStatusChange(
            event_id=event.pk,
            at=now,
            user=actor,
            from_status=event.status,
            to_status=to,
            reason=reason,
            rating_list_id=rating_list_id if to == EventStatus.RATED else None,
        )
        for event in events
    ]
    for event in events:
        for name, value in values.items():
            setattr(event, name, value)
    Event.history.bulk_history_create(
        list(events), update=True, default_user=actor, default_change_reason=reason or f"status: {to}"
    )
    written = EventStatusChange.objects.bulk_create(changes)
    # Other software is told (webhooks, issue 15): every status change, and ratings as event.rated.
    payloads = [
        {"event": event.pk, "name": event.name, "from": change.from_status, "to": to, "reason": reason}
        for event, change in zip(events, changes, strict=True)
    ]
    webhooks_notify("event.status_changed", payloads)
    if to == EventStatus.RATED:
        webhooks_notify("event.rated", [{**payload, "rating_list": rating_list_id} for payload in payloads])
        enqueue_after_commit(EMAILS_TASK, [event.pk for event in events], "rated")  # the arbiters are told
    return written


@dataclass(frozen=True)
class IntegrityFinding:
    """What a screen found: the check, the rule with its threshold, the evidence (JSON values)."""

    kind: str  # an IntegrityCheck
    rule: str
    evidence: dict[str, Any]


# Screens run on submission (issue 15). Registered by higher layers (ratings: they need the rating rules),
# as players' merge registers rows: ``submission_screen_register`` in their AppConfig.ready.
SUBMISSION_SCREENS: list[Callable[[Event], list[IntegrityFinding]]] = []


def submission_screen_register(screen: Callable[[Event], list[IntegrityFinding]]) -> None:
    if screen not in SUBMISSION_SCREENS:
        SUBMISSION_SCREENS.append(screen)


# What other apps keep about an event once its results are complete (submitted) or corrected: the ratings app's
# title norms (ratings.services.norms.event_norms_store), registered in its AppConfig.ready.
RESULTS_COMPLETE_HOOKS: list[Callable[[Event], object]] = []


def results_complete_register(hook: Callable[[Event], object]) -> None:
    if hook not in RESULTS_COMPLETE_HOOKS:
        RESULTS_COMPLETE_HOOKS.append(hook)


def _results_complete(event: Event) -> None:
    for hook in RESULTS_COMPLETE_HOOKS:
        hook(event)


def event_screen(event: Event, *, user: Actor) -> list[IntegrityFlag]:
    """Run every registered screen on ``event`` (in the caller's transaction); each finding becomes a flag and
    an audit record with its rule and evidence. Flags already open for the same check are not repeated."""
    findings = [finding for screen in SUBMISSION_SCREENS for finding in screen(event)]
    open_checks = set(IntegrityFlag.objects.filter(event=event, cleared_at__isnull=True).values_list("kind", "rule"))
    flags = IntegrityFlag.objects.bulk_create(
        IntegrityFlag(event=event, kind=f.kind, rule=f.rule, evidence=f.evidence)
        for f in findings
        if (f.kind, f.rule) not in open_checks
    )
    for flag in flags:
        audit_record(
            user,
            "event.integrity_flag",
            event,
            reason=flag.rule,
            after={"check": flag.kind, "rule": flag.rule, "evidence": flag.evidence},
        )
    return flags


def integrity_flag_clear(flag: IntegrityFlag, *, user: Actor, reason: str) -> IntegrityFlag:
    """An official clears a flag after looking at its evidence (the reason is kept and audited)."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError(_("Clearing a flag needs a reason (it is kept with the event's record)."))
    with transaction.atomic():
        locked = IntegrityFlag.objects.select_for_update().select_related("event").get(pk=flag.pk)
        if locked.cleared_at is not None:
            raise ValidationError(_("The flag '%(rule)s' was already cleared.") % {"rule": locked.rule})
        locked.cleared_at, locked.cleared_by, locked.clear_reason = timezone.now(), acting_user(user), reason
        locked.save(update_fields=["cleared_at", "cleared_by", "clear_reason"])
        audit_record(
            user,
            "event.integrity_clear",
            locked.event,
            reason=reason,
            before={"check": locked.kind, "rule": locked.rule, "evidence": locked.evidence},
            after={"cleared": True},
        )
    flag.cleared_at, flag.cleared_by, flag.clear_reason = locked.cleared_at, locked.cleared_by, reason
    return flag


def event_games_update(event: Event, *, user: Actor, edits: list[GameEdit]) -> GamesUpdate:
    """Apply entered games (registered, draft, checked or submitted events). Rated results change only via
    ``event_correct``. Results entered for a registered event mean they were received (→ draft); a change to a
    checked event undoes the check (→ draft)."""
    with transaction.atomic():
        locked = _event_lock(event)
        if locked.status not in ENTRY_STATUSES:
            raise ValidationError(
                _("%(event)s is %(status)s: its results change only through a correction (with the reason recorded).")
                % {"event": locked.name, "status": locked.get_status_display().lower()}
            )
        update = _games_apply(locked, edits, user=acting_user(user), reason="")
        if locked.status in (EventStatus.REGISTERED, EventStatus.CHECKED) and update.changes:
            why = "results received" if locked.status == EventStatus.REGISTERED else "results changed after the check"
            events_status_change([locked], EventStatus.DRAFT, user=user, reason=why)
    _copy_state(locked, event)
    return update


def event_problems(event: Event) -> list[str]:
    """What stops ``event`` from being submitted for rating, each naming where it must be fixed (none: ready).

    What rating needs (issue 15: an incomplete file imports as a draft): the dates, the rating type, the birth
    year and sex of every new player (``needs_review``: created by an import or an arbiter); games; and play
    complete (issue 32, ``events.services_completeness``): every declared round paired, every board with a
    result, every player paired or given a bye.
    """
    blocking, incomplete = event_submission_problems(event)
    return [*blocking, *incomplete]


def event_submission_problems(event: Event) -> tuple[list[str], list[str]]:
    """(what nobody may override, what an official may override with a reason): ``event_problems`` in two.

    Rating cannot go without the event's dates, rating type, new players' data and some games; an event whose
    play is incomplete (stopped early, a round never entered) may be rated as it stands if an official says why.
    """
    blocking = event_missing_for_rating(event)
    counts = event_round_counts(event)
    if not counts:
        return [
            *blocking,
            _("%(event)s has no games yet; enter the results before submitting.") % {"event": event.name},
        ], []
    return blocking, event_incomplete(event, counts)


# New players (and results without an opponent) shown in the list of what is missing; the rest are counted.
_MISSING_PLAYERS_SHOWN = 20


def event_missing_for_rating(event: Event) -> list[str]:
    """The event's fields and new players' data rating needs and the event lacks, each naming where to fix it."""
    problems = []
    if event.start_date is None:
        problems.append(
            _("%(event)s: the start date is missing (TRF record 042); enter it in the event's Start date.")
            % {"event": event.name}
        )
    if event.end_date is None:
        problems.append(
            _("%(event)s: the end date is missing (TRF record 052); enter it in the event's End date.")
            % {"event": event.name}
        )
    if not event.rating_type:
        problems.append(
            _("%(event)s: the rating type is not given (TRF record 092); choose it in the event's Rating type.")
            % {"event": event.name}
        )
    incomplete = list(
        Participant.objects.filter(event=event, player__needs_review=True)
        .filter(Q(player__birth_year__isnull=True) | Q(player__sex=""))
        .select_related("player")
        .order_by("start_rank")
    )
    for participant in incomplete[:_MISSING_PLAYERS_SHOWN]:
        player = participant.player
        missing = " and ".join(
            what for what, absent in (("birth year", player.birth_year is None), ("sex", not player.sex)) if absent
        )
        problems.append(
            f"Player {participant.start_rank}, {player.name} (ID {player.id_number}), is new and has no {missing}: "
            "enter it in the player's record (the list carries year of birth and gender, B.02 7.1.2; "
            "K depends on age, B.02 8.3.3)."
        )
    if len(incomplete) > _MISSING_PLAYERS_SHOWN:
        problems.append(f"... and {len(incomplete) - _MISSING_PLAYERS_SHOWN} more new players without them.")
    return problems + _results_without_opponent(event)


def _results_without_opponent(event: Event) -> list[str]:
    """The rounds the imported file gave a game's result without an opponent (``Event.results_without_opponent``)
    and the player still has no game in: what to enter, and where the file had it. Two queries, only when the
    file had any."""
    recorded = event.results_without_opponent or []
    if not recorded:
        return []
    ranks = {int(item["start_rank"]) for item in recorded}
    names = {
        participant.start_rank: participant.player.name
        for participant in Participant.objects.filter(event=event, start_rank__in=ranks)
        .select_related("player")
        .only("start_rank", "player__surname", "player__given_names")
    }
    entered = {
        (round_number, rank)
        for round_number, white, black in Game.objects.filter(event=event)
        .filter(Q(white__start_rank__in=ranks) | Q(black__start_rank__in=ranks))
        .values_list("round", "white__start_rank", "black__start_rank")
        for rank in (white, black)
    }
    problems: list[str] = []
    more = 0
    for item in recorded:
        round_number, rank = int(item["round"]), int(item["start_rank"])
        if rank not in names or (round_number, rank) in entered:
            continue  # entered since (or the player was taken out of the event)
        if len(problems) == _MISSING_PLAYERS_SHOWN:
            more += 1
            continue
        column = int(item["column"])
        problems.append(
            f"Player {rank}, {names[rank]}, round {round_number}: the file (line {item['line']}, columns "
            f"{column}-{column + 3}) gives the result {item['result']!r} but no opponent; enter the game of round "
            f"{round_number} with its opponent, or the bye, for player {rank}."
        )
    if more:
        problems.append(f"... and {more} more rounds with a result but no opponent.")
    return problems


def event_check(event: Event, *, user: Actor) -> list[str]:
    """draft → checked when nothing stops the event from being submitted; otherwise the problems (the status
    stays). A checked event is submitted by ``event_submit``; a change to its games undoes the check."""
    with transaction.atomic():
        locked = _event_lock(event)
        if locked.status not in (EventStatus.DRAFT, EventStatus.CHECKED):
            raise ValidationError(
                f"{locked.name} is {locked.get_status_display().lower()}; only a draft is checked before submission."
            )
        problems = event_problems(locked)
        if not problems and locked.status == EventStatus.DRAFT:
            events_status_change([locked], EventStatus.CHECKED, user=user, reason="checked: ready for submission")
    _copy_state(locked, event)
    return problems


def event_submit(event: Event, *, user: Actor, override_reason: str = "") -> Event:
    """draft → checked → submitted: the event goes to the rating officer. Refused while anything stops it
    (``event_problems``: no games, a game without a result, a declared round without pairings, an import
    problem not fixed yet).

    Incomplete play (issue 32: ``event_incomplete``) is the one refusal an official may override
    (``events.roles.event_incomplete_overridable_by``) with ``override_reason``: the reason and what was missing
    go to the timeline's submission step and to the audit trail (``event.submit_incomplete``).
    """
    override_reason = (override_reason or "").strip()
    with transaction.atomic():
        locked = _event_lock(event)
        if locked.status not in (EventStatus.DRAFT, EventStatus.CHECKED):
            raise ValidationError(
                _("%(event)s is %(status)s; only a draft can be submitted for rating.")
                % {"event": locked.name, "status": locked.get_status_display().lower()}
            )
        blocking, incomplete = event_submission_problems(locked)
        _submission_refuse(locked, user, blocking, incomplete, override_reason)
        status_before = locked.status
        _deadline_flags_add(locked, submission_flags(locked.rating_type, _dated(locked.end_date), timezone.localdate()))
        if locked.status == EventStatus.DRAFT:
            events_status_change([locked], EventStatus.CHECKED, user=user, reason="checked on submission")
        # Kept as written in the record, like every timeline reason (the timeline is the event's history).
        overridden = f"submitted incomplete, an official's decision: {override_reason}"
        events_status_change([locked], EventStatus.SUBMITTED, user=user, reason=overridden if incomplete else "")
        if incomplete:
            audit_record(
                user,
                "event.submit_incomplete",
                locked,
                reason=override_reason,
                before={"status": status_before, "incomplete": incomplete},
                after={"status": locked.status},
            )
        event_screen(locked, user=user)
        _results_complete(locked)
        audit_record(
            user,
            AuditAction.EVENT_SUBMIT,
            locked,
            before={"status": status_before},
            after={"status": locked.status, "submitted_at": locked.submitted_at, "games": locked.games.count()},
        )
    _copy_state(locked, event)
    return event


def _submission_refuse(event: Event, user: Actor, blocking: list[str], incomplete: list[str], reason: str) -> None:
    """Refuse the submission (ValidationError with every problem) unless only incomplete play stands in the way
    and an official gives the reason for rating it as it stands (issue 32)."""
    if blocking or (incomplete and not reason):
        raise ValidationError([*blocking, *incomplete])
    if incomplete and not event_incomplete_overridable_by(event, user):
        raise ValidationError(
            [
                *incomplete,
                _("Only an official (permission: approve or refuse events) may submit an incomplete event."),
            ]
        )


def event_return_to_draft(event: Event, *, user: Actor) -> Event:
    """submitted, checked or refused → draft: the arbiter (or the rating officer sending it back) can edit
    again."""
    with transaction.atomic():
        locked = _event_lock(event)
        if locked.status not in (EventStatus.SUBMITTED, EventStatus.CHECKED, EventStatus.REFUSED):
            raise ValidationError(
                f"{locked.name} is {locked.get_status_display().lower()}; only a submitted event returns to draft."
            )
        status_before, submitted_at = locked.status, locked.submitted_at
        events_status_change([locked], EventStatus.DRAFT, user=user, reason="returned to draft")
        audit_record(
            user,
            "event.return_to_draft",
            locked,
            before={"status": status_before, "submitted_at": submitted_at},
            after={"status": EventStatus.DRAFT},
        )
    _copy_state(locked, event)
    return event


@dataclass(frozen=True)
class Registration:
    """What a rating authority asks when an event is registered before play (issue 15)."""

    name: str
    start_date: datetime.date
    end_date: datetime.date
    rounds: int
    rating_type: str
    system: str
    city: str = ""
    federation_id: str | None = None
    time_control: str = ""
    organiser: str = ""
    expected_players: int | None = None
    strong_field: bool = False
    deputies: tuple[int, ...] = ()  # user ids of the deputy arbiters


def event_create(event: Event, *, user: Actor, timeline_reason: str | None = None) -> Event:
    """Save a new ``event`` built by its caller (the admin's add form, a TRF import, a registration), in the
    caller's transaction: its creator is recorded as the author of its first history row and, when
    ``timeline_reason`` is given, of the first step of its timeline (``event_timeline_start``).

    The one place where "an arbiter's new event is theirs" is written: an arbiter (a user who does not see every
    event, events/roles.py) becomes the chief arbiter of the event they create, so that they can see, enter,
    check and submit it; rating officers assign events. Whoever registers an event before play (issue 15) is
    its chief arbiter, officials included: the registration names no other.
    """
    assert event.pk is None, "event_create saves new events only"
    assert connection.in_atomic_block, "event_create must run inside the caller's transaction"
    if isinstance(user, User) and (event.status == EventStatus.REGISTERED or not user_sees_all_events(user)):
        event.chief_arbiter = user
    event._history_user = acting_user(user)  # simple_history's author of the history row
    event.save()
    if timeline_reason is not None:
        event_timeline_start(event, user=user, reason=timeline_reason)
    return event


def event_register(registration: Registration, *, user: User, today: datetime.date | None = None) -> Event:
    """Register an event before it starts: status registered, ``user`` its chief arbiter (``event_create``). A
    late registration is accepted and flagged with the rule it broke (``events.deadlines``); an official
    approves or refuses it."""
    today = today or timezone.localdate()
    if registration.end_date < registration.start_date:
        raise ValidationError(
            f"The event ends ({registration.end_date:%Y-%m-%d}) before it starts ({registration.start_date:%Y-%m-%d})."
        )
    flag = registration_flag(registration.rating_type, registration.start_date, registration.strong_field, today)
    now = timezone.now()
    with transaction.atomic():
        event = Event(
            name=registration.name,
            city=registration.city,
            federation_id=registration.federation_id,
            start_date=registration.start_date,
            end_date=registration.end_date,
            rounds=registration.rounds,
            rating_type=registration.rating_type,
            system=registration.system,
            time_control=registration.time_control,
            organiser=registration.organiser,
            expected_players=registration.expected_players,
            strong_field=registration.strong_field,
            status=EventStatus.REGISTERED,
            registered_at=now,
            deadline_flags=[flag.as_json(now)] if flag else [],
        )
        reason = f"registered late: {flag.rule}" if flag else "registered"
        event_create(event, user=user, timeline_reason=reason)
        if registration.deputies:
            event.arbiters.set(registration.deputies)
        audit_record(user, "event.register", event, after={"late": flag.rule if flag else None})
    return event


def event_timeline_start(event: Event, *, user: Actor, reason: str) -> EventStatusChange:
    """The first step of a new event's timeline (no status before it): registered, or results received when
    an event is created with its results (a TRF import). Every later step is ``events_status_change``'s."""
    return EventStatusChange.objects.create(
        event=event,
        at=event.created_at or timezone.now(),
        user=acting_user(user),
        from_status="",
        to_status=event.status,
        reason=reason,
    )


def event_registration_approve(event: Event, *, user: Actor) -> Event:
    """An official confirms a registration; the arbiter is told by e-mail (the confirmation FIDE organisers
    miss). A late registration is confirmed with its flag kept."""
    with transaction.atomic():
        locked = _event_lock(event)
        if locked.status != EventStatus.REGISTERED or locked.registration_approved_at is not None:
            raise ValidationError(_("%(event)s is not a registration waiting for approval.") % {"event": locked.name})
        events_status_change([locked], EventStatus.REGISTERED, user=user, reason="registration approved")
        locked.registration_approved_at = timezone.now()
        Event.objects.filter(pk=locked.pk).update(registration_approved_at=locked.registration_approved_at)
        audit_record(user, "event.registration_approve", locked, after={"flags": locked.deadline_flags})
        enqueue_after_commit(EMAIL_TASK, locked.pk, "registration_confirmed")
    event.registration_approved_at = locked.registration_approved_at
    _copy_state(locked, event)
    return event


def _dated(value: datetime.date | None) -> datetime.date:
    assert value is not None, "event_problems refuses a submission without dates"
    return value


def _deadline_flags_add(event: Event, flags: list[DeadlineFlag]) -> None:
    """Record missed deadlines on the locked event (each once: a resubmission does not repeat them)."""
    now = timezone.now()
    known = {flag["rule"] for flag in event.deadline_flags}
    new = [flag.as_json(now) for flag in flags if flag.rule not in known]
    if new:
        event.deadline_flags = [*event.deadline_flags, *new]
        Event.objects.filter(pk=event.pk).update(deadline_flags=event.deadline_flags)


def event_refuse(event: Event, *, user: Actor, reason: str) -> Event:
    """registered, draft, checked or submitted → refused, with the reason the arbiter is shown (officials)."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError(_("A refusal needs a reason (the arbiter is shown it)."))
    with transaction.atomic():
        locked = _event_lock(event)
        status_before = locked.status
        events_status_change([locked], EventStatus.REFUSED, user=user, reason=reason)
        audit_record(
            user,
            "event.refuse",
            locked,
            reason=reason,
            before={"status": status_before},
            after={"status": EventStatus.REFUSED},
        )
        enqueue_after_commit(EMAIL_TASK, locked.pk, "refused", reason)
    _copy_state(locked, event)
    return event


def event_correct(event: Event, *, user: User, reason: str, edits: list[GameEdit]) -> EventCorrection:
    """Change the games of a rated (or already corrected) event, recording who, when, why and what.

    The event goes to status ``corrected``; the rating officer then republishes the lists it was rated on
    (ratings.services). ``EventCorrection.changes["games"]`` holds one entry per game with ``before`` and
    ``after`` (round, board, white/black participant and starting rank and ID number, result, date).
    """
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError(_("A correction needs a reason (it is kept with the event's record)."))
    if not edits:
        raise ValidationError(_("Nothing to correct: no game was changed, added or deleted."))
    with transaction.atomic():
        locked = _event_lock(event)
        if locked.status not in CORRECTABLE_STATUSES:
            raise ValidationError(
                f"{locked.name} is {locked.get_status_display().lower()}; corrections are for rated events "
                "(edit a draft or submitted event directly)."
            )
        update = _games_apply(locked, edits, user=user, reason=f"correction: {reason}")
        if not update.changes:
            raise ValidationError(_("Nothing to correct: the games are already as entered."))
        correction = EventCorrection.objects.create(
            event=locked,
            user=user,
            reason=reason,
            status_before=locked.status,
            changes={"games": update.changes},
        )
        status_before = locked.status
        events_status_change([locked], EventStatus.CORRECTED, user=user, reason=f"correction: {reason}")
        _results_complete(locked)
        audit_record(
            user,
            AuditAction.EVENT_CORRECT,
            locked,
            reason=reason,
            before={"status": status_before, "games": [c["before"] for c in update.changes]},
            after={
                "status": locked.status,
                "games": [c["after"] for c in update.changes],
                "correction": correction.pk,
            },
        )
    _copy_state(locked, event)
    return correction


# The reason and the game edits read from a correction's forms, or None when the forms are invalid.
CorrectionEntry = tuple[str, list[GameEdit]] | None


def event_correct_entered(
    event: Event, *, user: User, games: QuerySet[Game], entered: Callable[[QuerySet[Game]], CorrectionEntry]
) -> EventCorrection | None:
    """``event_correct`` for a correction typed into forms (the admin's "correct results"), in one transaction
    that also holds the games shown: ``entered`` validates the forms against ``games`` locked for update, so
    the versions they compare (the optimistic lock) cannot change before the correction is written. None when
    ``entered`` finds the forms invalid (nothing is written); refusals as ``event_correct``'s."""
    with transaction.atomic():
        entry = entered(games.select_for_update(of=("self",)))
        if entry is None:
            return None
        reason, edits = entry
        return event_correct(event, user=user, reason=reason, edits=edits)


# --- internals -----------------------------------------------------------------------------------------


def _event_lock(event: Event) -> Event:
    # One writer per event at a time: status checks and game edits see a stable event.
    return Event.objects.select_for_update().get(pk=event.pk)


def _copy_state(source: Event, target: Event) -> None:
    if source is not target:
        target.status, target.submitted_at, target.updated_at = (
            source.status,
            source.submitted_at,
            source.updated_at,
        )


def _snapshot(game: Game, participants: dict[int, Participant]) -> dict[str, Any]:
    white = participants.get(game.white_id)
    black = participants.get(game.black_id) if game.black_id else None
    return {
        "round": game.round,
        "board": game.board,
        "result": game.result,
        "date": game.date.isoformat() if game.date else None,
        "white": game.white_id,
        "white_rank": white.start_rank if white else None,
        "white_player": white.player.id_number if white else None,
        "black": game.black_id,
        "black_rank": black.start_rank if black else None,
        "black_player": black.player.id_number if black else None,
    }


def _games_apply(event: Event, edits: list[GameEdit], *, user: User | None, reason: str) -> GamesUpdate:
    """Apply edits to the locked event's games with a fixed number of queries, whatever the count.

    Pairings are rewritten in two steps so that a swap (A–B, C–D → A–C, B–D) never passes through a state
    the unique constraints and the 0003 triggers refuse: changed games are first parked each in a round of
    its own, then written in their final state; deletions go first, new games last.
    """
    participants = {p.pk: p for p in Participant.objects.filter(event=event).select_related("player")}
    ids = [edit.game_id for edit in edits if edit.game_id is not None]
    games = {
        g.pk: g
        for g in Game.objects.select_for_update(of=("self",))
        .filter(event=event, pk__in=ids)
        .select_related("white__player", "black__player")
    }
    problems = [problem for edit in edits for problem in _edit_problems(event, edit, games, participants)]
    if problems:
        raise ValidationError(problems)

    update = GamesUpdate()
    to_delete = [games[edit.game_id] for edit in edits if edit.delete and edit.game_id is not None]
    writes = _GameWrites()
    for edit in edits:
        if not edit.delete:
            _edit_plan(event, edit, games, participants, writes, update)
    try:
        with transaction.atomic():
            _games_delete(to_delete, participants, update, user=user, reason=reason)
            if writes.parked:
                Game.objects.bulk_update(writes.parked, ["round"])
            if writes.to_change:
                bulk_update_with_history(
                    writes.to_change,
                    Game,
                    [*GAME_FIELDS, "version"],
                    default_user=user,
                    default_change_reason=reason or None,
                )
            if writes.to_create:
                _games_create(writes.to_create, participants, update, user=user, reason=reason)
    except IntegrityError as exc:
        # The forms check every rule first; reaching the database's refusal means a concurrent change.
        raise ValidationError(f"The database refused the games of {event.name}: {exc}") from exc
    return update


@dataclass
class _GameWrites:
    """What ``_games_apply`` writes after the deletions: parked pairings, changed games, new games."""

    to_change: list[Game] = field(default_factory=list)
    parked: list[Game] = field(default_factory=list)
    to_create: list[Game] = field(default_factory=list)


def _edit_problems(
    event: Event, edit: GameEdit, games: dict[int, Game], participants: dict[int, Participant]
) -> list[str]:
    """Why ``edit`` cannot be applied to the locked event's games (none: it can)."""
    if edit.game_id is not None and edit.game_id not in games:
        return [f"Game #{edit.game_id} is not a game of {event.name} (deleted meanwhile?)."]
    problems = []
    game = games.get(edit.game_id) if edit.game_id is not None else None
    if game is not None and edit.expected_version is not None and edit.expected_version != game.version:
        problems.append(
            f"{_place(game)} was changed by someone else (version {game.version}, you edited version "
            f"{edit.expected_version}); reload and enter it again."
        )
    if edit.delete:
        return problems
    for side, participant_id in (("white", edit.white_id), ("black", edit.black_id)):
        if participant_id is not None and participant_id not in participants:
            problems.append(
                f"Round {edit.round}: the {side} player (participant #{participant_id}) is not a "
                f"participant of {event.name}."
            )
    if edit.white_id is None or edit.round is None:
        problems.append("A game needs a round and a white player.")
    return problems


def _edit_plan(
    event: Event,
    edit: GameEdit,
    games: dict[int, Game],
    participants: dict[int, Participant],
    writes: _GameWrites,
    update: GamesUpdate,
) -> None:
    """Add the new or changed game of ``edit`` (not a deletion, accepted by ``_edit_problems``) to ``writes``,
    and a changed game's before/after to ``update``."""
    assert edit.round is not None
    assert edit.white_id is not None  # refused by _edit_problems otherwise
    white = participants[edit.white_id]
    black = participants.get(edit.black_id) if edit.black_id is not None else None
    if edit.game_id is None:
        writes.to_create.append(
            Game(
                event=event,
                version=1,
                white=white,
                black=black,
                round=edit.round,
                board=edit.board,
                result=edit.result,
                date=edit.date,
            )
        )
        return
    values = {
        "round": edit.round,
        "board": edit.board,
        "white_id": edit.white_id,
        "black_id": edit.black_id,
        "result": edit.result,
        "date": edit.date,
    }
    game = games[edit.game_id]
    before = _snapshot(game, participants)
    changed = [name for name in values if getattr(game, name) != values[name]]
    if not changed:
        return
    if {"round", "white_id", "black_id"} & set(changed):
        writes.parked.append(Game(pk=game.pk, round=_PARKING_ROUND - len(writes.parked)))
    game.round, game.board, game.result, game.date = edit.round, edit.board, edit.result, edit.date
    game.white, game.black = white, black  # objects, not ids: keeps str(game) free of queries
    game.version += 1
    writes.to_change.append(game)
    update.changed.append((game, [name.removesuffix("_id") for name in changed]))
    update.changes.append(
        {"game": game.pk, "action": "changed", "before": before, "after": _snapshot(game, participants)}
    )


def _games_delete(
    to_delete: list[Game],
    participants: dict[int, Participant],
    update: GamesUpdate,
    *,
    user: User | None,
    reason: str,
) -> None:
    for game in to_delete:
        update.changes.append(
            {
                "game": game.pk,
                "action": "deleted",
                "before": _snapshot(game, participants),
                "after": None,
            }
        )
        game._history_user = user
        game._change_reason = reason or None
    for game in to_delete:
        # One by one so simple_history records who deleted it; deletions come a few at a time.
        game.delete()
    update.deleted = to_delete


def _games_create(
    to_create: list[Game],
    participants: dict[int, Participant],
    update: GamesUpdate,
    *,
    user: User | None,
    reason: str,
) -> None:
    created = bulk_create_with_history(to_create, Game, default_user=user, default_change_reason=reason or None)
    update.created = list(created)
    for game in update.created:
        update.changes.append(
            {
                "game": game.pk,
                "action": "added",
                "before": None,
                "after": _snapshot(game, participants),
            }
        )


def _place(game: Game) -> str:
    return f"Round {game.round}" + (f", board {game.board}" if game.board else "")
