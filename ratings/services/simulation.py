"""Write a simulated federation (ratings.simulation's arrays) into the database: players, a starting list, and
events with results, submitted for rating. Publication is separate (the command queues it through Celery).

A demo that looks real: besides the home federation, a quarter of the players belong to a few others; most
players are members of a club of their federation; with ``rating_types`` the same players also play rapid and
blitz events (a starting list of each, their own stream of events, fewer of them).

Rows go in through core.bulk: COPY on PostgreSQL (two million players and a million games a list
period in minutes), bulk_create on SQLite. Primary keys are reserved from the tables' sequences first, so
participants and games refer to the rows written before them without reading them back. One month of events
at a time, so memory stays flat.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field, replace

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from core.bulk import copy_columns, copy_rows, reserve_ids
from events.models import Event, EventStatus, Game, Participant, RatingType
from players.models import Club, Federation, Player
from players.names import name_search_key
from players.registry import federations_ensure
from ratings.engine import RulesPreset, get_preset, next_k_factor
from ratings.engine.inactivity import inactive_flags
from ratings.engine.list_state import list_order
from ratings.engine.months import add_months
from ratings.models import RatingList, RatingListEntry, RatingListStatus, RatingPolicy
from ratings.services.entry_storage import entry_storage_attach, entry_storage_bulk, entry_storage_prepare, entry_table
from ratings.services.errors import RatingListRefused
from ratings.services.schedule import check_rating_type, rating_policy_for
from ratings.simulation import RESULT_CODES, SimulatedMonth, SimulatedPlayers, simulate_federation

BATCH_SIZE = 2000
RATING_TYPE_ORDER = list(RatingType.values)
TITLE_THRESHOLDS = ((2500, "GM"), (2400, "IM"), (2300, "FM"), (2200, "CM"))
TIME_CONTROL = "90 min + 30 s from move 1"
TIME_CONTROLS = {"standard": TIME_CONTROL, "rapid": "15 min + 10 s", "blitz": "3 min + 2 s"}
EVENT_PREFIX = {"standard": "", "rapid": "Rapid ", "blitz": "Blitz "}
# Rapid and blitz events per player and month, as a share of standard's (one-day events, fewer of them).
EVENT_SHARE = {"standard": 1.0, "rapid": 0.4, "blitz": 0.3}
# Other federations of the demo (a quarter of the players), and cities for club names.
OTHER_FEDERATIONS = (("FRA", "France"), ("POR", "Portugal"), ("ARG", "Argentina"), ("MEX", "Mexico"))
FOREIGN_SHARE = 0.25
CITIES = {
    "ESP": ("Madrid", "Barcelona", "Valencia", "Sevilla", "Bilbao", "Zaragoza", "Malaga", "Oviedo"),
    "FRA": ("Paris", "Lyon", "Marseille", "Lille"),
    "POR": ("Lisboa", "Porto", "Braga"),
    "ARG": ("Buenos Aires", "Rosario", "Cordoba"),
    "MEX": ("Ciudad de Mexico", "Guadalajara", "Monterrey"),
}
PLAYERS_PER_CLUB = 40
CLUB_SHARE = 0.7  # players with a club
MAX_CLUBS = 5000


@dataclass
class SimulationSummary:
    rating_type: str
    starting_list_date: datetime.date
    list_dates: list[datetime.date]  # the list dates after the starting list, in order (to publish)
    players: int = 0
    events: int = 0
    games: int = 0
    event_ids: list[int] = field(default_factory=list, repr=False)
    rating_types: list[str] = field(default_factory=list)
    list_dates_by_type: dict[str, list[datetime.date]] = field(default_factory=dict)
    clubs: int = 0


def federation_simulate(
    players: int,
    months: int,
    seed: int,
    *,
    rating_type: str = "standard",
    today: datetime.date | None = None,
    games_per_month: int | None = None,
    rating_types: tuple[str, ...] | list[str] | None = None,
) -> SimulationSummary:
    """Simulate ``players`` players and ``months`` months of events up to the latest list date (<= today).

    The federation starts with a published (imported) list at the list date ``months`` months earlier; the
    events are submitted, waiting for the lists ``SimulationSummary.list_dates``. ``games_per_month`` sets how
    much is played (default: each playing player enters about one event in three months). ``rating_types``
    (default: ``rating_type`` alone): the same players play events of each type, with a starting list of each
    (``list_dates_by_type``). Refused when a rating type already has lists (a simulation is for an empty
    database or unused rating types).
    """
    types = list(dict.fromkeys(rating_types or [rating_type]))
    _check_unused_rating_types(types)
    today = today or timezone.localdate()
    periods = {kind: _period(rating_policy_for(kind), today, months) for kind in types}
    start, _end, _span = periods[types[0]]
    top = Player.objects.aggregate(top=Max("id_number"))["top"] or 0
    first_id = max(10_000_001, top + 1)
    summary = SimulationSummary(
        rating_type=types[0],
        starting_list_date=start,
        list_dates=[],
        rating_types=types,
    )
    for kind, (kind_start, kind_end, _) in periods.items():
        summary.list_dates_by_type[kind] = rating_policy_for(kind).list_dates_between(
            kind_start + datetime.timedelta(days=1), kind_end
        )
    summary.list_dates = summary.list_dates_by_type[types[0]]
    federation, _ = Federation.objects.get_or_create(
        code=settings.FEDERATION_CODE or "ESP", defaults={"name": "" if settings.FEDERATION_CODE else "Spain"}
    )
    with transaction.atomic():
        for index, kind in enumerate(types):
            policy = rating_policy_for(kind)
            kind_start, _, kind_span = periods[kind]
            player_pk: np.ndarray | None = None
            batches = simulate_federation(
                players,
                kind_span,
                seed,
                start,
                first_id=first_id,
                games_per_month=None if games_per_month is None else max(int(games_per_month * EVENT_SHARE[kind]), 1),
                events_per_player_month=0.35 * EVENT_SHARE[kind],
                event_seed=None if index == 0 else index,  # the first type keeps the seed's one stream
            )
            for batch in batches:
                if isinstance(batch, SimulatedPlayers):
                    if index == 0:
                        written = _write_players(batch, federation, seed)
                        summary.players, summary.clubs = len(batch), written.clubs
                    player_pk = written.pk
                    _write_starting_list(
                        _starting_for(batch, kind, seed),
                        player_pk,
                        written.titles,
                        written.federations,
                        kind,
                        kind_start,
                        policy.closing_date(kind_start),
                        get_preset(policy.rules_preset),
                    )
                else:
                    assert player_pk is not None, "simulate_federation yields the players before the first month"
                    _write_month(batch, player_pk, kind, federation, today, summary)
    return summary


def _check_unused_rating_types(types: list[str]) -> None:
    """Refuse a rating type that already has lists: a simulation is for an empty database or unused types."""
    for kind in types:
        check_rating_type(kind)
        if RatingList.objects.filter(rating_type=kind).exists():
            raise RatingListRefused(
                f"the database already has {kind} rating lists; a simulated federation needs "
                "an empty database (or an unused rating type)"
            )


def _period(policy: RatingPolicy, today: datetime.date, months: int) -> tuple[datetime.date, datetime.date, int]:
    """The starting list date, the latest list date (<= today) and the months between them."""
    end = policy.previous_list_date(today + datetime.timedelta(days=1))
    start = policy.previous_list_date(add_months(end, -months) + datetime.timedelta(days=1))
    return start, end, (end.year - start.year) * 12 + end.month - start.month


def _starting_for(sim: SimulatedPlayers, rating_type: str, seed: int) -> SimulatedPlayers:
    """The players as a ``rating_type`` starting list shows them: standard as simulated; rapid and blitz
    ratings the same strength seen through more noise (their own stream of the seed)."""
    if rating_type == "standard":
        return sim
    rng = np.random.default_rng([seed, 100 + RATING_TYPE_ORDER.index(rating_type)])
    noisy = np.round(sim.starting_rating + rng.normal(0, 70, len(sim)))
    starting = np.where(noisy >= 1400, noisy, np.nan)  # B.02 rating floor, as on the standard list
    return replace(sim, starting_rating=starting, rated_games_total=sim.rated_games_total // 2)


def _titles(sim: SimulatedPlayers) -> tuple[np.ndarray, np.ndarray]:
    """FIDE-like titles from the starting rating (women with a women's title instead of CM)."""
    peak = np.nan_to_num(sim.starting_rating, nan=0.0)
    title = np.full(len(sim), "", dtype=object)
    for threshold, name in reversed(TITLE_THRESHOLDS):
        title[peak >= threshold] = name
    women = (title != "") & (sim.sex == "F")
    women_title = np.where(women, np.char.add("W", title.astype(str)), "").astype(object)
    title = np.where(women & (title == "CM"), "", title).astype(object)
    return title, women_title


@dataclass
class WrittenPlayers:
    pk: np.ndarray  # primary key of each simulated player (by index)
    titles: tuple[np.ndarray, np.ndarray]  # title, women's title
    federations: np.ndarray  # federation code of each player
    clubs: int


def _federations_and_clubs(
    sim: SimulatedPlayers, home: Federation, seed: int
) -> tuple[np.ndarray, np.ndarray, list[Club]]:
    """Each player's federation (a quarter abroad) and club (-1: none) from the seed's own stream (the
    simulation's arrays stay as they were); the clubs, not yet saved."""
    rng = np.random.default_rng([seed, 99])
    codes = np.array([home.code, *(code for code, _ in OTHER_FEDERATIONS)], dtype=object)
    abroad = rng.random(len(sim)) < FOREIGN_SHARE
    federation = np.where(abroad, codes[1 + rng.integers(0, len(OTHER_FEDERATIONS), len(sim))], home.code)
    clubs: list[Club] = []
    club_of = np.full(len(sim), -1, dtype=np.int64)
    for code in codes.tolist():
        members = np.flatnonzero(federation == code)
        count = min(max(1, members.size // PLAYERS_PER_CLUB), MAX_CLUBS // len(codes))
        cities = CITIES.get(code, CITIES["ESP"])
        first = len(clubs)
        for n in range(count):
            city = cities[n % len(cities)]
            number = f" {n // len(cities) + 1}" if n >= len(cities) else ""
            clubs.append(
                Club(name=f"Club {city}{number}", code=f"{code[:1]}{n + 1:03d}", federation_id=code, city=city)
            )
        joined = members[rng.random(members.size) < CLUB_SHARE]
        club_of[joined] = first + rng.integers(0, count, joined.size)
    return federation, club_of, clubs


def _write_players(sim: SimulatedPlayers, home: Federation, seed: int) -> WrittenPlayers:
    """Insert the federations, clubs and every player."""
    federations_ensure(code for code, _ in OTHER_FEDERATIONS)
    for code, name in OTHER_FEDERATIONS:
        Federation.objects.filter(code=code, name="").update(name=name)
    federation, club_of, clubs = _federations_and_clubs(sim, home, seed)
    Club.objects.bulk_create(clubs, batch_size=BATCH_SIZE)
    club_pk = np.array([club.pk for club in clubs], dtype=np.int64)
    pk = reserve_ids(Player, len(sim))
    title, women_title = _titles(sim)
    names = [f"{s}, {g}" for s, g in zip(sim.surname, sim.given_names, strict=True)]
    search_names = [name.upper() for name in names]
    copy_rows(
        Player,
        (
            "id",
            "id_number",
            "surname",
            "given_names",
            "search_name",  # Player.save() keeps it and search_key; COPY and bulk_create bypass save()
            "search_key",
            "sex",
            "birth_year",
            "federation_id",
            "club_id",
            "title",
            "women_title",
        ),
        zip(
            pk.tolist(),
            sim.id_number.tolist(),
            sim.surname,
            sim.given_names,
            search_names,
            [name_search_key(name) for name in names],
            sim.sex.tolist(),
            sim.birth_year.tolist(),
            federation.tolist(),
            [None if c < 0 else int(club_pk[c]) for c in club_of.tolist()],
            title.tolist(),
            women_title.tolist(),
            strict=True,
        ),
    )
    return WrittenPlayers(pk=pk, titles=(title, women_title), federations=federation, clubs=len(clubs))


def _write_starting_list(
    sim: SimulatedPlayers,
    player_pk: np.ndarray,
    titles: tuple[np.ndarray, np.ndarray],
    federations: np.ndarray,
    rating_type: str,
    list_date: datetime.date,
    closing_date: datetime.date,
    rules: RulesPreset,
) -> RatingList:
    """The federation's ratings before the simulation, as an imported published list (players who stopped
    playing more than a year ago marked inactive, B.02 7.2)."""
    rated = np.flatnonzero(~np.isnan(sim.starting_rating))
    ratings = sim.starting_rating[rated].astype(np.int64)
    games_total = sim.rated_games_total[rated]
    ever_2400 = ratings >= 2400
    k = next_k_factor(
        ratings.astype(np.float64),
        games_total,
        ever_2400,
        sim.birth_year[rated],
        list_date,
        rules,
        ever_2300=ratings >= 2300,
    )
    last_game = sim.last_game[rated]
    inactive = inactive_flags(last_game, list_date, rules.inactivity_months)
    with entry_storage_bulk():  # written below, then attached (ratings.services.entry_storage)
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
    title, women_title = titles
    # positions and ranks computed here and the rows written in list order, as a publication writes them: an
    # UPDATE of every row afterwards (list_order_store) left the list's table twice its size (dead rows)
    position, rank, federation_rank = list_order(
        player_pk[rated], ratings.astype(np.float64), inactive, federations[rated]
    )
    order = np.argsort(position, kind="stable")
    columns = {
        "player_id": player_pk[rated],
        "rating": ratings,
        "k_factor": k.astype(np.int64),
        "inactive": inactive,
        "rated_games_total": games_total,
        "ever_2400": ever_2400,
        "ever_2300": ratings >= 2300,
        "last_game_date": last_game,
        "title": title[rated],
        "women_title": women_title[rated],
        "federation": federations[rated],
        "sex": sim.sex[rated],
        "birth_year": sim.birth_year[rated],
        "position": position,
        "rank": rank,
        "federation_rank": federation_rank,
    }
    entry_storage_prepare([rating_list.pk])
    copy_columns(
        RatingListEntry,
        {
            "rating_list_id": np.full(rated.size, rating_list.pk),
            **{name: values[order] for name, values in columns.items()},
        },
        table=entry_table(rating_list.pk),
    )
    entry_storage_attach([rating_list.pk])
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
            name=EVENT_PREFIX.get(rating_type, "") + name,
            city="",
            federation=federation,
            start_date=start,
            end_date=end,
            rating_type=rating_type,
            system=system,
            rounds=int(rounds),
            time_control=TIME_CONTROLS.get(rating_type, TIME_CONTROL),
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
    kept_p = np.flatnonzero(keep[month.participant_event])
    participant_pk = np.full(month.participant_event.size, -1, dtype=np.int64)
    participant_pk[kept_p] = reserve_ids(Participant, kept_p.size)
    copy_rows(
        Participant,
        ("id", "event_id", "player_id", "start_rank"),
        zip(
            participant_pk[kept_p].tolist(),
            event_pk[month.participant_event[kept_p]].tolist(),
            player_pk[month.participant_player[kept_p]].tolist(),
            month.participant_rank[kept_p].tolist(),
            strict=True,
        ),
    )
    kept_g = np.flatnonzero(keep[month.game_event])
    black = month.game_black[kept_g]
    black_pk = np.where(black >= 0, participant_pk[np.maximum(black, 0)], -1)
    results = np.array(RESULT_CODES, dtype=object)[month.game_result[kept_g]]
    copy_rows(
        Game,
        ("event_id", "round", "board", "white_id", "black_id", "result", "date"),
        zip(
            event_pk[month.game_event[kept_g]].tolist(),
            month.game_round[kept_g].tolist(),
            month.game_board[kept_g].tolist(),
            participant_pk[month.game_white[kept_g]].tolist(),
            [None if pk < 0 else pk for pk in black_pk.tolist()],
            results.tolist(),
            month.game_date[kept_g].astype(object).tolist(),
            strict=True,
        ),
    )
    summary.events += len(events)
    summary.games += int(kept_g.size)
    summary.event_ids.extend(e.pk for e in events)
