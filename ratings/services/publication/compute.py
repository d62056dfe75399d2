"""Step 1b, compute: the engine run once on the loaded arrays (rate_period, then ratings.engine.list_state),
storing nothing: a ComputedList of entries, rating changes with their per-game details, and the inputs' digest."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from events.models import RatingType
from ratings.engine import PeriodGames, PeriodPlayers, PeriodResult, rate_period
from ratings.engine.adjustments import adjust_before_games, adjust_list
from ratings.engine.change_lines import change_lines
from ratings.engine.classes import title_by_rating_candidates
from ratings.engine.game_line import (
    CAPPED,
    COLOUR,
    COUNTED,
    DIFFERENCE,
    EXPECTED_SCORE,
    GAME,
    OPPONENT,
    OPPONENT_RATING,
    OPPONENT_RATING_USED,
    RATED,
    RATING_CHANGE,
    ROUND,
    SCORE,
    STORED_LINE_FIELDS,
    WEIGHTED_CHANGE,
)
from ratings.engine.list_state import (
    NEW_PLAYER_STATE,
    PERIOD_FIELDS,
    drop_expired_pools,
    list_order,
    list_state_after,
)
from ratings.engine.sorted_keys import distinct_sorted
from ratings.services.publication.glicko2 import glicko2_list_state
from ratings.services.publication.load import (
    ListEvents,
    RatedGames,
    load_events,
    load_list_state,
    load_rated_games,
    ratings_in_force,
    registry_for,
    replayed_list_state,
    size_work_memory,
)
from ratings.services.publication.plan import Arrays, ListPlan, Phases


@dataclass
class ChangeDetails:
    """Per-game lines of every rating change, as sorted arrays; ``json_texts(start, stop)`` writes the JSON of
    a slice of changes only when it is written (memory stays bounded by the batch, not the list)."""

    offsets: np.ndarray  # change row i has sides offsets[i]:offsets[i + 1]
    columns: dict[str, np.ndarray]  # ratings.engine.game_line names, plus "white" and "pooled" (bool)

    def json_texts(self, start: int, stop: int) -> list[str]:
        """RatingChange.details of changes start..stop-1 as JSON text, each the change's lines in the form
        ratings.fields.GameLinesField stores, {"columns": STORED_LINE_FIELDS, "rows": [[values], ...]}
        (ratings.engine.game_line says what each is; NaN is null).

        Built column by column (each distinct number formatted once) and joined per change, with no Python
        object per game: a list period has millions of lines.
        """
        lo, hi = int(self.offsets[start]), int(self.offsets[stop])
        n = hi - lo
        if n == 0:
            return ["[]"] * (stop - start)
        values = _line_texts({name: values[lo:hi] for name, values in self.columns.items()})
        # pieces of each line: "[", value, ",", value, ..., "]"; the first line opens the document
        pieces = np.empty((n, 2 * len(values) + 1), dtype=object)
        pieces[:, 0] = ",["
        for k, column in enumerate(values):
            pieces[:, 2 * k + 1] = column
            pieces[:, 2 * k + 2] = ","
        pieces[:, -1] = "]"
        offsets = self.offsets[start : stop + 1] - lo
        has_lines = offsets[1:] > offsets[:-1]
        pieces[offsets[:-1][has_lines], 0] = DETAILS_JSON_HEAD + "["
        pieces[offsets[1:][has_lines] - 1, -1] = "]]}"
        flat = pieces.ravel().tolist()
        width = pieces.shape[1]
        return [
            "".join(flat[a * width : b * width]) if b > a else "[]"
            for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)
        ]


def _line_texts(c: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The JSON text of every value of the lines, one array per STORED_LINE_FIELDS name, in that order."""
    texts = {
        name: _json_texts(c[name])
        for name in (
            GAME,
            ROUND,
            OPPONENT,
            OPPONENT_RATING,
            OPPONENT_RATING_USED,
            CAPPED,
            DIFFERENCE,
            EXPECTED_SCORE,
            SCORE,
            RATED,
            WEIGHTED_CHANGE,
        )
    }
    texts[COLOUR] = np.where(c["white"], '"white"', '"black"').astype(object)
    texts[RATING_CHANGE] = _json_texts(c[SCORE] - c[EXPECTED_SCORE])  # B.02 8.3.2: dR = score - PD
    texts[COUNTED] = _json_texts(c[RATED] | c["pooled"])  # pooled: towards an initial rating (B.02 7.1.4)
    return [texts[name] for name in STORED_LINE_FIELDS]


