"""Rating a league: a division's played boards go, slice by slice, into events of system team written through
events' services, and are rated there like any event (checks, integrity screening, timeline, corrections).

Which games, which list (reference leagues-membership.md §1–2):
- only played boards are rated (B.02 §5.1), adjudicated ones where the competition says so; never a default,
  a double default, an unfinished game or match points;
- ``fide-slices``: the division's match dates are cut into slices of at most 30 days (``rules.rating_slices``);
  each slice is an event from its first to its last date, so the publication rates it with the list in force at
  the slice's start (B.01 1.4.6a) on the list its end falls in;
- ``game-date``: each match date is an event of its own, so each game is rated with the list in force on its
  date and in the period of that date (the ECF's practice, reference §1).
A slice is written and submitted once every match in it is complete; a match completed later in a slice already
rated goes into an event of its own for the same dates.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q
from simple_history.utils import bulk_create_with_history, bulk_update_with_history

from audit.services import Actor, acting_user, audit_record
from events.models import CORRECTABLE_STATUSES, Event, EventStatus, EventSystem, Game, Participant
from events.services import GameEdit, event_correct, event_create, event_games_update, event_submit
from leagues import rules
from leagues.models import Board, Division, Match, MatchStatus
from leagues.services import boards_write, match_card_check, match_for_update
from players.models import Player

_COMPLETE = (MatchStatus.ENTERED, MatchStatus.CONFIRMED)


@dataclass
class SliceOutcome:
    """One slice written as an event: submitted, or left a draft with what stopped its submission."""

    event: Event
    matches: int
    games: int
    submitted: bool
    problems: list[str] = field(default_factory=list)


def division_slices(division: Division) -> list[tuple[datetime.date, datetime.date]]:
    """The periods the division's matches are rated in, by its competition's rating policy."""
    policy = division.season.competition.rating_policy
    return rules.rating_slices(
        Match.objects.filter(round__division=division).values_list("date", flat=True), policy=policy
    )


@dataclass
class SlicePlan:
    """A slice of a division and where it stands: its matches not yet rated, whether they are all complete, and
    how many of its matches are rated already."""

    first: datetime.date
    last: datetime.date
    waiting: list[Match] = field(default_factory=list)
    rated: int = 0

    @property
    def ready(self) -> bool:
        return bool(self.waiting) and all(
            match.status in _COMPLETE and not match.pending  # type: ignore[attr-defined]
            for match in self.waiting
        )


def division_slice_plan(division: Division) -> list[SlicePlan]:
    """Every slice of ``division`` with its matches: two queries (what the admin shows before submitting)."""
    division = Division.objects.select_related("season__competition").get(pk=division.pk)
    slices = division_slices(division)
    plans = [SlicePlan(first, last) for first, last in slices]
    matches = (
        Match.objects.filter(round__division=division)
        .annotate(pending=Count("boards", filter=Q(boards__result=rules.PENDING)))
        .select_related("round")
        .order_by("date", "round__number", "pk")
    )
    for match in matches:
        plan = plans[rules.slice_of(match.date, slices)]
        if match.rated_event_id is None:
            plan.waiting.append(match)
        else:
            plan.rated += 1
    return plans


def division_rate_ready(division: Division, *, user: Actor) -> list[SliceOutcome]:
    """Write and submit every slice of ``division`` whose matches not yet rated are all complete (the admin's
    "submit complete slices" and the demo call it). Slices with a match still open wait."""
    division = Division.objects.select_related("season__competition").get(pk=division.pk)
    return [
        slice_rate(division, plan.waiting, (plan.first, plan.last), user=user)
        for plan in division_slice_plan(division)
        if plan.ready
    ]


def slice_rate(
    division: Division, matches: Sequence[Match], period: tuple[datetime.date, datetime.date], *, user: Actor
) -> SliceOutcome:
    """One slice as an event (system team): its participants, its played boards as games (event round = the
    league round's place in the slice), then submitted; left a draft, with the reasons, when the checks refuse."""
    competition = division.season.competition
    rounds = sorted({match.round.number for match in matches})
    with transaction.atomic():
        event = Event(
            name=f"{competition.name} {division.season.name}, {division.name}: " + _rounds_label(rounds),
            federation_id=competition.federation_id,
            start_date=period[0],
            end_date=period[1],
            rating_type=competition.rating_type,
            system=EventSystem.TEAM,
            rounds=len(rounds),
            status=EventStatus.DRAFT,
        )
        event_create(event, user=user, timeline_reason=f"league slice of {division}")
        boards = list(
            Board.objects.filter(match__in=[m.pk for m in matches])
            .select_related("match__round")
            .order_by("match__round__number", "match_id", "number")
        )
        rated = [
            (b, r) for b in boards if (r := rules.rated_result(b.result, rate_adjudicated=competition.rate_adjudicated))
        ]
        participants = _participants_create(event, [b for b, _ in rated], user=user)
        edits = [
            _game_edit(board, result, participants, round_=rounds.index(board.match.round.number) + 1)
            for board, result in rated
        ]
        event_games_update(event, user=user, edits=edits)
        _boards_link(event, [b for b, _ in rated], participants, rounds, user=user)
        Match.objects.filter(pk__in=[m.pk for m in matches]).update(rated_event=event)
        outcome = SliceOutcome(event=event, matches=len(matches), games=len(edits), submitted=False)
        try:
            with transaction.atomic():
                event_submit(event, user=user)
            outcome.submitted = True
        except ValidationError as refusal:
            outcome.problems = refusal.messages
        audit_record(user, "league.slice_rate", event, after={"matches": len(matches), "games": len(edits)})
    return outcome


def _rounds_label(rounds: list[int]) -> str:
    return f"round {rounds[0]}" if len(rounds) == 1 else f"rounds {rounds[0]}–{rounds[-1]}"


def _participants_create(event: Event, boards: list[Board], *, user: Actor) -> dict[int, Participant]:
    """The slice's players, numbered in the order they first appear (board order within a match): one bulk
    write. {player pk: participant}."""
    order: dict[int, None] = {}
    for board in boards:
        for player_id in (board.home_player_id, board.away_player_id):
            if player_id is not None:
                order.setdefault(player_id, None)
    bulk_create_with_history(
        [Participant(event=event, player_id=pk, start_rank=rank) for rank, pk in enumerate(order, 1)],
        Participant,
        default_user=acting_user(user),
    )
    return {p.player_id: p for p in Participant.objects.filter(event=event)}


def _game_edit(
    board: Board, result: str, participants: dict[int, Participant], *, round_: int, game_id: int | None = None
) -> GameEdit:
    """The game a rated board is: the home player white where the board's colours say so, the result turned
    to white's side."""
    home = participants[board.home_player_id].pk  # type: ignore[index]
    away = participants[board.away_player_id].pk  # type: ignore[index]
    flipped = {rules.HOME_WIN: rules.AWAY_WIN, rules.AWAY_WIN: rules.HOME_WIN, rules.DRAW: rules.DRAW}
    white, black, white_result = (home, away, result) if board.home_white else (away, home, flipped[result])
    return GameEdit(
        game_id=game_id,
        round=round_,
        board=board.number,
        white_id=white,
        black_id=black,
        result=white_result,
        date=board.match.date,
    )


def _boards_link(
    event: Event, boards: list[Board], participants: dict[int, Participant], rounds: list[int], *, user: Actor
) -> None:
    """Point each rated board at the game it became (the correction's way back): one query and one bulk write."""
    by_key = {(game.round, game.white_id): game.pk for game in Game.objects.filter(event=event)}
    for board in boards:
        round_ = rounds.index(board.match.round.number) + 1
        white_player = board.home_player_id if board.home_white else board.away_player_id
        board.game_id = by_key[(round_, participants[white_player].pk)]  # type: ignore[index]
    if boards:
        bulk_update_with_history(boards, Board, ["game"], default_user=acting_user(user))


def match_correct(match: Match, lines: list[rules.CardLine], *, user: Actor, reason: str) -> Event:
    """Correct a rated match's card: its boards rewritten and its slice's games changed through
    ``events.services.event_correct`` (a rated slice becomes corrected and waits for the republication, which
    re-rates that slice only), or ``event_games_update`` while the slice is not rated yet. Board order and
    eligibility breaches are the arbiter's to have accepted already: only errors refuse. A board that becomes
    played needs its players among the slice's participants (a new player in a rated slice: a new slice)."""
    if not reason.strip():
        raise ValidationError(f"A correction of {match} needs a reason (it is kept with the slice's record).")
    with transaction.atomic():
        match = match_for_update(match)
        event = match.rated_event
        if event is None:
            raise ValidationError(f"{match} is not rated yet: enter its card again instead of correcting it.")
        check = match_card_check(match, lines)
        if check.errors:
            raise ValidationError(check.errors)
        competition = match.round.division.season.competition
        old_games = {b.number: b.game_id for b in Board.objects.filter(match=match)}
        boards_write(match, lines, check.players, user=user)
        boards = list(Board.objects.filter(match=match).select_related("match__round").order_by("number"))
        participants = {p.player_id: p for p in Participant.objects.filter(event=event)}
        rounds = sorted(set(Match.objects.filter(rated_event=event).values_list("round__number", flat=True)))
        edits, linked = _correction_edits(boards, old_games, participants, rounds, competition.rate_adjudicated)
        for number, game_id in old_games.items():
            if game_id is not None and number not in {b.number for b in boards}:
                edits.append(GameEdit(game_id=game_id, delete=True))
        edits = _changed_only(edits)
        if not edits:
            pass  # the match score changed, not a rated game (a default for another): the slice stays as rated
        elif event.status in CORRECTABLE_STATUSES:
            event_correct(event, user=user, reason=f"{match}: {reason}", edits=edits)  # type: ignore[arg-type]
        else:
            event_games_update(event, user=user, edits=edits)
        _boards_link(event, linked, participants, rounds, user=user)
        Board.objects.filter(match=match).exclude(pk__in=[b.pk for b in linked]).update(game=None)
    return event


def _changed_only(edits: list[GameEdit]) -> list[GameEdit]:
    """The edits that change a game: one query for the games they name."""
    games = {g.pk: g for g in Game.objects.filter(pk__in=[e.game_id for e in edits if e.game_id is not None])}

    def same(edit: GameEdit) -> bool:
        game = games.get(edit.game_id) if edit.game_id is not None else None
        return (
            game is not None
            and not edit.delete
            and (game.round, game.board, game.white_id, game.black_id, game.result, game.date)
            == (edit.round, edit.board, edit.white_id, edit.black_id, edit.result, edit.date)
        )

    return [edit for edit in edits if not same(edit)]


def _correction_edits(
    boards: list[Board],
    old_games: dict[int, int | None],
    participants: dict[int, Participant],
    rounds: list[int],
    rate_adjudicated: bool,
) -> tuple[list[GameEdit], list[Board]]:
    edits, linked = [], []
    for board in boards:
        result = rules.rated_result(board.result, rate_adjudicated=rate_adjudicated)
        game_id = old_games.get(board.number)
        if result is None:
            if game_id is not None:
                edits.append(GameEdit(game_id=game_id, delete=True))
            continue
        missing = [p for p in (board.home_player_id, board.away_player_id) if p is not None and p not in participants]
        if missing:
            names = ", ".join(player.name for player in Player.objects.filter(pk__in=missing))
            raise ValidationError(
                f"Board {board.number}: {names} played no other game of this slice; a new player in a rated "
                "slice is rated in a slice of their own (enter the match as a new card)."
            )
        round_ = rounds.index(board.match.round.number) + 1
        edits.append(_game_edit(board, result, participants, round_=round_, game_id=game_id))
        linked.append(board)
    return edits, linked
