"""Write a simulated federation (ratings.simulation's arrays) into the database: players, a starting list, and
events with results, submitted for rating. Publication is separate (the command queues it through Celery).

Every batch is written with bulk_create; one month of events at a time, so memory stays flat. (For millions
of players the writer of each batch is the place to switch to COPY.)
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from events.models import Event, EventStatus, Game, Participant
from players.models import Federation, Player
from ratings.engine import get_preset, next_k_factor
from ratings.engine.months import add_months
from ratings.models import PlayerRating, RatingList, RatingListEntry, RatingListStatus
from ratings.services.errors import RatingListRefused
from ratings.services.schedule import check_rating_type, rating_policy_for
from ratings.simulation import RESULT_CODES, SimulatedMonth, SimulatedPlayers, simulate_federation

BATCH_SIZE = 2000
TITLE_THRESHOLDS = ((2500, "GM"), (2400, "IM"), (2300, "FM"), (2200, "CM"))


@dataclass
class SimulationSummary:
    rating_type: str
    starting_list_date: datetime.date
    list_dates: list[datetime.date]  # the list dates after the starting list, in order (to publish)
    players: int = 0
    events: int = 0
    games: int = 0
    event_ids: list[int] = field(default_factory=list, repr=False)


def federation_simulate(
    players: int, months: int, seed: int, *, rating_type: str = "standard", today: datetime.date | None = None
) -> SimulationSummary:
    """Simulate ``players`` players and ``months`` months of events up to the latest list date (<= today).

    The federation starts with a published (imported) list at the list date ``months`` months earlier; the
    events are submitted, waiting for the lists ``SimulationSummary.list_dates``. Refused when the rating type
    already has lists (a simulation is for an empty database or an unused rating type).
    """
    check_rating_type(rating_type)
    policy = rating_policy_for(rating_type)
    today = today or timezone.localdate()
    end = policy.previous_list_date(today + datetime.timedelta(days=1))
    start = policy.previous_list_date(add_months(end, -months) + datetime.timedelta(days=1))
    span = (end.year - start.year) * 12 + end.month - start.month
    if RatingList.objects.filter(rating_type=rating_type).exists():
        raise RatingListRefused(
            f"the database already has {rating_type} rating lists; a simulated federation needs "
            "an empty database (or an unused rating type)"
        )
    top = Player.objects.aggregate(top=Max("id_number"))["top"] or 0
    first_id = max(10_000_001, top + 1)
    summary = SimulationSummary(
        rating_type=rating_type,
        starting_list_date=start,
        list_dates=policy.list_dates_between(start + datetime.timedelta(days=1), end),
    )
    federation, _ = Federation.objects.get_or_create(
        code=settings.FEDERATION_CODE or "ESP", defaults={"name": "" if settings.FEDERATION_CODE else "Spain"}
    )
    rules = get_preset(policy.rules_preset)
    player_pk = None
    with transaction.atomic():
        for batch in simulate_federation(players, span, seed, start, first_id=first_id):
            if isinstance(batch, SimulatedPlayers):
                player_pk = _write_players(batch, federation)
                _write_starting_list(batch, player_pk, rating_type, start, policy.closing_date(start), rules)
                summary.players = len(batch)
            else:
                _write_month(batch, player_pk, rating_type, federation, today, summary)
    return summary


def _title(rating: float) -> str:
    for threshold, title in TITLE_THRESHOLDS:
        if rating >= threshold:
            return title
    return ""


def _write_players(sim: SimulatedPlayers, federation: Federation) -> np.ndarray:
    """Bulk insert; returns the primary key of each simulated player (by index)."""
    peak = np.nan_to_num(sim.starting_rating, nan=0.0)
    rows = []
    for i in range(len(sim)):
        title = _title(peak[i])
        women = title in ("GM", "IM", "FM", "CM") and sim.sex[i] == "F"
        player = Player(
            id_number=int(sim.id_number[i]),
            surname=sim.surname[i],
            given_names=sim.given_names[i],
            sex=str(sim.sex[i]),
            birth_year=int(sim.birth_year[i]),
            federation=federation,
            title="" if women and title == "CM" else title,
            women_title=f"W{title}" if women else "",
        )
        player.search_name = player.name.upper()  # bulk_create bypasses Player.save()
        rows.append(player)
    Player.objects.bulk_create(rows, batch_size=BATCH_SIZE)
    ids = dict(
        Player.objects.filter(
            id_number__gte=int(sim.id_number[0]), id_number__lte=int(sim.id_number[-1])
        ).values_list("id_number", "id")
    )
    return np.array([ids[int(i)] for i in sim.id_number], dtype=np.int64)


def _write_starting_list(
    sim: SimulatedPlayers,
    player_pk: np.ndarray,
    rating_type: str,
    list_date: datetime.date,
    closing_date: datetime.date,
    rules,
) -> RatingList:
    """The federation's ratings before the simulation, as an imported published list."""
    rated = np.flatnonzero(~np.isnan(sim.starting_rating))
    ratings = sim.starting_rating[rated]
    games_total = sim.rated_games_total[rated]
    ever_2400 = ratings >= 2400
    k = next_k_factor(
        ratings, games_total, ever_2400, sim.birth_year[rated], list_date, rules, ever_2300=ratings >= 2300
    )
    rating_list = RatingList.objects.create(
        rating_type=rating_type,
        list_date=list_date,
        closing_date=closing_date,
        status=RatingListStatus.PUBLISHED,
        rules_preset=rules.slug,
        rules=rules.to_json(),
        is_imported=True,
        published_at=timezone.now(),
        entry_count=rated.size,
        rated_count=rated.size,
    )
    players = {p.pk: p for p in Player.objects.filter(pk__in=player_pk[rated].tolist())}
    last_game = list_date - datetime.timedelta(days=30)
    entries = []
    for pk, r, kf, total, high in zip(
        player_pk[rated].tolist(),
        ratings.tolist(),
        k.tolist(),
        games_total.tolist(),
        ever_2400.tolist(),
        strict=True,
    ):
        p = players[pk]
        entries.append(
            RatingListEntry(
                rating_list=rating_list,
                player_id=pk,
                rating=int(r),
                k_factor=int(kf),
                rated_games_total=total,
                ever_2400=high,
                ever_2300=r >= 2300,
                last_game_date=last_game,
                title=p.title,
                women_title=p.women_title,
                federation=p.federation_id or "",
                sex=p.sex,
                birth_year=p.birth_year,
            )
        )
    RatingListEntry.objects.bulk_create(entries, batch_size=BATCH_SIZE)
    PlayerRating.objects.bulk_create(
        (
            PlayerRating(
                player_id=e.player_id,
                rating_type=rating_type,
                rating=e.rating,
                k_factor=e.k_factor,
                rated_games_total=e.rated_games_total,
                rating_list=rating_list,
                last_game_date=last_game,
            )
            for e in entries
        ),
        batch_size=BATCH_SIZE,
    )
    return rating_list


