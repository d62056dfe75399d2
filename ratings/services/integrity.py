"""Integrity screening of a submitted event (issue 15): six checks, thresholds in settings.INTEGRITY_THRESHOLDS.

Registered with ``events.services.submission_screen_register`` (ratings' AppConfig.ready) because two checks
need the rating rules (performance, expected score), which the engine owns. Each finding names the rule
that fired with its threshold and carries its evidence; ``events.services.event_screen`` turns it into a flag
an official must clear before the event is rated. A fixed number of queries whatever the event's size.
"""

from __future__ import annotations

import datetime
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings
from django.db.models import Count

from events.models import (
    RATED_RESULTS,
    RESULT_POINTS,
    Event,
    EventStatus,
    EventSystem,
    Game,
    IntegrityCheck,
    Participant,
)
from events.services import IntegrityFinding
from ratings.engine.expected_score import expected_score
from ratings.engine.performance import fide_performance

# Findings of one kind listed in full up to this many; more are counted.
EVIDENCE_ITEMS = 20


@dataclass(frozen=True)
class _Game:
    round: int
    date: datetime.date | None
    result: str
    white: int  # participant ids
    black: int | None


def event_integrity_screen(event: Event) -> list[IntegrityFinding]:
    """Every check of the issue on ``event`` (submitted: it has its dates)."""
    limits: dict[str, Any] = settings.INTEGRITY_THRESHOLDS
    participants = {p.pk: p for p in Participant.objects.filter(event=event).select_related("player")}
    games = [
        _Game(*row)
        for row in Game.objects.filter(event=event).values_list("round", "date", "result", "white_id", "black_id")
    ]
    return [
        *_contradictions(event, games),
        *_performances(event, participants, games, limits),
        *_single_club(participants, games, limits),
        *_repeated_pairings(event, participants, games, limits),
        *_duplicates(event, participants, limits),
    ]


def _contradictions(event: Event, games: list[_Game]) -> list[IntegrityFinding]:
    """Results that contradict the declared rounds or dates: a round beyond the declared number, a game dated
    outside the event's dates."""
    wrong: list[dict[str, Any]] = []
    for game in games:
        if game.round > event.rounds:
            wrong.append({"round": game.round, "declared_rounds": event.rounds})
        elif game.date and event.start_date and event.end_date and not event.start_date <= game.date <= event.end_date:
            wrong.append({"round": game.round, "date": game.date.isoformat()})
    if not wrong:
        return []
    return [
        IntegrityFinding(
            IntegrityCheck.CONTRADICTION,
            f"games must be in rounds 1-{event.rounds} and dated {event.start_date} to {event.end_date}",
            {"games": len(wrong), "examples": wrong[:EVIDENCE_ITEMS]},
        )
    ]


def _points(game: _Game, participant_id: int) -> float:
    white, black = RESULT_POINTS[game.result]
    return white if game.white == participant_id else black


def _performances(
    event: Event, participants: dict[int, Participant], games: list[_Game], limits: dict[str, Any]
) -> list[IntegrityFinding]:
    """A performance more than ``performance_margin`` above the player's rating over at least
    ``performance_min_games`` rated games in a small closed event (Rp as Title Regulations 1.4.6)."""
    if event.system != EventSystem.ROUND_ROBIN or len(participants) > limits["small_event_players"]:
        return []
    opponents: dict[int, list[float]] = defaultdict(list)
    scores: defaultdict[int, float] = defaultdict(float)
    for game in games:
        if game.result not in RATED_RESULTS or game.black is None:
            continue
        black = game.black
        for me, other in ((game.white, black), (black, game.white)):
            rating = participants[other].rating
            if rating:
                opponents[me].append(float(rating))
                scores[me] += _points(game, me)
    findings = []
    margin, minimum = limits["performance_margin"], limits["performance_min_games"]
    for pid, ratings in opponents.items():
        participant = participants[pid]
        if participant.rating is None or len(ratings) < minimum:
            continue
        performance = fide_performance(ratings, scores[pid]).rating
        if performance > participant.rating + margin:
            findings.append(
                IntegrityFinding(
                    IntegrityCheck.PERFORMANCE,
                    f"performance more than {margin} above the player's rating over at least {minimum} games in a "
                    f"closed event of at most {limits['small_event_players']} players: "
                    f"{participant.player.name} ({participant.player.id_number})",
                    {
                        "player": participant.player.id_number,
                        "rating": participant.rating,
                        "performance": performance,
                        "games": len(ratings),
                        "score": scores[pid],
                    },
                )
            )
    return findings


def _single_club(
    participants: dict[int, Participant], games: list[_Game], limits: dict[str, Any]
) -> list[IntegrityFinding]:
    """Every player from one club, and results far from the ratings: mean |score - expected score| per rated
    game at least ``single_club_deviation`` (expected score: the FIDE table, B.02 8.1.2)."""
    clubs = {p.club.strip().upper() for p in participants.values()}
    if len(participants) < 2 or len(clubs) != 1 or "" in clubs:
        return []
    rated = [
        g
        for g in games
        if g.result in RATED_RESULTS
        and g.black is not None
        and participants[g.white].rating
        and participants[g.black].rating
    ]
    if not rated:
        return []
    difference = np.array([_rating(participants, g.white) - _rating(participants, g.black) for g in rated])
    expected = expected_score(difference)
    actual = np.array([RESULT_POINTS[g.result][0] for g in rated])
    deviation = float(np.abs(actual - expected).mean())
    if deviation < limits["single_club_deviation"]:
        return []
    return [
        IntegrityFinding(
            IntegrityCheck.SINGLE_CLUB,
            f"all players from one club and results far from their ratings (mean |score - expected| per game "
            f"at least {limits['single_club_deviation']})",
            {
                "club": clubs.pop(),
                "players": len(participants),
                "games": len(rated),
                "mean_deviation": round(deviation, 3),
            },
        )
    ]


