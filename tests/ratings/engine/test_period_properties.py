"""Vectorised rate_period agrees with a plain scalar reference written from rating-rules.md with Fractions."""

import datetime
from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratings.engine import PeriodGames, PeriodPlayers, get_preset, rate_period

LIST_DATE = datetime.date(2026, 1, 1)
# rating-rules.md 2.2, typed again on purpose (independent of the engine's copy)
UPPER = [
    3,
    10,
    17,
    25,
    32,
    39,
    46,
    53,
    61,
    68,
    76,
    83,
    91,
    98,
    106,
    113,
    121,
    129,
    137,
    145,
    153,
    162,
    170,
    179,
    188,
    197,
    206,
    215,
    225,
    235,
    245,
    256,
    267,
    278,
    290,
    302,
    315,
    328,
    344,
    357,
    374,
    391,
    411,
    432,
    456,
    484,
    517,
    559,
    619,
    735,
]
DP = [
    800,
    677,
    589,
    538,
    501,
    470,
    444,
    422,
    401,
    383,
    366,
    351,
    336,
    322,
    309,
    296,
    284,
    273,
    262,
    251,
    240,
    230,
    220,
    211,
    202,
    193,
    184,
    175,
    166,
    158,
    149,
    141,
    133,
    125,
    117,
    110,
    102,
    95,
    87,
    80,
    72,
    65,
    57,
    50,
    43,
    36,
    29,
    21,
    14,
    7,
    0,
]


def pd_reference(d: int) -> Fraction:
    high = 100
    for i, upper in enumerate(UPPER):
        if abs(d) <= upper:
            high = 50 + i
            break
    return Fraction(high if d >= 0 else 100 - high, 100)


def dp_reference(p: Fraction) -> int:
    p100 = int(p * 100 + Fraction(1, 2))  # .5 up
    return DP[100 - p100] if p100 >= 50 else -DP[p100]


def round_away(x: Fraction) -> int:
    magnitude = int(abs(x) + Fraction(1, 2))
    return magnitude if x >= 0 else -magnitude


def reference_period(ratings, k_factors, games, exemption: bool, per_event: bool):
    """games: (event, white, black, white_score, white_rating, black_rating)."""
    new = {}
    initial = {}
    change = {}
    for p, rating in enumerate(ratings):
        sides = []
        for event, white, black, ws, wr, br in games:
            if p == white:
                sides.append((event, wr if wr is not None else rating, br, Fraction(ws).limit_denominator(2)))
            elif p == black:
                sides.append((event, br if br is not None else rating, wr, 1 - Fraction(ws).limit_denominator(2)))
        sides = [s for s in sides if s[2] is not None]  # only rated opponents count
        if rating is not None:
            k = k_factors[p]
            if k * len(sides) > 700:
                k = 700 // len(sides)
            per_event_change: dict[int, Fraction] = {}
            for event, own, opp, score in sides:
                d = own - opp
                if abs(d) > 400 and not (exemption and own >= 2650):
                    d = 400 if d > 0 else -400
                per_event_change[event] = per_event_change.get(event, Fraction(0)) + k * (score - pd_reference(d))
            change[p] = sum(per_event_change.values(), Fraction(0))
            if per_event:
                new[p] = rating + sum(round_away(c) for c in per_event_change.values())
            else:
                new[p] = rating + round_away(sum(per_event_change.values(), Fraction(0)))
        else:
            events = sorted({s[0] for s in sides})
            if events and sum(s[3] for s in sides if s[0] == events[0]) == 0:
                sides = [s for s in sides if s[0] != events[0]]  # zero in the first event: disregarded
            n = len(sides)
            if n >= 5:
                average = Fraction(sum(s[2] for s in sides) + 3600, n + 2)
                p_score = Fraction(sum(s[3] for s in sides) + 1, n + 2)
                value = int(average + dp_reference(p_score) + Fraction(1, 2))
                value = min(value, 2200)
                initial[p] = value
                if value >= 1400:
                    new[p] = value
    return new, initial, change


# boundary values (2650 exemption, 400-point cap, 1400 threshold) are drawn often on purpose
rating_values = st.one_of(
    st.none(), st.integers(1000, 2900), st.sampled_from([2649, 2650, 2651, 2249, 2250, 1400, 1800, 2000])
)


