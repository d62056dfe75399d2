"""A player's full record for the profile's tabs and the API: every rated game, opponents, statistics by
colour and result, peak ratings, performance per event, and the head-to-head of two players.

The rated games are the per-game lines stored with the player's rating changes on current lists
(RatingChange.details: round, colour, opponent, opponent's rating, score, K x dR), through the
(player, rating_list) index. What a page shows must not cost more with every list the player is on (issue 17):

- the games, a page at a time (``RecordGames``): how many lines each change holds, counted by the database
  without sending the details (one query), then the details of the changes that cover the page only (one
  query). Names of opponents come in one more query, for the rows shown;
- what summarises the whole record (opponents, colours, events, peaks, head-to-head) is computed once from
  every line and kept in the cache under ``record_version``: what those pages show changes only with a
  publication (a correction is a new publication), a merge of players or a correction of an event's games.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, overload

from django.core.cache import cache
from django.db.models import DateTimeField, F, Func, IntegerField, QuerySet, Subquery

from events.models import (
    RATED_RESULTS,
    RESULT_POINTS,
    EventCorrection,
    EventStatus,
    Game,
    Participant,
    RatingType,
)
from players.models import Player, PlayerMerge
from public.selectors.ratings import calculation_line
from ratings.engine.game_line import (
    COLOUR,
    GAME,
    OPPONENT,
    OPPONENT_RATING,
    RATED,
    RATING_CHANGE,
    ROUND,
    SCORE,
    WEIGHTED_CHANGE,
)
from ratings.engine.k_factor import KFactorSpec
from ratings.engine.performance import fide_performance
from ratings.models import RatingChange, RatingList, RatingListEntry, RatingListStatus, current_list_condition

# A rating is provisional while the player is "new" for K: fewer than 30 rated games (B.02 8.3.3, K = 40
# until 30 games) — the rating still rests on few games.
PROVISIONAL_GAMES = KFactorSpec().new_player_games
# Events whose games are published: rated, or rated and then corrected (awaiting re-rating).
PUBLISHED_EVENTS = (EventStatus.RATED, EventStatus.CORRECTED)
# How long a summary of a record stays in the cache. Its key changes with what it summarises
# (record_version), so this only bounds the life of an entry nobody asks for any more, and of an event's name
# edited in the admin after it was rated.
RECORD_CACHE_SECONDS = 24 * 3600


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
    rated: bool = True  # the game changed the player's rating (an unrated player's game changes none: no 0.00)

    @property
    def result(self) -> str:
        return {1.0: "1", 0.5: "½", 0.0: "0"}.get(self.score, str(self.score))


def _colour(value: Any) -> str:
    text = str(value or "").lower()
    return "white" if text.startswith("w") else "black" if text.startswith("b") else ""


# A player's changes newest first: the event's end, the event, the type. Every change is one (list, event) and
# an event is rated on one current list, so this orders them fully.
RECORD_ORDER = ("-event__end_date", "-event_id", "rating_list__rating_type")
# What game_rows and event_performances read of a change, its event and its list (not the list's frozen
# rules, a JSON document per list).
CHANGE_FIELDS = (
    "event_id",
    "rating_list_id",
    "rating_before",
    "k_factor",
    "games",
    "score",
    "change",
    "details",
    "event__name",
    "event__end_date",
    "rating_list__rating_type",
    "rating_list__list_date",
)


def _player_changes(player: Player, rating_type: str | None) -> QuerySet[RatingChange]:
    changes = RatingChange.objects.filter(current_list_condition("rating_list"), player=player)
    return changes.filter(rating_list__rating_type=rating_type) if rating_type else changes


def player_rating_changes(player: Player, rating_type: str | None = None) -> list[RatingChange]:
    """The player's rating changes on current lists with event and list, newest first: one query."""
    changes = _player_changes(player, rating_type).select_related("event", "rating_list").only(*CHANGE_FIELDS)
    return list(changes.order_by(*RECORD_ORDER))


def change_lines(change: RatingChange) -> list[dict[str, Any]]:
    """The change's per-game lines as calculation_line gives them, made once per change: the record's summary
    reads them twice (game_rows, event_performances), and a long record holds hundreds. No query."""
    lines = getattr(change, "_calculation_lines", None)
    if lines is None:
        lines = [calculation_line(detail) for detail in change.details or []]
        change._calculation_lines = lines  # type: ignore[attr-defined]
    return lines


def game_rows(changes: list[RatingChange]) -> list[GameRow]:
    """Every rated game line of ``changes`` (newest event first, last round first). No query."""
    rows = []
    for change in changes:
        for line in sorted(change_lines(change), key=lambda item: -(item[ROUND] or 0)):
            if line[SCORE] is None:
                continue
            weighted = line[WEIGHTED_CHANGE]
            if weighted is None and line[RATING_CHANGE] is not None and change.k_factor is not None:
                weighted = round(float(line[RATING_CHANGE]) * change.k_factor, 2)  # K x dR (B.02 8.3.2)
            rated = line[RATED] is not False
            opponent_rating = line[OPPONENT_RATING]
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
                    # ratings are whole numbers (stored as the engine's floats: 1896.0)
                    opponent_rating=None if opponent_rating is None else round(float(opponent_rating)),
                    score=float(line[SCORE]),
                    rating_change=weighted if rated else None,
                    game_id=line[GAME],
                    rated=rated,
                )
            )
    return rows


