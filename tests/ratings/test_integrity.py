"""Integrity screening on submission (issue 15): each of the six checks fires when it should and not otherwise;
flags carry rule and evidence into the audit trail; officials clear them; the publication waits for that."""

import datetime as dt

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from events.models import Event, EventStatus, EventSystem, Game, IntegrityCheck, IntegrityFlag, Participant, Result
from events.services import event_submit, integrity_flag_clear
from ratings.selectors import events_pending_rating
from ratings.services.integrity import event_integrity_screen
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db

START = dt.date(2026, 3, 10)
W, D, B = Result.WHITE_WIN, Result.DRAW, Result.BLACK_WIN


def tournament(players, games, *, ratings=None, clubs=None, start=START, system=EventSystem.SWISS, rounds=None, **kw):
    """games: (round, white index, black index, result) into ``players``."""
    event = make_event(
        start_date=start,
        end_date=start + dt.timedelta(days=4),
        system=system,
        rounds=rounds or max(g[0] for g in games),
        **kw,
    )
    participants = make_participants(event, players)
    for index, participant in enumerate(participants):
        participant.rating = (ratings or [2000] * len(players))[index]
        participant.club = (clubs or [""] * len(players))[index]
        participant.save()
    for round_, white, black, result in games:
        make_game(event, round_, participants[white], participants[black], result=result)
    return event


def kinds(event):
    return [finding.kind for finding in event_integrity_screen(event)]


def round_robin_games(n, result_of):
    """Every pair once (single round robin, Berger-like order is irrelevant here): round numbers in order."""
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    return [(index + 1, i, j, result_of(i, j)) for index, (i, j) in enumerate(pairs)]


# --- 1. performance far above rating in a small closed event --------------------------------------------


def test_a_performance_400_above_rating_in_a_small_round_robin_fires():
    players = [make_player() for _ in range(6)]
    games = round_robin_games(6, lambda i, j: W if i == 0 else D)  # player 0 (1600) beats five 2200s
    event = tournament(players, games, ratings=[1600, 2200, 2200, 2200, 2200, 2200], system=EventSystem.ROUND_ROBIN)
    (finding,) = event_integrity_screen(event)
    assert finding.kind == IntegrityCheck.PERFORMANCE
    assert finding.evidence["rating"] == 1600
    assert finding.evidence["performance"] > 2000
    assert finding.evidence["games"] == 5


def test_the_same_performance_in_a_swiss_or_an_ordinary_score_does_not_fire():
    players = [make_player() for _ in range(6)]
    games = round_robin_games(6, lambda i, j: W if i == 0 else D)
    swiss = tournament(players, games, ratings=[1600, 2200, 2200, 2200, 2200, 2200])
    assert IntegrityCheck.PERFORMANCE not in kinds(swiss)
    others = [make_player() for _ in range(6)]
    ordinary = tournament(
        others,
        round_robin_games(6, lambda i, j: D),
        ratings=[2150, 2200, 2200, 2200, 2200, 2200],
        system=EventSystem.ROUND_ROBIN,
        start=START + dt.timedelta(days=30),
    )
    assert kinds(ordinary) == []


# --- 2. and 3. the same pair across events; losing most games to one opponent ----------------------------


def test_the_same_two_players_meeting_three_times_in_the_period_fire_both_pair_checks():
    a, b, c, d = (make_player() for _ in range(4))
    for month in (1, 2):
        tournament([a, b], [(1, 0, 1, B)], start=dt.date(2026, month, 5), status=EventStatus.RATED)
    event = tournament([a, b, c, d], [(1, 0, 1, B), (1, 2, 3, D)])
    found = {f.kind: f for f in event_integrity_screen(event)}
    assert set(found) == {IntegrityCheck.REPEATED_PAIRING, IntegrityCheck.LOPSIDED_LOSSES}
    assert found[IntegrityCheck.REPEATED_PAIRING].evidence["games"] == 3
    assert found[IntegrityCheck.LOPSIDED_LOSSES].evidence == {
        "loser": f"{a.name} ({a.id_number})",
        "winner": f"{b.name} ({b.id_number})",
        "lost": 3,
        "games": 3,
    }


def test_meetings_outside_the_period_or_in_refused_events_do_not_count():
    a, b = make_player(), make_player()
    tournament([a, b], [(1, 0, 1, B)], start=dt.date(2024, 1, 5), status=EventStatus.RATED)  # two years before
    tournament([a, b], [(1, 0, 1, B)], start=dt.date(2026, 2, 5), status=EventStatus.REFUSED)
    event = tournament([a, b], [(1, 0, 1, B)])
    assert kinds(event) == []


def test_three_meetings_with_mixed_results_are_repeated_but_not_lopsided():
    a, b = make_player(), make_player()
    tournament([a, b], [(1, 0, 1, W)], start=dt.date(2026, 1, 5), status=EventStatus.RATED)
    tournament([a, b], [(1, 0, 1, D)], start=dt.date(2026, 2, 5), status=EventStatus.RATED)
    event = tournament([a, b], [(1, 0, 1, B)])
    assert kinds(event) == [IntegrityCheck.REPEATED_PAIRING]


# --- 4. results contradicting the declared rounds or dates -----------------------------------------------


