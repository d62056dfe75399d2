"""Title norms of an event's players (B.01 1.4) from the event's own data; the rules are ratings.engine.norms.

What the rules read (titles-norms.md §1, §3): opponents' ratings from the list in force at the start (1.4.6a), and
for events longer than 30 days those in force when each game was played (1.1.4), or the FIDE rating the report
gives for a player the list does not hold; opponents' titles held at the start (the registry's, less those awarded
later: players.TitleAward) and their federations;
the event's system (round robins have predetermined pairings; a round robin in which every pair met twice is a
double round robin). A fixed number of queries whatever the event's size (one rating lookup per game date for
long events).
"""

from __future__ import annotations

import datetime
import json
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import Actor, acting_user, audit_record
from core.roles import is_official
from events.models import (
    RATED_RESULTS,
    RESULT_POINTS,
    ArbiterTitle,
    Event,
    EventSystem,
    Game,
    NormExemption,
    Participant,
    RatingType,
    Result,
)
from outbox.webhooks import webhooks_notify
from players.models import Player, TitleAward
from ratings.engine.classes import title_covers
from ratings.engine.norms import (
    EventConditions,
    NormEvent,
    NormGame,
    NormPlayer,
    NormResult,
    NormRules,
    check_norms,
    norm_title_of,
    title_held_on,
)
from ratings.models import NormRecord
from ratings.services.projection import ratings_in_force

LONG_EVENT_DAYS = 30  # B.01 1.1.4


def norm_rules() -> NormRules:
    """The federation's reading of titles-norms.md §9's open points (settings NORM_MIN_SCORE_ROUNDED and
    NORM_EXEMPTION_WAIVES_LIMITS; engine defaults when unset)."""
    defaults = NormRules()
    return NormRules(
        min_score_rounded=getattr(settings, "NORM_MIN_SCORE_ROUNDED", defaults.min_score_rounded),
        exemption_waives_limits=getattr(settings, "NORM_EXEMPTION_WAIVES_LIMITS", defaults.exemption_waives_limits),
    )


@dataclass(frozen=True)
class PlayerNorms:
    id_number: int
    name: str
    norms: tuple[NormResult, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"id_number": self.id_number, "name": self.name, "norms": [norm_result_dict(n) for n in self.norms]}


def norm_result_dict(result: NormResult) -> dict[str, Any]:
    """A norm check as the API and the command write it (titles-norms.md: one entry per title)."""
    data = asdict(result)
    data["games_used"] = list(result.games_used)
    for check in data["checks"]:
        check["params"] = dict(check["params"])
    return data


@dataclass(frozen=True)
class _EventNormInputs:
    participants: list[Participant]
    games: dict[int, list[NormGame]]  # participant id -> the player's games in the engine's vocabulary
    event: NormEvent
    one_round_a_day: bool  # 1.1.3a: one round a day on at least 3 days
    qualifying: bool  # 1.5.6 (see _qualifying)


QUALIFYING_SWISS_PLAYERS, QUALIFYING_SWISS_AVERAGE = 40, 2000  # B.01 1.5.6


def _qualifying(
    event: Event,
    system: str,
    participants: list[Participant],
    ratings: dict[tuple[int, datetime.date | None], int | None],
) -> bool:
    """B.01 1.5.6's events, as far as the record tells: a national championship's final, or a Swiss of at least 40
    players whose rated players average 2000 or more (the rule asks it of every round; the field's average at the
    start is what is kept here)."""
    if event.norm_exemption == NormExemption.NATIONAL_CHAMPIONSHIP:
        return True
    rated = [r for p in participants if (r := ratings.get((p.id, None))) is not None]
    return (
        system == "swiss"
        and len(participants) >= QUALIFYING_SWISS_PLAYERS
        and bool(rated)
        and sum(rated) / len(rated) >= QUALIFYING_SWISS_AVERAGE
    )


