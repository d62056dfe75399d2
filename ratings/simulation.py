"""A simulated federation, as arrays: players with true strengths, and month after month of events with
results drawn from seed 000's performance model.

Pure NumPy (no Django): :func:`simulate_federation` yields one :class:`SimulatedPlayers` and then one
:class:`SimulatedMonth` per month, so a writer can stream them into the database (bulk_create today; COPY for
millions of players later) without holding the whole federation in memory.

Model (seed 000, section 4): in a game each player's performance is N(true strength, 200^2); the game is drawn
when the two performances differ by at most ``draw_margin`` (eq. 4's eps), otherwise the better performance
wins. With eps = 110 about 30 % of games between equals are drawn, as in club chess. True strengths are spread
like a national federation's; juniors improve month by month (the younger, the faster), adults stay level,
seniors decline slowly. A starting list (the federation's ratings before the simulation, e.g. imported from
FIDE) holds each established player's strength with some noise; some juniors and weaker players are unrated.

Events: Swiss tournaments of 30-300 players (5-9 rounds, Dutch-like pairings: score groups, top half against
bottom half, no rematches) and round robins of 10 players of similar strength (9 rounds); a few forfeits;
an odd player out gets a pairing-allocated bye.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

PERFORMANCE_SD = 200.0  # seed 000: each player's performance ~ N(strength, 200^2)
DRAW_MARGIN = 110.0  # seed 000 eq. 4 (eps); P(draw | equal strength) = 2 Phi(eps / (200 sqrt 2)) - 1 ~ 0.30
FORFEIT_RATE = 0.01

SURNAMES = (
    "Garcia",
    "Fernandez",
    "Gonzalez",
    "Rodriguez",
    "Lopez",
    "Martinez",
    "Sanchez",
    "Perez",
    "Gomez",
    "Martin",
    "Jimenez",
    "Ruiz",
    "Hernandez",
    "Diaz",
    "Moreno",
    "Alvarez",
    "Munoz",
    "Romero",
    "Alonso",
    "Gutierrez",
    "Navarro",
    "Torres",
    "Dominguez",
    "Vazquez",
    "Ramos",
    "Gil",
    "Ramirez",
    "Serrano",
    "Blanco",
    "Molina",
    "Morales",
    "Suarez",
    "Ortega",
    "Delgado",
    "Castro",
    "Ortiz",
    "Rubio",
    "Marin",
    "Sanz",
    "Iglesias",
)
GIVEN_MALE = (
    "Antonio",
    "Jose",
    "Manuel",
    "Francisco",
    "David",
    "Juan",
    "Javier",
    "Daniel",
    "Carlos",
    "Jesus",
    "Alejandro",
    "Miguel",
    "Rafael",
    "Pablo",
    "Pedro",
    "Angel",
    "Sergio",
    "Fernando",
    "Jorge",
    "Luis",
)
GIVEN_FEMALE = (
    "Maria",
    "Carmen",
    "Ana",
    "Isabel",
    "Laura",
    "Cristina",
    "Marta",
    "Lucia",
    "Paula",
    "Elena",
    "Sara",
    "Raquel",
    "Rosa",
    "Pilar",
    "Julia",
    "Irene",
    "Andrea",
    "Silvia",
    "Alba",
    "Nuria",
)

RESULT_CODES = ("1-0", "1/2-1/2", "0-1", "+-", "-+", "U")  # indices used in SimulatedMonth.game_result


@dataclass
class SimulatedPlayers:
    id_number: np.ndarray  # int64
    surname: list[str]
    given_names: list[str]
    sex: np.ndarray  # '<U1': 'M' / 'F'
    birth_year: np.ndarray  # int64
    strength: np.ndarray  # float64 true strength at the start
    growth: np.ndarray  # float64 points per month (juniors > 0, seniors < 0)
    starting_rating: np.ndarray  # float64 rating on the starting list, NaN = unrated
    rated_games_total: np.ndarray  # int64 rated games before the simulation (K's 30-game rule)

    def __len__(self) -> int:
        return int(self.id_number.size)


@dataclass
class SimulatedMonth:
    month: int  # 0-based month of the simulation
    # events (length E)
    event_name: list[str]
    event_start: np.ndarray  # datetime64[D]
    event_end: np.ndarray  # datetime64[D]
    event_system: list[str]  # 'swiss' / 'round_robin'
    event_rounds: np.ndarray  # int64
    # participants (length N): event index, player index, starting rank
    participant_event: np.ndarray
    participant_player: np.ndarray
    participant_rank: np.ndarray
    # games (length G): event index, round, board, white / black participant row (-1 = bye), result code index
    game_event: np.ndarray
    game_round: np.ndarray
    game_board: np.ndarray
    game_white: np.ndarray
    game_black: np.ndarray
    game_result: np.ndarray  # index into RESULT_CODES
    game_date: np.ndarray  # datetime64[D]


def _add_months(day: datetime.date, months: int) -> datetime.date:
    index = day.year * 12 + day.month - 1 + months
    return datetime.date(index // 12, index % 12 + 1, 1)


def simulate_players(
    count: int, rng: np.random.Generator, start: datetime.date, first_id: int
) -> SimulatedPlayers:
    age = np.clip(rng.gamma(3.0, 11.0, count) + 7, 7, 85).round().astype(np.int64)
    birth_year = start.year - age
    sex = np.where(rng.random(count) < 0.12, "F", "M")
    strength = np.clip(rng.normal(1750, 260, count), 1000, 2750)
    junior = age <= 18
    # juniors: weaker now, improving (the younger the faster); seniors decline slowly
    strength = np.where(junior, strength - (19 - age) * 35, strength)
    growth = np.where(junior, rng.uniform(1.0, 2.5, count) * (20 - age), 0.0)
    growth = np.where(age >= 65, -1.0, growth)
    noise = rng.normal(0, 45, count)
    starting = np.round(strength + noise)
    unrated = (starting < 1400) | (junior & (rng.random(count) < 0.5)) | (rng.random(count) < 0.05)
    starting = np.where(unrated, np.nan, starting)
    games_total = np.where(unrated, 0, rng.integers(10, 600, count))
    surnames = [f"{SURNAMES[a]} {SURNAMES[b]}" for a, b in rng.integers(0, len(SURNAMES), (count, 2))]
    male = rng.integers(0, len(GIVEN_MALE), count)
    female = rng.integers(0, len(GIVEN_FEMALE), count)
    given = [
        GIVEN_FEMALE[f] if s == "F" else GIVEN_MALE[m] for s, m, f in zip(sex, male, female, strict=True)
    ]
    return SimulatedPlayers(
        id_number=np.arange(first_id, first_id + count, dtype=np.int64),
        surname=surnames,
        given_names=given,
        sex=sex,
        birth_year=birth_year,
        strength=strength,
        growth=growth,
        starting_rating=starting,
        rated_games_total=games_total.astype(np.int64),
    )


def play_games(
    strength_white: np.ndarray,
    strength_black: np.ndarray,
    rng: np.random.Generator,
    draw_margin: float = DRAW_MARGIN,
) -> np.ndarray:
    """Result codes (0 = 1-0, 1 = draw, 2 = 0-1) from seed 000's performance model with a draw margin."""
    performance = rng.normal(strength_white, PERFORMANCE_SD) - rng.normal(strength_black, PERFORMANCE_SD)
    return np.where(performance > draw_margin, 0, np.where(performance < -draw_margin, 2, 1))


