"""players.services.player_merge / player_merge_reverse: everything moves, clashes are handled by rule,
the record holds what moved, and the reversal puts it all back."""

import datetime

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from audit.models import AuditEvent
from events.models import Game, Participant, Result
from players.models import Player, PlayerMerge
from players.services import player_merge, player_merge_reverse
from ratings.models import PlayerRating, RatingChange, RatingList, RatingListEntry, RatingListStatus
from tests.events.test_admin_roles import make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db


def make_list(list_date: datetime.date, rating_type: str = "standard") -> RatingList:
    return RatingList.objects.create(
        rating_type=rating_type,
        list_date=list_date,
        closing_date=list_date - datetime.timedelta(days=7),
        status=RatingListStatus.PUBLISHED,
        rules_preset="fide-2024",
        rules={},
    )


@pytest.fixture
def pair():
    """Kept (the real record) and a duplicate with an event, a rating change, list lines and current ratings
    (its lines on the newest lists: standard and rapid of March)."""
    kept = make_player(surname="Garcia", given_names="Ana", birth_year=1990, id_number=2200001)
    duplicate = make_player(
        surname="Garcia", given_names="Ana M.", birth_year=1990, id_number=9900001, needs_review=True
    )
    opponent = make_player(surname="Opp")
    event = make_event(name="Winter Open")
    dup_part, opp_part = make_participants(event, [duplicate, opponent])
    game = make_game(event, 1, dup_part, opp_part, result=Result.WHITE_WIN)
    january, march = make_list(datetime.date(2026, 1, 1)), make_list(datetime.date(2026, 3, 1))
    RatingListEntry.objects.create(rating_list=january, player=kept, rating=1800)
    RatingListEntry.objects.create(rating_list=january, player=duplicate, rating=1500)  # both on January
    RatingListEntry.objects.create(rating_list=march, player=duplicate, rating=1520)  # only the duplicate
    RatingChange.objects.create(
        rating_list=march, player=duplicate, event=event, games=1, score=1, expected_score=0.5, change=20
    )
    rapid = make_list(datetime.date(2026, 3, 1), rating_type="rapid")
    RatingListEntry.objects.create(rating_list=rapid, player=duplicate, rating=1450)  # only the duplicate
    return kept, duplicate, event, game


def test_merge_moves_participations_games_changes_entries_and_ratings_to_the_kept_player(pair):
    kept, duplicate, event, game = pair
    merge = player_merge(kept, duplicate, user=make_officer(), reason="same person, second registration")

    assert Participant.objects.get(event=event, player__surname="Garcia").player == kept
    assert Game.objects.get(pk=game.pk).white.player == kept  # games follow their participant
    assert RatingChange.objects.get().player == kept
    assert set(
        RatingListEntry.objects.filter(player=kept).values_list(
            "rating_list__rating_type", "rating_list__list_date", "rating"
        )
    ) == {
        ("standard", datetime.date(2026, 1, 1), 1800),
        ("standard", datetime.date(2026, 3, 1), 1520),
        ("rapid", datetime.date(2026, 3, 1), 1450),
    }
    # current ratings are the lines on the newest lists, which moved: they follow
    assert dict(PlayerRating.objects.filter(player=kept).values_list("rating_type", "rating")) == {
        "standard": 1520,
        "rapid": 1450,
    }
    assert not PlayerRating.objects.filter(player=duplicate).exists()
    duplicate.refresh_from_db()
    assert duplicate.merged_into == kept
    assert not duplicate.needs_review
    assert merge.moved["participants"] == list(
        Participant.objects.filter(event=event, player=kept).values_list("pk", flat=True)
    )
    assert len(merge.moved["rating_changes"]) == 1


def test_where_both_have_a_line_on_the_same_list_the_kept_line_counts_and_the_other_stays(pair):
    kept, duplicate, *_ = pair
    merge = player_merge(kept, duplicate, user=make_officer(), reason="duplicate")
    january_line = RatingListEntry.objects.get(rating_list__list_date=datetime.date(2026, 1, 1), player=duplicate)
    assert january_line.rating == 1500  # the published line is not rewritten
    # (shadow_entries: no shadow list here, nothing left)
    # (an entry is named by its list: its key is its player and list, ratings 0017)
    assert merge.moved["left_on_merged"] == {
        "list_entries": [january_line.rating_list_id],
        "shadow_entries": [],
        "title_candidates": [],
    }
    assert (
        RatingListEntry.objects.filter(player=kept, rating_list__list_date=datetime.date(2026, 1, 1)).get().rating
        == 1800
    )


def test_merge_is_refused_when_both_players_took_part_in_the_same_event(pair):
    kept, duplicate, event, _ = pair
    Participant.objects.create(event=event, player=kept, start_rank=3)
    with pytest.raises(ValidationError) as refused:
        player_merge(kept, duplicate, user=make_officer(), reason="duplicate")
    assert "both took part in Winter Open (2026-01-10" in refused.value.messages[0]
    assert "correct the event first" in refused.value.messages[0]
    duplicate.refresh_from_db()
    assert duplicate.merged_into is None
    assert not PlayerMerge.objects.exists()


@pytest.mark.parametrize(
    ("problem", "message"),
    [
        ("self", "cannot be merged into itself"),
        ("already", "was already merged into"),
        ("kept_merged", "merge into that player instead"),
        ("no_reason", "needs a reason"),
    ],
)
def test_merge_refuses_impossible_requests(pair, problem, message):
    kept, duplicate, *_ = pair
    officer = make_officer()
    reason = "" if problem == "no_reason" else "duplicate"
    if problem == "self":
        duplicate = kept
    elif problem == "already":
        player_merge(make_player(surname="Third"), duplicate, user=officer, reason="first")
    elif problem == "kept_merged":
        player_merge(make_player(surname="Fourth"), kept, user=officer, reason="first")
    with pytest.raises(ValidationError, match=message):
        player_merge(kept, duplicate, user=officer, reason=reason)


