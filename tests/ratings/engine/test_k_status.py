"""k_status_from_published_k: the K inputs an imported list implies (B.02 8.3.3, rating-rules.md K section).

FIDE's list gives rating, the games of the period and K; the status K was derived from (rated games so far,
ever >= 2400, ever >= 2300) is read back from K. One function for the FIDE list import's two paths (rows read
by columns, rows read line by line)."""

import datetime

import numpy as np
import pytest

from ratings.engine import get_preset
from ratings.engine.k_factor import KFactorSpec, k_status_from_published_k, next_k_factor

FIDE_K = get_preset("fide-2024").k_factor


@pytest.mark.parametrize(
    ("rating", "games", "k_factor", "expected"),
    [
        # B.02 8.3.3: K 40 "until he has completed events with at least 30 games": K 20 or 10 means >= 30.
        (2000, 4, 20, (30, False, False)),
        (2000, 45, 20, (45, False, False)),
        (2450, 0, 10, (30, True, True)),
        # K 40 (new or junior) or no K published: only the period's games are known.
        (1800, 7, 40, (7, False, False)),
        (1800, 7, 0, (7, False, False)),
        # K 10 "once a published rating has reached 2400", and it stays: a K 10 player now below 2400.
        (2380, 12, 10, (30, True, True)),
        # The rating alone tells ever >= 2400 / ever >= 2300 (the junior K 40 stops at 2300).
        (2400, 3, 40, (3, True, True)),
        (2300, 3, 40, (3, False, True)),
        (2299, 3, 40, (3, False, False)),
    ],
)
def test_the_status_read_back_from_the_published_k(rating, games, k_factor, expected):
    status = k_status_from_published_k(FIDE_K, rating, games, k_factor)
    assert (int(status.rated_games_total), bool(status.ever_2400), bool(status.ever_2300)) == expected


def test_arrays_give_the_same_status_as_each_row_alone():
    rating = np.array([2000, 2450, 1800, 2380, 2300], dtype=np.int64)
    games = np.array([4, 0, 7, 12, 3], dtype=np.int64)
    k_factor = np.array([20, 10, 0, 10, 40], dtype=np.int64)
    status = k_status_from_published_k(FIDE_K, rating, games, k_factor)
    assert status.rated_games_total.dtype == np.int64
    assert status.ever_2400.dtype == bool
    for i in range(len(rating)):
        alone = k_status_from_published_k(FIDE_K, int(rating[i]), int(games[i]), int(k_factor[i]))
        assert [int(alone.rated_games_total), bool(alone.ever_2400), bool(alone.ever_2300)] == [
            int(status.rated_games_total[i]),
            bool(status.ever_2400[i]),
            bool(status.ever_2300[i]),
        ]


def test_the_inferred_status_gives_the_published_k_again_for_adults():
    # Read back, then derived forward (next_k_factor, rules 1.5 precedence): the K the list published.
    rating = np.array([2000, 2450, 1800, 2380], dtype=np.int64)
    games = np.array([4, 0, 7, 12], dtype=np.int64)
    k_factor = np.array([20, 10, 40, 10], dtype=np.int64)
    status = k_status_from_published_k(FIDE_K, rating, games, k_factor)

    k = next_k_factor(
        rating.astype(np.float64),
        status.rated_games_total,
        status.ever_2400,
        1970,
        datetime.date(2026, 1, 1),
        FIDE_K,
        ever_2300=status.ever_2300,
    )
    assert k.tolist() == [20.0, 10.0, 40.0, 10.0]


def test_a_scheme_without_a_published_k_is_refused():
    with pytest.raises(ValueError, match="publishes no K"):
        k_status_from_published_k(KFactorSpec.uscf_classic(), 2000, 10, 32)
