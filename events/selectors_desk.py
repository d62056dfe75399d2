"""The arbiter's start page: their events grouped by status, each with what it still needs.

``events_desk(user)`` runs two queries whatever the number of events: the events (with participant and game
counts as subqueries) and the rounds that have games. Statuses are grouped generically over
``EventStatus`` so that a status added to the lifecycle appears without a change here.
"""

from dataclasses import dataclass, field

from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from events.models import Event, EventStatus, Game, Participant, Result

EVENTS_PER_STATUS = 12


@dataclass
class DeskEvent:
    event: Event
    participants: int
    games: int
    pending: int
    rounds_entered: list[int]
    needs: list[str] = field(default_factory=list)

    @property
    def next_round(self) -> int:
        """The round to open for entry: the first without games, else the last entered."""
        missing = [n for n in range(1, self.event.rounds + 1) if n not in self.rounds_entered]
        if missing:
            return missing[0]
        return self.rounds_entered[-1] if self.rounds_entered else 1


@dataclass
class StatusGroup:
    status: str
    label: str
    count: int
    events: list[DeskEvent] = field(default_factory=list)


def _count(model, **filters) -> Coalesce:
    rows = model.objects.filter(event=OuterRef("pk"), **filters).order_by().values("event")
    return Coalesce(Subquery(rows.annotate(n=Count("pk")).values("n")[:1], output_field=IntegerField()), 0)


def events_desk(events: QuerySet[Event]) -> list[StatusGroup]:
    """``events`` (those the user may see) by status in EventStatus order, the newest first in each group."""
    rows = list(
        events.order_by("-end_date", "-pk")
        .annotate(
            n_participants=_count(Participant),
            n_games=_count(Game),
            n_pending=_count(Game, result=Result.PENDING),
        )
        .select_related("rated_on")[:500]
    )
    rounds: dict[int, set[int]] = {}
    for event_id, number in (
        Game.objects.filter(event__in=[e.pk for e in rows]).order_by().values_list("event_id", "round").distinct()
    ):
        rounds.setdefault(event_id, set()).add(number)
    groups = {value: StatusGroup(value, str(label), 0) for value, label in EventStatus.choices}
    for event in rows:
        group = groups.setdefault(event.status, StatusGroup(event.status, event.status, 0))
        group.count += 1
        if len(group.events) < EVENTS_PER_STATUS:
            entered = sorted(rounds.get(event.pk, set()))
            desk = DeskEvent(event, event.n_participants, event.n_games, event.n_pending, entered)  # type: ignore[attr-defined]
            desk.needs = event_needs(desk)
            group.events.append(desk)
    return [group for group in groups.values() if group.count]


def event_needs(desk: DeskEvent) -> list[str]:
    """What an event still needs before it moves on (empty: nothing from the arbiter)."""
    event = desk.event
    if event.status == EventStatus.SUBMITTED:
        return [_("waiting for the next rating list")]
    if event.status == EventStatus.CORRECTED:
        return [_("corrected: waiting for the rating officer to republish")]
    if event.status != EventStatus.DRAFT:
        return []
    needs = []
    if desk.participants == 0:
        needs.append(_("enter the participants (or upload the TRF file)"))
    missing = [n for n in range(1, event.rounds + 1) if n not in desk.rounds_entered]
    if missing and desk.participants:
        shown = ", ".join(str(n) for n in missing[:6]) + ("…" if len(missing) > 6 else "")
        needs.append(_("enter round(s) %(rounds)s") % {"rounds": shown})
    if desk.pending:
        needs.append(
            ngettext("%(count)s game without a result", "%(count)s games without a result", desk.pending)
            % {"count": desk.pending}
        )
    if not needs:
        needs.append(_("complete: submit it for rating"))
    return needs


def status_counts(events: QuerySet[Event]) -> dict[str, int]:
    """Events per status (one query); every EventStatus value is present."""
    counts = dict.fromkeys(EventStatus.values, 0)
    for status, number in events.order_by().values_list("status").annotate(n=Count("pk")):
        counts[status] = number
    return counts
