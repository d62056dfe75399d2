"""Step 1a, load: everything a list is computed from, read IN BULK into NumPy (the previous list's state and
its players, the events, their rated games, the ratings in force, the registry data)."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.db.models import BooleanField, Case, CharField, ForeignKey, IntegerField, Value, When
from django.db.models.expressions import RawSQL

from core.bulk import read_columns
from events.models import RATED_RESULTS, Game, Participant
from players.models import Player
from ratings.engine.list_state import NEW_PLAYER_STATE
from ratings.engine.sorted_keys import found_sorted, lookup_sorted
from ratings.models import RatingList, RatingListEntry
from ratings.services.publication.plan import Arrays, ListPlan

ReadKind = str | tuple[str, int]  # a column kind of core.bulk.read_columns
ID_BATCH_SIZE = 10_000  # primary keys per "id IN (...)" read (SQLite allows 32,766 parameters a statement)
WHITE_SCORE = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}  # B.02 1.2: only played games are rated
# White's score in half points, computed by the database so games are read as numbers only
WHITE_HALF_POINTS = Case(
    *(When(result=code, then=Value(int(score * 2))) for code, score in WHITE_SCORE.items()),
    output_field=IntegerField(),
)
RATED_RESULT_CODES = [r.value for r in RATED_RESULTS]


def size_work_memory() -> None:
    """PostgreSQL: sort and hash memory for this transaction's bulk reads and writes (millions of rows); the
    server default (4 MB) turns the joins of a FIDE-sized list into disk sorts and nested scans."""
    if connection.vendor == "postgresql" and connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL work_mem = '256MB'")


# --------------------------------------------------------------------------------------------------------
# Step 1: load in bulk and compute
# --------------------------------------------------------------------------------------------------------
def _dates(values: Sequence[datetime.date]) -> np.ndarray:
    return np.array(values, dtype="datetime64[D]") if len(values) else np.empty(0, dtype="datetime64[D]")


# Stored empty (NULL) on an entry without a newcomer pool, read as 0 (ratings.models RatingListEntry).
POOL_SUMS = ("pool_opponent_sum", "pool_score")
# The state a list carries to the next one, as read_columns kinds (NULL rating / K -> NaN, NULL date -> NaT).
STATE_COLUMNS: dict[str, ReadKind] = {
    "player_id": "int64",
    **{name: "date" if dtype == "datetime64[D]" else dtype for name, (_, dtype) in NEW_PLAYER_STATE.items()},
}


def load_list_state(rating_list: RatingList | None) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Every entry of a list (the state a new list continues), sorted by player id, and the registry data of
    its players (REGISTRY_COLUMNS) read with it: one binary COPY of the entries joined to their players on
    PostgreSQL (millions of rows straight into NumPy)."""
    entries = (
        RatingListEntry.objects.filter(rating_list=rating_list).order_by()
        if rating_list is not None
        else RatingListEntry.objects.none()
    )
    registry_lookups = {f"player__{name}": kind for name, kind in REGISTRY_COLUMNS.items()}
    # chunk_by: a million entries arrive as a hundred packed rows (core.bulk.read_columns); player ids are dense
    # enough (a list's players are most of the registered ones)
    rows = read_columns(entries, {**STATE_COLUMNS, **registry_lookups}, chunk_by="player_id")
    by_player = np.argsort(rows["player_id"], kind="stable")  # sorted here: no sort in the database
    rows = {name: values[by_player] for name, values in rows.items()}
    # A player merged into another (players.services.player_merge) is not carried onto new lists: their games
    # and history now belong to the kept player; a line left on an old published list stays there only.
    merged = np.fromiter(Player.objects.filter(merged_into__isnull=False).values_list("id", flat=True), dtype=np.int64)
    if merged.size:
        keep = ~np.isin(rows["player_id"], merged)
        rows = {name: values[keep] for name, values in rows.items()}
    state = {name: rows[name] for name in STATE_COLUMNS}
    for name in POOL_SUMS:  # stored empty when there is no pool (_write_entries)
        state[name] = np.nan_to_num(state[name], nan=0.0)
    registry = {"id": rows["player_id"], **{name: rows[f"player__{name}"] for name in REGISTRY_COLUMNS}}
    return state, registry