class StoredLines(Func):
    """How many per-game lines a RatingChange.details document holds, counted by the database without sending
    the document: ratings.fields.GameLinesField stores {"columns": [...], "rows": [[...], ...]} (or, written
    before, a plain list of lines). Every stored line is a game with its score (the publication writes one
    line per side of a rated game, counted or not: ratings.services.publication.compute._rating_changes), so this is
    the number of rows game_rows makes of the change. Not RatingChange.games: that counts only the games the
    calculation counted (a game against an unrated opponent has a line but does not count)."""

    output_field = IntegerField()
    arity = 1

    def as_postgresql(self, compiler, connection, **extra_context):
        return self.as_sql(
            compiler,
            connection,
            template="COALESCE(CASE WHEN json_typeof(%(expressions)s) = 'array' THEN json_array_length(%(expressions)s)"
            " ELSE json_array_length(%(expressions)s -> 'rows') END, 0)",
            **extra_context,
        )

    def as_sqlite(self, compiler, connection, **extra_context):
        return self.as_sql(
            compiler,
            connection,
            template="COALESCE(CASE WHEN json_type(%(expressions)s) = 'array' THEN json_array_length(%(expressions)s)"
            " ELSE json_array_length(%(expressions)s, '$.rows') END, 0)",
            **extra_context,
        )


class RecordGames:
    """A player's rated games, newest event first (the rows game_rows makes of every change), as a sequence
    that Django's and DRF's paginators page without reading the whole record (issue 17: a page's cost must not
    grow with the lists the player is on).

    Its length: the lines of each change counted by the database (StoredLines), one query of two integers a
    change, no details, kept in the cache under ``version`` (record_version) when given. A slice: the changes
    that hold it found from those counts, and only their details read (one query), so page 1 reads the newest
    changes whatever the length of the history.
    """

    def __init__(self, player: Player, rating_type: str | None = None, version: str | None = None) -> None:
        self._changes = _player_changes(player, rating_type)
        self._lines: list[tuple[int, int]] | None = None
        # Under a record_version, the counts are kept in the cache as the record's summaries are: they change
        # only with what changes that token, and counting them reads every change of the record.
        self._key = f"public:lines:{player.pk}:{rating_type or 'all'}:{version}" if version is not None else None

    def lines(self) -> list[tuple[int, int]]:
        """(change id, its lines) of every change, newest first: one query, once (or from the cache)."""
        if self._lines is None and self._key is not None:
            self._lines = cache.get(self._key)
        if self._lines is None:
            self._lines = list(
                self._changes.order_by(*RECORD_ORDER).annotate(lines=StoredLines("details")).values_list("id", "lines")
            )
            if self._key is not None:
                cache.set(self._key, self._lines, RECORD_CACHE_SECONDS)
        return self._lines

    def count(self) -> int:  # what Django's paginator asks (not Sequence.count(value))
        return sum(lines for _, lines in self.lines())

    def __len__(self) -> int:
        return self.count()

    def __iter__(self) -> Iterator[GameRow]:  # the whole record (a paginator reads a slice)
        return iter(self[0 : self.count()])

    @overload
    def __getitem__(self, index: int) -> GameRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[GameRow]: ...

    def __getitem__(self, index: int | slice) -> GameRow | list[GameRow]:
        if isinstance(index, int):
            position = index + len(self) if index < 0 else index
            rows = self[position : position + 1]
            if not rows:
                raise IndexError(index)
            return rows[0]
        start, stop, step = index.indices(self.count())
        if step != 1:
            raise ValueError("a record's games are read in pages: a slice with a step is not supported")
        ids: list[int] = []
        first = offset = 0
        for change_id, lines in self.lines():
            if offset >= stop:
                break
            if offset + lines > start:
                if not ids:
                    first = offset
                ids.append(change_id)
            offset += lines
        if not ids or start >= stop:
            return []
        read = RatingChange.objects.filter(pk__in=ids).select_related("event", "rating_list").only(*CHANGE_FIELDS)
        changes = {change.pk: change for change in read}
        return game_rows([changes[pk] for pk in ids if pk in changes])[start - first : stop - first]


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


@dataclass(frozen=True)
class EventRef:
    """What the record shows of a rated event (kept in the cache with the record's summary)."""

    pk: int
    name: str
    end_date: datetime.date | None


