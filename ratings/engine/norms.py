"""FIDE title norms for one player in one event: every requirement of the Title Regulations B.01 (2024) 1.4.

Authority: /work/shared/reference/titles-norms.md (§3 the per-player check, §6 the traps, §9 the open points).
Each requirement is reported with its rule number, what was required, what the player had and whether it holds.

- Games that count (1.4.1, 1.4.2): played games only (forfeits and byes never); ``FID`` opponents count for games,
  titles and the average but never as a federation (1.4.3). 1.4.1c: in a 9-round event 8 played games plus a
  forfeit win or a pairing-allocated bye are a 9-game norm when the rest holds on the 8 games. Events of more than
  13 rounds are worth 13 games (1.7).
- Federations (1.4.3, 1.4.4): ≥ 2 federations other than the player's; ≤ 3/5 own (rounded down); ≤ 2/3 from any
  one federation (rounded down); waived for the exempt events of 1.4.3a-d.
- Titled opponents (1.4.5): ≥ 50 % titled (GM IM WGM WIM FM WFM; CM and WCM do not count); ≥ max(3, ⌈n/3⌉) of the
  target title or higher; in a double round robin distinct players, with the numbers required halved (rounded up).
- Average and performance (1.4.6-1.4.9): unrated opponents at 1400; only the lowest opponent raised to the title's
  floor; Ra rounded half up; p rounded to the whole percent half up; Rp = Ra + dp (table 1.4.9 = B.02 8.1.1);
  minimum Ra, Rp and 35 %.
- Subsets (1.4.1e/f): where pairings are not predetermined, later rounds may be dropped after a title result and
  games against opponents the player beat may be ignored, while ≥ the minimum games and the mix remain. Failing after
  dropping k games does not imply failing after k + 1, so every admissible subset is tried (vectorised with NumPy).
"""

from __future__ import annotations

import dataclasses
import datetime
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ratings.engine.classes import title_track
from ratings.engine.tables import dp_from_percent, percent_half_up

# 1.4.7 / 1.4.8: minimum Rp, minimum Ra and the rating floor per norm title.
NORM_TITLES = ("GM", "IM", "WGM", "WIM")
WOMENS_TITLES = frozenset({"WGM", "WIM"})
MIN_PERFORMANCE = {"GM": 2600, "IM": 2450, "WGM": 2400, "WIM": 2250}
MIN_AVERAGE = {"GM": 2380, "IM": 2230, "WGM": 2180, "WIM": 2030}
RATING_FLOOR = {"GM": 2200, "IM": 2050, "WGM": 2000, "WIM": 1850}
UNRATED_OPPONENT_RATING = 1400  # 1.4.7
MIN_SCORE_PERCENT = 35  # 1.4.8
MAX_COUNTED_GAMES = 13  # 1.7
# 1.4.5: titles that count as "titled" (CM and WCM do not), and the titles that count as the target or higher.
TITLED = frozenset({"GM", "IM", "WGM", "WIM", "FM", "WFM"})
TARGET_OR_HIGHER = {
    "GM": frozenset({"GM"}),
    "IM": frozenset({"GM", "IM"}),
    "WGM": frozenset({"GM", "IM", "WGM"}),
    "WIM": frozenset({"GM", "IM", "WGM", "WIM"}),
}
NO_FEDERATION = "FID"  # 1.4.3: FIDE-flagged players are never a federation
PLAYED_RESULTS = {"1": 1.0, "0.5": 0.5, "0": 0.0}
UNPLAYED_RESULTS = frozenset({"+", "-", "bye"})
SYSTEMS = ("swiss", "round-robin", "double-round-robin", "knockout")
PREDETERMINED_SYSTEMS = frozenset({"round-robin", "double-round-robin"})
EXEMPTIONS = ("", "national-championship", "national-team-championship", "zonal", "large-swiss")