def _event_norm_inputs(event: Event) -> _EventNormInputs:
    participants = list(
        Participant.objects.filter(event=event)
        .select_related("player")
        .only(
            "id",
            "start_rank",
            "rating",
            "player__id",
            "player__id_number",
            "player__surname",
            "player__given_names",
            "player__sex",
            "player__federation_id",
            "player__title",
            "player__women_title",
        )
        .order_by("start_rank")
    )
    games = list(
        Game.objects.filter(event=event, round__gte=1)  # a round 0 is no round of the event (nor of a norm)
        .only("round", "white_id", "black_id", "result", "date")
        .order_by("round")
    )
    ratings = _opponent_ratings(event, participants, games)
    system = _system(event, games)
    excluded = _unrated_without_points(participants, games, ratings) if system != "swiss" else set()
    titles = _titles_at_start(event, participants)
    by_id = {p.id: p for p in participants}
    per_player: dict[int, list[NormGame]] = defaultdict(list)
    for game in games:
        for own, other in ((game.white_id, game.black_id), (game.black_id, game.white_id)):
            if own is None:
                continue
            opponent = by_id.get(other) if other is not None else None
            norm_game = _norm_game(game, own == game.white_id, opponent, ratings, titles, excluded)
            if norm_game is not None:
                per_player[own].append(norm_game)
    conditions = EventConditions(rounds_per_day=_rounds_per_day(games), chief_arbiter_title=_arbiter_title(event))
    norm_event = NormEvent(rounds=event.rounds, system=system, exemption=event.norm_exemption, conditions=conditions)
    days = len({g.date for g in games if g.date is not None})
    daily = conditions.rounds_per_day == 1 and days >= 3
    qualifying = _qualifying(event, system, participants, ratings)
    return _EventNormInputs(participants, per_player, norm_event, daily, qualifying)


def _titles_at_start(event: Event, participants: list[Participant]) -> dict[int, str]:
    """Participant id -> the title each counts with (B.01 1.4.5), as held at the event's start (1.4.6a): the
    registry's titles, less those whose award is dated after the start (players.TitleAward). One query."""
    start = event.start_date or event.created_at.date()
    awards: dict[int, list[tuple[datetime.date, str]]] = defaultdict(list)
    for player_id, date, title in TitleAward.objects.filter(
        player_id__in=[p.player.id for p in participants]
    ).values_list("player_id", "date", "title"):
        awards[player_id].append((date, title))
    return {
        p.id: norm_title_of(
            title_held_on(p.player.title, awards[p.player.id], start),
            title_held_on(p.player.women_title, awards[p.player.id], start),
        )
        for p in participants
    }


def _rounds_per_day(games: list[Game]) -> int | None:
    """B.01 1.1: the most rounds played on one day, from the games' dates (None: no dates recorded)."""
    rounds_on: dict[datetime.date, set[int]] = defaultdict(set)
    for game in games:
        if game.date is not None:
            rounds_on[game.date].add(game.round)
    return max((len(r) for r in rounds_on.values()), default=None)


def _arbiter_title(event: Event) -> str | None:
    """The Chief Arbiter's title as recorded, or as a report names them ("IA Jane Roe", TRF record 102)."""
    if event.chief_arbiter_title:
        return event.chief_arbiter_title
    first = event.chief_arbiter_name.split(maxsplit=1)[:1]
    return first[0] if first and first[0] in ArbiterTitle.values else None


def _norm_player(participant: Participant) -> NormPlayer:
    return NormPlayer(federation=participant.player.federation_id or "FID", sex=participant.player.sex)


def event_norm_report(event: Event, id_number: int | None = None) -> list[PlayerNorms]:
    """Every player's norm checks in ``event`` (or only the player ``id_number``), in starting-rank order."""
    return _report(_event_norm_inputs(event), id_number)


def _report(inputs: _EventNormInputs, id_number: int | None = None) -> list[PlayerNorms]:
    rules = norm_rules()
    report = []
    for participant in inputs.participants:
        player = participant.player
        if id_number is not None and player.id_number != id_number:
            continue
        results = check_norms(_norm_player(participant), inputs.event, inputs.games[participant.id], rules=rules)
        report.append(PlayerNorms(player.id_number, player.name, results))
    return report


@dataclass(frozen=True)
class CertificateRound:
    """A line of the IT1's table of rounds (titles-norms.md §5)."""

    round: int
    opponent: str
    id_number: str
    federation: str
    rating: str  # "1400 (unrated)" or "2100 -> 2200 (raised, 1.4.7)" where it applies
    title: str
    result: str
    counted: bool


@dataclass(frozen=True)
class NormCertificate:
    """What FIDE's IT1 certificate of title result asks, for one player's norm in one event."""

    event: Event
    id_number: int
    name: str
    federation: str
    result: NormResult
    rounds: tuple[CertificateRound, ...]
    federations: int  # opponents' federations among the games counted (FID not a federation, 1.4.3)
    countersigned: str = ""  # "name, date" once the rating officer has countersigned (NormRecord)


