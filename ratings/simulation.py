"""A simulated federation, as arrays: players with true strengths, and month after month of events with
results drawn from seed 000's performance model.

Pure NumPy (no Django): :func:`simulate_federation` yields one :class:`SimulatedPlayers` and then one
:class:`SimulatedMonth` per month, so a writer can stream them into the database (COPY on PostgreSQL) without
holding the whole federation in memory. Every month is generated with whole-array operations (no Python loop
over players, events or games), so two million players and a million games a list period take seconds.

Model (seed 000, section 4): in a game each player's performance is N(true strength, 200^2); the game is drawn
when the two performances differ by at most ``draw_margin`` (eq. 4's eps), otherwise the better performance
wins. With eps = 110 about 30 % of games between equals are drawn, as in club chess.

Players: true strengths roughly normal around 1560 with sd 300 (FIDE's registry: most players between 1200
and 2000, a long thin tail to 2800). Juniors are weaker now and improve month by month (the younger, the
faster), adults stay level, seniors decline slowly. The starting list (the federation's ratings before the
simulation, e.g. imported from FIDE) holds each established player's strength with some noise; players below
the 1400 floor, half the juniors and a few others are unrated. Many registered players no longer play
(dormant: their last game was one to ten years ago, inactive on the starting list), and every month some of
the others stop playing, so they turn inactive after a year without games (B.02 7.2).

Events: each month every playing player enters at most one event, with a probability proportional to their
activity. Round robins of 10 players of similar strength (9 rounds) and Swiss tournaments of 30-300 players
(5, 7 or 9 rounds; round 1 top half against bottom half, later rounds by score with rematches swapped away,
an odd player out gets a pairing-allocated bye, at most one per player); a few forfeits. No two players of a
Swiss event meet twice (C.04 1.1 basic rule: two players shall not play each other more than once): the
rare event whose swaps leave a rematch is re-paired in standing order with backtracking.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

PERFORMANCE_SD = 200.0  # seed 000: each player's performance ~ N(strength, 200^2)
DRAW_MARGIN = 110.0  # seed 000 eq. 4 (eps); P(draw | equal strength) = 2 Phi(eps / (200 sqrt 2)) - 1 ~ 0.30
FORFEIT_RATE = 0.01
STRENGTH_MEAN, STRENGTH_SD = 1560.0, 300.0  # FIDE-like registry
DORMANT_SHARE = 0.4  # registered players who no longer play
QUIT_RATE = 0.01  # of the others, the share who stop playing each month
ROUND_ROBIN_SHARE = 0.15  # of the seats in a month
ROUND_ROBIN_SIZE, ROUND_ROBIN_ROUNDS = 10, 9
SWISS_MIN, SWISS_MAX = 30, 300
SWISS_ROUNDS = (5, 7, 9)
REMATCH_PASSES = 4
# Rated games per seat, on average: Swiss n players x r rounds / 2 games, r ~ 7; round robins 4.5.
GAMES_PER_SEAT = (1 - ROUND_ROBIN_SHARE) * 3.5 + ROUND_ROBIN_SHARE * 4.5

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
WHITE_POINTS = np.array([1.0, 0.5, 0.0, 1.0, 0.0, 1.0])
BLACK_POINTS = np.array([0.0, 0.5, 1.0, 0.0, 1.0, 0.0])
BYE = RESULT_CODES.index("U")


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
    last_game: np.ndarray  # datetime64[D] last rated game before the simulation (NaT = none)
    quit_month: np.ndarray  # int64 first month without games (dormant players: 0; never: a large number)

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
    # games (length G), ordered by event, round, board: event index, round, board, white / black participant
    # row (-1 = bye), result code index
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


def simulate_players(count: int, rng: np.random.Generator, start: datetime.date, first_id: int) -> SimulatedPlayers:
    age = np.clip(rng.gamma(3.0, 11.0, count) + 7, 7, 85).round().astype(np.int64)
    birth_year = start.year - age
    sex = np.where(rng.random(count) < 0.12, "F", "M")
    strength = np.clip(rng.normal(STRENGTH_MEAN, STRENGTH_SD, count), 800, 2800)
    junior = age <= 18
    # juniors: weaker now, improving (the younger the faster); seniors decline slowly
    strength = np.where(junior, np.maximum(strength - (19 - age) * 35, 600), strength)
    growth = np.where(junior, rng.uniform(1.0, 2.5, count) * (20 - age), 0.0)
    growth = np.where(age >= 65, -1.0, growth)
    noise = rng.normal(0, 45, count)
    starting = np.round(strength + noise)
    unrated = (starting < 1400) | (junior & (rng.random(count) < 0.5)) | (rng.random(count) < 0.05)
    starting = np.where(unrated, np.nan, starting)
    games_total = np.where(unrated, 0, rng.integers(10, 600, count))
    # dormant players (no longer playing; juniors rarely) last played 1-10 years ago; the others recently
    dormant = rng.random(count) < np.where(junior, DORMANT_SHARE / 4, DORMANT_SHARE)
    days_ago = np.where(dormant, rng.integers(380, 3650, count), rng.integers(5, 200, count))
    last_game = np.datetime64(start, "D") - days_ago
    last_game = np.where(unrated & dormant, np.datetime64("NaT"), last_game).astype("datetime64[D]")
    quit_month = np.where(dormant, 0, rng.geometric(QUIT_RATE, count)).astype(np.int64)
    surname_codes = rng.integers(0, len(SURNAMES), (count, 2))
    surname_table = np.array([f"{a} {b}" for a in SURNAMES for b in SURNAMES], dtype=object)
    surnames = surname_table[surname_codes[:, 0] * len(SURNAMES) + surname_codes[:, 1]].tolist()
    male = np.array(GIVEN_MALE, dtype=object)[rng.integers(0, len(GIVEN_MALE), count)]
    female = np.array(GIVEN_FEMALE, dtype=object)[rng.integers(0, len(GIVEN_FEMALE), count)]
    given = np.where(sex == "F", female, male).tolist()
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
        last_game=last_game,
        quit_month=quit_month,
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


def simulate_federation(
    players: int,
    months: int,
    seed: int,
    start: datetime.date,
    *,
    first_id: int = 10_000_001,
    draw_margin: float = DRAW_MARGIN,
    events_per_player_month: float = 0.35,
    games_per_month: int | None = None,
    event_seed: int | None = None,
) -> Iterator[SimulatedPlayers | SimulatedMonth]:
    """Yield the players, then ``months`` months of events starting at ``start`` (a 1st of month).

    How much is played: each playing player enters an event in a month with probability
    ``events_per_player_month`` x their activity (mean 1); ``games_per_month`` instead sets that rate so the
    months hold about that many games. ``event_seed``: the same players (from ``seed``) with another stream of
    events (a second rating type's events); None keeps the one stream of ``seed``.
    """
    if players < 10:
        raise ValueError(f"a simulated federation needs at least 10 players, got {players}")
    if months < 1:
        raise ValueError(f"months must be at least 1, got {months}")
    rng = np.random.default_rng(seed)
    sim = simulate_players(players, rng, start, first_id)
    yield sim
    if event_seed is not None:
        rng = np.random.default_rng([seed, event_seed])
    activity = rng.gamma(2.0, 0.5, players)  # some play every month, some twice a year
    activity /= activity.mean()
    seed_rating = np.where(np.isnan(sim.starting_rating), np.round(sim.strength, -2), sim.starting_rating)
    rate = events_per_player_month
    if games_per_month is not None:
        playing = max(int(np.count_nonzero(sim.quit_month > 0)), 1)
        rate = games_per_month / GAMES_PER_SEAT / playing
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
            activity * (sim.quit_month > month),
            rng,
            rate,
            draw_margin,
        )


def _event_sizes(seats: int, rng: np.random.Generator) -> tuple[int, list[int]]:
    """How ``seats`` entries split: the number of round robins and the Swiss sizes (30-300 each)."""
    round_robins = round(seats * ROUND_ROBIN_SHARE / ROUND_ROBIN_SIZE)
    left = seats - round_robins * ROUND_ROBIN_SIZE
    if left < SWISS_MIN:
        return seats // ROUND_ROBIN_SIZE, []
    sizes: list[int] = []
    while left >= SWISS_MIN:
        size = int(np.clip(round(rng.lognormal(np.log(90), 0.6)), SWISS_MIN, SWISS_MAX))
        if left - size < SWISS_MIN:  # the rest joins this event when it fits, or gets its own
            size = left if left <= SWISS_MAX else left - SWISS_MIN
        sizes.append(size)
        left -= size
    return round_robins, sizes


def _simulate_month(
    month, first_day, days_in_month, strength, seed_rating, activity, rng, rate, draw_margin
) -> SimulatedMonth:
    n_players = strength.size
    # who plays this month (at most one event each), in random order
    entering = np.flatnonzero(rng.random(n_players) < np.minimum(rate * activity, 0.95))
    if entering.size < ROUND_ROBIN_SIZE:  # at least one event a month
        entering = rng.choice(n_players, size=ROUND_ROBIN_SIZE, replace=False)
    rng.shuffle(entering)
    round_robins, swiss_sizes = _event_sizes(entering.size, rng)
    rr_seats = round_robins * ROUND_ROBIN_SIZE
    # round robins: ten players of similar strength (neighbours by seeding rating, a little noise)
    rr_players = entering[:rr_seats]
    rr_players = rr_players[np.argsort(seed_rating[rr_players] + rng.random(rr_seats) * 60, kind="stable")]
    swiss_players = entering[rr_seats : rr_seats + sum(swiss_sizes)]
    systems = ["round_robin"] * round_robins + ["swiss"] * len(swiss_sizes)
    sizes = np.array([ROUND_ROBIN_SIZE] * round_robins + swiss_sizes, dtype=np.int64)
    n_events = sizes.size
    is_rr = np.arange(n_events) < round_robins
    rounds = np.where(is_rr, ROUND_ROBIN_ROUNDS, rng.choice(SWISS_ROUNDS, n_events))
    length = np.where(is_rr, rounds, rng.integers(2, rounds + 1))  # days
    start = np.datetime64(first_day, "D") + rng.integers(0, days_in_month, n_events)
    names = [f"{'Closed' if rr else 'Open'} {first_day:%b %Y} #{e + 1}" for e, rr in enumerate(is_rr.tolist())]

    # participants: events one after another; starting rank by seeding rating within the event
    p_event = np.repeat(np.arange(n_events), sizes)
    p_player = np.concatenate([rr_players, swiss_players])
    order = np.lexsort((-seed_rating[p_player], p_event))
    p_player = p_player[order]
    base = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    p_rank = np.arange(p_event.size) - base[p_event] + 1
    local_strength = strength[p_player]

    games = _play_events(p_event, p_rank, sizes, base, rounds, is_rr, local_strength, rng, draw_margin)
    g_event, g_round, g_white, g_black, g_result = games
    order = np.lexsort((g_black < 0, g_round, g_event))  # per event and round; the bye last
    g_event, g_round, g_white, g_black, g_result = (a[order] for a in games)
    first_of_round = np.flatnonzero(
        np.concatenate([[True], (g_event[1:] != g_event[:-1]) | (g_round[1:] != g_round[:-1])])
    )
    run_start = np.repeat(first_of_round, np.diff(np.append(first_of_round, g_event.size)))
    g_board = np.arange(g_event.size) - run_start + 1
    day_offset = np.minimum((g_round - 1) * length[g_event] // rounds[g_event], length[g_event] - 1)
    return SimulatedMonth(
        month=month,
        event_name=names,
        event_start=start,
        event_end=start + (length - 1),
        event_system=systems,
        event_rounds=rounds.astype(np.int64),
        participant_event=p_event.astype(np.int64),
        participant_player=p_player.astype(np.int64),
        participant_rank=p_rank.astype(np.int64),
        game_event=g_event,
        game_round=g_round,
        game_board=g_board.astype(np.int64),
        game_white=g_white,
        game_black=g_black,
        game_result=g_result,
        game_date=(start[g_event] + day_offset).astype("datetime64[D]"),
    )


def _play_events(p_event, p_rank, sizes, base, rounds, is_rr, local_strength, rng, draw_margin):
    """Every round of every event of the month at once. Returns game arrays (event, round, white, black,
    result), white / black as participant rows (black -1 for a bye)."""
    n_seats = p_event.size
    score = np.zeros(n_seats)
    had_bye = np.zeros(n_seats, dtype=bool)
    played = np.zeros(0, dtype=np.int64)  # pair keys low * n + high, sorted
    berger = np.array(_berger(ROUND_ROBIN_SIZE), dtype=np.int64)  # rounds x pairs x 2
    rr_events = np.flatnonzero(is_rr)
    seat_is_swiss = ~is_rr[p_event]
    out = {k: [] for k in ("event", "round", "white", "black", "result")}
    for r in range(1, int(rounds.max(initial=0)) + 1):
        white, black = [], []
        # round robins: the Berger table's round r
        if rr_events.size:
            pairs = berger[r - 1]
            white.append((base[rr_events][:, None] + pairs[None, :, 0]).ravel())
            black.append((base[rr_events][:, None] + pairs[None, :, 1]).ravel())
        # Swiss events still running: order by score then starting rank within the event
        seats = np.flatnonzero(seat_is_swiss & (rounds[p_event] >= r))
        bye_seats = np.zeros(0, dtype=np.int64)
        if seats.size:
            seats = seats[np.lexsort((p_rank[seats], -score[seats], p_event[seats]))]
            seats, bye_seats = _take_byes(seats, p_event, had_bye)
            had_bye[bye_seats] = True
            a, b = _swiss_pairs(seats, p_event, r, played, n_seats)
            white.append(a)
            black.append(b)
        white = np.concatenate(white) if white else np.zeros(0, dtype=np.int64)
        black = np.concatenate(black) if black else np.zeros(0, dtype=np.int64)
        swap = rng.random(white.size) < 0.5
        white, black = np.where(swap, black, white), np.where(swap, white, black)
        result = play_games(local_strength[white], local_strength[black], rng, draw_margin)
        forfeit = rng.random(white.size) < FORFEIT_RATE
        result = np.where(forfeit, np.where(rng.random(white.size) < 0.5, 3, 4), result)
        np.add.at(score, white, WHITE_POINTS[result])
        np.add.at(score, black, BLACK_POINTS[result])
        score[bye_seats] += 1.0
        low, high = np.minimum(white, black), np.maximum(white, black)
        played = np.union1d(played, low * n_seats + high)
        out["event"] += [p_event[white], p_event[bye_seats]]
        out["round"] += [np.full(white.size + bye_seats.size, r, dtype=np.int64)]
        out["white"] += [white, bye_seats]
        out["black"] += [black, np.full(bye_seats.size, -1, dtype=np.int64)]
        out["result"] += [result, np.full(bye_seats.size, BYE, dtype=np.int64)]
    return tuple(np.concatenate(out[k]).astype(np.int64) for k in ("event", "round", "white", "black", "result"))


def _blocks(seats: np.ndarray, p_event: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start index and length of each event's run in ``seats`` (grouped by event)."""
    events = p_event[seats]
    starts = np.flatnonzero(np.concatenate([[True], events[1:] != events[:-1]]))
    return starts, np.diff(np.append(starts, seats.size))


def _take_byes(seats, p_event, had_bye):
    """In each event with an odd number of players, the lowest-placed player without a bye yet sits out."""
    if not seats.size:
        return seats, seats
    starts, lengths = _blocks(seats, p_event)
    odd = lengths % 2 == 1
    position = np.arange(seats.size)
    # the last position in the block whose player has had no bye (or the last position if all have)
    eligible = np.where(~had_bye[seats], position, -1)
    last_eligible = np.maximum.reduceat(eligible, starts)
    block_end = starts + lengths - 1
    chosen = np.where(last_eligible >= starts, last_eligible, block_end)[odd]
    keep = np.ones(seats.size, dtype=bool)
    keep[chosen] = False
    return seats[keep], seats[chosen]


def _swiss_pairs(seats, p_event, round_number, played, n_seats):
    """Pairs within each event (``seats`` grouped by event, in standing order, even counts): round 1 the top
    half against the bottom half, later rounds neighbours in the standings, a rematch swapped with the next
    pair's second player when that makes both pairs new."""
    starts, lengths = _blocks(seats, p_event)
    position = np.arange(seats.size)
    block = np.repeat(np.arange(starts.size), lengths)
    local = position - starts[block]
    half = lengths[block] // 2
    if round_number == 1:
        first = local < half
        return seats[first], seats[position[first] + half[first]]
    a, b = seats[0::2].copy(), seats[1::2].copy()
    pair_block = block[0::2]
    for _ in range(REMATCH_PASSES):
        swapped = 0
        for parity in (0, 1):
            k = np.flatnonzero(_met(a, b, played, n_seats))
            k = k[(k % 2 == parity) & (k + 1 < a.size)]
            k = k[pair_block[k] == pair_block[np.minimum(k + 1, a.size - 1)]]
            # swap the second players with the next pair's, or else pair the firsts and the seconds
            cross = ~_met(a[k], b[k + 1], played, n_seats) & ~_met(a[k + 1], b[k], played, n_seats)
            across = ~cross & ~_met(a[k], a[k + 1], played, n_seats) & ~_met(b[k], b[k + 1], played, n_seats)
            first, second = k[cross], k[across]
            b[first], b[first + 1] = b[first + 1], b[first].copy()
            a[second + 1], b[second] = b[second], a[second + 1].copy()
            swapped += first.size + second.size
        if not swapped:
            break
    bad = _met(a, b, played, n_seats)
    for event_block in np.unique(pair_block[bad]).tolist():  # rare: the swaps left a rematch
        rows = np.flatnonzero(pair_block == event_block)
        standing = seats[starts[event_block] : starts[event_block] + lengths[event_block]]
        a[rows], b[rows] = _pair_avoiding_rematches(standing, played, n_seats)
    return a, b


def _pair_avoiding_rematches(standing: np.ndarray, played: np.ndarray, n_seats: int) -> tuple[np.ndarray, ...]:
    """Pair an event's players (standing order, an even number) so that nobody meets a former opponent
    (C.04 1.1): the highest unpaired player takes the nearest one below they have not met, backtracking when
    the rest cannot be paired. With at most 9 rounds and at least 30 players every player has at least
    n - 9 >= n / 2 possible opponents, so such a pairing exists (Dirac) and is found after few steps."""
    players = standing.tolist()
    met = {int(key) for key in played.tolist()}

    def fresh(x: int, y: int) -> bool:
        return min(x, y) * n_seats + max(x, y) not in met

    pairs: list[tuple[int, int]] = []

    def solve(left: list[int]) -> bool:
        if not left:
            return True
        first, rest = left[0], left[1:]
        for i, other in enumerate(rest):
            if fresh(first, other):
                pairs.append((first, other))
                if solve(rest[:i] + rest[i + 1 :]):
                    return True
                pairs.pop()
        return False

    if not solve(players):
        raise ValueError("no pairing without a rematch exists for this round")  # cannot happen (see above)
    return np.array([x for x, _ in pairs], dtype=np.int64), np.array([y for _, y in pairs], dtype=np.int64)


def _met(a: np.ndarray, b: np.ndarray, played: np.ndarray, n_seats: int) -> np.ndarray:
    keys = np.minimum(a, b) * n_seats + np.maximum(a, b)
    at = np.searchsorted(played, keys)
    return (at < played.size) & (played[np.minimum(at, max(played.size - 1, 0))] == keys)


def _berger(n: int) -> list[list[tuple[int, int]]]:
    """Round-robin rounds for an even n (circle method): n - 1 rounds of n / 2 pairs."""
    players = list(range(n))
    rounds = []
    for _ in range(n - 1):
        rounds.append([(players[i], players[n - 1 - i]) for i in range(n // 2)])
        players = [players[0], players[-1], *players[1:-1]]
    return rounds