@dataclass(frozen=True)
class NormRules:
    """The open points of titles-norms.md §9 as settings, with their defaults.

    - ``min_score_rounded``: False (default) compares the raw score with 35 % (4½/13 = 34.6 % fails); True compares
      the percentage rounded as for table 1.4.9 (35 %, passes).
    - ``exemption_waives_limits``: True (default, the reading a QC confirmation supports) lets the exemptions of
      1.4.3a-d waive the 3/5 and 2/3 limits as well as the two-foreign-federations rule; False keeps the limits.
    - ``minimum_games``: 9 (1.4.1a); 7 for World/Continental team or club championships of 7-9 rounds, 8 in the
      World Cup (1.4.1b).
    """

    min_score_rounded: bool = False
    exemption_waives_limits: bool = True
    minimum_games: int = 9


@dataclass(frozen=True)
class NormGame:
    round: int
    result: str  # "1" | "0.5" | "0" | "+" | "-" | "bye"
    opponent: str = ""  # who the opponent is (distinct players in a double round robin); "" = one per game
    opponent_rating: int | None = None  # None: unrated (counts as 1400)
    opponent_title: str = ""
    opponent_federation: str = ""
    excluded: bool = False  # round robins: an unrated opponent who scored zero against the rated (1.4.1)


@dataclass(frozen=True)
class EventConditions:
    """B.01 1.1, what the event itself must meet; None: not recorded (reported as unmet)."""

    rounds_per_day: int | None  # the most rounds played on one day (at most 2)
    chief_arbiter_title: str | None  # IA or FA


MAX_ROUNDS_PER_DAY = 2  # 1.1
NORM_ARBITER_TITLES = frozenset({"IA", "FA"})  # 1.1: the Chief Arbiter holds one, with a licence


@dataclass(frozen=True)
class NormEvent:
    rounds: int
    system: str = "swiss"
    exemption: str = ""
    conditions: EventConditions | None = None  # None: not checked (the calculator asks only about the games)


@dataclass(frozen=True)
class NormPlayer:
    federation: str
    sex: str = ""  # "M" | "F"


@dataclass(frozen=True)
class NormRequirementCheck:
    rule: str
    required: str  # REQUIREMENTS[key] filled in with params: what the API and the documents print
    actual: str
    ok: bool
    key: str = ""  # which requirement (REQUIREMENTS): pages print it in their own language
    params: tuple[tuple[str, str], ...] = ()


# What each requirement asks, in English (the API, the IT1); pages translate the same text by its key.
REQUIREMENTS = {
    "woman": "a woman (women's titles)",
    "games": "at least {amount} games",
    "exempt": "exempt (1.4.3a-d)",
    "foreign_federations": "at least {amount} federations other than the player's",
    "own_federation": "at most {amount} from the player's federation",
    "one_federation": "at most {amount} from any one other federation",
    "titled": "at least {amount} titled opponents",
    "target": "at least {amount} opponents {titles}",
    "average": "Ra at least {amount}",
    "performance": "Rp at least {amount}",
    "score": "score at least {amount} %",
    "rounds_per_day": "at most {amount} rounds a day",
    "arbiter": "Chief Arbiter IA or FA",
    "application_games": "norms covering at least {amount} games",
    "rating_reached": "a rating of {amount} reached at some time",
    "normal_rule": "one norm under the normal federation rule",
    "eight_games_once": "the 8-game rule used at most once",
    "one_round_a_day": "one norm with one round a day for 3 days",
    "qualifying": "one norm from a qualifying event",
}
NOT_RECORDED = "not recorded"  # an ``actual`` the event's record does not hold


def requirement(rule: str, key: str, actual: object, ok: bool, **params: object) -> NormRequirementCheck:
    """A requirement's check with its English text (REQUIREMENTS) and the parameters pages translate it with."""
    values = tuple((name, str(value)) for name, value in params.items())
    text = REQUIREMENTS[key].format(**dict(values))
    return NormRequirementCheck(rule, text, str(actual), bool(ok), key, values)


@dataclass(frozen=True)
class RaisedOpponent:
    round: int
    rating: int  # the rating the average would have used (1400 when unrated)
    raised_to: int


