"""Reading the change history of players, events, participants and games as one stream.

django-simple-history keeps one historical table per model. ``history_rows`` unions the columns they share
(newest first, filterable by model, user, type, date and object); ``history_entries`` turns one page of those
rows into readable entries — who, when, what, and the before/after of every changed field — with a fixed
number of queries per page (one per model for the records, one for their predecessors, a few for names), never
one per row.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db.models import CharField, F, OuterRef, Q, QuerySet, Subquery, Value
from django.urls import NoReverseMatch, reverse

# kind -> model label; the kinds are the values of the "model" filter.
TRACKED = {
    "player": "players.Player",
    "event": "events.Event",
    "participant": "events.Participant",
    "game": "events.Game",
}
HISTORY_TYPES = {"+": "created", "~": "changed", "-": "deleted"}
NO_USER = "none"
# The historical models simple_history builds at start-up (an untyped library: their fields are unknown here).
HistoryModel = type[Any]


@dataclass(frozen=True)
class HistoryFilter:
    kinds: tuple[str, ...] = ()  # empty: every tracked model
    user: int | str | None = None  # a user id, NO_USER (changes made by jobs), or None: anyone
    history_type: str = ""  # "+", "~", "-" or "" for all
    date_from: datetime.date | None = None
    date_to: datetime.date | None = None  # inclusive
    object_id: int | None = None  # with exactly one kind: one object's history


@dataclass
class FieldChange:
    field: str
    label: str
    before: object
    after: object


@dataclass
class HistoryEntry:
    kind: str
    kind_label: str
    object_id: int
    object_repr: str
    object_url: str
    history_id: int
    at: datetime.datetime
    history_type: str
    history_type_label: str
    user: object  # a user, or None for changes made without one (jobs, commands)
    reason: str
    changes: list[FieldChange] = field(default_factory=list)


def tracked_history_models() -> dict[str, HistoryModel]:
    return {kind: apps.get_model(label).history.model for kind, label in TRACKED.items()}


def _filtered(kind: str, history_model: HistoryModel, filters: HistoryFilter, tz) -> QuerySet:
    queryset = history_model.objects.all()
    if filters.user == NO_USER:
        queryset = queryset.filter(history_user__isnull=True)
    elif filters.user is not None:
        queryset = queryset.filter(history_user_id=filters.user)
    if filters.history_type:
        queryset = queryset.filter(history_type=filters.history_type)
    if filters.date_from:
        start = datetime.datetime.combine(filters.date_from, datetime.time.min, tzinfo=tz)
        queryset = queryset.filter(history_date__gte=start)
    if filters.date_to:
        day_after = filters.date_to + datetime.timedelta(days=1)
        end = datetime.datetime.combine(day_after, datetime.time.min, tzinfo=tz)
        queryset = queryset.filter(history_date__lt=end)
    if filters.object_id is not None:
        queryset = queryset.filter(id=filters.object_id)
    # order_by(): no ORDER BY inside the parts of a UNION (the historical models order by date by default).
    return (
        queryset.order_by()
        .annotate(kind=Value(kind, output_field=CharField()), object_pk=F("id"))
        .values("kind", "object_pk", "history_id", "history_date", "history_type", "history_user_id")
    )


def history_rows(filters: HistoryFilter) -> QuerySet:
    """Matching history rows (dicts) across the tracked models, newest first; slice it to paginate."""
    from django.utils import timezone

    models = tracked_history_models()
    kinds = [k for k in (filters.kinds or tuple(models)) if k in models]
    if not kinds:
        return models["player"].objects.none().values("history_id")
    tz = timezone.get_current_timezone()
    parts = [_filtered(kind, models[kind], filters, tz) for kind in kinds]
    queryset = parts[0].union(*parts[1:], all=True) if len(parts) > 1 else parts[0]
    return queryset.order_by("-history_date", "-history_id")


def _with_previous(history_model: HistoryModel, history_ids: list[int]) -> tuple[dict, dict]:
    """The records with these ids and, for each, the record of the same object just before it."""
    earlier = (
        history_model.objects.filter(id=OuterRef("id"))
        .filter(
            Q(history_date__lt=OuterRef("history_date"))
            | Q(history_date=OuterRef("history_date"), history_id__lt=OuterRef("history_id"))
        )
        .order_by("-history_date", "-history_id")
    )
    records = {
        r.history_id: r
        for r in history_model.objects.filter(history_id__in=history_ids).annotate(
            previous_history_id=Subquery(earlier.values("history_id")[:1])
        )
    }
    previous_ids = [r.previous_history_id for r in records.values() if r.previous_history_id]
    previous = history_model.objects.in_bulk(previous_ids, field_name="history_id") if previous_ids else {}
    return records, previous


def _display(value) -> object:
    return "" if value is None else value


def _field_changes(record, previous) -> list[FieldChange]:
    fields = {f.name: f for f in record.instance_type._meta.concrete_fields}
    if record.history_type == "~" and previous is not None:
        delta = record.diff_against(previous)
        return [
            FieldChange(
                c.field,
                str(fields[c.field].verbose_name) if c.field in fields else c.field,
                _display(c.old),
                _display(c.new),
            )
            for c in delta.changes
        ]
    # A creation shows what was set, a deletion what was lost (editable fields with a value).
    changes = []
    for name, model_field in fields.items():
        if not model_field.editable or model_field.primary_key:
            continue
        value = getattr(record, model_field.attname)
        if value in (None, ""):
            continue
        before, after = (value, "") if record.history_type == "-" else ("", value)
        changes.append(FieldChange(name, str(model_field.verbose_name), before, after))
    return changes


def _names(records_by_kind: dict[str, list]) -> tuple[dict, dict, dict]:
    """Player names (by player id and by participant id) and event names, in three queries at most."""
    Player = apps.get_model("players.Player")
    Participant = apps.get_model("events.Participant")
    Event = apps.get_model("events.Event")
    participant_ids: set[int] = set()
    player_ids: set[int] = set()
    event_ids: set[int] = set()
    for record in records_by_kind.get("game", []):
        participant_ids.update(i for i in (record.white_id, record.black_id) if i)
        event_ids.add(record.event_id)
    for record in records_by_kind.get("participant", []):
        player_ids.add(record.player_id)
        event_ids.add(record.event_id)
    by_participant = (
        {
            row["id"]: _player_name(row["player__surname"], row["player__given_names"], row["player__id_number"])
            for row in Participant.objects.filter(id__in=participant_ids).values(
                "id", "player__surname", "player__given_names", "player__id_number"
            )
        }
        if participant_ids
        else {}
    )
    by_player = (
        {
            row["id"]: _player_name(row["surname"], row["given_names"], row["id_number"])
            for row in Player.objects.filter(id__in=player_ids).values("id", "surname", "given_names", "id_number")
        }
        if player_ids
        else {}
    )
    events = dict(Event.objects.filter(id__in=event_ids).values_list("id", "name")) if event_ids else {}
    return by_participant, by_player, events


def _player_name(surname: str, given_names: str, id_number) -> str:
    name = f"{surname}, {given_names}" if given_names else surname
    return f"{name} ({id_number})"


def _object_repr(kind: str, record, names: tuple[dict, dict, dict]) -> str:
    by_participant, by_player, events = names
    if kind == "player":
        return _player_name(record.surname, record.given_names, record.id_number)
    if kind == "event":
        return f"{record.name} ({record.start_date:%Y-%m-%d})"
    event = events.get(record.event_id, f"event {record.event_id}")
    if kind == "participant":
        player = by_player.get(record.player_id, f"player {record.player_id}")
        return f"{player}, no. {record.start_rank} in {event}"
    white = by_participant.get(record.white_id, f"participant {record.white_id}")
    black = "bye"
    if record.black_id:
        black = by_participant.get(record.black_id, f"participant {record.black_id}")
    board = f", board {record.board}" if record.board else ""
    return f"{event}, round {record.round}{board}: {white} – {black}"


def history_entries(rows) -> list[HistoryEntry]:
    """Readable entries for one page of ``history_rows`` (in the same order)."""
    rows = list(rows)
    models = tracked_history_models()
    ids_by_kind: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        ids_by_kind[row["kind"]].append(row["history_id"])
    records: dict[str, dict] = {}
    previous: dict[str, dict] = {}
    for kind, ids in ids_by_kind.items():
        records[kind], previous[kind] = _with_previous(models[kind], ids)
    names = _names({kind: list(found.values()) for kind, found in records.items()})
    user_ids = {row["history_user_id"] for row in rows if row["history_user_id"]}
    users = get_user_model().objects.in_bulk(user_ids) if user_ids else {}
    entries = []
    for row in rows:
        kind = row["kind"]
        record = records[kind].get(row["history_id"])
        if record is None:  # deleted between the two queries
            continue
        before = previous[kind].get(record.previous_history_id)
        model = record.instance_type
        try:
            url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[record.id])
        except NoReverseMatch:
            url = ""
        entries.append(
            HistoryEntry(
                kind=kind,
                kind_label=str(model._meta.verbose_name),
                object_id=record.id,
                object_repr=_object_repr(kind, record, names),
                object_url=url,
                history_id=record.history_id,
                at=record.history_date,
                history_type=record.history_type,
                history_type_label=HISTORY_TYPES.get(record.history_type, record.history_type),
                user=users.get(record.history_user_id),
                reason=record.history_change_reason or "",
                changes=_field_changes(record, before),
            )
        )
    return entries