@st.composite
def periods(draw):
    num_players = draw(st.integers(2, 8))
    ratings = draw(st.lists(rating_values, min_size=num_players, max_size=num_players))
    k_factors = draw(st.lists(st.sampled_from([10, 20, 40]), min_size=num_players, max_size=num_players))
    pairs = st.tuples(st.integers(0, num_players - 1), st.integers(0, num_players - 1)).filter(
        lambda pair: pair[0] != pair[1]
    )
    raw = draw(
        st.lists(
            st.tuples(
                st.integers(0, 3),
                pairs,
                st.sampled_from([0.0, 0.5, 1.0]),
                st.sampled_from([0, 0, 0, -7, 13]),
                st.sampled_from([0, 0, 0, 11, -5]),
            ),
            max_size=45,
        )
    )
    games = []
    for event, (white, black), score, white_delta, black_delta in raw:
        # ratings at the event's start: the previous list, sometimes a slightly different older list
        wr = None if ratings[white] is None else ratings[white] + white_delta
        br = None if ratings[black] is None else ratings[black] + black_delta
        games.append((event, white, black, score, wr, br))
    return ratings, k_factors, games


def run_engine(ratings, k_factors, games, preset):
    players = PeriodPlayers.create(ratings, [None if r is None else k for r, k in zip(ratings, k_factors, strict=True)])
    columns = list(zip(*games, strict=True)) if games else [[], [], [], [], [], []]
    return rate_period(players, PeriodGames.from_sequences(*columns), preset, LIST_DATE)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(periods(), st.sampled_from(["fide-2024", "fide-2024-03"]), st.booleans())
def test_vectorised_period_matches_scalar_reference(period, slug, per_event):
    ratings, k_factors, games = period
    preset = get_preset(slug)
    if per_event:
        preset = preset.replace(slug=f"{slug}-per-event", rounding="per-event")
    result = run_engine(ratings, k_factors, games, preset)
    expected_new, expected_initial, expected_change = reference_period(
        ratings, k_factors, games, slug == "fide-2024", per_event
    )
    for p in range(len(ratings)):
        if p in expected_new:
            assert result.players.new_rating[p] == expected_new[p], p
        else:
            assert np.isnan(result.players.new_rating[p]), p
        if p in expected_initial:
            assert result.players.initial_rating[p] == expected_initial[p], p
        if p in expected_change:
            # the unrounded K x sum dR, exact hundredths
            assert round(result.players.change[p] * 100) == expected_change[p] * 100, p


@settings(max_examples=100, deadline=None)
@given(periods(), st.randoms(use_true_random=False))
def test_game_order_does_not_matter(period, rng):
    ratings, k_factors, games = period
    shuffled = list(games)
    rng.shuffle(shuffled)
    preset = get_preset("fide-2024")
    a = run_engine(ratings, k_factors, games, preset)
    b = run_engine(ratings, k_factors, shuffled, preset)
    np.testing.assert_array_equal(a.players.new_rating, b.players.new_rating)
    np.testing.assert_array_equal(a.players.change, b.players.change)
    np.testing.assert_array_equal(a.player_events.change, b.player_events.change)


def test_large_random_period_equals_two_independent_halves():
    rng = np.random.default_rng(7)
    n_players, n_games = 2000, 20000
    ratings = rng.integers(1400, 2800, n_players).astype(float)
    ratings[rng.random(n_players) < 0.1] = np.nan
    k = np.where(np.isnan(ratings), np.nan, rng.choice([10.0, 20.0, 40.0], n_players))
    half = n_players // 2
    # games only inside each half
    side = rng.integers(0, 2, n_games)
    white = rng.integers(0, half, n_games) + side * half
    black = (white - side * half + rng.integers(1, half, n_games)) % half + side * half
    event = rng.integers(0, 50, n_games)
    score = rng.choice([0.0, 0.5, 1.0], n_games)
    players = PeriodPlayers.create(ratings, k)
    games = PeriodGames(
        event=event,
        white=white,
        black=black,
        white_score=score,
        white_rating=ratings[white],
        black_rating=ratings[black],
    )
    whole = rate_period(players, games, get_preset("fide-2024"), LIST_DATE)
    for h in (0, 1):
        mask = side == h
        sub_players = PeriodPlayers.create(ratings[h * half : (h + 1) * half], k[h * half : (h + 1) * half])
        sub_games = PeriodGames(
            event=event[mask],
            white=white[mask] - h * half,
            black=black[mask] - h * half,
            white_score=score[mask],
            white_rating=ratings[white[mask]],
            black_rating=ratings[black[mask]],
        )
        part = rate_period(sub_players, sub_games, get_preset("fide-2024"), LIST_DATE)
        np.testing.assert_array_equal(part.players.new_rating, whole.players.new_rating[h * half : (h + 1) * half])
        np.testing.assert_array_equal(part.players.games, whole.players.games[h * half : (h + 1) * half])
