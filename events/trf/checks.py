"""The checks an event needs before it is rated that need no database (``check_event``).

``events.trf_services`` adds what needs the registry (matching players, federations known) and persists.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from events.trf.reader import FEDERATION_CODE, TrfParseResult, TrfResultWithoutOpponent, results_without_opponent
from events.trf.records import (
    ERROR,
    PENDING,
    WARNING,
    ProblemsBySeverity,
    TrfGame,
    TrfPlayer,
    TrfProblem,
    TrfText,
    TrfTournament,
    gettext_noop,
)

# ------------------------------------------------------------------------------------- checks for an event


@dataclass
class TrfEventChecks(ProblemsBySeverity):
    """What rating a parsed file as an event needs beyond the parse, decided without a database.

    ``start_date`` / ``end_date``: 042 / 052, else the first / last round date (132); ``federation``: 032 when
    it is a three-letter code, else ``""``; ``games``: the file's games (``games``). ``problems`` name line
    and column like the parser's.
    """

    start_date: dt.date | None = None
    end_date: dt.date | None = None
    federation: str = ""
    games: list[TrfGame] = field(default_factory=list)
    without_opponent: list[TrfResultWithoutOpponent] = field(default_factory=list)
    problems: list[TrfProblem] = field(default_factory=list)

    def error(self, line: int, column: int | None, template: str, /, **values: object) -> None:
        text = TrfText(template, tuple(values.items()))
        self.problems.append(TrfProblem(line, column, ERROR, str(text), text))

    def warn(self, line: int, column: int | None, template: str, /, **values: object) -> None:
        text = TrfText(template, tuple(values.items()))
        self.problems.append(TrfProblem(line, column, WARNING, str(text), text))


def check_event(result: TrfParseResult, *, submit: bool = False) -> TrfEventChecks:
    """The rules an event must meet to be rated (dates, one person once, results when submitted), checked
    on the parse result alone: ``events.trf_services`` adds what needs the registry (matching players,
    federations known) and persists."""
    t = result.tournament
    checks = TrfEventChecks()
    _check_dates(t, checks)
    _check_ids(t, checks)
    _check_results(result, checks, submit=submit)
    _check_opponents(result, checks)
    checks.federation = _event_federation(t, checks)
    return checks


def _header_place(t: TrfTournament, code: str) -> tuple[int, int | None]:
    """Line and column of a header record's value: (line, 5), or (0, None) when the file has no such record."""
    line = t.record_lines.get(code, 0)
    return line, 5 if line else None


def _check_dates(t: TrfTournament, checks: TrfEventChecks) -> None:
    """An event is rated with its dates: 042/052, else the round dates of 132."""
    # rating-rules.md §1.3: the start date picks the ratings used, the end date the list the event goes to.
    round_dates = [date for date in t.round_dates if date]
    checks.start_date = t.start_date or (min(round_dates) if round_dates else None)
    checks.end_date = t.end_date or (max(round_dates) if round_dates else None)
    for code, value, what, fallback in (
        ("042", t.start_date, gettext_noop("start"), checks.start_date),
        ("052", t.end_date, gettext_noop("end"), checks.end_date),
    ):
        line, column = _header_place(t, code)
        if value is None and fallback is not None:
            checks.warn(
                line,
                column,
                gettext_noop(
                    "no %(what)s date (record %(code)s); the %(value)s round date %(fallback)s (record 132) is used"
                ),
                what=TrfText(what),
                code=code,
                value=TrfText(gettext_noop("first") if what == "start" else gettext_noop("last")),
                fallback=f"{fallback:%Y-%m-%d}",
            )
        elif value is None:
            state = gettext_noop("is not a date this importer understands") if line else gettext_noop("is missing")
            checks.error(
                line,
                column,
                gettext_noop(
                    "no %(what)s date: record %(code)s %(state)s (write YYYY/MM/DD) and there are no "
                    "round dates (record 132); an event cannot be rated without its dates"
                ),
                what=TrfText(what),
                code=code,
                state=TrfText(state),
            )
    if checks.start_date and checks.end_date and checks.end_date < checks.start_date:
        line, column = _header_place(t, "052")
        checks.error(
            line,
            column,
            gettext_noop("end date %(end_date)s is before the start date %(start_date)s"),
            end_date=f"{checks.end_date:%Y-%m-%d}",
            start_date=f"{checks.start_date:%Y-%m-%d}",
        )


def _check_ids(t: TrfTournament, checks: TrfEventChecks) -> None:
    seen: dict[int, TrfPlayer] = {}
    for player in t.players:
        if not player.fide_id:
            continue
        number = int(player.fide_id)
        if number in seen:
            first = seen[number]
            checks.error(
                player.line,
                58,
                gettext_noop(
                    "player %(start_rank)s: ID number %(number)s is also player %(start_rank2)s on "
                    "line %(line)s; one person cannot play twice in an event"
                ),
                start_rank=player.start_rank,
                number=number,
                start_rank2=first.start_rank,
                line=first.line,
            )
        else:
            seen[number] = player


def _check_results(result: TrfParseResult, checks: TrfEventChecks, *, submit: bool) -> None:
    found = checks.games = result.games()
    if not found:
        checks.warn(0, None, gettext_noop("no results in the file: the event is created with its players only"))
    if not submit:
        return
    by_rank = {p.start_rank: p for p in result.tournament.players}
    for game in found:
        if game.result == PENDING:
            checks.error(
                by_rank[game.white].line,
                99 + 10 * (game.round - 1),
                gettext_noop(
                    "round %(round)s: %(white)s vs %(black)s has no result; an event is submitted for "
                    "rating only with every result (import it without submitting and finish it in the "
                    "admin)"
                ),
                round=game.round,
                white=game.white,
                black=game.black,
            )


def _check_opponents(result: TrfParseResult, checks: TrfEventChecks) -> None:
    """A game's result without its opponent refuses nothing (issue 15: the file is readable): the round is left
    out, and the event is a draft until the arbiter enters who the game was against, or the bye it was."""
    checks.without_opponent = results_without_opponent(result)
    for missing in checks.without_opponent:
        checks.warn(
            missing.line,
            missing.column,
            gettext_noop(
                "round %(round)s: player %(start_rank)s (%(value)s) has the result %(result)s of "
                "a game (column %(result_column)s) but no opponent (columns %(column)s-%(value2)s "
                "blank or 0000; a bye is written H, F, U or Z): the round is not imported and the "
                "event stays a draft until player %(start_rank2)s's game or bye in round "
                "%(round2)s is entered"
            ),
            round=missing.round,
            start_rank=missing.start_rank,
            value=missing.name or TrfText(gettext_noop("no name")),
            result=repr(missing.result),
            result_column=missing.result_column,
            column=missing.column,
            value2=missing.column + 3,
            start_rank2=missing.start_rank,
            round2=missing.round,
        )


def _event_federation(t: TrfTournament, checks: TrfEventChecks) -> str:
    code = t.federation.strip()
    if not code or FEDERATION_CODE.fullmatch(code):
        return code
    line, _ = _header_place(t, "032")
    checks.warn(
        line, 5, gettext_noop("record 032: %(code)s is not a three-letter federation code; left empty"), code=repr(code)
    )
    return ""