def test_a_game_beyond_the_declared_rounds_or_outside_the_dates_fires():
    a, b, c, d = (make_player() for _ in range(4))
    event = tournament([a, b, c, d], [(1, 0, 1, W), (1, 2, 3, D)], rounds=1)
    participants = list(Participant.objects.filter(event=event).order_by("start_rank"))
    make_game(event, 2, participants[0], participants[2], result=D)  # round 2 of a 1-round event
    Event.objects.filter(pk=event.pk).update(rounds=1)
    Game.objects.filter(event=event, round=1).update(date=START - dt.timedelta(days=3))
    (finding,) = event_integrity_screen(Event.objects.get(pk=event.pk))
    assert finding.kind == IntegrityCheck.CONTRADICTION
    assert finding.evidence["games"] == 3


def test_games_within_the_rounds_and_dates_do_not_fire():
    a, b = make_player(), make_player()
    event = tournament([a, b], [(1, 0, 1, W)])
    Game.objects.filter(event=event).update(date=START + dt.timedelta(days=1))
    assert kinds(event) == []


# --- 5. an event duplicating another ---------------------------------------------------------------------


def test_an_event_with_the_same_players_and_overlapping_dates_fires():
    players = [make_player() for _ in range(4)]
    first = tournament(players, [(1, 0, 1, W), (1, 2, 3, D)], status=EventStatus.SUBMITTED)
    copy = tournament(players, [(1, 0, 1, W), (1, 2, 3, D)], start=START + dt.timedelta(days=1))
    (finding,) = event_integrity_screen(copy)
    assert finding.kind == IntegrityCheck.DUPLICATE_EVENT
    assert finding.evidence["event"] == first.pk


def test_the_same_players_a_month_later_are_not_a_duplicate():
    players = [make_player() for _ in range(4)]
    tournament(players, [(1, 0, 1, W), (1, 2, 3, D)])
    later = tournament(players, [(1, 0, 2, W), (1, 1, 3, D)], start=START + dt.timedelta(days=30))
    assert kinds(later) == []


# --- 6. one club, results far from the ratings ------------------------------------------------------------


def test_a_single_club_event_with_results_far_from_the_ratings_fires():
    players = [make_player() for _ in range(4)]
    games = [(1, 0, 1, W), (1, 2, 3, W), (2, 0, 2, W), (2, 1, 3, W)]  # the 1500s beat the 2300s
    event = tournament(players, games, ratings=[1500, 2300, 1500, 2300], clubs=["Kilkenny"] * 4)
    (finding,) = event_integrity_screen(event)
    assert finding.kind == IntegrityCheck.SINGLE_CLUB
    assert finding.evidence["club"] == "KILKENNY"


def test_a_single_club_event_with_expected_results_or_two_clubs_does_not_fire():
    players = [make_player() for _ in range(4)]
    games = [(1, 0, 1, B), (1, 2, 3, B), (2, 0, 2, D), (2, 1, 3, D)]  # the 2300s win, as expected
    expected = tournament(players, games, ratings=[1500, 2300, 1500, 2300], clubs=["Kilkenny"] * 4)
    assert kinds(expected) == []
    others = [make_player() for _ in range(4)]
    upsets = [(1, 0, 1, W), (1, 2, 3, W), (2, 0, 2, W), (2, 1, 3, W)]
    two_clubs = tournament(
        others,
        upsets,
        ratings=[1500, 2300, 1500, 2300],
        clubs=["Kilkenny", "Dublin"] * 2,
        start=START + dt.timedelta(days=30),
    )
    assert kinds(two_clubs) == []


# --- flags: submission, audit, clearing, publication ------------------------------------------------------


def test_submission_raises_flags_into_the_audit_and_the_list_waits_until_an_official_clears_them():
    arbiter = make_arbiter()
    players = [make_player() for _ in range(4)]
    tournament(players, [(1, 0, 1, W), (1, 2, 3, D)], status=EventStatus.SUBMITTED)
    event = tournament(players, [(1, 0, 1, W), (1, 2, 3, D)], start=START + dt.timedelta(days=1), chief_arbiter=arbiter)
    event_submit(event, user=arbiter)
    flag = IntegrityFlag.objects.get(event=event)
    assert flag.kind == IntegrityCheck.DUPLICATE_EVENT
    assert flag.cleared_at is None
    audit = AuditEvent.objects.get(action="event.integrity_flag", object_id=str(event.pk))
    assert audit.after["rule"] == flag.rule
    assert audit.after["evidence"]["shared_players"] == 4
    closing = START + dt.timedelta(days=60)
    assert event not in events_pending_rating("standard", closing)

    # the arbiter sees the flag but cannot clear it; the official clears it with a reason
    change = reverse("admin:events_event_change", args=[event.pk])
    clear = reverse("admin:events_integrityflag_clear", args=[flag.pk])  # the flag's own page (issue 32)
    page = client_for(arbiter).get(change).content.decode()
    assert 'id="event-integrity-flags"' in page
    assert "a rating officer must clear it" in page
    assert client_for(arbiter).post(clear, {"reason": "fine"}).status_code == 403
    officer = client_for(make_officer())
    officer.post(clear, {"reason": ""})
    assert IntegrityFlag.objects.get(pk=flag.pk).cleared_at is None  # a reason is required
    officer.post(clear, {"reason": "Two sections of one festival, checked with the organiser."})
    flag.refresh_from_db()
    assert flag.cleared_at is not None
    assert flag.clear_reason.startswith("Two sections")
    assert AuditEvent.objects.filter(action="event.integrity_clear", object_id=str(event.pk)).exists()
    assert event in events_pending_rating("standard", closing)
    with pytest.raises(Exception, match="already cleared"):
        integrity_flag_clear(flag, user=None, reason="again")