def replayed_list_state(state: Arrays) -> tuple[Arrays, Arrays]:
    """A replayed list's state (STATE_COLUMNS, sorted by player) as load_list_state returns a published
    one: merged players left out the same way, the registry data read by primary key."""
    merged = np.fromiter(Player.objects.filter(merged_into__isnull=False).values_list("id", flat=True), dtype=np.int64)
    rows = {name: np.asarray(state[name]) for name in STATE_COLUMNS}
    if merged.size:
        keep = ~np.isin(rows["player_id"], merged)
        rows = {name: values[keep] for name, values in rows.items()}
    return rows, _registry_of(rows["player_id"])


def _max_length(name: str) -> int:
    model_field = Player._meta.get_field(name)
    if isinstance(model_field, ForeignKey):
        model_field = model_field.target_field
    assert isinstance(model_field, CharField), name
    assert model_field.max_length is not None, name
    return model_field.max_length


# The registry data a list needs (K needs the birth year; entries keep title etc. as published). The short
# codes travel as characters in the binary format; other_titles (rarely set) is read apart.
REGISTRY_COLUMNS: dict[str, ReadKind] = {
    "id_number": "int64",
    "birth_year": ("int64", 0),
    "title": ("chars", _max_length("title")),
    "women_title": ("chars", _max_length("women_title")),
    "federation_id": ("chars", _max_length("federation")),
    "sex": ("chars", _max_length("sex")),
}


def _registry_of(player_ids: np.ndarray) -> dict[str, np.ndarray]:
    """REGISTRY_COLUMNS of the players with these primary keys (sorted): the period's players who were not on
    the previous list (newcomers, unrated players), read by primary key (elsewhere than on PostgreSQL, a batch of
    ID_BATCH_SIZE at a time).
    (Reading them as "participants of the events, less the previous list's players" joined a million
    participations to the players and to the previous list: 3 to 5 s at FIDE's scale; by key, 0.2 s.)"""
    columns = {"id": "int64", **REGISTRY_COLUMNS}
    if connection.vendor == "postgresql":
        # one query, the keys in one array parameter (an index scan in key order); 80,000 placeholders would
        # cost the client more to write than the server to answer
        table = connection.ops.quote_name(Player._meta.db_table)
        by_key = RawSQL(f"{table}.id = ANY(%s)", (player_ids.tolist(),), output_field=BooleanField())
        return read_columns(Player.objects.filter(by_key).order_by(), columns, chunk_by="id")
    batches = (player_ids[start : start + ID_BATCH_SIZE] for start in range(0, player_ids.size, ID_BATCH_SIZE))
    parts = [read_columns(Player.objects.filter(id__in=batch.tolist()).order_by(), columns) for batch in batches]
    if not parts:
        return read_columns(Player.objects.none(), columns)
    return {name: np.concatenate([part[name] for part in parts]) for name in columns}


@dataclass
class ListEvents:
    """The events the list rates, ordered by end date then id: the engine's event index."""

    ids: np.ndarray
    start: np.ndarray  # datetime64[D]
    end: np.ndarray  # datetime64[D]

    @property
    def size(self) -> int:
        return int(self.ids.size)


@dataclass
class RatedGames:
    """The rated games of those events, ordered by event, round and id; players by primary key."""

    id: np.ndarray
    event: np.ndarray  # the engine's event index
    round: np.ndarray
    white_pid: np.ndarray
    black_pid: np.ndarray
    white_score: np.ndarray

    @property
    def size(self) -> int:
        return int(self.id.size)


def load_events(plan: ListPlan) -> ListEvents:
    rows = list(plan.events.order_by("end_date", "id").values_list("id", "start_date", "end_date"))
    # Events to rate have their dates: a submission without them is refused (events.services.event_problems).
    assert all(r[1] is not None and r[2] is not None for r in rows), "an event to rate has no dates"
    return ListEvents(
        ids=np.array([r[0] for r in rows], dtype=np.int64),
        start=_dates([r[1] for r in rows if r[1] is not None]),
        end=_dates([r[2] for r in rows if r[2] is not None]),
    )


