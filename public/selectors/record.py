"""A player's full record for the profile's tabs and the API: every rated game, opponents, statistics by
colour and result, peak ratings, performance per event, and the head-to-head of two players.

The rated games are the per-game lines stored with the player's rating changes on current lists
(RatingChange.details: round, colour, opponent, opponent's rating, score, K x dR), read in one query through
the (player, rating_list) index; the pages and the API then page and aggregate them in memory (a player has
at most a few thousand rated games). Names of opponents come in one more query, for the rows shown.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from django.db.models import F

from events.models import RATED_RESULTS, RESULT_POINTS, EventStatus, Game, Participant, RatingType
from players.models import Player
from public.selectors.ratings import calculation_line
from ratings.engine.game_line import (
    COLOUR,
    GAME,
    OPPONENT,
    OPPONENT_RATING,
    RATING_CHANGE,
    ROUND,
    SCORE,
    WEIGHTED_CHANGE,
)
from ratings.engine.k_factor import KFactorSpec
from ratings.engine.performance import fide_performance
from ratings.models import RatingChange, RatingListEntry, current_list_condition

# A rating is provisional while the player is "new" for K: fewer than 30 rated games (B.02 8.3.3, K = 40
# until 30 games) — the rating still rests on few games.
PROVISIONAL_GAMES = KFactorSpec().new_player_games
# Events whose games are published: rated, or rated and then corrected (awaiting re-rating).
PUBLISHED_EVENTS = (EventStatus.RATED, EventStatus.CORRECTED)


def is_provisional(rated_games_total: int | None, rating: int | None) -> bool:
    return rating is not None and (rated_games_total or 0) < PROVISIONAL_GAMES


@dataclass
class GameRow:
    """One rated game of the player, newest first in a record."""

    rating_type: str
    list_date: datetime.date
    event_id: int
    event_name: str
    date: datetime.date
    round: int | None
    colour: str  # "white" / "black" / ""
    opponent_id_number: int | None
    opponent_rating: int | None
    score: float
    rating_change: float | None  # K x dR
    game_id: int | None
    opponent: Player | None = None

    @property
    def result(self) -> str:
        return {1.0: "1", 0.5: "½", 0.0: "0"}.get(self.score, str(self.score))


def _colour(value: Any) -> str:
    text = str(value or "").lower()
    return "white" if text.startswith("w") else "black" if text.startswith("b") else ""


def player_rating_changes(player: Player, rating_type: str | None = None) -> list[RatingChange]:
    """The player's rating changes on current lists with event and list, newest first: one query."""
    changes = RatingChange.objects.filter(current_list_condition("rating_list"), player=player)
    if rating_type:
        changes = changes.filter(rating_list__rating_type=rating_type)
    return list(
        changes.select_related("event", "rating_list").order_by(
            "-event__end_date", "-event_id", "rating_list__rating_type"
        )
    )


def game_rows(changes: list[RatingChange]) -> list[GameRow]:
    """Every rated game line of ``changes`` (newest event first, last round first). No query."""
    rows = []
    for change in changes:
        lines = [calculation_line(detail) for detail in change.details or []]
        for line in sorted(lines, key=lambda item: -(item[ROUND] or 0)):
            if line[SCORE] is None:
                continue
            weighted = line[WEIGHTED_CHANGE]
            if weighted is None and line[RATING_CHANGE] is not None and change.k_factor is not None:
                weighted = round(float(line[RATING_CHANGE]) * change.k_factor, 2)  # K x dR (B.02 8.3.2)
            rows.append(
                GameRow(
                    rating_type=change.rating_list.rating_type,
                    list_date=change.rating_list.list_date,
                    event_id=change.event_id,
                    event_name=change.event.name,
                    # a rated event has its dates (drafts without them are never rated); the list's as a fallback
                    date=change.event.end_date or change.rating_list.list_date,
                    round=line[ROUND],
                    colour=_colour(line[COLOUR]),
                    opponent_id_number=None if line[OPPONENT] is None else int(line[OPPONENT]),
                    opponent_rating=line[OPPONENT_RATING],
                    score=float(line[SCORE]),
                    rating_change=weighted,
                    game_id=line[GAME],
                )
            )
    return rows


def attach_opponents(rows: list[Any]) -> None:
    """Set ``opponent`` (the Player) on each row from its ``opponent_id_number``: one query (none if empty)."""
    numbers = {row.opponent_id_number for row in rows if row.opponent_id_number is not None}
    players = (
        {p.id_number: p for p in Player.objects.filter(id_number__in=numbers).select_related("federation")}
        if numbers
        else {}
    )
    for row in rows:
        row.opponent = players.get(row.opponent_id_number)


def _performance(ratings: list[int], score: float) -> int | None:
    """FIDE performance (Title Regulations 1.4.6-1.4.9) against rated opponents only; None without one."""
    return fide_performance(ratings, score).rating if ratings else None


@dataclass
class OpponentRow:
    opponent_id_number: int
    games: int = 0
    score: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    ratings: list[int] = field(default_factory=list)
    scores_vs_rated: float = 0.0
    last_date: datetime.date | None = None
    opponent: Player | None = None

    @property
    def performance(self) -> int | None:
        return _performance(self.ratings, self.scores_vs_rated)

    @property
    def percent(self) -> int:
        return round(100 * self.score / self.games) if self.games else 0


def _tally(row: Any, game: GameRow) -> None:
    row.games += 1
    row.score += game.score
    row.wins += game.score == 1.0
    row.draws += game.score == 0.5
    row.losses += game.score == 0.0