DETAILS_JSON_HEAD = '{"columns":[' + ",".join(f'"{key}"' for key in STORED_LINE_FIELDS) + '],"rows":['


def _json_texts(values: np.ndarray) -> np.ndarray:
    """Each value as JSON text, as json.dumps writes it (floats by repr, NaN as null); a column of few
    distinct numbers (ratings, D, PD, K x delta) is formatted once per distinct value."""
    if values.dtype.kind == "b":
        return np.where(values, "true", "false").astype(object)
    if values.dtype.kind in "iu" and values.size and np.ptp(values) > 4 * values.size:
        return np.array(list(map(str, values.tolist())), dtype=object)  # ids: mostly distinct
    distinct, inverse = np.unique(values, return_inverse=True)
    if values.dtype.kind == "f":
        texts = ["null" if v != v else repr(v) for v in distinct.tolist()]
    else:
        texts = [str(v) for v in distinct.tolist()]
    return np.array(texts, dtype=object)[inverse.reshape(-1)]


@dataclass
class ComputedList:
    plan: ListPlan
    digest: str
    event_ids: list[int]
    entries: dict[str, np.ndarray]  # RatingListEntry columns, one row per entry
    changes: dict[str, np.ndarray]  # RatingChange columns, one row per (player, event)
    details: ChangeDetails
    summary: dict[str, int]
    # The engine's input and output, kept for tests and diagnostics.
    player_ids: np.ndarray | None = field(repr=False, default=None)
    games: PeriodGames | None = field(repr=False, default=None)
    players: PeriodPlayers | None = field(repr=False, default=None)
    result: PeriodResult | None = field(repr=False, default=None)
    # B.01 1.3: players whose rating on this list reaches a title by rating they do not hold (title_candidates)
    title_candidates: Arrays = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        return self.summary["entries"] == 0


def _state_before(prev: Arrays, player_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, Arrays, np.ndarray]:
    """Every player with state, the previous list's plus the period's (sorted ids), the row of each of the
    engine's players among them, their STATE_FIELDS before the list (defaults for players new to it) and the
    ids of the players not on the previous list."""
    # (prev's players are sorted and distinct: one line per player on a list)
    others = np.setdiff1d(player_ids, prev["player_id"], assume_unique=True)  # not on the previous list
    union = np.sort(np.concatenate([prev["player_id"], others]))
    prev_rows = np.searchsorted(union, prev["player_id"])
    before: Arrays = {}
    for name, (default, dtype) in NEW_PLAYER_STATE.items():
        before[name] = np.full(union.size, default, dtype=dtype)
        before[name][prev_rows] = prev[name]
    return union, np.searchsorted(union, player_ids), before, others


def _period_input(before: Arrays, rows: np.ndarray, birth_year: np.ndarray) -> PeriodPlayers:
    """The engine's players: the state before the list of the players with games."""
    return PeriodPlayers(
        rating=before["rating"][rows],
        k_factor=before["k_factor"][rows],
        pool_games=before["pool_games"][rows],
        pool_opponent_sum=before["pool_opponent_sum"][rows],
        pool_score=before["pool_score"][rows],
        birth_year=birth_year[rows],
        rated_games_total=before["rated_games_total"][rows],
        ever_2400=before["ever_2400"][rows],
        ever_2300=before["ever_2300"][rows],
        pool_events=before["pool_events"][rows],
    )


def _text(values: np.ndarray) -> np.ndarray:
    """Characters read from the registry, None as ""."""
    return np.where(values == None, "", values).astype(object)  # noqa: E711 (element-wise)