def load_rated_games(plan: ListPlan, events: ListEvents) -> RatedGames:
    """Played games only (1-0, 1/2, 0-1; forfeits and byes are never rated, B.02 1.2), in one bulk read."""
    rated_games = (
        Game.objects.filter(event_id__in=plan.events.values("id"), result__in=RATED_RESULT_CODES, black__isnull=False)
        .annotate(white_half_points=WHITE_HALF_POINTS)
        .order_by()  # sorted below; the model's ordering would make the database sort a million games
    )
    g = read_columns(
        rated_games,
        {
            "id": "int64",
            "event_id": "int64",
            "round": "int64",
            "white__player_id": "int64",
            "black__player_id": "int64",
            "white_half_points": "int16",
        },
        chunk_by="id",  # a million games come as a hundred rows of arrays (sorted below)
    )
    event_order = np.argsort(events.ids)
    pos = np.searchsorted(events.ids[event_order], g["event_id"])
    known = found_sorted(events.ids[event_order], pos, g["event_id"])
    # (an event submitted while we read belongs to the next computation, not half to this one)
    event = event_order[pos[known]] if events.size else np.zeros(0, dtype=np.int64)
    columns = [g["id"], g["round"], g["white__player_id"], g["black__player_id"], g["white_half_points"] / 2.0]
    game_id, game_round, white_pid, black_pid, white_score = (a[known] for a in columns)
    order = np.lexsort((game_id, game_round, event))
    return RatedGames(
        id=game_id[order],
        event=event[order].astype(np.int64),
        round=game_round[order],
        white_pid=white_pid[order],
        black_pid=black_pid[order],
        white_score=white_score[order],
    )


def ratings_in_force(
    plan: ListPlan, events: ListEvents, games: RatedGames, prev: Arrays
) -> tuple[np.ndarray, np.ndarray]:
    """White's and black's rating on the list in force at each game's event start (rules 1.3; NaN: unrated):
    the previous list from its state, an older list from its entries of the event's participants."""
    in_force = list(
        RatingList.objects.current(plan.rating_type)
        .filter(list_date__lt=plan.list_date)
        .order_by("list_date")
        .values_list("id", "list_date")
    )
    in_force_ids = np.array([r[0] for r in in_force], dtype=np.int64)
    in_force_dates = _dates([r[1] for r in in_force])
    event_list = np.zeros(events.size, dtype=np.int64)
    if in_force_ids.size and events.size:
        idx = np.searchsorted(in_force_dates, events.start, side="right") - 1
        event_list = np.where(idx >= 0, in_force_ids[np.maximum(idx, 0)], 0)
    white_rating = np.full(games.size, np.nan)
    black_rating = np.full(games.size, np.nan)
    game_list = event_list[games.event] if games.size else np.zeros(0, dtype=np.int64)
    for list_id in np.unique(event_list[event_list > 0]).tolist():
        if plan.previous is not None and list_id == plan.previous.pk:
            keys, ratings = prev["player_id"], prev["rating"]
        elif list_id in plan.replayed_ratings:
            keys, ratings = plan.replayed_ratings[list_id]
        else:
            keys, ratings = _list_ratings_of_participants(list_id, events.ids[event_list == list_id].tolist())
        mask = game_list == list_id
        white_rating[mask] = lookup_sorted(keys, ratings, games.white_pid[mask], np.nan)
        black_rating[mask] = lookup_sorted(keys, ratings, games.black_pid[mask], np.nan)
    return white_rating, black_rating


def _list_ratings_of_participants(list_id: int, event_ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(player ids sorted, ratings) on the list ``list_id`` of the participants of these events."""
    entries = read_columns(
        RatingListEntry.objects.filter(
            rating_list_id=list_id,
            player_id__in=Participant.objects.filter(event_id__in=event_ids).values("player_id"),
        ).order_by(),
        {"player_id": "int64", "rating": "float64"},
        chunk_by="player_id",
    )
    by_player = np.argsort(entries["player_id"])
    return entries["player_id"][by_player], entries["rating"][by_player]


def registry_for(prev_registry: Arrays, others: np.ndarray, union: np.ndarray) -> Arrays:
    """The registry data of every player with state (K needs the birth year; entries keep title etc. as
    published): the previous list's players came with its state, the others are read by primary key, other
    titles (few players have any) by themselves."""
    others_registry = _registry_of(others)
    registry = {name: np.concatenate([prev_registry[name], others_registry[name]]) for name in prev_registry}
    by_id = np.argsort(registry["id"])  # each player once (the two parts are disjoint)
    registry = {name: values[by_id] for name, values in registry.items()}
    at = np.searchsorted(registry["id"], union) if registry["id"].size else np.zeros(union.size, dtype=np.int64)
    meta = {name: registry[name][at] for name in registry}
    titled = Player.objects.exclude(other_titles="").order_by("id")
    other = read_columns(titled, {"id": "int64", "other_titles": "text"})
    meta["other_titles"] = lookup_sorted(other["id"], other["other_titles"], union, "")
    return meta


def rating_list_games(plan: ListPlan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rated games of a plan's events as the publication reads them: white's and black's player ids and
    white's score (the laboratory's Glicko-2 replay)."""
    events = load_events(plan)
    games = load_rated_games(plan, events)
    return games.white_pid, games.black_pid, games.white_score