def _write_month(
    month: SimulatedMonth,
    player_pk: np.ndarray,
    rating_type: str,
    federation: Federation,
    today: datetime.date,
    summary: SimulationSummary,
) -> None:
    now = timezone.now()
    keep = month.event_end <= np.datetime64(today, "D")  # an event still running today is not submitted yet
    events = [
        Event(
            name=name,
            city="",
            federation=federation,
            start_date=start,
            end_date=end,
            rating_type=rating_type,
            system=system,
            rounds=int(rounds),
            time_control="90 min + 30 s from move 1",
            status=EventStatus.SUBMITTED,
            submitted_at=now,
        )
        for name, start, end, system, rounds, ok in zip(
            month.event_name,
            month.event_start.astype(object),
            month.event_end.astype(object),
            month.event_system,
            month.event_rounds,
            keep,
            strict=True,
        )
        if ok
    ]
    Event.objects.bulk_create(events, batch_size=BATCH_SIZE)
    event_pk = np.full(len(month.event_name), -1, dtype=np.int64)
    event_pk[np.flatnonzero(keep)] = [e.pk for e in events]  # primary keys come back (RETURNING)
    kept_p = keep[month.participant_event]
    participants = [
        Participant(event_id=int(event_pk[e]), player_id=int(player_pk[p]), start_rank=int(rank))
        for e, p, rank in zip(
            month.participant_event[kept_p],
            month.participant_player[kept_p],
            month.participant_rank[kept_p],
            strict=True,
        )
    ]
    Participant.objects.bulk_create(participants, batch_size=BATCH_SIZE)
    participant_pk = np.full(month.participant_event.size, -1, dtype=np.int64)
    participant_pk[np.flatnonzero(kept_p)] = [p.pk for p in participants]
    kept_g = keep[month.game_event]
    games = [
        Game(
            event_id=int(event_pk[e]),
            round=int(r),
            board=int(b),
            white_id=int(participant_pk[w]),
            black_id=int(participant_pk[k]) if k >= 0 else None,
            result=RESULT_CODES[res],
            date=d,
        )
        for e, r, b, w, k, res, d in zip(
            month.game_event[kept_g],
            month.game_round[kept_g],
            month.game_board[kept_g],
            month.game_white[kept_g],
            month.game_black[kept_g],
            month.game_result[kept_g],
            month.game_date[kept_g].astype(object),
            strict=True,
        )
    ]
    Game.objects.bulk_create(games, batch_size=BATCH_SIZE)
    summary.events += len(events)
    summary.games += len(games)
    summary.event_ids.extend(e.pk for e in events)
