"""Engine tests: no database. Fixtures that build a period from readable rows."""

import datetime

import pytest

from ratings.engine import PeriodGames, PeriodPlayers, get_preset


@pytest.fixture
def fide_2024():
    return get_preset("fide-2024")


@pytest.fixture
def list_date():
    return datetime.date(2026, 1, 1)


@pytest.fixture
def build_games():
    """rows: (event, white, black, white_score, white_rating, black_rating); None = unrated."""

    def build(rows):
        columns = list(zip(*rows, strict=True)) if rows else [[], [], [], [], [], []]
        return PeriodGames.from_sequences(*columns)

    return build


@pytest.fixture
def build_players():
    """ratings (None = unrated), K factors, and any PeriodPlayers.create keyword."""

    def build(ratings, k_factors=None, **kwargs):
        return PeriodPlayers.create(ratings, k_factors, **kwargs)

    return build