def list_entries(union: np.ndarray, after: Arrays, meta: Arrays) -> Arrays:
    """RatingListEntry columns: the state after the list (ratings.engine.list_state) and the registry data
    as published, with each entry's position and ranks."""
    federation = _text(meta["federation_id"])
    position, rank, federation_rank = list_order(union, after["rating"], after["inactive"], federation)
    birth_year = meta["birth_year"]
    return {
        "player_id": union,
        "rating": after["rating"],
        "games": after["games"],
        "k_factor": after["k_factor"],
        "inactive": after["inactive"],
        "change": after["change"],
        "title": _text(meta["title"]),
        "women_title": _text(meta["women_title"]),
        "other_titles": _text(meta["other_titles"]),
        "federation": federation,
        "sex": _text(meta["sex"]),
        "birth_year": np.where(birth_year == 0, np.nan, birth_year),  # 0: unknown, written empty
        **{name: after[name] for name in PERIOD_FIELDS},
        "pool_since": after["pool_since"],
        "last_game_date": after["last_game_date"],
        "is_new_rating": after["is_new_rating"],
        "dropped_below_floor": after["dropped_below_floor"],
        "position": position,
        "rank": rank,
        "federation_rank": federation_rank,
    }


@dataclass
class _Inputs:
    """What a list is computed from, as loaded (load) and arranged for the engine."""

    events: ListEvents
    games: RatedGames
    player_ids: np.ndarray  # the engine's players (sorted ids)
    previous_ids: np.ndarray  # the previous list's players (sorted ids)
    before_games: np.ndarray | None  # a before-games adjustment's amounts per previous player (None: none)
    union: np.ndarray  # every player with state (sorted ids)
    rows: np.ndarray  # the row in ``union`` of each of the engine's players
    before: Arrays  # STATE_FIELDS of every player with state, before the list
    meta: Arrays  # their registry data
    players: PeriodPlayers
    period_games: PeriodGames


def _inputs(plan: ListPlan, phases: Phases) -> _Inputs:
    """Read everything the list is computed from, in a fixed number of bulk queries (load)."""
    events = load_events(plan)
    games = load_rated_games(plan, events)
    player_ids = distinct_sorted(np.concatenate([games.white_pid, games.black_pid]))  # the engine's players
    phases.done("read rated games")
    if plan.previous_state is None:
        prev, prev_registry = load_list_state(plan.previous)
    else:
        prev, prev_registry = replayed_list_state(plan.previous_state)
    prev.update(drop_expired_pools(prev, plan.list_date, plan.rules.initial_rating))  # B.02 7.1.4
    # rating-rules.md 1.9: a before-games adjustment raises the previous ratings the games are rated with
    prev["rating"], before_games = adjust_before_games(plan.rules.adjustment, prev["rating"])
    phases.done("read previous list state and its players")
    white_rating, black_rating = ratings_in_force(plan, events, games, prev)
    union, rows, before, others = _state_before(prev, player_ids)
    meta = registry_for(prev_registry, others, union)
    period_games = PeriodGames(
        event=games.event,
        white=np.searchsorted(player_ids, games.white_pid).astype(np.int64),
        black=np.searchsorted(player_ids, games.black_pid).astype(np.int64),
        white_score=games.white_score,
        white_rating=white_rating,
        black_rating=black_rating,
    )
    phases.done("read ratings in force and participants")
    return _Inputs(
        events=events,
        games=games,
        player_ids=player_ids,
        previous_ids=prev["player_id"],
        before_games=before_games,
        union=union,
        rows=rows,
        before=before,
        meta=meta,
        players=_period_input(before, rows, meta["birth_year"]),
        period_games=period_games,
    )