def event_performances(changes: list[RatingChange]) -> list[dict[str, Any]]:
    """Per rated event (newest first): games, score, average rated opponent, performance and change."""
    events = []
    for change in changes:
        ratings, score = [], 0.0
        for line in change_lines(change):
            if line[OPPONENT_RATING] is not None and line[SCORE] is not None:
                ratings.append(int(line[OPPONENT_RATING]))
                score += float(line[SCORE])
        events.append(
            {
                "event": EventRef(change.event_id, change.event.name, change.event.end_date),
                "rating_type": change.rating_list.rating_type,
                "list_date": change.rating_list.list_date,
                "games": change.games,
                "score": change.score,
                "average_opponent": round(sum(ratings) / len(ratings)) if ratings else None,
                "performance": _performance(ratings, score),
                "rating_change": change.change,
                "rated": change.rating_before is not None,  # unrated at the start: towards a first rating
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


# --- what summarises the whole record, cached ----------


def scalar_of(queryset: QuerySet[Any], expression: Any, output_field: Any) -> Subquery:
    """One value computed over ``queryset`` (an aggregate function spelled as a plain function: no GROUP BY),
    as a subquery."""
    return Subquery(queryset.order_by().annotate(value=expression).values("value")[:1], output_field=output_field)


def count_of(name: str) -> Func:
    return Func(F(name), function="COUNT", output_field=IntegerField())


def _max(name: str, output_field: Any) -> Func:
    return Func(F(name), function="MAX", output_field=output_field)


def record_version(*players: Player) -> str:
    """A token that changes whenever what the players' summarised record shows may change: one query.

    - a publication, first or a correction's (a published list never changes; a correction is a new list):
      the number of published lists and the latest publication time. Not the newest list's key alone: a
      draft computed earlier and published as it is (rating_list_write's ``promote``) keeps an older key;
    - a merge of a duplicate into one of the players, or its reversal (players.services.player_merge moves
      rating changes, list entries and participations without publishing): their merges and reversals;
    - a correction of a rated event's games (events.services.event_correct: the head-to-head reads the games
      as corrected before the lists are published again): the latest correction.
    """
    published = RatingList.objects.filter(status=RatingListStatus.PUBLISHED)
    merges = PlayerMerge.objects.filter(kept__in=[player.pk for player in players])
    row = (
        Player.objects.filter(pk=players[0].pk)
        .annotate(
            lists=scalar_of(published, count_of("pk"), IntegerField()),
            published=scalar_of(published, _max("published_at", DateTimeField()), DateTimeField()),
            merges=scalar_of(merges, count_of("pk") + count_of("reversed_at"), IntegerField()),
            corrections=scalar_of(EventCorrection.objects.all(), _max("pk", IntegerField()), IntegerField()),
        )
        .values_list("lists", "published", "merges", "corrections")
        .get()
    )
    lists, published_at, merged, corrections = row
    stamp = published_at.timestamp() if published_at is not None else 0
    return f"{lists}-{stamp:.6f}-{merged}-{corrections or 0}"


@dataclass
class RecordSummary:
    """What the opponents and statistics tabs (and their API twins) show of every game of a record."""

    opponents: list[OpponentRow]
    colours: list[Tally]
    events: list[dict[str, Any]]


def record_summary(player: Player, rating_type: str | None, version: str) -> RecordSummary:
    """The summary of ``player``'s record (of one rating type, or all): computed from every rated game (one
    query) the first time it is asked for under ``version`` (record_version), then from the cache."""
    key = f"public:record:{player.pk}:{rating_type or 'all'}:{version}"
    summary = cache.get(key)
    if summary is None:
        changes = player_rating_changes(player, rating_type)
        games = game_rows(changes)
        summary = RecordSummary(
            opponents=opponent_rows(games), colours=colour_statistics(games), events=event_performances(changes)
        )
        cache.set(key, summary, RECORD_CACHE_SECONDS)
    return summary


def record_peaks(player: Player, version: str) -> list[dict[str, Any]]:
    """peak_ratings, kept in the cache under ``version`` (record_version): one query the first time."""
    key = f"public:peaks:{player.pk}:{version}"
    peaks = cache.get(key)
    if peaks is None:
        peaks = peak_ratings(player)
        cache.set(key, peaks, RECORD_CACHE_SECONDS)
    return peaks


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
    """The games between two players and the score: one query for record_version, then from the cache, or the
    two queries of head_to_head_games the first time under that version."""
    key = f"public:vs:{first.pk}:{second.pk}:{record_version(first, second)}"
    cached = cache.get(key)
    if cached is not None:
        return cached
    games = head_to_head_games(first, second)
    first_score = sum(row["first_score"] for row in games)
    result = {
        "games": games,
        "first_score": first_score,
        "second_score": len(games) - first_score,
        "first_wins": sum(row["first_score"] == 1.0 for row in games),
        "draws": sum(row["first_score"] == 0.5 for row in games),
        "second_wins": sum(row["first_score"] == 0.0 for row in games),
    }
    cache.set(key, result, RECORD_CACHE_SECONDS)
    return result