def norm_certificate(event: Event, id_number: int, title: str | None = None) -> NormCertificate | None:
    """The IT1 data of ``id_number``'s norm in ``event`` (the highest title made, or ``title``); None: no norm."""
    inputs = _event_norm_inputs(event)
    participant = next((p for p in inputs.participants if p.player.id_number == id_number), None)
    if participant is None:
        return None
    games = inputs.games[participant.id]
    results = check_norms(_norm_player(participant), inputs.event, games, rules=norm_rules())
    made = [r for r in results if r.norm and (title is None or r.title == title)]
    if not made:
        return None
    result = made[0]
    names = {str(p.player.id_number): p.player.name for p in inputs.participants}
    raised = result.raised_opponent
    rows = []
    for game in sorted(games, key=lambda g: g.round):
        rating = "1400 (unrated)" if game.opponent_rating is None else str(game.opponent_rating)
        if raised is not None and raised.round == game.round:
            rating = f"{rating} -> {raised.raised_to} (raised, 1.4.7)"
        rows.append(
            CertificateRound(
                round=game.round,
                opponent=names.get(game.opponent, ""),
                id_number=game.opponent,
                federation=game.opponent_federation,
                rating=rating if game.opponent else "",
                title=game.opponent_title,
                result={"1": "1", "0.5": "½", "0": "0"}.get(game.result, game.result),
                counted=game.round in result.games_used,
            )
        )
    federations = len({r.federation for r in rows if r.counted and r.federation and r.federation != "FID"})
    player = participant.player
    record = (
        NormRecord.objects.filter(event=event, player=player, title=result.title, countersigned_at__isnull=False)
        .select_related("countersigned_by")
        .first()
    )
    signed = (
        f"{record.countersigned_by.get_full_name() or record.countersigned_by.get_username()}, "
        f"{record.countersigned_at:%Y-%m-%d}"
        if record is not None and record.countersigned_by is not None and record.countersigned_at is not None
        else ""
    )
    return NormCertificate(
        event, player.id_number, player.name, player.federation_id or "FID", result, tuple(rows), federations, signed
    )


def _opponent_ratings(
    event: Event, participants: list[Participant], games: list[Game]
) -> dict[tuple[int, datetime.date | None], int | None]:
    """(participant id, game date or None) -> the rating in force: at the start (1.4.6a), or for an event longer
    than 30 days on each game's date (1.1.4). A player the federation's list does not hold (a foreign opponent in
    an imported event) counts with the FIDE rating the arbiter's report gives (``Participant.rating``)."""
    rating_type = event.rating_type or RatingType.STANDARD
    start = event.start_date or event.created_at.date()
    player_of = {p.id: p.player.id for p in participants}
    reported = {p.id: p.rating for p in participants}
    days: set[datetime.date | None] = {None}
    if event.start_date and event.end_date and (event.end_date - event.start_date).days > LONG_EVENT_DAYS:
        days |= {g.date for g in games if g.date is not None}
    found: dict[tuple[int, datetime.date | None], int | None] = {}
    for day in days:
        in_force = ratings_in_force(rating_type, day or start, list(player_of.values()))
        for participant_id, player_id in player_of.items():
            found[(participant_id, day)] = in_force.get(player_id, reported[participant_id])
    return found


def _system(event: Event, games: list[Game]) -> str:
    """The engine's name for the pairing system: round robins are predetermined; every pair twice: double."""
    if event.system not in (EventSystem.ROUND_ROBIN, EventSystem.MATCH):
        return "swiss"
    pairs: dict[frozenset[int], int] = defaultdict(int)
    for game in games:
        if game.black_id is not None:
            pairs[frozenset((game.white_id, game.black_id))] += 1
    return "double-round-robin" if pairs and min(pairs.values()) >= 2 else "round-robin"


def _unrated_without_points(
    participants: list[Participant], games: list[Game], ratings: dict[tuple[int, datetime.date | None], int | None]
) -> set[int]:
    """Round robins (1.4.1): unrated players who scored zero against the rated do not count as opponents."""
    unrated = {p.id for p in participants if ratings.get((p.id, None)) is None}
    points: dict[int, float] = defaultdict(float)
    for game in games:
        if game.result not in RATED_RESULTS or game.black_id is None:
            continue
        white, black = RESULT_POINTS[game.result]
        if game.white_id in unrated and game.black_id not in unrated:
            points[game.white_id] += white
        if game.black_id in unrated and game.white_id not in unrated:
            points[game.black_id] += black
    return {p for p in unrated if points[p] == 0}


def _norm_game(
    game: Game,
    as_white: bool,
    opponent: Participant | None,
    ratings: dict[tuple[int, datetime.date | None], int | None],
    titles: dict[int, str],
    excluded: set[int],
) -> NormGame | None:
    """One game from the player's side in the engine's vocabulary (None: no game for the norm)."""
    if opponent is None:
        return NormGame(round=game.round, result="bye") if game.result == Result.PAIRING_BYE else None
    if game.result == Result.PENDING:
        return None
    points = RESULT_POINTS[game.result][0 if as_white else 1]
    # forfeited or unplayed (1.4.2): a forfeit win is what 1.4.1c may count, anything else is no game
    unplayed = "+" if points == 1.0 else "-"
    result = {1.0: "1", 0.5: "0.5", 0.0: "0"}[points] if game.result in RATED_RESULTS else unplayed
    player = opponent.player
    rating = ratings.get((opponent.id, game.date), ratings.get((opponent.id, None)))
    return NormGame(
        round=game.round,
        result=result,
        opponent=str(player.id_number),
        opponent_rating=rating,
        opponent_title=titles[opponent.id],
        opponent_federation=player.federation_id or "FID",
        excluded=opponent.id in excluded,
    )


