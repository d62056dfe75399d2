"""Titles with a history and titles by rating found at publication (issue 33): the award service, the candidates a
publication stores, the officers' one-click award, and what the profile, the list page and the API show."""

import datetime
import json

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from outbox.models import WebhookDelivery, WebhookEndpoint
from players.models import Player, TitleAward, TitleMethod
from ratings.engine.classes import TITLE_BY_RATING_MIN_GAMES, TITLE_THRESHOLDS, title_covers
from ratings.models import RatingList, RatingListEntry, TitleCandidate
from ratings.selectors_titles import title_candidates_open
from ratings.services.titles import title_award_record
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.factories import make_player
from tests.ratings.simulated_federation import publish_simulation

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 5, 1)


# ------------------------------------------------------------------------------------------ the award service


def test_an_award_raises_the_current_title_in_one_transaction_audited_and_announced():
    officer = make_officer()
    WebhookEndpoint.objects.create(url="https://example.org/hook", secret="s", events=["title.awarded"])
    player = make_player(title="CM")

    award = title_award_record(player, "FM", date=DAY, method=TitleMethod.RATING, reference=" list ", user=officer)

    player.refresh_from_db()
    assert (player.title, award.reference, award.recorded_by) == ("FM", "list", officer)
    assert player.history.first().history_user == officer  # the player's change is in its history
    assert award.history.count() == 1
    audit = AuditEvent.objects.get(action="title.award")
    assert audit.before["title"] == "CM"
    assert audit.after["title"] == "FM"
    body = json.loads(WebhookDelivery.objects.get(event_type="title.awarded").body)
    assert body["data"]["id_number"] == player.id_number
    assert body["data"]["title"] == "FM"


def test_a_lower_award_recorded_later_keeps_the_higher_current_title():
    officer = make_officer()
    player = make_player(sex="F", title="IM", women_title="WGM")
    title_award_record(player, "CM", date=DAY, method=TitleMethod.DIRECT, user=officer)
    title_award_record(player, "WIM", date=DAY, method=TitleMethod.NORMS, user=officer)
    player.refresh_from_db()
    assert (player.title, player.women_title) == ("IM", "WGM")
    assert TitleAward.objects.filter(player=player).count() == 2


@pytest.mark.parametrize(
    ("fields", "kwargs", "message"),
    [
        ({"sex": "M"}, {"title": "WFM"}, "is a women's title"),
        ({}, {"title": "NM"}, "expected one of"),
        ({}, {"method": "bought"}, "expected one of"),
        ({}, {"date": datetime.date(2099, 1, 1)}, "in the future"),
        ({}, {"reference": "x" * 301}, "longer than 300"),
    ],
)
def test_bad_awards_are_refused_naming_the_field_and_nothing_is_written(fields, kwargs, message):
    officer = make_officer()
    player = make_player(**fields)
    args = {"title": "FM", "date": DAY, "method": TitleMethod.RATING, "reference": "", **kwargs}
    with pytest.raises(ValidationError, match=message):
        title_award_record(player, args.pop("title"), user=officer, **args)
    player.refresh_from_db()
    assert player.title == ""
    assert not TitleAward.objects.exists()
    assert not AuditEvent.objects.exists()


def test_only_officials_record_titles():
    with pytest.raises(PermissionDenied):
        title_award_record(make_player(), "CM", date=DAY, method=TitleMethod.RATING, user=make_arbiter())
    assert not TitleAward.objects.exists()


def test_the_admin_form_records_through_the_service_and_shows_refusals_on_the_form():
    client = client_for(make_officer())
    man = make_player()
    url = reverse("admin:players_titleaward_add")
    refused = client.post(url, {"player": man.pk, "title": "WCM", "date": "2026-05-01", "method": "direct"})
    assert refused.status_code == 200
    assert "is a women&#x27;s title" in refused.content.decode()
    assert not TitleAward.objects.exists()
    done = client.post(url, {"player": man.pk, "title": "CM", "date": "2026-05-01", "method": "direct"})
    assert done.status_code == 302
    assert Player.objects.get(pk=man.pk).title == "CM"
    assert AuditEvent.objects.filter(action="title.award").count() == 1


def test_a_merge_moves_the_awards_to_the_kept_player():
    from players.services import player_merge

    officer = make_officer()
    kept, merged = make_player(), make_player()
    title_award_record(merged, "CM", date=DAY, method=TitleMethod.RATING, user=officer)
    player_merge(kept, merged, user=officer, reason="duplicate")
    assert TitleAward.objects.get().player == kept


