"""Officials can see who changed what, when, and what it was before — across players, events, participants
and games — and every publication, correction and merge is recorded with its reason."""

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from audit.models import AuditAction, AuditEvent
from audit.selectors import HistoryFilter, history_entries, history_rows, tracked_history_models
from audit.services import audit_record, model_snapshot
from core.roles import RATING_OFFICERS_GROUP
from events.models import EventStatus, Game, Result
from tests.factories import make_event, make_game, make_participants, make_player

HISTORY_URL = "/admin/audit/historyrecord/"


def make_user(username, *, staff=True, superuser=False, groups=()):
    user = get_user_model().objects.create_user(
        username, f"{username}@example.org", "pw", is_staff=staff, is_superuser=superuser
    )
    for name in groups:
        user.groups.add(Group.objects.get_or_create(name=name)[0])
    return user


@pytest.fixture
def officer(db):
    return make_user("officer", groups=[RATING_OFFICERS_GROUP])


@pytest.fixture
def arbiter(db):
    return make_user("arbiter", groups=["Arbiters"])


@pytest.fixture
def submitted_game(db):
    players = [
        make_player(surname="Alekhine", given_names="Alexander"),
        make_player(surname="Euwe", given_names="Max"),
    ]
    event = make_event(name="Zandvoort Open", status=EventStatus.SUBMITTED, submitted_at=timezone.now())
    white, black = make_participants(event, players)
    return make_game(event, 1, white, black, Result.DRAW, board=1)


def entries_on_page(client, **params):
    response = client.get(HISTORY_URL, params)
    assert response.status_code == 200, response.status_code
    return response, response.context["entries"]


@pytest.mark.urls("tests.audit.history_urls")
def test_result_change_after_submission_shows_who_when_before_and_after(client, arbiter, officer, submitted_game):
    client.force_login(arbiter)
    before_change = timezone.now()
    assert client.post(f"/change-result/{submitted_game.pk}/", {"result": Result.WHITE_WIN}).content == b"saved"

    client.force_login(officer)
    response, entries = entries_on_page(client, model="game", type="~")
    [entry] = entries
    assert entry.user == arbiter
    assert before_change <= entry.at <= timezone.now()
    assert entry.history_type == "~"
    assert "Zandvoort Open, round 1, board 1: Alekhine, Alexander" in entry.object_repr
    changes = {c.field: (c.before, c.after) for c in entry.changes}
    assert changes["result"] == ("1/2-1/2", "1-0")
    assert changes["version"] == (1, 2)
    page = response.content.decode()
    assert "arbiter" in page
    assert "1/2-1/2" in page
    assert "1-0" in page
    assert "Euwe, Max" in page


def test_result_change_through_the_event_service_is_attributed_to_the_arbiter(client, arbiter, officer, submitted_game):
    from events.services import GameEdit, event_games_update

    game = submitted_game
    event_games_update(
        game.event,
        user=arbiter,
        edits=[
            GameEdit(
                game_id=game.pk,
                round=game.round,
                board=game.board,
                white_id=game.white_id,
                black_id=game.black_id,
                result=Result.BLACK_WIN,
                date=game.date,
                expected_version=game.version,
            )
        ],
    )
    client.force_login(officer)
    _, entries = entries_on_page(client, model="game", type="~", user=arbiter.pk)
    [entry] = entries
    assert {c.field: (c.before, c.after) for c in entry.changes}["result"] == ("1/2-1/2", "0-1")


def test_history_lists_every_tracked_model_newest_first_and_filters_by_model_user_type_and_date(
    client, officer, arbiter, submitted_game
):
    player = submitted_game.white.player
    player.surname = "Aljechin"
    player._history_user = arbiter
    player.save()
    client.force_login(officer)

    _, everything = entries_on_page(client)
    kinds = {entry.kind for entry in everything}
    assert kinds == {"player", "event", "participant", "game"}
    assert [e.at for e in everything] == sorted((e.at for e in everything), reverse=True)
    assert everything[0].kind == "player"
    assert everything[0].history_type == "~"
    assert {c.field: (c.before, c.after) for c in everything[0].changes}["surname"] == (
        "Alekhine",
        "Aljechin",
    )

    _, players_only = entries_on_page(client, model="player")
    assert {e.kind for e in players_only} == {"player"}
    assert len(players_only) == 3  # 2 created, 1 changed
    _, by_arbiter = entries_on_page(client, user=arbiter.pk)
    assert [(e.kind, e.history_type) for e in by_arbiter] == [("player", "~")]
    _, by_jobs = entries_on_page(client, user="none")
    assert all(e.user is None for e in by_jobs)
    assert len(by_jobs) == len(everything) - 1
    _, created = entries_on_page(client, type="+")
    assert {e.history_type for e in created} == {"+"}
    today = timezone.localdate()
    _, today_entries = entries_on_page(client, date_from=today.isoformat(), date_to=today.isoformat())
    assert len(today_entries) == len(everything)
    _, none_yesterday = entries_on_page(client, date_to=(today - datetime.timedelta(days=1)).isoformat())
    assert none_yesterday == []
    _, one_player = entries_on_page(client, model="player", object=player.pk)
    assert {e.object_id for e in one_player} == {player.pk}
    assert len(one_player) == 2