def test_merge_needs_the_merge_permission(pair):
    kept, duplicate, *_ = pair
    with pytest.raises(PermissionDenied):
        player_merge(kept, duplicate, user=make_arbiter(), reason="duplicate")


def test_records_merged_earlier_into_the_duplicate_point_to_the_kept_player(pair):
    kept, duplicate, *_ = pair
    officer = make_officer()
    older = make_player(surname="Garcia", given_names="A.")
    player_merge(duplicate, older, user=officer, reason="older duplicate")
    merge = player_merge(kept, duplicate, user=officer, reason="duplicate")
    older.refresh_from_db()
    assert older.merged_into == kept
    player_merge_reverse(merge, user=officer, reason="wrong person")
    older.refresh_from_db()
    assert older.merged_into == duplicate


def test_reverse_puts_every_moved_row_back_and_records_who_and_why(pair):
    kept, duplicate, _event, _game = pair
    officer = make_officer()
    before = {
        "participants": set(Participant.objects.filter(player=duplicate).values_list("pk", flat=True)),
        "entries": set(RatingListEntry.objects.filter(player=duplicate).values_list("pk", flat=True)),
        "ratings": set(PlayerRating.objects.filter(player=duplicate).values_list("pk", flat=True)),
        "changes": set(RatingChange.objects.filter(player=duplicate).values_list("pk", flat=True)),
    }
    merge = player_merge(kept, duplicate, user=officer, reason="duplicate")
    player_merge_reverse(merge, user=officer, reason="they are twins")

    assert set(Participant.objects.filter(player=duplicate).values_list("pk", flat=True)) == before["participants"]
    assert set(RatingListEntry.objects.filter(player=duplicate).values_list("pk", flat=True)) == before["entries"]
    assert set(PlayerRating.objects.filter(player=duplicate).values_list("pk", flat=True)) == before["ratings"]
    assert set(RatingChange.objects.filter(player=duplicate).values_list("pk", flat=True)) == before["changes"]
    assert RatingListEntry.objects.filter(player=kept).count() == 1
    duplicate.refresh_from_db()
    merge.refresh_from_db()
    assert duplicate.merged_into is None
    assert (merge.reversed_by, merge.reverse_reason) == (officer, "they are twins")
    assert merge.reversed_at is not None
    actions = list(AuditEvent.objects.order_by("id").values_list("action", flat=True))
    assert actions == ["player.merge", "player.merge_reverse"]


def test_a_merge_is_reversed_only_once(pair):
    kept, duplicate, *_ = pair
    officer = make_officer()
    merge = player_merge(kept, duplicate, user=officer, reason="duplicate")
    player_merge_reverse(merge, user=officer, reason="mistake")
    with pytest.raises(ValidationError, match="was already reversed"):
        player_merge_reverse(merge, user=officer, reason="again")


def test_a_merge_recorded_when_current_ratings_were_a_table_is_reversed_by_its_entries(pair):
    # Before migration ratings 0009 a merge also moved PlayerRating rows and recorded their ids; they are rows
    # of a view over the entries now, which go back with the entries.
    kept, duplicate, *_ = pair
    officer = make_officer()
    merge = player_merge(kept, duplicate, user=officer, reason="duplicate")
    merge.moved["player_ratings"] = [987_654]
    merge.moved["left_on_merged"]["player_ratings"] = []
    merge.save(update_fields=["moved"])
    player_merge_reverse(merge, user=officer, reason="they are twins")
    assert dict(PlayerRating.objects.filter(player=duplicate).values_list("rating_type", "rating")) == {
        "standard": 1520,
        "rapid": 1450,
    }
    assert not PlayerRating.objects.filter(player=kept).exists()  # its January line is not on the newest list


def test_reverse_is_refused_when_the_kept_player_was_merged_again_since(pair):
    kept, duplicate, *_ = pair
    officer = make_officer()
    merge = player_merge(kept, duplicate, user=officer, reason="duplicate")
    player_merge(make_player(surname="Final"), kept, user=officer, reason="another duplicate")
    with pytest.raises(ValidationError, match="reverse that merge first"):
        player_merge_reverse(merge, user=officer, reason="mistake")


def test_reverse_is_refused_when_a_moved_row_has_changed_hands_since(pair):
    kept, duplicate, _event, _ = pair
    officer = make_officer()
    merge = player_merge(kept, duplicate, user=officer, reason="duplicate")
    Participant.objects.filter(pk__in=merge.moved["participants"]).update(player=make_player(surname="Other"))
    with pytest.raises(ValidationError, match="1 of the 1 participants moved by this merge no longer belong"):
        player_merge_reverse(merge, user=officer, reason="mistake")
    duplicate.refresh_from_db()
    assert duplicate.merged_into == kept  # nothing was half-done


def test_merge_writes_the_audit_trail(pair):
    kept, duplicate, *_ = pair
    player_merge(kept, duplicate, user=make_officer(), reason="duplicate")
    audit = AuditEvent.objects.get(action="player.merge")
    assert audit.object_id == str(duplicate.pk)
    assert audit.after["merged_into"] == kept.pk
    assert Player.objects.get(pk=duplicate.pk).history.first().history_change_reason.startswith("merged into")