@dataclass(frozen=True)
class NormResult:
    title: str
    norm: bool
    games: int  # what the norm is worth toward an application's 27 games (1.4.1c, 1.7)
    score: float
    percentage: int
    average_rating: int
    performance: int
    raised_opponent: RaisedOpponent | None
    required_score: float | None  # the least score on these games that reaches the norm; None if none does
    games_used: tuple[int, ...]  # rounds
    checks: tuple[NormRequirementCheck, ...]
    one_four_one_c: bool = False  # the 9-round, 8-games rule was used


@dataclass(frozen=True)
class _Games:
    """The played games that may count, as arrays in round order."""

    rounds: np.ndarray  # int64
    points: np.ndarray  # float64
    ratings: np.ndarray  # int64, unrated as 1400
    unrated: np.ndarray  # bool
    titled: np.ndarray  # bool
    titles: tuple[str, ...]
    federations: tuple[str, ...]
    opponents: tuple[str, ...]


def _played_games(games: Sequence[NormGame]) -> _Games:
    # Rounds order the games (1.4.1e drops the last ones); games given with the same round keep their order.
    played = sorted((g for g in games if g.result in PLAYED_RESULTS and not g.excluded), key=lambda g: g.round)
    return _Games(
        rounds=np.array([g.round for g in played], dtype=np.int64),
        points=np.array([PLAYED_RESULTS[g.result] for g in played], dtype=np.float64),
        ratings=np.array(
            [UNRATED_OPPONENT_RATING if g.opponent_rating is None else g.opponent_rating for g in played],
            dtype=np.int64,
        ),
        unrated=np.array([g.opponent_rating is None for g in played], dtype=bool),
        titled=np.array([g.opponent_title in TITLED for g in played], dtype=bool),
        titles=tuple(g.opponent_title for g in played),
        federations=tuple(g.opponent_federation.upper() for g in played),
        opponents=tuple(g.opponent or f"#{i}" for i, g in enumerate(played)),
    )


def validate_norm_input(player: NormPlayer, event: NormEvent, games: Sequence[NormGame]) -> None:
    """Refuse what the rules cannot read, naming the place (ValueError)."""
    if event.system not in SYSTEMS:
        raise ValueError(f"event.system {event.system!r} is unknown; use one of {', '.join(SYSTEMS)}")
    if event.exemption not in EXEMPTIONS:
        raise ValueError(f"event.exemption {event.exemption!r} is unknown; use one of {', '.join(EXEMPTIONS[1:])}")
    if event.rounds < 1:
        raise ValueError("event.rounds must be at least 1")
    if not player.federation:
        raise ValueError("player.federation is required (a FIDE federation code such as ESP)")
    for i, game in enumerate(games):
        if game.result not in PLAYED_RESULTS and game.result not in UNPLAYED_RESULTS:
            raise ValueError(f"games[{i}].result {game.result!r} is unknown; use 1, 0.5, 0, +, - or bye")
        if game.round < 1:
            raise ValueError(f"games[{i}].round must be at least 1")


def norm_titles_for(player: NormPlayer, title: str | None = None) -> tuple[str, ...]:
    """The norm titles to check: the one asked, or all four (women's titles for women only)."""
    if title is not None:
        if title not in NORM_TITLES:
            raise ValueError(f"title {title!r} is not a norm title; use one of {', '.join(NORM_TITLES)}")
        return (title,)
    return tuple(t for t in NORM_TITLES if t not in WOMENS_TITLES or player.sex == "F")


def check_norms(
    player: NormPlayer,
    event: NormEvent,
    games: Sequence[NormGame],
    title: str | None = None,
    rules: NormRules | None = None,
) -> tuple[NormResult, ...]:
    """B.01 1.4 for each norm title asked (all four when ``title`` is None; women's titles for women)."""
    validate_norm_input(player, event, games)
    rules = rules or NormRules()
    # The event has at least as many rounds as the highest round played in it (what 1.4.1c reads).
    event = dataclasses.replace(event, rounds=max([event.rounds, *(g.round for g in games)]))
    played = _played_games(games)
    unplayed_counting = any(g.result in {"+", "bye"} for g in games)
    return tuple(
        _check_title(player, event, played, target, rules, unplayed_counting)
        for target in norm_titles_for(player, title)
    )


