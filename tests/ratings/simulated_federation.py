"""A simulated federation published under fide-2024, shared by the laboratory's tests (tests/ratings) and the
pool pages (tests/public)."""

import datetime

import pytest

from ratings.services import rating_list_publish
from ratings.services.simulation import federation_simulate

TODAY = datetime.date(2026, 11, 1)


def publish_simulation(players: int = 300, months: int = 6, seed: int = 21):
    summary = federation_simulate(players, months, seed, today=TODAY)
    for list_date in summary.list_dates:
        rating_list_publish(summary.rating_type, list_date, today=TODAY)
    return summary


@pytest.fixture
def simulated(db):
    return publish_simulation()