def rating_list_compute(plan: ListPlan) -> ComputedList:
    """Everything the list will contain: read in a fixed number of bulk queries, computed by the engine
    (rate_period, then ratings.engine.list_state for the state the list carries)."""
    size_work_memory()
    phases = Phases()
    inputs = _inputs(plan, phases)
    events, games, union, rows, meta = inputs.events, inputs.games, inputs.union, inputs.rows, inputs.meta
    result: PeriodResult | None = None
    if plan.rules.glicko2 is not None:  # one Glicko-2 rating period instead of rate_period
        after, extra = glicko2_list_state(plan, union, rows, inputs.before, inputs.period_games, events.end)
        entries = list_entries(union, after, meta)
        entries.update(extra)
        changes, details = _no_rating_changes()
    else:
        result = rate_period(
            inputs.players, inputs.period_games, plan.rules, plan.list_date, rating_type=plan.rating_type
        )
        entries = _elo_entries(plan, inputs, result)
        changes, details = _rating_changes(
            result, inputs.period_games, inputs.players, games, events, inputs.player_ids, meta["id_number"][rows]
        )
    phases.done("engine, entries and rating changes")
    digest = _digest(
        plan,
        events.ids,
        events.start,
        events.end,
        games.id,
        games.event,
        inputs.period_games.white,
        inputs.period_games.black,
        games.white_score,
        inputs.period_games.white_rating,
        inputs.period_games.black_rating,
        inputs.player_ids,
        union,
        inputs.before,
        meta,
    )
    phases.done("digest")
    candidates = title_candidates(entries) if plan.rating_type == RatingType.STANDARD else _no_title_candidates()
    return ComputedList(
        plan=plan,
        digest=digest,
        event_ids=events.ids.tolist(),
        entries=entries,
        changes=changes,
        details=details,
        summary=_computed_summary(entries, events, games, changes),
        player_ids=inputs.player_ids,
        games=inputs.period_games,
        players=inputs.players,
        result=result,
        title_candidates=candidates,
    )


def title_candidates(entries: Arrays) -> Arrays:
    """TitleCandidate columns: B.01 1.3 (ratings.engine.classes.title_by_rating_candidates) on the list's
    entries, as published (standard lists only: titles by rating are earned on the standard rating)."""
    found = title_by_rating_candidates(
        entries["rating"],
        entries["rated_games_total"],
        entries["sex"] == "F",
        entries["title"],
        entries["women_title"],
    )
    rows = np.concatenate([at for at, _ in found]) if found else np.zeros(0, dtype=np.int64)
    titles = np.concatenate([np.full(at.size, name, dtype=object) for at, name in found]) if found else rows
    return {
        "player_id": entries["player_id"][rows],
        "title": titles.astype(object),
        "rating": entries["rating"][rows],
        "games": entries["rated_games_total"][rows],
    }


def _no_title_candidates() -> Arrays:
    return {
        "player_id": np.zeros(0, dtype=np.int64),
        "title": np.zeros(0, dtype=object),
        "rating": np.zeros(0),
        "games": np.zeros(0, dtype=np.int64),
    }


def _elo_entries(plan: ListPlan, inputs: _Inputs, result: PeriodResult) -> Arrays:
    """The entries of an Elo list: the state after the period (ratings.engine.list_state) with the one-off
    adjustment of the list date applied (ratings.engine.adjustments), and the registry data."""
    before = inputs.before
    after = list_state_after(
        before,
        inputs.rows,
        result,
        inputs.events.end,
        inputs.meta["birth_year"],
        plan.rules,
        plan.list_date,
        plan.pool_start,
    )
    adjusted = adjust_list(
        plan.rules.adjustment,
        inputs.union,
        before["rating"],
        after["rating"],
        after["change"],
        inputs.previous_ids,
        inputs.before_games,
    )
    after["rating"], after["change"] = adjusted.rating, adjusted.change
    entries = list_entries(inputs.union, after, inputs.meta)
    entries["adjustment"] = adjusted.amount
    return entries


def _no_rating_changes() -> tuple[Arrays, ChangeDetails]:
    """A list without per-event rating changes (Glicko-2 rates the period as a whole)."""
    columns: Arrays = {
        "player_id": np.zeros(0, dtype=np.int64),
        "event_id": np.zeros(0, dtype=np.int64),
        "rating_before": np.zeros(0),
        "k_factor": np.zeros(0),
        "games": np.zeros(0, dtype=np.int64),
        "score": np.zeros(0),
        "expected_score": np.zeros(0),
        "change": np.zeros(0),
    }
    return columns, ChangeDetails(offsets=np.zeros(1, dtype=np.int64), columns={})


def _computed_summary(entries: Arrays, events: ListEvents, games: RatedGames, changes: Arrays) -> dict[str, int]:
    return {
        "entries": int(entries["player_id"].size),
        "rated": int(np.count_nonzero(~np.isnan(entries["rating"]))),
        "new_ratings": int(entries["is_new_rating"].sum()),
        "dropped": int(entries["dropped_below_floor"].sum()),
        "events": events.size,
        "games": games.size,
        "changes": int(changes["player_id"].size),
    }