def _check_title(
    player: NormPlayer, event: NormEvent, played: _Games, title: str, rules: NormRules, unplayed_counting: bool
) -> NormResult:
    minimum = rules.minimum_games
    # 1.4.1c: a 9-round event, 8 played games and a forfeit win or a pairing-allocated bye.
    one_four_one_c = event.rounds == 9 and len(played.rounds) == 8 and unplayed_counting and minimum == 9
    effective_minimum = 8 if one_four_one_c else minimum
    candidates = _candidate_masks(event, played, effective_minimum)
    evaluated = {
        **_evaluate(played, title, rules, candidates),
        **_composition(player, event, played, title, rules, candidates, effective_minimum),
    }
    best = _best_row(evaluated)
    mask = candidates[best]
    women_ok = title not in WOMENS_TITLES or player.sex == "F"
    checks = _checks_for(evaluated, best, title, effective_minimum, one_four_one_c, women_ok, player.sex)
    checks += _condition_checks(event.conditions)
    n = int(mask.sum())
    worth = 9 if one_four_one_c else min(n, MAX_COUNTED_GAMES)
    raised = _raised_opponent(played, mask, title)
    return NormResult(
        title=title,
        norm=all(c.ok for c in checks),
        games=worth,
        score=float(evaluated["score"][best]),
        percentage=int(evaluated["percent"][best]),
        average_rating=int(evaluated["average"][best]),
        performance=int(evaluated["performance"][best]),
        raised_opponent=raised,
        required_score=_required_score(int(evaluated["average"][best]), n, title, rules),
        games_used=tuple(int(r) for r in played.rounds[mask]),
        checks=checks,
        one_four_one_c=one_four_one_c,
    )


def _candidate_masks(event: NormEvent, played: _Games, minimum: int) -> np.ndarray:
    """Rows of booleans over the played games: every admissible set of games (1.4.1e/f).

    Predetermined pairings: all games only. Otherwise every prefix of rounds (games after a title result may be
    dropped) and, within it, every subset of the wins left out (games against opponents the player beat may be
    ignored), keeping at least ``minimum`` games. Row 0 is always all the games.
    """
    n = len(played.rounds)
    rows = [np.ones(n, dtype=bool)]
    if event.system in PREDETERMINED_SYSTEMS or n <= minimum:
        return np.array(rows, dtype=bool).reshape(len(rows), n)
    for end in range(n, minimum - 1, -1):
        wins = np.flatnonzero(played.points[:end] == 1.0)
        droppable = min(len(wins), end - minimum)
        for k in range(droppable + 1):
            for dropped in itertools.combinations(wins.tolist(), k):
                if end == n and k == 0:
                    continue
                row = np.zeros(n, dtype=bool)
                row[:end] = True
                row[list(dropped)] = False
                rows.append(row)
    return np.array(rows, dtype=bool)


def _evaluate(played: _Games, title: str, rules: NormRules, masks: np.ndarray) -> dict[str, np.ndarray]:
    """1.4.6-1.4.9's figures for every candidate set of games at once (one row per candidate)."""
    games = masks.sum(axis=1)
    safe_games = np.maximum(games, 1)
    score = masks.astype(np.float64) @ played.points
    # 1.4.7: the lowest opponent only is raised to the floor (an unrated one counts 1400 first).
    absent = np.iinfo(np.int64).max
    lowest = np.where(masks, played.ratings[None, :], absent).min(axis=1, initial=absent)
    lowest = np.where(games > 0, lowest, 0)
    total = masks.astype(np.int64) @ played.ratings + np.maximum(RATING_FLOOR[title] - lowest, 0) * (games > 0)
    average = np.floor_divide(2 * total + safe_games, 2 * safe_games)  # Ra, .5 up (1.4.7)
    percent = percent_half_up(score, safe_games)  # 1.4.9: p to the whole percent, .5 up
    performance = average + dp_from_percent(percent)
    return {
        "games": games,
        "score": score,
        "average": average,
        "percent": percent,
        "performance": performance,
        "average_ok": average >= MIN_AVERAGE[title],  # 1.4.7, on the floored average
        "performance_ok": performance >= MIN_PERFORMANCE[title],  # 1.4.8
        "score_ok": _score_ok(score, safe_games, percent, rules),
    }