def _swiss_pairings(
    order_by_score: np.ndarray, played: set, round_number: int, n: int
) -> list[tuple[int, int]]:
    """Pairs of local player indices: round 1 top half v bottom half, later rounds adjacent in the standings
    avoiding rematches (greedy)."""
    if round_number == 1:
        half = n // 2
        return [(order_by_score[i], order_by_score[i + half]) for i in range(half)]
    free = list(order_by_score)
    pairs = []
    while len(free) >= 2:
        a = free.pop(0)
        for j, b in enumerate(free):
            if (min(a, b), max(a, b)) not in played:
                pairs.append((a, free.pop(j)))
                break
        else:
            pairs.append((a, free.pop(0)))  # everyone met already: a rematch rather than no game
    return pairs


def simulate_federation(
    players: int,
    months: int,
    seed: int,
    start: datetime.date,
    *,
    first_id: int = 10_000_001,
    draw_margin: float = DRAW_MARGIN,
    events_per_player_month: float = 0.35,
) -> Iterator[SimulatedPlayers | SimulatedMonth]:
    """Yield the players, then ``months`` months of events starting at ``start`` (a 1st of month)."""
    if players < 10:
        raise ValueError(f"a simulated federation needs at least 10 players, got {players}")
    if months < 1:
        raise ValueError(f"months must be at least 1, got {months}")
    rng = np.random.default_rng(seed)
    sim = simulate_players(players, rng, start, first_id)
    yield sim
    activity = rng.gamma(2.0, 0.5, players)  # some play every month, some twice a year
    activity /= activity.mean()
    seed_rating = np.where(np.isnan(sim.starting_rating), np.round(sim.strength, -2), sim.starting_rating)
    for month in range(months):
        first_day = _add_months(start, month)
        days_in_month = (_add_months(start, month + 1) - first_day).days
        strength = sim.strength + sim.growth * (month + 0.5)
        yield _simulate_month(
            month,
            first_day,
            days_in_month,
            strength,
            seed_rating,
            activity,
            rng,
            events_per_player_month,
            draw_margin,
        )