def _rating_changes(
    result: PeriodResult,
    games: PeriodGames,
    players: PeriodPlayers,
    rated_games: RatedGames,
    events: ListEvents,
    player_ids: np.ndarray,
    player_id_number: np.ndarray,
) -> tuple[Arrays, ChangeDetails]:
    """One RatingChange per (player, event) the engine counted, with every game of that player in that event
    as calculated (ratings.engine.game_line) in ``details``."""
    pe_player, pe_event = result.player_events.player, result.player_events.event
    lines = change_lines(
        pe_player,
        pe_event,
        np.concatenate([result.white.rated, result.black.rated]),
        games.event,
        np.concatenate([games.white, games.black]),
        np.concatenate([games.white_rating, games.black_rating]),
        players.rating,
        rated_games.id,
        rated_games.round,
        events.size,
    )
    details = ChangeDetails(
        offsets=lines.offsets,
        columns=_detail_columns(result, games, rated_games, player_id_number, lines.side_game, lines.sides),
    )
    columns = {
        "player_id": player_ids[pe_player],
        "event_id": events.ids[pe_event] if pe_event.size else np.zeros(0, dtype=np.int64),
        "rating_before": lines.rating_before,  # B.02 1.6, as the engine used it (change_lines)
        "k_factor": np.asarray(result.player_events.k_factor, dtype=np.float64),
        "games": result.player_events.games,
        "score": result.player_events.score,
        "expected_score": result.player_events.expected_score,
        "change": result.player_events.change,
    }
    return columns, details


def _detail_columns(
    result: PeriodResult,
    games: PeriodGames,
    rated_games: RatedGames,
    player_id_number: np.ndarray,
    side_game: np.ndarray,
    sides: np.ndarray,
) -> Arrays:
    """The per-game columns ChangeDetails writes, one row per side in ``sides`` (0..G-1 white, G.. black)."""

    def both(white: np.ndarray, black: np.ndarray) -> np.ndarray:
        side_values: np.ndarray = np.concatenate([white, black])[sides]
        return side_values

    return {
        GAME: rated_games.id[side_game[sides]],
        ROUND: rated_games.round[side_game[sides]],
        "white": sides < rated_games.size,
        OPPONENT: both(player_id_number[games.black], player_id_number[games.white]),
        OPPONENT_RATING: both(games.black_rating, games.white_rating),
        OPPONENT_RATING_USED: both(result.white.opponent_rating_used, result.black.opponent_rating_used),
        CAPPED: both(result.white.capped, result.black.capped),
        DIFFERENCE: both(result.white.difference, result.black.difference),
        EXPECTED_SCORE: both(result.white.expected_score, result.black.expected_score),
        SCORE: both(games.white_score, 1.0 - games.white_score),
        WEIGHTED_CHANGE: both(result.white.change, result.black.change),
        RATED: both(result.white.rated, result.black.rated),
        "pooled": both(result.white.pooled, result.black.pooled),
    }


def _digest(plan: ListPlan, *arrays_and_state: np.ndarray | Arrays) -> str:
    """SHA-256 of every input of the computation; equal digests give equal lists (the engine is pure)."""
    h = hashlib.sha256()
    h.update(
        json.dumps(
            {
                "rating_type": plan.rating_type,
                "list_date": plan.list_date.isoformat(),
                "closing_date": plan.closing_date.isoformat(),
                "period_start": plan.period_start.isoformat() if plan.period_start else None,
                "previous": plan.previous.pk if plan.previous else None,
                "rules": plan.rules.to_json(),
                "version": plan.version,
            },
            sort_keys=True,
        ).encode()
    )
    for item in arrays_and_state:
        if isinstance(item, dict):
            for key in sorted(item):
                h.update(key.encode())
                _digest_update(h, item[key])
        else:
            _digest_update(h, item)
    return h.hexdigest()


def _digest_update(h: hashlib._Hash, value: object) -> None:
    if isinstance(value, np.ndarray) and value.dtype != object:
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, np.ndarray):  # text: the characters, not the object pointers
        texts = value.tolist()
        if None in texts:
            texts = ["" if v is None else v for v in texts]
        h.update("\x1f".join(map(str, texts)).encode())
    else:
        h.update(json.dumps(value, default=str).encode())