def _rating(participants: dict[int, Participant], participant_id: int | None) -> float:
    participant = participants.get(participant_id) if participant_id is not None else None
    return float(participant.rating or 0) if participant is not None else 0.0


def _repeated_pairings(
    event: Event, participants: dict[int, Participant], games: list[_Game], limits: dict[str, Any]
) -> list[IntegrityFinding]:
    """Across events in the period: the same two players meeting ``repeat_meetings`` times or more, and a
    player losing at least ``lopsided_loss_share`` of ``lopsided_min_games`` or more games to one opponent."""
    if event.end_date is None:
        return []
    player_of = {pid: p.player_id for pid, p in participants.items()}
    here = {
        frozenset((player_of[g.white], player_of[g.black]))
        for g in games
        if g.black is not None and g.result in RATED_RESULTS
    }
    if not here:
        return []
    players = list(player_of.values())
    since = event.end_date - datetime.timedelta(days=limits["period_days"])
    rows = (
        Game.objects.filter(
            result__in=[r.value for r in RATED_RESULTS],
            event__end_date__gte=since,
            event__end_date__lte=event.end_date,
            white__player_id__in=players,
            black__player_id__in=players,
        )
        .exclude(event__status=EventStatus.REFUSED)
        .values_list("white__player_id", "black__player_id", "result", "event_id")
    )
    meetings: Counter[frozenset[int]] = Counter()
    events_of: dict[frozenset[int], set[int]] = defaultdict(set)
    losses: Counter[tuple[int, int]] = Counter()  # (loser, winner)
    for white, black, result, event_id in rows:
        pair = frozenset((white, black))
        if pair not in here:
            continue
        meetings[pair] += 1
        events_of[pair].add(event_id)
        white_points = RESULT_POINTS[result][0]
        if white_points == 0:
            losses[(white, black)] += 1
        elif white_points == 1:
            losses[(black, white)] += 1
    names = {p.player_id: f"{p.player.name} ({p.player.id_number})" for p in participants.values()}
    findings = []
    repeat = limits["repeat_meetings"]
    for pair, count in sorted(meetings.items(), key=lambda item: -item[1]):
        if count >= repeat:
            a, b = sorted(pair)
            findings.append(
                IntegrityFinding(
                    IntegrityCheck.REPEATED_PAIRING,
                    f"the same two players meet {repeat} or more times within {limits['period_days']} days: "
                    f"{names[a]} and {names[b]}",
                    {"players": [names[a], names[b]], "games": count, "events": sorted(events_of[pair])},
                )
            )
    minimum, share = limits["lopsided_min_games"], limits["lopsided_loss_share"]
    for (loser, winner), lost in losses.items():
        together = meetings[frozenset((loser, winner))]
        if together >= minimum and lost / together >= share:
            findings.append(
                IntegrityFinding(
                    IntegrityCheck.LOPSIDED_LOSSES,
                    f"a player loses at least {share:.0%} of {minimum} or more games to one opponent within "
                    f"{limits['period_days']} days: {names[loser]} to {names[winner]}",
                    {"loser": names[loser], "winner": names[winner], "lost": lost, "games": together},
                )
            )
    return findings[:EVIDENCE_ITEMS]


def _duplicates(event: Event, participants: dict[int, Participant], limits: dict[str, Any]) -> list[IntegrityFinding]:
    """Another event (not refused) with overlapping dates sharing at least ``duplicate_player_share`` of the
    players of the larger of the two."""
    if event.start_date is None or event.end_date is None or not participants:
        return []
    players = [p.player_id for p in participants.values()]
    overlapping = (
        Event.objects.filter(start_date__lte=event.end_date, end_date__gte=event.start_date)
        .exclude(pk=event.pk)
        .exclude(status=EventStatus.REFUSED)
    )
    shared = dict(
        Participant.objects.filter(event__in=overlapping, player_id__in=players)
        .values("event_id")
        .annotate(n=Count("pk"))
        .values_list("event_id", "n")
    )
    if not shared:
        return []
    sizes = dict(
        Participant.objects.filter(event_id__in=list(shared))
        .values("event_id")
        .annotate(n=Count("pk"))
        .values_list("event_id", "n")
    )
    findings = []
    for other, count in shared.items():
        share = count / max(len(players), sizes[other])
        if share >= limits["duplicate_player_share"]:
            findings.append(
                IntegrityFinding(
                    IntegrityCheck.DUPLICATE_EVENT,
                    f"event #{other} has overlapping dates and {share:.0%} of the same players "
                    f"(at least {limits['duplicate_player_share']:.0%} flags a duplicate)",
                    {"event": other, "shared_players": count, "players": len(players), "other_players": sizes[other]},
                )
            )
    return findings