def test_deleted_game_shows_what_was_lost(client, officer, arbiter, submitted_game):
    submitted_game._history_user = arbiter
    submitted_game.delete()
    client.force_login(officer)
    _, [entry] = entries_on_page(client, model="game", type="-")
    assert entry.user == arbiter
    assert {c.field: (c.before, c.after) for c in entry.changes}["result"] == ("1/2-1/2", "")


def test_malformed_filter_values_are_ignored_with_a_message(client, officer, submitted_game):
    client.force_login(officer)
    response = client.get(HISTORY_URL, {"date_from": "31/12/2025", "type": "x", "user": "bob"})
    assert response.status_code == 200
    shown = [str(m) for m in response.context["messages"]]
    assert any("date from '31/12/2025' is not a date" in m for m in shown)
    assert any("type 'x'" in m for m in shown)
    assert any("user 'bob'" in m for m in shown)


def test_history_page_needs_a_fixed_number_of_queries_whatever_its_length(client, officer, arbiter):
    players = [make_player() for _ in range(6)]
    event = make_event(rounds=3)
    participants = make_participants(event, players)

    def page_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            client.get(HISTORY_URL)
        return len(queries)

    client.force_login(officer)
    make_game(event, 1, participants[0], participants[1])
    small = page_queries()
    for round_number in (1, 2, 3):
        for a, b in ((0, 1), (2, 3), (4, 5)):
            if round_number == 1 and a == 0:
                continue
            make_game(event, round_number, participants[a], participants[b])
    for game in Game.objects.all():
        game.result = Result.WHITE_WIN
        game._history_user = arbiter
        game.save()
    large = page_queries()
    recorded = sum(model.objects.count() for model in tracked_history_models().values())
    assert recorded > 30
    assert len(history_entries(history_rows(HistoryFilter())[:50])) == recorded
    assert large <= small + 2  # the user filter lists appear; the rows themselves add nothing


def test_only_superusers_and_rating_officers_see_the_audit_trail(client, officer, arbiter, submitted_game):
    superuser = make_user("root", superuser=True)
    for user, allowed in ((superuser, True), (officer, True), (arbiter, False)):
        client.force_login(user)
        assert client.get(HISTORY_URL).status_code == (200 if allowed else 403), user
        assert client.get("/admin/audit/auditevent/").status_code == (200 if allowed else 403), user
        index = client.get("/admin/").content.decode()
        assert (HISTORY_URL in index) is allowed, user
    # Nobody edits the trail.
    record = audit_record(officer, AuditAction.EVENT_CORRECT, submitted_game.event, reason="typo")
    client.force_login(superuser)
    assert client.get("/admin/audit/auditevent/add/").status_code == 403
    change_page = client.get(f"/admin/audit/auditevent/{record.pk}/change/")
    assert change_page.status_code == 200
    assert b'name="_save"' not in change_page.content
    assert client.post(f"/admin/audit/auditevent/{record.pk}/delete/", {"post": "yes"}).status_code == 403
    assert AuditEvent.objects.filter(pk=record.pk).exists()


def test_audit_record_keeps_actor_action_object_reason_and_before_after(client, officer, submitted_game):
    event = submitted_game.event
    before = model_snapshot(event, ["status", "submitted_at"])
    event.status = EventStatus.CORRECTED
    event.save()
    record = audit_record(
        officer,
        AuditAction.EVENT_CORRECT,
        event,
        reason="Round 1 result entered reversed",
        before=before,
        after=model_snapshot(event, ["status", "submitted_at"]),
    )
    record.refresh_from_db()
    assert record.actor == officer
    assert record.actor_name == "officer"
    assert record.action == "event.correct"
    assert record.object_id == str(event.pk)
    assert record.object_type.model_class() is type(event)
    assert record.object_repr == str(event)
    assert record.before["status"] == "submitted"
    assert record.after["status"] == "corrected"
    assert record.before["submitted_at"] == record.after["submitted_at"]  # a datetime, stored as ISO text

    client.force_login(officer)
    listing = client.get("/admin/audit/auditevent/", {"action": "event.correct"}).content.decode()
    assert "Round 1 result entered reversed" in listing
    detail = client.get(f"/admin/audit/auditevent/{record.pk}/change/").content.decode()
    assert "submitted" in detail
    assert "corrected" in detail
    assert "submitted_at" not in detail  # unchanged: not shown


def test_audit_record_for_a_scheduled_job_has_no_actor(db):
    record = audit_record(None, AuditAction.RATING_LIST_PUBLISH, "Standard 2026-03-01", after={"entries": 12})
    assert record.actor is None
    assert record.actor_name == ""
    assert record.object_type is None
    assert record.object_repr == "Standard 2026-03-01"
    assert "system" in str(record)


def test_audit_record_is_rolled_back_with_the_action_it_records(officer, submitted_game):
    from django.db import transaction

    # PT012: the failure comes after the record it must roll back
    with pytest.raises(RuntimeError), transaction.atomic():  # noqa: PT012
        audit_record(officer, AuditAction.PLAYER_MERGE, submitted_game.white.player, reason="duplicate")
        raise RuntimeError("the merge failed")
    assert not AuditEvent.objects.exists()


def test_audit_record_refuses_a_missing_action(officer):
    with pytest.raises(ValueError, match=r"action must be 1..40 characters"):
        audit_record(officer, "", "x")
