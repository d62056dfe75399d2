"""The simulated federation looks like FIDE's at scale, and its writer stores exactly what was simulated."""

import datetime

import numpy as np
import pytest
from django.db.models import F

from events.models import Event, Game, Participant
from players.models import Player
from ratings.models import PlayerRating, RatingListEntry
from ratings.services.simulation import federation_simulate
from ratings.simulation import RESULT_CODES, simulate_federation, simulate_players

START = datetime.date(2026, 5, 1)


def test_registry_strengths_are_spread_like_fides_with_a_long_right_tail():
    players = simulate_players(200_000, np.random.default_rng(1), START, 10_000_001)
    adults = (START.year - players.birth_year) > 18
    assert 1500 <= players.strength[adults].mean() <= 1600
    assert 270 <= players.strength[adults].std() <= 330
    assert 2600 < players.strength.max() <= 2800
    rated = players.starting_rating[~np.isnan(players.starting_rating)]
    assert rated.min() >= 1400  # B.02 7.2: below the floor is unrated
    assert np.mean(rated >= 2500) < 0.005  # grandmaster strength is rare


def test_many_registered_players_no_longer_play_and_others_stop_during_the_simulation():
    batches = list(simulate_federation(20_000, 6, 5, START))
    players, months = batches[0], batches[1:]
    dormant = players.quit_month == 0
    assert 0.25 < dormant.mean() < 0.45
    year_ago = np.datetime64(START, "D") - 365
    # dormant players last played more than a year ago (inactive on the starting list); the others recently
    known = ~np.isnat(players.last_game)
    assert (players.last_game[dormant & known] < year_ago).all()
    assert (players.last_game[~dormant & known] >= year_ago).all()
    stopping = (players.quit_month > 0) & (players.quit_month < 6)
    assert stopping.sum() > 100
    for month in months:
        seated = np.unique(month.participant_player)
        assert not np.isin(seated, np.flatnonzero(players.quit_month <= month.month)).any()


def test_games_per_month_sets_how_much_is_played():
    for target in (20_000, 60_000):
        months = list(simulate_federation(50_000, 2, 3, START, games_per_month=target))[1:]
        for month in months:
            assert abs(month.game_result.size - target) < 0.15 * target


def test_swiss_pairings_avoid_rematches_and_give_at_most_one_bye_per_player():
    months = list(simulate_federation(30_000, 2, 8, START))[1:]
    for month in months:
        swiss = np.array([s == "swiss" for s in month.event_system])
        games = swiss[month.game_event] & (month.game_black >= 0)
        a, b = month.game_white[games], month.game_black[games]
        pairs = np.unique(np.minimum(a, b) * month.participant_event.size + np.maximum(a, b))
        assert pairs.size > 0.99 * a.size  # rematches are rare: swapped away with a neighbouring pair
        byes = month.game_white[swiss[month.game_event] & (month.game_black < 0)]
        assert np.unique(byes).size == byes.size
        assert all(RESULT_CODES[c] == "U" for c in month.game_result[month.game_black < 0])
        # every player enters at most one event a month
        assert np.unique(month.participant_player).size == month.participant_player.size


@pytest.mark.django_db
def test_the_writer_stores_the_simulated_players_starting_list_and_games():
    summary = federation_simulate(500, 4, 11, today=datetime.date(2026, 11, 1))
    players = simulate_players(500, np.random.default_rng(11), summary.starting_list_date, 10_000_001)
    stored = dict(Player.objects.values_list("id_number", "search_name"))
    assert len(stored) == 500
    assert stored[10_000_001] == f"{players.surname[0]}, {players.given_names[0]}".upper()
    entries = RatingListEntry.objects.filter(rating_list__is_imported=True)
    assert entries.count() == np.count_nonzero(~np.isnan(players.starting_rating))
    # players who have not played for a year are inactive on the starting list (B.02 7.2)
    cutoff = datetime.date(summary.starting_list_date.year - 1, summary.starting_list_date.month, 1)
    for entry in entries.exclude(last_game_date=None):
        assert entry.inactive == (entry.last_game_date < cutoff)
    assert entries.filter(inactive=True).exists()
    assert entries.filter(inactive=False).exists()
    assert set(PlayerRating.objects.values_list("player_id", "rating", "inactive")) == set(
        entries.values_list("player_id", "rating", "inactive")
    )
    assert Game.objects.count() == summary.games
    assert Event.objects.count() == summary.events
    # every game's players are participants of its event (the database's triggers check it as well)
    assert not Game.objects.exclude(white__event=F("event")).exists()
    assert Participant.objects.values("event", "player").distinct().count() == Participant.objects.count()