# ------------------------------------------------------------------ a simulated federation and its candidates

TODAY = datetime.date(2026, 11, 1)


@pytest.fixture
def federation(db):
    return publish_simulation(players=1000, months=6, seed=21)


def test_each_published_list_names_its_candidates_by_the_rule(federation):
    lists = list(RatingList.objects.current("standard").filter(is_imported=False).order_by("list_date"))
    assert len(lists) == 3
    assert TitleCandidate.objects.count() > 0
    for rating_list in lists:
        found = {(c.player_id, c.title) for c in TitleCandidate.objects.filter(rating_list=rating_list)}
        expected = set()
        for entry in RatingListEntry.objects.filter(rating_list=rating_list, rating__isnull=False):
            if entry.rated_games_total < TITLE_BY_RATING_MIN_GAMES:
                continue
            for track, held, women_only in (
                (("FM", "CM"), entry.title, False),
                (("WFM", "WCM"), entry.women_title, True),
            ):
                if women_only and entry.sex != "F":
                    continue
                best = next((t for t in track if entry.rating >= TITLE_THRESHOLDS[t].rating), None)
                if best and not title_covers(held, best):
                    expected.add((entry.player_id, best))
        assert found == expected, rating_list


def test_recording_a_candidate_shows_on_the_dashboard_profile_list_and_api(federation, client):
    officer = make_officer()
    officers = client_for(officer)
    newest = RatingList.objects.current("standard").order_by("-list_date").first()
    candidate = TitleCandidate.objects.filter(rating_list=newest).select_related("player").first()
    player = candidate.player
    desk = officers.get(reverse("admin:index")).content.decode()
    assert 'id="desk-titles"' in desk
    assert player.name in desk
    record = reverse("admin:ratings_titlecandidate_record", args=[candidate.pk])
    assert record in desk

    response = officers.post(record, {"next": reverse("admin:index")})

    assert response.status_code == 302
    award = TitleAward.objects.get(player=player)
    assert (award.title, award.date, award.method) == (candidate.title, newest.list_date, TitleMethod.RATING)
    candidate.refresh_from_db()
    assert candidate.award == award
    assert all(c.player_id != player.pk or c.title != candidate.title for c in title_candidates_open(10_000))
    player.refresh_from_db()
    held = player.women_title if candidate.title.startswith("W") else player.title
    assert held == candidate.title

    profile = client.get(reverse("players:profile", args=[player.id_number])).content.decode()
    assert 'id="titles"' in profile
    assert newest.list_date.isoformat() in profile
    assert "by rating" in profile

    page = client.get(reverse("ratings:detail", args=[newest.list_date, "standard"])).content.decode()
    assert 'id="new-titles"' in page
    assert player.name in page
    assert f"awarded {newest.list_date:%Y-%m-%d}" in page

    api = client.get(f"/api/v1/rating-lists/{newest.list_date}/standard/titles/").json()
    awards = api["new_titles"]["awards"]
    assert {"id_number": player.id_number, "title": candidate.title, "method": "rating"}.items() <= awards[0].items()
    by_player = {c["id_number"]: c for c in api["new_titles"]["candidates"]}
    assert by_player[player.id_number]["awarded"] == newest.list_date.isoformat()
    detail = client.get(f"/api/v1/players/{player.id_number}/").json()
    assert detail["title_awards"][0]["title"] == candidate.title

    # once recorded, the one-click award is refused with a message, not done twice
    again = officers.post(record, {"next": reverse("admin:index")}, follow=True)
    assert "was recorded already" in again.content.decode()
    assert TitleAward.objects.filter(player=player).count() == 1


def test_the_list_api_of_titles_runs_a_fixed_number_of_queries(federation, client, django_assert_max_num_queries):
    newest = RatingList.objects.current("standard").order_by("-list_date").first()
    url = f"/api/v1/rating-lists/{newest.list_date}/standard/titles/"
    client.get(url)
    with django_assert_max_num_queries(4):
        assert client.get(url).status_code == 200
    assert client.get("/api/v1/rating-lists/2001-01-01/standard/titles/").status_code == 404


def test_the_open_candidates_skip_players_who_hold_the_title_by_now(federation):
    first = title_candidates_open(10_000)
    assert first
    candidate = first[0]
    field = "women_title" if candidate.title.startswith("W") else "title"
    Player.objects.filter(pk=candidate.player_id).update(**{field: candidate.title}, updated_at=timezone.now())
    assert (candidate.player_id, candidate.title) not in {(c.player_id, c.title) for c in title_candidates_open(10_000)}
