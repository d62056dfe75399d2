"""Reads of membership data shared by pages and the API: the public licence directories (arbiters, trainers)
and a licence holder's events. A fixed number of queries each (tests/membership/test_directories.py)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import Count, Q
from django.utils import timezone

from events.models import Event
from membership.models import Licence
from membership.services.status import FEE_STATUSES


@dataclass(frozen=True)
class DirectoryRow:
    licence_id: int
    id_number: int
    name: str
    federation: str | None
    grade: str
    valid_from: datetime.date
    valid_to: datetime.date | None
    events: int

    def to_dict(self) -> dict:
        return {
            "id_number": self.id_number,
            "name": self.name,
            "federation": self.federation,
            "grade": self.grade,
            "valid_from": self.valid_from,
            "valid_to": self.valid_to,
            "events": self.events,
        }


def _valid_on(day: datetime.date) -> Q:
    return Q(valid_from__lte=day) & (Q(valid_to__isnull=True) | Q(valid_to__gte=day))


def licence_directory(kind: str, day: datetime.date | None = None) -> list[DirectoryRow]:
    """Holders of a ``kind`` licence valid on ``day`` (today), by name, with the public events they directed
    as chief arbiter (one query)."""
    day = day or timezone.localdate()
    rows = (
        Licence.objects.filter(_valid_on(day), kind=kind)
        .annotate(directed=Count("user__events_chief", filter=Q(user__events_chief__status__in=FEE_STATUSES)))
        .order_by("player__surname", "player__given_names", "pk")
        .values_list("pk", "player__id_number", "player__surname", "player__given_names", "player__federation_id",
                     "grade", "valid_from", "valid_to", "directed")
    )  # fmt: skip
    return [
        DirectoryRow(pk, id_number, f"{surname}, {given}" if given else surname, federation, grade, start, end, count)
        for pk, id_number, surname, given, federation, grade, start, end, count in rows
    ]


def licence_holder(kind: str, id_number: int) -> tuple[list[Licence], list[Event]]:
    """A holder's licences of ``kind`` (newest first) and the public events they directed (two queries)."""
    licences = list(
        Licence.objects.filter(kind=kind, player__id_number=id_number)
        .select_related("player", "player__federation")
        .order_by("-valid_from")
    )
    users = {licence.user_id for licence in licences if licence.user_id}
    events = (
        list(
            Event.objects.filter(chief_arbiter_id__in=users, status__in=FEE_STATUSES)
            .select_related("federation")
            .order_by("-end_date", "-pk")
        )
        if users
        else []
    )
    return licences, events
