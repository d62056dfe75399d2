"""The simulated federation looks real: no Swiss event repeats a pairing; standard, rapid and blitz events,
several federations and clubs, titled players, juniors and seniors, round robins (the demo's data)."""

import datetime

import numpy as np
import pytest

from events.models import Event, EventSystem, Game
from players.models import Club, Player
from ratings.models import RatingList, RatingListEntry
from ratings.services.simulation import federation_simulate
from ratings.simulation import _pair_avoiding_rematches, simulate_federation

START = datetime.date(2025, 11, 1)


def swiss_repeats(month) -> int:
    """Pairings played more than once within one Swiss event of the month."""
    repeats = 0
    for e, system in enumerate(month.event_system):
        if system != "swiss":
            continue
        games = (month.game_event == e) & (month.game_black >= 0)
        a, b = month.game_white[games], month.game_black[games]
        keys = np.minimum(a, b) * month.participant_event.size + np.maximum(a, b)
        repeats += keys.size - np.unique(keys).size
    return repeats


@pytest.mark.parametrize("seed", range(6))
def test_no_simulated_swiss_event_repeats_a_pairing(seed):
    months = list(simulate_federation(3000, 3, seed, START))[1:]
    assert sum(month.event_system.count("swiss") for month in months) > 3
    assert sum(swiss_repeats(month) for month in months) == 0


def test_no_repeat_in_small_swiss_events_with_many_rounds():
    # 30-40 players over 9 rounds: where swaps alone leave rematches most often
    months = list(simulate_federation(400, 12, 5, START, events_per_player_month=0.3))[1:]
    swiss = [e for m in months for e, s in enumerate(m.event_system) if s == "swiss"]
    assert swiss
    assert all(swiss_repeats(month) == 0 for month in months)


def test_the_backtracking_pairing_avoids_every_former_opponent():
    n = 30
    standing = np.arange(n, dtype=np.int64)
    # everyone already met their neighbours 1..4 places away: the greedy neighbour pairing is impossible
    played = np.array(sorted(i * n + j for i in range(n) for j in range(i + 1, min(n, i + 5))), dtype=np.int64)
    a, b = _pair_avoiding_rematches(standing, played, n)
    assert sorted(np.concatenate([a, b]).tolist()) == list(range(n))
    assert all(abs(int(x) - int(y)) > 4 for x, y in zip(a, b, strict=True))


def test_the_same_seed_gives_the_same_rapid_events():
    first = list(simulate_federation(300, 2, 4, START, event_seed=1))
    again = list(simulate_federation(300, 2, 4, START, event_seed=1))
    standard = list(simulate_federation(300, 2, 4, START))
    assert np.array_equal(first[0].strength, standard[0].strength)  # the same players
    assert all(np.array_equal(a.game_result, b.game_result) for a, b in zip(first[1:], again[1:], strict=True))
    assert not np.array_equal(first[1].participant_player, standard[1].participant_player)


@pytest.mark.django_db
def test_the_demo_federation_has_every_rating_type_federations_clubs_titles_and_ages():
    summary = federation_simulate(
        400, 6, 1, today=datetime.date(2026, 11, 1), rating_types=("standard", "rapid", "blitz")
    )
    assert summary.rating_types == ["standard", "rapid", "blitz"]
    assert set(Event.objects.values_list("rating_type", flat=True)) == {"standard", "rapid", "blitz"}
    assert set(RatingList.objects.values_list("rating_type", flat=True)) == {"standard", "rapid", "blitz"}
    assert all(summary.list_dates_by_type[t] for t in summary.rating_types)
    assert Event.objects.filter(system=EventSystem.ROUND_ROBIN).exists()
    assert Event.objects.filter(system=EventSystem.SWISS).exists()
    assert Event.objects.filter(rating_type="blitz", name__startswith="Blitz").exists()
    federations = set(Player.objects.values_list("federation_id", flat=True))
    assert len(federations) >= 4
    assert None not in federations
    assert Club.objects.count() >= 3
    assert Player.objects.filter(club__isnull=False).count() > 200
    assert not Player.objects.exclude(club__isnull=True).exclude(club__federation_id=models_f("federation_id")).exists()
    assert Player.objects.exclude(title="").exists()
    year = summary.starting_list_date.year
    assert Player.objects.filter(birth_year__gte=year - 19).count() > 20  # juniors
    assert Player.objects.filter(birth_year__lte=year - 65).exists()  # seniors
    # the starting lists carry each player's federation as published
    entries = RatingListEntry.objects.filter(rating_list__rating_type="rapid")
    assert entries.exists()
    assert set(entries.values_list("federation", flat=True)) <= federations
    assert Game.objects.filter(event__rating_type="rapid").exists()
    # as stored: no two players meet twice in a Swiss event
    swiss = Game.objects.filter(event__system=EventSystem.SWISS, black__isnull=False)
    pairs = [
        (e, min(w, b), max(w, b)) for e, w, b in swiss.values_list("event_id", "white__player_id", "black__player_id")
    ]
    assert pairs
    assert len(pairs) == len(set(pairs))


def models_f(name):
    from django.db.models import F

    return F(name)


@pytest.mark.django_db
def test_the_starting_lists_are_written_in_list_order_with_the_positions_and_ranks_a_list_stores():
    """The simulation computes positions and ranks with the engine and writes the rows in that order (no UPDATE of
    every row after: it left the list's table twice its size); they are those list_order_store gives."""
    from ratings.services.list_order import list_order_store

    federation_simulate(300, 2, 5, today=datetime.date(2026, 11, 1), rating_types=("standard",))
    starting = RatingList.objects.filter(is_imported=True).get()
    columns = ("player_id", "position", "rank", "federation_rank")
    written = sorted(RatingListEntry.objects.filter(rating_list=starting).values_list(*columns))
    assert all(position is not None for _, position, _, _ in written)
    assert any(rank is None for _, _, rank, _ in written)  # inactive players have no rank (B.02 7.2)
    list_order_store([starting.pk])
    assert sorted(RatingListEntry.objects.filter(rating_list=starting).values_list(*columns)) == written