def _composition(
    player: NormPlayer,
    event: NormEvent,
    played: _Games,
    title: str,
    rules: NormRules,
    masks: np.ndarray,
    minimum: int,
) -> dict[str, np.ndarray]:
    """1.4.3-1.4.5 per candidate: federations and titled opponents."""
    games = masks.sum(axis=1)
    own = player.federation.upper()
    federations = sorted({f for f in played.federations if f and f != NO_FEDERATION})
    by_federation = np.array([[f == code for f in played.federations] for code in federations], dtype=np.int64)
    counts = masks.astype(np.int64) @ by_federation.T if federations else np.zeros((len(masks), 0), dtype=np.int64)
    foreign = np.array([code != own for code in federations], dtype=bool)
    own_count = counts[:, ~foreign].sum(axis=1) if federations else np.zeros(len(masks), dtype=np.int64)
    foreign_max = counts[:, foreign].max(axis=1, initial=0) if federations else np.zeros(len(masks), dtype=np.int64)
    titled_count, target_count, titled_required, target_required = _titled_counts(event, played, title, masks)
    exempt = event.exemption != ""
    return {
        "foreign_federations": (counts[:, foreign] > 0).sum(axis=1),
        "own_federation": own_count,
        "one_federation": foreign_max,
        "own_limit": (3 * games) // 5,
        "one_limit": (2 * games) // 3,
        "exempt_federations": np.full(len(masks), exempt),
        "exempt_limits": np.full(len(masks), exempt and rules.exemption_waives_limits),
        "titled": titled_count,
        "titled_required": titled_required,
        "target": target_count,
        "target_required": target_required,
        "games_ok": games >= minimum,
    }