def opponent_rows(games: list[GameRow]) -> list[OpponentRow]:
    """Games, score and performance against each opponent, most games first. No query."""
    by_opponent: dict[int, OpponentRow] = {}
    for game in games:
        if game.opponent_id_number is None:
            continue
        row = by_opponent.setdefault(game.opponent_id_number, OpponentRow(game.opponent_id_number))
        _tally(row, game)
        if game.opponent_rating is not None:
            row.ratings.append(int(game.opponent_rating))
            row.scores_vs_rated += game.score
        row.last_date = max(row.last_date or game.date, game.date)
    return sorted(by_opponent.values(), key=lambda row: (-row.games, -row.score, row.opponent_id_number))


@dataclass
class Tally:
    label: str
    games: int = 0
    score: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def percent(self) -> int:
        return round(100 * self.score / self.games) if self.games else 0


def colour_statistics(games: list[GameRow]) -> list[Tally]:
    """Games, wins, draws, losses and score with white, with black and in all. No query."""
    tallies = {"white": Tally("white"), "black": Tally("black"), "all": Tally("all")}
    for game in games:
        _tally(tallies["all"], game)
        if game.colour:
            _tally(tallies[game.colour], game)
    return list(tallies.values())


def event_performances(changes: list[RatingChange]) -> list[dict[str, Any]]:
    """Per rated event (newest first): games, score, average rated opponent, performance and change."""
    events = []
    for change in changes:
        ratings, score = [], 0.0
        for detail in change.details or []:
            line = calculation_line(detail)
            if line[OPPONENT_RATING] is not None and line[SCORE] is not None:
                ratings.append(int(line[OPPONENT_RATING]))
                score += float(line[SCORE])
        events.append(
            {
                "change": change,
                "event": change.event,
                "rating_type": change.rating_list.rating_type,
                "list_date": change.rating_list.list_date,
                "games": change.games,
                "score": change.score,
                "average_opponent": round(sum(ratings) / len(ratings)) if ratings else None,
                "performance": _performance(ratings, score),
                "rating_change": change.change,
            }
        )
    return events


def peak_ratings(player: Player) -> list[dict[str, Any]]:
    """The highest published rating per type and the first list that showed it: one query."""
    peaks: dict[str, dict[str, Any]] = {}
    entries = (
        RatingListEntry.objects.filter(current_list_condition("rating_list"), player=player, rating__isnull=False)
        .values("rating", "rating_list__rating_type", "rating_list__list_date")
        .order_by("rating_list__list_date")
    )
    for entry in entries:
        rating_type = entry["rating_list__rating_type"]
        if rating_type not in peaks or entry["rating"] > peaks[rating_type]["rating"]:
            peaks[rating_type] = {
                "rating_type": rating_type,
                "rating": entry["rating"],
                "list_date": entry["rating_list__list_date"],
            }
    return [peaks[t] for t in RatingType.values if t in peaks]


# --- head-to-head ----------


def head_to_head_games(first: Player, second: Player) -> list[dict[str, Any]]:
    """Every game between two players with a rated result in a published event, oldest first: two queries.
    Both players' participations (the participants' player index), then the games of the events where both
    played (the games' (event, round) index): a plan that stays small for any two players, where one join
    over games, participants and events may start from the events."""
    participations = list(
        Participant.objects.filter(player__in=(first, second), event__status__in=PUBLISHED_EVENTS).values_list(
            "id", "player_id", "event_id"
        )
    )
    events_of: dict[int, set[int]] = {first.pk: set(), second.pk: set()}
    for _, player_id, event_id in participations:
        events_of[player_id].add(event_id)
    common = events_of[first.pk] & events_of[second.pk]
    if not common:
        return []
    seats = [pk for pk, _, event_id in participations if event_id in common]
    rows: list[dict[str, Any]] = [
        dict(row)
        for row in Game.objects.filter(
            event_id__in=common, white_id__in=seats, black_id__in=seats, result__in=RATED_RESULTS
        )
        .annotate(
            game_id=F("id"),
            event_name=F("event__name"),
            event_end=F("event__end_date"),
            rating_type=F("event__rating_type"),
            white_player=F("white__player_id"),
            white_rating=F("white__rating"),
            black_rating=F("black__rating"),
        )
        .values(
            "event_id",
            "round",
            "result",
            "date",
            "game_id",
            "event_name",
            "event_end",
            "rating_type",
            "white_player",
            "white_rating",
            "black_rating",
        )
        .order_by("event__end_date", "event_id", "round")
    ]
    for row in rows:
        first_white = row["white_player"] == first.pk
        white_points, black_points = RESULT_POINTS[row["result"]]
        row["first_colour"] = "white" if first_white else "black"
        row["first_score"] = white_points if first_white else black_points
        row["first_rating"] = row["white_rating"] if first_white else row["black_rating"]
        row["second_rating"] = row["black_rating"] if first_white else row["white_rating"]
        row["date"] = row["date"] or row["event_end"]
    return rows


def head_to_head(first: Player, second: Player) -> dict[str, Any]:
    games = head_to_head_games(first, second)
    first_score = sum(row["first_score"] for row in games)
    return {
        "games": games,
        "first_score": first_score,
        "second_score": len(games) - first_score,
        "first_wins": sum(row["first_score"] == 1.0 for row in games),
        "draws": sum(row["first_score"] == 0.5 for row in games),
        "second_wins": sum(row["first_score"] == 0.0 for row in games),
    }
