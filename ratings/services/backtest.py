"""Backtest: replay the federation's own rated games list by list under any rules preset and score how well the
ratings in force predicted them (``manage.py rating_backtest``, the laboratory admin).

The replay is the publication's own computation (ratings.services.publication.rating_list_compute), fed with
its own previous list instead of the published one (ListPlan.previous_state / replayed_ratings): it starts from
the published list in force at ``start`` and rates, for every later published list up to ``end``, the events
that list rated. Nothing is written. Under the rules the lists were published with, every replayed rating
equals the published one (``differences`` 0): the proof that the replica is exact.

Scores of each list, over its games whose two players had a rating in force (rules 1.3: the list in force
at the event's start, as replayed):

- ``log_loss``: binomial deviance, mean of -(s log10 E + (1 - s) log10 (1 - E)) with E bounded to
  [0.01, 0.99] (the 2011 Deloitte/FIDE Chess Rating Challenge's metric);
- ``brier``: mean of (E - s)^2;
- ``rmse``: root mean square over the players of (their points - their expected points) on the list (the 2010
  "Elo versus the Rest of the World" competition's metric);
- E is the preset's curve (ratings.engine.expected_score) at the difference of the ratings in force, without
  the 400-point cap (a rating rule, not a prediction); for Glicko-2, Glickman's predictive
  E = 1 / (1 + exp(-g(sqrt(phi_i^2 + phi_j^2)) (mu_i - mu_j))) with the replayed rating and deviation.

A Glicko-2 preset replays each list as one rating period (ratings.engine.glicko2.glicko2_list) from the
ratings in force at ``start`` (with their deviation and volatility on a Glicko-2 list, the unrated ones
otherwise), over the games the publication reads for that list, continuing from the printed (whole) ratings as
a published Glicko-2 list does (ratings.services.publication.glicko2): replaying Glicko-2 lists gives 0
differences.

One-off adjustments the published lists applied (ratings.models.RatingAdjustment) are applied again on the
same dates: they are the federation's history, not a rule of the preset.
``differences``: players whose replayed rating (or its absence) differs from the published list's.
``calibration``: by the favourite's advantage in buckets of 50 points, the games, mean expected and mean
actual score of the favourite (where Elo's curve is known to overstate the favourite).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import math
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db import transaction

from core.bulk import read_columns
from events.models import Event
from players.models import Player
from ratings.engine import DifferenceCapSpec, KFactorSpec, RulesPreset, get_preset
from ratings.engine.expected_score import expected_score
from ratings.engine.glicko2 import GLICKO2_SCALE, Glicko2List, g_function, glicko2_list
from ratings.engine.rounding import round_half_away_from_zero
from ratings.models import RatingAdjustment, RatingList, RatingListEntry
from ratings.services.adjustments import rating_adjustments_by_date
from ratings.services.publication import (
    STATE_COLUMNS,
    ComputedList,
    ListPlan,
    rating_list_compute,
    rating_list_games,
)
from ratings.services.schedule import check_rating_type

CALIBRATION_BUCKET = 50  # rating points per calibration bucket (issue 14)
LOG_LOSS_BOUNDS = (0.01, 0.99)  # Deloitte/FIDE 2011: predictions bounded before the deviance


class BacktestError(ValueError):
    """A backtest request that cannot run, with the message to show (the argument or preset at fault)."""


@dataclass
class ListScore:
    list_date: datetime.date
    players: int  # players with a scored game
    games: int  # scored games
    log_loss: float | None
    brier: float | None
    rmse: float | None
    differences: int
    # kept for the summary and the laboratory (not in the JSON of a list)
    squared_error_sum: float = field(default=0.0, repr=False)
    deviance_sum: float = field(default=0.0, repr=False)
    brier_sum: float = field(default=0.0, repr=False)
    replayed: dict[str, np.ndarray] = field(default_factory=dict, repr=False)  # player_id, rating, published

    def to_json(self) -> dict[str, Any]:
        return {
            "list_date": self.list_date.isoformat(),
            "players": self.players,
            "games": self.games,
            "log_loss": _round(self.log_loss),
            "brier": _round(self.brier),
            "rmse": _round(self.rmse),
            "differences": self.differences,
        }


@dataclass
class Backtest:
    rules: RulesPreset
    rating_type: str
    start: datetime.date | None  # the list the replay starts from
    lists: list[ListScore]
    calibration: list[dict[str, Any]]

    @property
    def summary(self) -> dict[str, Any]:
        games = sum(item.games for item in self.lists)
        players = sum(item.players for item in self.lists)
        return {
            "log_loss": _round(sum(item.deviance_sum for item in self.lists) / games) if games else None,
            "brier": _round(sum(item.brier_sum for item in self.lists) / games) if games else None,
            "rmse": _round(math.sqrt(sum(item.squared_error_sum for item in self.lists) / players))
            if players
            else None,
            "differences": sum(item.differences for item in self.lists),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.slug,
            "rating_type": self.rating_type,
            "from": self.start.isoformat() if self.start else None,
            "lists": [item.to_json() for item in self.lists],
            "summary": self.summary,
            "calibration": self.calibration,
        }


def _round(value: float | None, places: int = 6) -> float | None:
    return None if value is None else round(float(value), places)


# --------------------------------------------------------------------------------------------------------
# Rules with overrides (--set KEY=VALUE)
# --------------------------------------------------------------------------------------------------------
def _optional_int(key: str, text: str) -> int | None:
    if text.lower() in ("none", "off", ""):
        return None
    try:
        value = int(text)
    except ValueError:
        raise BacktestError(f"--set {key}={text}: expected a whole number or 'none'") from None
    if value <= 0:
        raise BacktestError(f"--set {key}={text}: expected a positive number or 'none'")
    return value


def _k_factor(key: str, text: str) -> KFactorSpec:
    value = _optional_int(key, text)
    if value is None:
        raise BacktestError(f"--set {key}={text}: K must be a number")
    return KFactorSpec.constant(value)


def _difference_cap(key: str, text: str) -> DifferenceCapSpec:
    value = _optional_int(key, text)
    return DifferenceCapSpec.none() if value is None else DifferenceCapSpec.fixed(value)


def _rounding(key: str, text: str) -> str:
    return text


def _tau(key: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value > 0):
        raise BacktestError(f"--set {key}={text}: tau must be a positive number (Glickman: 0.3 to 1.2)")
    return value


OVERRIDES: dict[str, Callable[[str, str], Any]] = {
    "k_factor": _k_factor,  # one K for everyone (e.g. k_factor=16)
    "difference_cap": _difference_cap,  # the 400-point rule's limit, or none
    "k_times_n_cap": _optional_int,
    "rating_floor": _optional_int,
    "inactivity_months": _optional_int,
    "rounding": _rounding,
    "tau": _tau,  # Glicko-2 presets: the system constant
}


def backtest_rules(slug: str, overrides: Sequence[str] = ()) -> RulesPreset:
    """The preset ``slug`` with KEY=VALUE overrides; its slug names them (fide-2024+k_factor=16)."""
    try:
        rules = get_preset(slug)
    except KeyError as error:
        raise BacktestError(error.args[0]) from None
    changes: dict[str, Any] = {}
    for item in overrides:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in OVERRIDES:
            raise BacktestError(f"--set {item}: expected KEY=VALUE with KEY one of {', '.join(sorted(OVERRIDES))}")
        changes[key] = OVERRIDES[key](key, value.strip())
    if not changes:
        return rules
    if "tau" in changes:  # Glickman 2013: the system constant of a Glicko-2 preset
        tau = changes.pop("tau")
        if rules.glicko2 is None:
            raise BacktestError(f"--set tau=...: {slug} is not a Glicko-2 preset")
        changes["glicko2"] = dataclasses.replace(rules.glicko2, tau=tau)
    suffix = "+".join(f"{key}={value.strip()}" for key, _, value in (i.partition("=") for i in overrides))
    try:
        return rules.replace(slug=f"{rules.slug}+{suffix}".lower().replace(" ", ""), **changes)
    except (TypeError, ValueError) as error:
        raise BacktestError(f"--set: {error}") from None


# --------------------------------------------------------------------------------------------------------
# The replay
# --------------------------------------------------------------------------------------------------------
def _lists_to_replay(
    rating_type: str, start: datetime.date | None, end: datetime.date | None
) -> tuple[RatingList, list[RatingList]]:
    lists = list(RatingList.objects.current(rating_type).order_by("list_date"))
    if not lists:
        raise BacktestError(f"no published {rating_type} list to replay")
    in_force = lists[:1] if start is None else [rl for rl in lists if rl.list_date <= start]
    if not in_force:
        raise BacktestError(f"no {rating_type} list was in force on {start}: the first is {lists[0].list_date}")
    first = in_force[-1]
    later = [rl for rl in lists if rl.list_date > first.list_date and (end is None or rl.list_date <= end)]
    return first, later


def _plan(rating_list: RatingList, previous: RatingList, rules: RulesPreset, replay: _Replay) -> ListPlan:
    adjustment = replay.adjustments.get(rating_list.list_date)
    if adjustment is not None and adjustment.applied_to_id is not None and rules.glicko2 is None:
        rules = rules.replace(adjustment=adjustment.spec())  # the federation's history: as it was published
    return ListPlan(
        rating_type=rating_list.rating_type,
        list_date=rating_list.list_date,
        closing_date=rating_list.closing_date,
        period_start=rating_list.period_start,
        rules=rules,
        previous=previous,
        events=Event.objects.filter(
            rated_on__rating_type=rating_list.rating_type, rated_on__list_date=rating_list.list_date
        ),
        version=0,
        previous_state=replay.state,
        replayed_ratings=replay.ratings,
    )


@dataclass
class _Replay:
    state: dict[str, np.ndarray] | None = None  # the last replayed list's state (None: the published one)
    ratings: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    adjustments: dict[datetime.date, RatingAdjustment] = field(default_factory=dict)
    glicko2: Glicko2List | None = None  # a Glicko-2 replay's state

    def advance(self, rating_list: RatingList, computed: ComputedList) -> None:
        entries = computed.entries
        self.state = {name: entries[name] for name in STATE_COLUMNS}
        self.ratings[rating_list.pk] = (entries["player_id"], entries["rating"])


def _published_ratings(rating_list: RatingList) -> tuple[np.ndarray, np.ndarray]:
    rows = read_columns(
        RatingListEntry.objects.filter(rating_list=rating_list).order_by(),
        {"player_id": "int64", "rating": "float64"},
        chunk_by="player_id",
    )
    order = np.argsort(rows["player_id"])
    return rows["player_id"][order], rows["rating"][order]


def _differences(
    mine_ids: np.ndarray, mine_ratings: np.ndarray, published: tuple[np.ndarray, np.ndarray]
) -> tuple[int, dict[str, Any]]:
    """Players whose rating differs (a rating on one side only counts); the aligned arrays for the lab."""
    mine = np.asarray(mine_ratings, dtype=np.float64)
    their_ids, theirs = published
    union = np.union1d(mine_ids, their_ids)
    a = np.full(union.size, np.nan)
    b = np.full(union.size, np.nan)
    a[np.searchsorted(union, mine_ids)] = mine
    b[np.searchsorted(union, their_ids)] = theirs
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    return int((~same).sum()), {"player_id": union, "rating": a, "published": b}


def _score_games(
    white: np.ndarray, black: np.ndarray, white_score: np.ndarray, difference: np.ndarray, expected: np.ndarray
) -> dict[str, Any]:
    """The sums behind log_loss, brier and rmse of the scored games (player indexes, white's score,
    D = white - black and white's expected score, all for the scored games only)."""
    actual = np.asarray(white_score, dtype=np.float64)
    bounded = np.clip(expected, *LOG_LOSS_BOUNDS)
    deviance = -(actual * np.log10(bounded) + (1.0 - actual) * np.log10(1.0 - bounded))
    # per player: points - expected points over the scored games, from both sides
    side_player = np.concatenate([white, black])
    side_error = np.concatenate([actual - expected, expected - actual])
    per_player = np.bincount(side_player, weights=side_error) if side_player.size else np.zeros(0)
    played = np.bincount(side_player) > 0 if side_player.size else np.zeros(0, dtype=bool)
    return {
        "games": int(actual.size),
        "players": int(played.sum()),
        "deviance_sum": float(deviance.sum()),
        "brier_sum": float(((expected - actual) ** 2).sum()),
        "squared_error_sum": float((per_player[played] ** 2).sum()),
        "difference": difference,
        "expected": expected,
        "actual": actual,
    }


def _elo_step(
    rating_list: RatingList, previous: RatingList, rules: RulesPreset, replay: _Replay
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """One list replayed by the publication's computation: (player ids, list ratings, game scores)."""
    computed = rating_list_compute(_plan(rating_list, previous, rules, replay))
    games, result = computed.games, computed.result
    assert games is not None
    assert result is not None
    white, black = np.asarray(games.white_rating), np.asarray(games.black_rating)
    scored = np.isfinite(white) & np.isfinite(black) & ~np.asarray(result.excluded, dtype=bool)
    difference = (white - black)[scored]
    expected = np.asarray(expected_score(difference, rules.expected_score), dtype=np.float64)
    scores = _score_games(games.white[scored], games.black[scored], games.white_score[scored], difference, expected)
    replay.advance(rating_list, computed)
    return computed.entries["player_id"], computed.entries["rating"], scores


def _glicko2_start(first: RatingList, rules: RulesPreset) -> Glicko2List:
    """A Glicko-2 replay starts from the ratings in force with their deviation and volatility where the list
    has them (a Glicko-2 list), the unrated ones otherwise (Glickman 2013 step 1), as a publication does."""
    spec = rules.glicko2
    assert spec is not None
    rows = read_columns(
        RatingListEntry.objects.filter(rating_list=first, rating__isnull=False).order_by(),
        {"player_id": "int64", "rating": "float64", "deviation": "float64", "volatility": "float64"},
    )
    merged = np.fromiter(Player.objects.filter(merged_into__isnull=False).values_list("id", flat=True), dtype=np.int64)
    keep = ~np.isin(rows["player_id"], merged)
    order = np.argsort(rows["player_id"][keep])
    n = int(keep.sum())
    return Glicko2List(
        player_id=rows["player_id"][keep][order],
        rating=rows["rating"][keep][order],
        deviation=np.nan_to_num(rows["deviation"][keep][order], nan=spec.initial_deviation),
        volatility=np.nan_to_num(rows["volatility"][keep][order], nan=spec.initial_volatility),
        games=np.zeros(n, dtype=np.int64),
    )


def _glicko2_step(
    rating_list: RatingList, previous: RatingList, rules: RulesPreset, replay: _Replay
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """One list as a Glicko-2 period (the games the publication read for it); the games of two players on the
    previous replayed list are scored with Glickman's predictive E, g(sqrt(RD_i^2 + RD_j^2))."""
    spec, state = rules.glicko2, replay.glicko2
    assert spec is not None
    assert state is not None
    white_id, black_id, white_score = rating_list_games(_plan(rating_list, previous, rules, replay))
    at_w, at_b = np.searchsorted(state.player_id, white_id), np.searchsorted(state.player_id, black_id)
    known_w = _known(state.player_id, at_w, white_id)
    known_b = _known(state.player_id, at_b, black_id)
    scored = known_w & known_b
    w, b = at_w[scored], at_b[scored]
    difference = state.rating[w] - state.rating[b]
    combined = np.hypot(state.deviation[w], state.deviation[b]) / GLICKO2_SCALE
    expected = 1.0 / (1.0 + np.exp(-g_function(combined) * difference / GLICKO2_SCALE))
    scores = _score_games(w, b, white_score[scored], difference, expected)
    after = glicko2_list(
        state.player_id, state.rating, state.deviation, state.volatility, white_id, black_id, white_score, spec
    )
    printed = round_half_away_from_zero(after.rating)  # a list prints whole ratings; the next continues from them
    replay.glicko2 = dataclasses.replace(after, rating=printed)
    return after.player_id, printed, scores


def _known(keys: np.ndarray, at: np.ndarray, query: np.ndarray) -> np.ndarray:
    if not keys.size:
        return np.zeros(query.size, dtype=bool)
    found: np.ndarray = (at < keys.size) & (keys[np.minimum(at, keys.size - 1)] == query)
    return found


def _calibration(difference: np.ndarray, expected: np.ndarray, actual: np.ndarray) -> list[dict[str, Any]]:
    """Per 50-point bucket of the favourite's advantage: games, mean expected and mean actual score."""
    if difference.size == 0:
        return []
    favourite_white = difference >= 0
    advantage = np.abs(difference)
    fav_expected = np.where(favourite_white, expected, 1.0 - expected)
    fav_actual = np.where(favourite_white, actual, 1.0 - actual)
    bucket = (advantage // CALIBRATION_BUCKET).astype(np.int64)
    counts = np.bincount(bucket)
    sum_expected = np.bincount(bucket, weights=fav_expected)
    sum_actual = np.bincount(bucket, weights=fav_actual)
    return [
        {
            "from": int(b * CALIBRATION_BUCKET),
            "to": int((b + 1) * CALIBRATION_BUCKET - 1),
            "games": int(counts[b]),
            "expected": _round(sum_expected[b] / counts[b], 4),
            "actual": _round(sum_actual[b] / counts[b], 4),
        }
        for b in np.flatnonzero(counts)
    ]


def rating_backtest_run(
    rating_type: str,
    rules: RulesPreset,
    *,
    start: datetime.date | None = None,
    end: datetime.date | None = None,
    progress: Callable[[int, int, datetime.date], None] | None = None,
    keep_ratings: bool = False,
    atomic: bool = True,
) -> Backtest:
    """Replay every published list of ``rating_type`` after the one in force at ``start`` up to ``end`` under
    ``rules`` (nothing is written: one read-only transaction). ``progress(done, total, list_date)`` is called
    after each list; ``keep_ratings`` keeps each list's replayed and published ratings (the laboratory);
    ``atomic=False`` reads list by list outside one transaction, so that a job's progress (written by
    ``progress``) is seen by others while it runs."""
    check_rating_type(rating_type)
    if start and end and end < start:
        raise BacktestError(f"--to {end} is before --from {start}")
    with transaction.atomic() if atomic else contextlib.nullcontext():
        first, later = _lists_to_replay(rating_type, start, end)
        replay = _Replay(adjustments=rating_adjustments_by_date(rating_type))
        previous = first
        scores: list[ListScore] = []
        differences_all, expected_all, actual_all = [], [], []
        if rules.glicko2 is not None:
            replay.glicko2 = _glicko2_start(first, rules)
        step = _glicko2_step if rules.glicko2 is not None else _elo_step
        for done, rating_list in enumerate(later, start=1):
            ids, ratings, s = step(rating_list, previous, rules, replay)
            count, aligned = _differences(ids, ratings, _published_ratings(rating_list))
            differences_all.append(s["difference"])
            expected_all.append(s["expected"])
            actual_all.append(s["actual"])
            scores.append(
                ListScore(
                    list_date=rating_list.list_date,
                    players=s["players"],
                    games=s["games"],
                    log_loss=s["deviance_sum"] / s["games"] if s["games"] else None,
                    brier=s["brier_sum"] / s["games"] if s["games"] else None,
                    rmse=math.sqrt(s["squared_error_sum"] / s["players"]) if s["players"] else None,
                    differences=count,
                    squared_error_sum=s["squared_error_sum"],
                    deviance_sum=s["deviance_sum"],
                    brier_sum=s["brier_sum"],
                    replayed=aligned if keep_ratings else {},
                )
            )
            previous = rating_list
            if progress is not None:
                progress(done, len(later), rating_list.list_date)
    calibration = _calibration(
        *(np.concatenate(parts) if parts else np.zeros(0) for parts in (differences_all, expected_all, actual_all))
    )
    return Backtest(rules=rules, rating_type=rating_type, start=first.list_date, lists=scores, calibration=calibration)


@dataclass
class Measured:
    seconds: float
    peak_bytes: int


def measure(function: Callable[[], Any]) -> tuple[Any, Measured]:
    """Wall time and peak Python memory (tracemalloc, NumPy arrays included) of ``function()``."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        value = function()
        elapsed = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return value, Measured(seconds=elapsed, peak_bytes=peak)


__all__ = [
    "Backtest",
    "BacktestError",
    "ListScore",
    "backtest_rules",
    "measure",
    "rating_backtest_run",
]
