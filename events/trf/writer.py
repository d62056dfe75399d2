"""Writing TRF-2026 (``write_trf``): ``parse_trf(write_trf(parse_trf(x).tournament))`` gives the same
tournament, players and games again.

Column positions below are 1-based and inclusive, as in the TRF texts (reference/formats.md §2).
"""

from __future__ import annotations

import datetime as dt

from events.trf.records import TEXT_RECORDS, TrfNationalRating, TrfPlayer, TrfTeam, TrfTournament

# -------------------------------------------------------------------------------------------------- writer


def _cut(text: str, width: int) -> str:
    return text[:width].ljust(width)


def _points_text(points: float | None) -> str:
    """TRF's ``11.5`` format; more decimals only when a scoring system needs them."""
    if points is None:
        return ""
    text = f"{points:.1f}"
    # Columns 81-84: "199" rather than "199.0", which would run into the rank column.
    return text if float(text) == points and len(text) <= 4 else f"{points:g}"


def _birth_text(date: dt.date | None, year: int | None) -> str:
    if date is not None:
        return f"{date.year:04d}/{date.month:02d}/{date.day:02d}"
    return f"{year:04d}/00/00" if year else ""


def _player_line(player: TrfPlayer, rounds: int) -> str:
    # 001 layout (TRF §2.1): 5-8 rank, 10 sex, 11-13 title, 15-47 name, 49-52 rating, 54-56 federation,
    # 58-68 FIDE ID, 70-79 birth date, 81-84 points, 86-89 rank, rounds from 92 every 10 columns.
    head = (
        f"001 {player.start_rank:>4} {_cut(player.sex, 1)}{_cut(player.title, 3)} {_cut(player.name, 33)} "
        f"{player.rating or '':>4} {_cut(player.federation, 3)} {player.fide_id[:11]:>11} "
        f"{_birth_text(player.birth_date, player.birth_year):<10} {_points_text(player.points):>4} "
        f"{player.rank or '':>4}  "
    )
    by_round = {entry.round: entry for entry in player.rounds}
    cells = []
    for round_number in range(1, rounds + 1):
        entry = by_round.get(round_number)
        if entry is None:
            cells.append(" " * 10)
        else:
            opponent = "0000" if entry.opponent is None else f"{entry.opponent:>4}"
            colour = entry.colour or "-"  # (a result without opponent keeps its colour: results_without_opponent)
            cells.append(f"{opponent} {colour} {entry.result or ' '}  ")
    return (head + "".join(cells)).rstrip()


def _national_line(record: TrfNationalRating) -> str:
    # NRS (TRF-2026): the 001 columns; 11-13 national classification, 49-52 national rating,
    # 54-56 national origin, 58-68 national number.
    r = record
    return (
        f"{_cut(r.federation, 3)} {r.start_rank:>4} {_cut(r.sex, 1)}{_cut(r.classification, 3)} "
        f"{_cut(r.name, 33)} {r.rating or '':>4} {_cut(r.origin, 3)} {r.national_id[:11]:>11} "
        f"{_birth_text(r.birth_date, r.birth_year)}"
    ).rstrip()


def _team_line(team: TrfTeam) -> str:
    # 310 (TRF-2026): 5-7 number, 9-40 name, 42-46 nickname, 48-53 strength, 55-60 match points,
    # 62-67 game points, 69-71 rank, players from 74-77 every 5 columns.
    head = (
        f"310 {team.number:>3} {_cut(team.name, 32)} {_cut(team.nickname, 5)} {team.strength or '':>6} "
        f"{_points_text(team.match_points):>6} {_points_text(team.game_points):>6} {team.rank or '':>3} "
    )
    return (head + "".join(f" {member:>4}" for member in team.members)).rstrip()


def write_trf(event: TrfTournament, *, line_ending: str = "\r\n", comment: str | None = None) -> str:
    """The tournament as TRF-2026 text (formats.md §2.4).

    Lines end with CR LF (TRF: "each line shall have a CR as last character"). Declared counts (062, 072,
    082) are recomputed from the data; records kept verbatim by the parser are written back at the end.
    """
    t = event
    lines: list[str] = []
    if comment:
        lines += [f"### {text}".rstrip() for text in comment.splitlines()]

    def text(code: str, value: str) -> None:
        if value:
            lines.append(f"{code} {value}")

    text("012", t.name)
    text("022", t.city)
    text("032", t.federation)
    if t.start_date:
        lines.append(f"042 {t.start_date:%Y/%m/%d}")
    if t.end_date:
        lines.append(f"052 {t.end_date:%Y/%m/%d}")
    lines.append(f"062 {len(t.players)}")
    lines.append(f"072 {sum(1 for p in t.players if p.rating)}")
    if t.teams:
        lines.append(f"082 {len(t.teams)}")
    text("092", t.tournament_type)
    text("102", t.chief_arbiter)
    for arbiter in t.deputy_arbiters:
        text("112", arbiter)
    text("122", t.time_control)
    if t.rounds_declared is not None:
        lines.append(f"142 {t.rounds_declared}")
    text("152", t.initial_colour)
    if t.scoring:
        # 162: result letter at 6, points at 7-10, repeated every 9 columns
        lines.append(
            ("162  " + "".join(f"{code}{_points_text(points):>4}    " for code, points in t.scoring.items())).rstrip()
        )
    if t.nrs_federation or t.starting_rank_method:
        lines.append(f"172 {_cut(t.nrs_federation, 3)} {t.starting_rank_method}".rstrip())
    for code in ("182", "192", "202", "212", "222", "352", "362"):
        text(code, getattr(t, TEXT_RECORDS[code]))
    if any(t.round_dates):
        cells = "".join(f"{date:%y/%m/%d}  " if date else " " * 10 for date in t.round_dates)
        lines.append(("132" + " " * 88 + cells).rstrip())
    rounds = max((entry.round for p in t.players for entry in p.rounds), default=0)
    lines += [_player_line(player, rounds) for player in sorted(t.players, key=lambda p: p.start_rank)]
    lines += [_national_line(record) for record in t.national_ratings]
    lines += [_team_line(team) for team in t.teams]
    for bye in t.byes:
        lines.append(f"240 {bye.kind} {bye.round:>3}" + "".join(f" {player:>4}" for player in bye.ids))
    lines += [record.text for record in t.records]
    return line_ending.join(lines) + line_ending