def _titled_counts(
    event: NormEvent, played: _Games, title: str, masks: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """1.4.5: opponents holding a title and the target title or higher; in a double round robin, distinct
    players with the numbers required halved, rounded up."""
    games = masks.sum(axis=1)
    target = np.array([t in TARGET_OR_HIGHER[title] for t in played.titles], dtype=bool)
    titled_required = (games + 1) // 2
    target_required = np.maximum(3, -(-games // 3))
    if event.system != "double-round-robin":
        weights = masks.astype(np.int64)
        return weights @ played.titled, weights @ target, titled_required, target_required
    names = sorted(set(played.opponents))
    if not names:
        return (
            np.zeros(len(masks), dtype=np.int64),
            np.zeros(len(masks), dtype=np.int64),
            titled_required,
            target_required,
        )
    distinct = np.array([[o == name for o in played.opponents] for name in names], dtype=bool)
    met = (masks.astype(np.int64) @ distinct.T.astype(np.int64)) > 0  # candidates x distinct opponents
    first = distinct.argmax(axis=1)  # one game of each opponent carries their title
    titled = met.astype(np.int64) @ played.titled[first].astype(np.int64)
    targeted = met.astype(np.int64) @ target[first].astype(np.int64)
    return titled, targeted, -(-titled_required // 2), -(-target_required // 2)


def _row_checks(figures: dict[str, np.ndarray]) -> np.ndarray:
    """Candidates x requirements: whether each holds (the columns of _checks_for, in order)."""
    federations_ok = figures["exempt_federations"] | (figures["foreign_federations"] >= 2)
    own_ok = figures["exempt_limits"] | (figures["own_federation"] <= figures["own_limit"])
    one_ok = figures["exempt_limits"] | (figures["one_federation"] <= figures["one_limit"])
    return np.stack(
        [
            figures["games_ok"],
            federations_ok,
            own_ok,
            one_ok,
            figures["titled"] >= figures["titled_required"],
            figures["target"] >= figures["target_required"],
            figures["average_ok"],
            figures["performance_ok"],
            figures["score_ok"],
        ],
        axis=1,
    )


def _best_row(figures: dict[str, np.ndarray]) -> int:
    """The candidate reported: one meeting every requirement (most games, then highest Rp); else all games."""
    ok = _row_checks(figures).all(axis=1)
    if not ok.any():
        return 0
    order = np.lexsort((-figures["performance"], -figures["games"], ~ok))
    return int(order[0])


def _checks_for(
    figures: dict[str, np.ndarray],
    row: int,
    title: str,
    minimum: int,
    one_four_one_c: bool,
    women_ok: bool,
    sex: str,
) -> tuple[NormRequirementCheck, ...]:
    ok = _row_checks(figures)[row]
    f = {key: value[row] for key, value in figures.items()}
    games_rule = "1.4.1c" if one_four_one_c else "1.4.1a"
    own, one = ("exempt", "exempt") if f["exempt_limits"] else ("own_federation", "one_federation")
    checks = [
        requirement(games_rule, "games", int(f["games"]), ok[0], amount=minimum),
        requirement(
            "1.4.3",
            "exempt" if f["exempt_federations"] else "foreign_federations",
            int(f["foreign_federations"]),
            ok[1],
            amount=2,
        ),
        requirement("1.4.4", own, int(f["own_federation"]), ok[2], amount=int(f["own_limit"])),
        requirement("1.4.4", one, int(f["one_federation"]), ok[3], amount=int(f["one_limit"])),
        requirement("1.4.5", "titled", int(f["titled"]), ok[4], amount=int(f["titled_required"])),
        requirement(
            "1.4.5",
            "target",
            int(f["target"]),
            ok[5],
            amount=int(f["target_required"]),
            titles="/".join(sorted(TARGET_OR_HIGHER[title])),
        ),
        requirement("1.4.7", "average", int(f["average"]), ok[6], amount=MIN_AVERAGE[title]),
        requirement("1.4.8", "performance", int(f["performance"]), ok[7], amount=MIN_PERFORMANCE[title]),
        requirement("1.4.8", "score", f"{int(f['percent'])} %", ok[8], amount=MIN_SCORE_PERCENT),
    ]
    if not women_ok:
        checks.insert(0, requirement("1.3", "woman", sex or NOT_RECORDED, False))
    return tuple(checks)


def _condition_checks(conditions: EventConditions | None) -> tuple[NormRequirementCheck, ...]:
    """B.01 1.1: at most two rounds a day; the Chief Arbiter an IA or FA."""
    if conditions is None:
        return ()
    per_day, arbiter = conditions.rounds_per_day, conditions.chief_arbiter_title
    return (
        requirement(
            "1.1",
            "rounds_per_day",
            NOT_RECORDED if per_day is None else per_day,
            per_day is not None and per_day <= MAX_ROUNDS_PER_DAY,
            amount=MAX_ROUNDS_PER_DAY,
        ),
        requirement("1.1", "arbiter", arbiter or NOT_RECORDED, arbiter in NORM_ARBITER_TITLES),
    )


def _raised_opponent(played: _Games, mask: np.ndarray, title: str) -> RaisedOpponent | None:
    """1.4.7: the one opponent raised to the floor (the lowest rated of the games used), if any."""
    if not mask.any():
        return None
    ratings = np.where(mask, played.ratings, np.iinfo(np.int64).max)
    lowest = int(ratings.argmin())
    rating = int(played.ratings[lowest])
    if rating >= RATING_FLOOR[title]:
        return None
    return RaisedOpponent(round=int(played.rounds[lowest]), rating=rating, raised_to=RATING_FLOOR[title])


def _score_ok(score: np.ndarray, games: np.ndarray | int, percent: np.ndarray, rules: NormRules) -> np.ndarray:
    """1.4.8's 35 %: on the raw score, or on the percentage rounded as for table 1.4.9 (NormRules, §9)."""
    if rules.min_score_rounded:
        return np.asarray(percent >= MIN_SCORE_PERCENT)
    return np.asarray(100 * score >= MIN_SCORE_PERCENT * np.asarray(games))


def _required_score(average: int, games: int, title: str, rules: NormRules) -> float | None:
    """The least score on ``games`` games against Ra that gives Rp ≥ the minimum and ≥ 35 % (1.4.8, 1.4.9)."""
    if games == 0:
        return None
    scores = np.arange(2 * games + 1) / 2  # every score in half points
    percent = percent_half_up(scores, games)
    reached = np.flatnonzero(
        _score_ok(scores, games, percent, rules) & (average + dp_from_percent(percent) >= MIN_PERFORMANCE[title])
    )
    return float(scores[reached[0]]) if len(reached) else None


# 1.4.5: a player holding two titles (an IM who is also a WGM) counts by the one that counts for more norms.
TITLE_STRENGTH = ("GM", "IM", "WGM", "WIM", "FM", "WFM", "CM", "WCM")


def norm_title_of(*titles: str) -> str:
    """The title an opponent counts with for 1.4.5: the strongest of those held ("" when none)."""
    held = [t for t in titles if t in TITLE_STRENGTH]
    return min(held, key=TITLE_STRENGTH.index) if held else ""


def title_held_on(current: str, awards: Sequence[tuple[datetime.date, str]], day: datetime.date) -> str:
    """The title of one track (open or women's) a player held on ``day`` (B.01 1.4.6a: opponents' titles at the
    event's start): the registry's ``current`` one, unless its award is dated after ``day`` — then the highest
    award of the track dated on or before ``day``, or none. ``awards``: (date, title) of the player's awards."""
    if not current:
        return ""
    track = title_track(current)
    if not any(title == current and date > day for date, title in awards):
        return current
    before = [title for date, title in awards if date <= day and title in track]
    return max(before, key=track.index, default="")


# B.01 1.5: a title by norms needs this rating reached at some time (1.5.3) and norms covering 27 games.
TITLE_RATING = {"GM": 2500, "IM": 2400, "WGM": 2300, "WIM": 2200}
APPLICATION_GAMES = 27
QUALIFYING_NORM_AFTER = datetime.date(2022, 6, 30)  # 1.5.6


@dataclass(frozen=True)
class NormOnRecord:
    """A norm an application gathers (this database's or another federation's, entered with its certificate)."""

    title: str
    games: int  # what it is worth (1.4.1c, 1.7)
    end_date: datetime.date
    one_four_one_c: bool = False  # made with 8 games and a forfeit win or bye (1.4.1c)
    exempt: bool = False  # made under an exemption of 1.4.3a-d (not the normal federation rule)
    one_round_a_day: bool = False  # one round a day for at least 3 days (1.1.3a)
    qualifying: bool = False  # 1.5.6: a large Swiss averaging 2000, an Olympiad, Grand Swiss, World Cup, championship


def application_checks(
    title: str, norms: Sequence[NormOnRecord], rating_reached: int | None
) -> tuple[NormRequirementCheck, ...]:
    """B.01 1.5 for an application for ``title`` gathering ``norms`` (those for the title or a higher one), with
    the highest rating the player reached at some time (1.5.3a: between lists too)."""
    if title not in NORM_TITLES:
        raise ValueError(f"title {title!r} is not a norm title; use one of {', '.join(NORM_TITLES)}")
    counted = [n for n in norms if n.title in TARGET_OR_HIGHER[title] or n.title == title]
    games = sum(n.games for n in counted)
    one_c = sum(n.one_four_one_c for n in counted)
    late = any(n.end_date > QUALIFYING_NORM_AFTER for n in counted)
    checks = [
        requirement("1.5", "application_games", games, games >= APPLICATION_GAMES, amount=APPLICATION_GAMES),
        requirement(
            "1.5.3",
            "rating_reached",
            NOT_RECORDED if rating_reached is None else rating_reached,
            rating_reached is not None and rating_reached >= TITLE_RATING[title],
            amount=TITLE_RATING[title],
        ),
        requirement("1.4.3e", "normal_rule", sum(not n.exempt for n in counted), any(not n.exempt for n in counted)),
        requirement("1.4.1c", "eight_games_once", one_c, one_c <= 1),
    ]
    if title in {"GM", "WGM"}:
        daily = sum(n.one_round_a_day for n in counted)
        checks.append(requirement("1.1.3a", "one_round_a_day", daily, daily >= 1))
    if late:
        qualifying = sum(n.qualifying for n in counted)
        checks.append(requirement("1.5.6", "qualifying", qualifying, qualifying >= 1))
    return tuple(checks)
