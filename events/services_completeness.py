"""Is an event's play complete? What ``event_submit`` and ``event_check`` ask before a submission (issue 32).

An event declared with five rounds and only round 1 entered is not ready for rating: the declared rounds
without pairings, the boards without a result and the players without a pairing or a bye in a round that has
pairings (a hole: they play later) are each named, with the round and the players, and block the submission.
They are the only problems an official may override, with a written reason (``events.services.event_submit``):
an event stopped early is rated as it stands; the missing dates or rating type never are.

Reads only, a fixed number of queries whatever the size of the event: the rounds' counts (one aggregate), the
first boards without a result, and, when a round lacks players, the participants and that round's pairings.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from events.models import Event, EventSystem, Game, Participant, Result

# Boards without a result and players with a hole in their rounds named in a message; the rest are counted.
SHOWN = 10


@dataclass(frozen=True)
class RoundCount:
    """One round's pairings as stored: boards (byes included), boards without a result, seats taken."""

    games: int
    pending: int
    seats: int  # players paired or given a bye: white of every board, black of every played board


def event_round_counts(event: Event) -> dict[int, RoundCount]:
    """Every round that has pairings, with its counts (one query)."""
    rows = (
        Game.objects.filter(event=event)
        .values("round")
        .annotate(games=Count("pk"), pending=Count("pk", filter=Q(result=Result.PENDING)), blacks=Count("black"))
        .order_by("round")
    )
    return {
        row["round"]: RoundCount(games=row["games"], pending=row["pending"], seats=row["games"] + row["blacks"])
        for row in rows
    }


def event_incomplete(event: Event, counts: dict[int, RoundCount] | None = None) -> list[str]:
    """What is missing from the event's play, each naming the round and players (none: play is complete).

    Declared rounds (``Event.rounds``) with no pairings at all; boards without a result; and, except in team
    events (reserves sit out), players with neither a game nor a bye in a round that has pairings although they
    play later (TRF 2.1, column 97: an absent player is given a zero-point bye, never left out of a round).
    """
    counts = event_round_counts(event) if counts is None else counts
    problems = []
    missing = [number for number in range(1, event.rounds + 1) if number not in counts]
    if missing:
        problems.append(
            ngettext(
                "%(name)s: round %(rounds)s of the %(declared)s declared has no pairings; enter it on the round "
                "entry screen, or correct the number of rounds.",
                "%(name)s: rounds %(rounds)s of the %(declared)s declared have no pairings; enter them on the "
                "round entry screen, or correct the number of rounds.",
                len(missing),
            )
            % {"name": event.name, "rounds": rounds_label(missing), "declared": event.rounds}
        )
    pending = sum(count.pending for count in counts.values())
    if pending:
        problems.append(_pending_problem(event, pending))
    if event.system != EventSystem.TEAM:
        problems.extend(_unpaired_problems(event, counts))
    return problems


def rounds_label(numbers: list[int]) -> str:
    """Round numbers as runs: [2, 3, 4, 5, 7] → "2–5, 7"."""
    runs: list[list[int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)


def _pending_problem(event: Event, pending: int) -> str:
    games = (
        Game.objects.filter(event=event, result=Result.PENDING)
        .select_related("white__player", "black__player")
        .order_by("round", "board", "pk")
        .only(
            "round",
            "board",
            "white__player__surname",
            "white__player__given_names",
            "black__player__surname",
            "black__player__given_names",
        )[:SHOWN]
    )
    shown = "; ".join(_game_label(game) for game in games)
    more = _(" and %(n)s more") % {"n": pending - SHOWN} if pending > SHOWN else ""
    return _("%(name)s cannot be submitted: %(n)s game(s) have no result — %(games)s%(more)s.") % {
        "name": event.name,
        "n": pending,
        "games": shown,
        "more": more,
    }


def _game_label(game: Game) -> str:
    if game.board:
        place = _("round %(round)s board %(board)s") % {"round": game.round, "board": game.board}
    else:
        place = _("round %(round)s") % {"round": game.round}
    black = game.black.player.name if game.black is not None else _("bye")
    return f"{place}: {game.white.player.name} – {black}"


def _unpaired_problems(event: Event, counts: dict[int, RoundCount]) -> list[str]:
    """Holes in the pairings: a player with neither a game nor a bye in a round that has pairings, who plays (or
    has a bye) in a later round. A player absent from every round after some point withdrew, which a TRF file
    and chess-results show as "not paired": not a hole. Two queries, only when some round seats fewer players
    than the event has."""
    players = Participant.objects.filter(event=event).count()
    if all(count.seats >= players for count in counts.values()):
        return []
    seated: dict[int, set[int]] = {}
    for number, white, black in Game.objects.filter(event=event).values_list("round", "white_id", "black_id"):
        for participant in (white, black):
            if participant is not None:
                seated.setdefault(participant, set()).add(number)
    holes = []
    for pk, rank, surname, given in (
        Participant.objects.filter(event=event)
        .order_by("start_rank")
        .values_list("pk", "start_rank", "player__surname", "player__given_names")
    ):
        rounds = seated.get(pk, set())
        missing = [number for number in counts if rounds and number < max(rounds) and number not in rounds]
        if missing:
            holes.append((rank, f"{surname}, {given}" if given else surname, missing))
    problems = [
        ngettext(
            "Player %(rank)s, %(name)s, has neither a game nor a bye in round %(rounds)s but plays later; enter "
            "the game, or a bye (a zero-point bye for an absent player).",
            "Player %(rank)s, %(name)s, has neither a game nor a bye in rounds %(rounds)s but plays later; enter "
            "the games, or byes (a zero-point bye for an absent player).",
            len(missing),
        )
        % {"rank": rank, "name": name, "rounds": rounds_label(missing)}
        for rank, name, missing in holes[:SHOWN]
    ]
    if len(holes) > SHOWN:
        problems.append(
            _("... and %(n)s more players with a round lacking a game or a bye.") % {"n": len(holes) - SHOWN}
        )
    return problems