def event_norms_store(event: Event) -> list[NormRecord]:
    """Keep the norms made in ``event`` (on submission and on every correction: events' results-complete hook).

    Norms for a title the player already holds (or a higher one of its track) are not kept. The event's rows are
    replaced in bulk; a countersignature stays on a norm whose figures did not change (a correction that changes
    them voids it: the IT1 must be signed again); a new norm is announced once (webhook ``norm.made``). Eight
    queries whatever the event's size.
    """
    now = timezone.now()
    inputs = _event_norm_inputs(event)
    held = {p.player.id_number: (p.player.title, p.player.women_title) for p in inputs.participants}
    # a norm for a title the player holds (or a higher one of its track) is kept by nobody: an IM's IM norm
    made = [
        (line, norm)
        for line in _report(inputs)
        for norm in line.norms
        if norm.norm and not title_covers(held[line.id_number][norm.title.startswith("W")], norm.title)
    ]
    ids = dict(Player.objects.filter(id_number__in=[line.id_number for line, _ in made]).values_list("id_number", "pk"))
    before = {(r.player_id, r.title): r for r in NormRecord.objects.filter(event=event)}
    rows = []
    for line, norm in made:
        row = NormRecord(
            event=event,
            player_id=ids[line.id_number],
            title=norm.title,
            games=norm.games,
            score=norm.score,
            average_rating=norm.average_rating,
            performance=norm.performance,
            one_four_one_c=norm.one_four_one_c,
            exempt=inputs.event.exemption != "",
            one_round_a_day=inputs.one_round_a_day,
            qualifying=inputs.qualifying,
            computed_at=now,
        )
        old = before.get((row.player_id, row.title))
        if old is not None and old.countersigned_at is not None and _same_figures(old, row):
            row.countersigned_by_id, row.countersigned_at = old.countersigned_by_id, old.countersigned_at
        rows.append(row)
    NormRecord.objects.filter(event=event).delete()
    stored = NormRecord.objects.bulk_create(rows)
    # Followers of a player hear of a norm once (a correction that keeps it says nothing new).
    names = {ids[line.id_number]: (line.id_number, line.name) for line, _ in made}
    webhooks_notify(
        "norm.made",
        [_norm_payload(event, r, names[r.player_id]) for r in stored if (r.player_id, r.title) not in before],
    )
    return stored


def _norm_payload(event: Event, record: NormRecord, player: tuple[int, str]) -> dict[str, Any]:
    """The ``norm.made`` webhook's data: the player (followers key on the ID number), the event and the norm."""
    return {
        "player": {"id_number": player[0], "name": player[1]},
        "event": {
            "id": event.pk,
            "name": event.name,
            "end_date": event.end_date.isoformat() if event.end_date else None,
        },
        "norm": {
            "title": record.title,
            "games": record.games,
            "score": record.score,
            "average_rating": record.average_rating,
            "performance": record.performance,
        },
    }


def norms_countersign(records: list[NormRecord], *, user: Actor) -> int:
    """The organising federation's rating officer countersigns the IT1 certificates of ``records`` (titles-norms.md
    §5); each signature is audited. Only officials; a norm already countersigned is left as it is."""
    if not is_official(user):
        raise ValidationError(_("Only an official (a rating officer) countersigns certificates."))
    now, signer = timezone.now(), acting_user(user)
    signed = 0
    with transaction.atomic():
        for record in NormRecord.objects.select_for_update().filter(
            pk__in=[r.pk for r in records], countersigned_at__isnull=True
        ):
            record.countersigned_by, record.countersigned_at = signer, now
            record.save(update_fields=["countersigned_by", "countersigned_at"])
            audit_record(
                user,
                "norm.countersign",
                record.event,
                reason=f"{record.title} norm of {record.player_id}",
                after={"player": record.player_id, "title": record.title, "performance": record.performance},
            )
            signed += 1
    return signed


def _same_figures(a: NormRecord, b: NormRecord) -> bool:
    fields = ("games", "score", "average_rating", "performance")
    return all(getattr(a, f) == getattr(b, f) for f in fields)


def event_norm_report_json(event: Event, id_number: int | None = None) -> str:
    """The report as the command's --json writes it."""
    return json.dumps({"players": [p.to_dict() for p in event_norm_report(event, id_number)]}, indent=2)
