"""Participants added many at once (issue 32): a pasted list, one player a line by ID number or name, checked as a
whole — every line that cannot be added is named by its number and nothing is written — then written in one bulk
insert with the next free starting ranks and each player's rating in force at the event's start.

The lines are read by ``participant_lines_parse`` (pure: values and problems); ``event_participants_add`` looks
the players up (two queries whatever the length of the list) and persists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from simple_history.utils import bulk_create_with_history

from audit.services import Actor, acting_user, audit_record
from events.models import Event, EventStatus, Participant
from events.selectors import participant_ratings_in_force
from players.models import Player

# The statuses whose participants an arbiter still enters (ENTRY_STATUSES of events.services, less submitted:
# a submitted event's field is the rating officer's to change through the event page).
PARTICIPANT_ENTRY_STATUSES = (EventStatus.REGISTERED, EventStatus.DRAFT, EventStatus.CHECKED)
MAX_LINES = 1000


@dataclass(frozen=True)
class ParticipantLine:
    line: int
    text: str
    id_number: int | None  # None: a name ("Surname, Given names")

    @property
    def name_key(self) -> str:
        """The name as Player.search_name stores it: upper case, "SURNAME, GIVEN NAMES"."""
        surname, _comma, given = self.text.partition(",")
        words = " ".join(surname.split()).upper()
        given_words = " ".join(given.split()).upper()
        return f"{words}, {given_words}" if given_words else words


def participant_lines_parse(text: str) -> tuple[list[ParticipantLine], list[str]]:
    """The non-blank lines of ``text``: an ID number (digits), or a name; a cell copied from a spreadsheet
    (tab- or semicolon-separated) counts by its first cell. Problems name the line."""
    lines: list[ParticipantLine] = []
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        cell = re.split(r"[\t;]", raw, maxsplit=1)[0].strip()
        if not cell:
            continue
        if len(lines) >= MAX_LINES:
            problems.append(_("More than %(count)s lines: add them in parts.") % {"count": MAX_LINES})
            break
        digits = cell.replace(" ", "")
        if digits.isascii() and digits.isdigit():
            if len(digits) > 12:
                problems.append(_("Line %(line)s: %(text)s is not an ID number.") % {"line": number, "text": cell})
                continue
            lines.append(ParticipantLine(number, cell, int(digits)))
        else:
            lines.append(ParticipantLine(number, cell[:210], None))
    if not lines and not problems:
        problems.append(_("Enter one player a line: an ID number, or a name as “Surname, Given names”."))
    return lines, problems


def event_participants_add(event: Event, *, user: Actor, text: str) -> list[Participant]:
    """Add the players listed in ``text`` to ``event`` after its highest starting rank, in the order given;
    refuse the whole list (ValidationError, one message a line) if any line cannot be added."""
    lines, problems = participant_lines_parse(text)
    if problems:
        raise ValidationError(problems)
    with transaction.atomic():
        locked = Event.objects.select_for_update().get(pk=event.pk)
        if locked.status not in PARTICIPANT_ENTRY_STATUSES:
            raise ValidationError(
                _("%(name)s is %(status)s: its participants are no longer entered here.")
                % {"name": locked.name, "status": locked.get_status_display().lower()}
            )
        players, problems = _players_of(locked, lines)
        if problems:
            raise ValidationError(problems)
        highest = max(Participant.objects.filter(event=locked).values_list("start_rank", flat=True), default=0)
        ratings = {}
        if locked.start_date is not None and locked.rating_type:
            ratings = participant_ratings_in_force(locked.rating_type, locked.start_date, [p.pk for p in players])
        added = bulk_create_with_history(
            [
                Participant(event=locked, player=player, start_rank=highest + n, rating=ratings.get(player.pk))
                for n, player in enumerate(players, 1)
            ],
            Participant,
            default_user=acting_user(user),
        )
        audit_record(
            user,
            "event.participants_add",
            locked,
            after={"players": [p.id_number for p in players], "start_ranks": [highest + 1, highest + len(players)]},
        )
    return added


def _players_of(event: Event, lines: list[ParticipantLine]) -> tuple[list[Player], list[str]]:
    """The player of each line (two queries), or a problem naming each line that has none or a doubtful one."""
    ids = {line.id_number for line in lines if line.id_number is not None}
    names = {line.name_key for line in lines if line.id_number is None}
    found = Player.objects.filter(id_number__in=ids) | Player.objects.filter(search_name__in=names)
    by_id: dict[int, Player] = {}
    by_name: dict[str, list[Player]] = {}
    for candidate in found:
        by_id[candidate.id_number] = candidate
        if candidate.merged_into_id is None:  # a merged record is found by its ID number only, to say so
            by_name.setdefault(candidate.search_name, []).append(candidate)
    taking_part = dict(
        Participant.objects.filter(event=event, player__in=[*by_id.values()]).values_list("player_id", "start_rank")
    )
    players: list[Player] = []
    problems: list[str] = []
    seen: dict[int, int] = {}
    for line in lines:
        where = {"line": line.line, "text": line.text}
        player: Player | None = None
        if line.id_number is not None:
            player = by_id.get(line.id_number)
            if player is None:
                problems.append(_("Line %(line)s: no player has ID number %(text)s.") % where)
                continue
        else:
            matches = by_name.get(line.name_key, [])
            if not matches:
                problems.append(
                    _("Line %(line)s: no player is named “%(text)s”; enter the ID number, or register the player.")
                    % where
                )
                continue
            if len(matches) > 1:
                ids_text = ", ".join(str(p.id_number) for p in sorted(matches, key=lambda p: p.id_number))
                problems.append(
                    _(
                        "Line %(line)s: %(count)s players are named “%(text)s” (ID numbers %(ids)s); "
                        "enter the ID number."
                    )
                    % {**where, "count": len(matches), "ids": ids_text}
                )
                continue
            player = matches[0]
        if player.merged_into_id is not None:
            problems.append(
                _("Line %(line)s: %(player)s was merged into another record (player #%(kept)s); enter that player.")
                % {"line": line.line, "player": player, "kept": player.merged_into_id}
            )
            continue
        if player.pk in seen:
            problems.append(
                _("Line %(line)s: %(player)s is listed twice (also line %(other)s).")
                % {"line": line.line, "player": player, "other": seen[player.pk]}
            )
            continue
        seen[player.pk] = line.line
        if player.pk in taking_part:
            problems.append(
                _("Line %(line)s: %(player)s already takes part (starting rank %(rank)s).")
                % {"line": line.line, "player": player, "rank": taking_part[player.pk]}
            )
            continue
        players.append(player)
    return players, problems