def _simulate_month(
    month, first_day, days_in_month, strength, seed_rating, activity, rng, rate, draw_margin
) -> SimulatedMonth:
    n_players = strength.size
    seats = max(int(rng.poisson(rate * n_players)), 10)
    sizes: list[tuple[str, int, int]] = []  # (system, players, rounds)
    while seats >= 10:
        if rng.random() < 0.35 or seats < 30 or n_players < 30:
            sizes.append(("round_robin", 10, 9))
            seats -= 10
        else:
            size = int(min(rng.integers(30, 301), seats, n_players))
            sizes.append(("swiss", size, int(rng.choice([5, 7, 9]))))
            seats -= size
    names, starts, ends, systems, rounds_list = [], [], [], [], []
    p_event, p_player, p_rank = [], [], []
    g_event, g_round, g_board, g_white, g_black, g_result, g_date = [], [], [], [], [], [], []
    weights = activity / activity.sum()
    for e, (system, size, rounds) in enumerate(sizes):
        length = rounds if system == "round_robin" else int(rng.integers(2, rounds + 1))
        start_day = int(rng.integers(0, days_in_month))
        start = np.datetime64(first_day, "D") + start_day
        names.append(f"{'Open' if system == 'swiss' else 'Closed'} {first_day:%b %Y} #{e + 1}")
        starts.append(start)
        ends.append(start + (length - 1))
        systems.append(system)
        rounds_list.append(rounds)
        if system == "round_robin":
            # ten players of similar strength: a random player and the nine nearest by seeding rating
            centre = rng.choice(n_players, p=weights)
            nearest = np.argsort(np.abs(seed_rating - seed_rating[centre]) + rng.random(n_players) * 60)
            chosen = nearest[:size]
        else:
            chosen = rng.choice(n_players, size=size, replace=False, p=weights)
        chosen = chosen[np.argsort(-seed_rating[chosen], kind="stable")]  # starting rank by seeding rating
        base = len(p_player)
        p_event.extend([e] * size)
        p_player.extend(chosen.tolist())
        p_rank.extend(range(1, size + 1))
        local_strength = strength[chosen]
        if system == "round_robin":
            schedule = _berger(size)
        score = np.zeros(size)
        played: set = set()
        for r in range(1, rounds + 1):
            day = start + min((r - 1) * length // rounds, length - 1)
            if system == "round_robin":
                pairs = schedule[r - 1]
                bye = None
            else:
                order = np.lexsort((np.arange(size), -score))
                bye = None
                if size % 2:
                    bye = int(order[-1])
                    order = order[:-1]
                pairs = _swiss_pairings(order, played, r, order.size)
            if pairs:
                w = np.array([a for a, _ in pairs])
                b = np.array([b for _, b in pairs])
                swap = rng.random(w.size) < 0.5
                w, b = np.where(swap, b, w), np.where(swap, w, b)
                result = play_games(local_strength[w], local_strength[b], rng, draw_margin)
                forfeit = rng.random(w.size) < FORFEIT_RATE
                result = np.where(forfeit, np.where(rng.random(w.size) < 0.5, 3, 4), result)
                score += np.bincount(w, weights=np.choose(result, [1.0, 0.5, 0.0, 1.0, 0.0]), minlength=size)
                score += np.bincount(b, weights=np.choose(result, [0.0, 0.5, 1.0, 0.0, 1.0]), minlength=size)
                for a, c in zip(w.tolist(), b.tolist(), strict=True):
                    played.add((min(a, c), max(a, c)))
                g_event.extend([e] * w.size)
                g_round.extend([r] * w.size)
                g_board.extend(range(1, w.size + 1))
                g_white.extend((base + w).tolist())
                g_black.extend((base + b).tolist())
                g_result.extend(result.tolist())
                g_date.extend([day] * w.size)
            if bye is not None:
                score[bye] += 1.0
                g_event.append(e)
                g_round.append(r)
                g_board.append(len(pairs) + 1)
                g_white.append(base + bye)
                g_black.append(-1)
                g_result.append(RESULT_CODES.index("U"))
                g_date.append(day)

    def ints(values):
        return np.array(values, dtype=np.int64)

    return SimulatedMonth(
        month=month,
        event_name=names,
        event_start=np.array(starts, dtype="datetime64[D]"),
        event_end=np.array(ends, dtype="datetime64[D]"),
        event_system=systems,
        event_rounds=ints(rounds_list),
        participant_event=ints(p_event),
        participant_player=ints(p_player),
        participant_rank=ints(p_rank),
        game_event=ints(g_event),
        game_round=ints(g_round),
        game_board=ints(g_board),
        game_white=ints(g_white),
        game_black=ints(g_black),
        game_result=ints(g_result),
        game_date=np.array(g_date, dtype="datetime64[D]"),
    )


def _berger(n: int) -> list[list[tuple[int, int]]]:
    """Round-robin rounds for an even n (circle method): n - 1 rounds of n / 2 pairs."""
    players = list(range(n))
    rounds = []
    for _ in range(n - 1):
        rounds.append([(players[i], players[n - 1 - i]) for i in range(n // 2)])
        players = [players[0], players[-1], *players[1:-1]]
    return rounds
