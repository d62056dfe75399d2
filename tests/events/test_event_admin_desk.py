"""The arbiter's event admin (issue 32, slice 6): the event form shows what an arbiter fills in (the record folded
away, read-only), staff are chosen by autocomplete instead of selects of every staff member, the participant rows
never offer to delete or edit the player record, the player autocomplete tells namesakes apart, many participants
are added at once from a pasted list (all or nothing, refused lines named), the events list keeps its status
beside the name, and the corrections page shows one round (or one player) at a time."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.urls import reverse

from audit.models import AuditEvent
from events.models import Event, EventStatus, Game, Participant, Result
from events.roles import ARBITERS
from tests.events.test_admin_roles import client_for, formset_data, make_arbiter, make_officer
from tests.factories import make_event, make_federation, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db

# The event page of a 40-player draft as an official: session, user, permissions, the event, participants (their
# players), rounds summary, standings, corrections, timeline, flags, … — the same with 3 or 300 staff members.
EVENT_PAGE_QUERIES = 21


def url(name, *args):
    return reverse(f"admin:events_event_{name}", args=args)


def many_staff(count: int) -> None:
    users = get_user_model().objects.bulk_create(
        [get_user_model()(username=f"staff{n:03d}", is_staff=True) for n in range(count)]
    )
    Group.objects.get(name=ARBITERS).user_set.add(*users)


@pytest.fixture
def draft():
    arbiter = make_arbiter()
    event = make_event(name="Desk Open", chief_arbiter=arbiter, rounds=5, federation=make_federation())
    make_participants(event, [make_player(surname=f"Desk{n:02d}", id_number=6_600_000 + n) for n in range(1, 41)])
    return event


def options_in(html: str) -> int:
    return len(re.findall(r"<option[\s>]", html))


# --- the form: fields an arbiter fills in, the record read-only and folded ----------------------------------------


def test_the_arbiter_form_shows_what_an_arbiter_fills_in_and_folds_the_record(draft):
    Event.objects.filter(pk=draft.pk).update(
        source_file_name="open.trf",
        results_without_opponent=[{"round": 3, "start_rank": 12, "result": "1", "line": 40, "column": 92}],
    )
    response = client_for(draft.chief_arbiter).get(url("change", draft.pk))
    html = response.content.decode()
    form = response.context["adminform"].form
    for name in ("name", "city", "start_date", "end_date", "rating_type", "system", "rounds", "organiser"):
        assert name in form.fields, name
    # The system's own fields are never inputs, and no raw JSON help text is shown.
    for internal in ("source_file_name", "status", "created_at", "updated_at", "results_without_opponent"):
        assert internal not in form.fields
        assert f'name="{internal}"' not in html
    assert '[{"round"' not in html
    # They are read in a folded "Record" section: the file's name, and the results still to enter in words.
    record = next(fs for fs in response.context["adminform"] if fs.name == "Record")
    assert "collapse" in record.classes
    assert "open.trf" in html
    assert "Round 3, start rank 12: 1 (line 40)" in html


def test_an_arbiter_sees_the_assignments_but_does_not_choose_them(draft):
    form = client_for(draft.chief_arbiter).get(url("change", draft.pk)).context["adminform"].form
    assert "chief_arbiter" not in form.fields
    assert "arbiters" not in form.fields


@pytest.mark.parametrize("staff", [3, 300])
def test_the_event_page_renders_no_option_per_staff_member_nor_more_queries(
    draft, staff, django_assert_max_num_queries
):
    many_staff(staff)
    client = client_for(make_officer())
    with django_assert_max_num_queries(EVENT_PAGE_QUERIES):
        response = client.get(url("change", draft.pk))
    html = response.content.decode()
    # Before: every staff member twice (chief arbiter's select, arbiters' two-box filter) — 600+ options with 300.
    # Now: the selects of rating type and system, and the chosen participants and staff only.
    assert options_in(html) < 60, options_in(html)
    assert 'id="id_arbiters_from"' not in html  # no two-box filter of every staff member
    assert reverse("admin:events_event_staff_choices") in html


def test_the_staff_autocomplete_offers_event_staff_to_officials_only(draft):
    many_staff(5)
    get_user_model().objects.create_user("outsider", is_staff=True)  # staff of neither role: never offered
    params = {"app_label": "events", "model_name": "event", "field_name": "arbiters", "term": "staff00"}
    found = client_for(make_officer()).get(url("staff_choices"), params)
    assert found.status_code == 200
    assert [r["text"] for r in found.json()["results"]] == [f"staff00{n}" for n in range(5)]
    params["term"] = "outsider"
    assert client_for(make_officer("officer2")).get(url("staff_choices"), params).json()["results"] == []
    assert client_for(draft.chief_arbiter).get(url("staff_choices"), params).status_code == 403


# --- participants: no delete/change icons for the player; labels that tell namesakes apart ------------------------


def test_a_participant_row_never_offers_to_change_or_delete_the_player_record(draft):
    html = client_for(draft.chief_arbiter).get(url("change", draft.pk)).content.decode()
    rows = html[html.index('id="participants-group"') :]
    assert "delete_id_participants-0-player" not in rows
    assert "change_id_participants-0-player" not in rows
    assert "view_id_participants-0-player" not in rows
    assert "add_id_participants-0-player" in rows  # "+" still registers a newcomer
    assert 'name="participants-0-DELETE"' in rows  # removing the participant stays
    # Nor does the event form edit or delete its federation.
    assert "delete_id_federation" not in html
    assert "change_id_federation" not in html


def test_the_player_autocomplete_shows_federation_birth_year_and_rating_in_force(draft, monkeypatch):
    fra = make_federation("FRA", "France")
    twins = [
        make_player(surname="Moreno", given_names="Elena", id_number=2_400_001, birth_year=1990),
        make_player(surname="Moreno", given_names="Elena", id_number=2_400_002, birth_year=2004, federation=fra),
    ]
    asked = []

    def in_force(rating_type, day, player_ids):
        asked.append((rating_type, day))
        return {twins[0].pk: 2150}

    monkeypatch.setattr("events.admin.autocomplete.participant_ratings_in_force", in_force)
    params = {"app_label": "events", "model_name": "participant", "field_name": "player", "term": "MORENO, E"}
    response = client_for(draft.chief_arbiter).get(url("player_choices"), {**params, "event": draft.pk})
    assert [r["text"] for r in response.json()["results"]] == [
        "Moreno, Elena (2400001) · ESP · b. 1990 · 2150",
        "Moreno, Elena (2400002) · FRA · b. 2004 · unrated",
    ]
    assert asked == [(draft.rating_type, draft.start_date)]  # the list in force at the event's start


def test_the_player_autocomplete_leaves_merged_records_out(draft):
    kept = make_player(surname="Merged", id_number=2_500_001)
    make_player(surname="Merged", id_number=2_500_002, merged_into=kept)
    params = {"app_label": "events", "model_name": "participant", "field_name": "player", "term": "MERGED"}
    results = client_for(draft.chief_arbiter).get(url("player_choices"), params).json()["results"]
    assert [r["id"] for r in results] == [str(kept.pk)]


# --- many participants at once --------------------------------------------------------------------------------------


def test_an_arbiter_pastes_many_participants_by_id_number_and_name(draft):
    newcomers = [make_player(surname=f"New{n}", given_names="Ana", id_number=7_700_000 + n) for n in range(1, 4)]
    client = client_for(draft.chief_arbiter)
    page = client.get(url("change", draft.pk)).content.decode()
    assert url("participants_add", draft.pk) in page
    text = "7700001\n\n  new2,   ana \n7700003\tESP\t2100\n"
    response = client.post(url("participants_add", draft.pk), {"players": text})
    assert response.status_code == 302
    assert response["Location"].endswith("?participants=2")  # the page of the new starting ranks
    added = list(Participant.objects.filter(event=draft, start_rank__gt=40).order_by("start_rank"))
    assert [(p.start_rank, p.player_id) for p in added] == [(41 + n, player.pk) for n, player in enumerate(newcomers)]
    assert AuditEvent.objects.filter(action="event.participants_add", object_id=str(draft.pk)).exists()


def test_a_pasted_list_with_unknown_lines_adds_nothing_and_names_each_line(draft):
    make_player(surname="Twin", given_names="Ann", id_number=7_800_001)
    make_player(surname="Twin", given_names="Ann", id_number=7_800_002)
    known = make_player(surname="Known", id_number=7_800_003)
    text = "\n".join(["7800003", "99999999", "Nobody, Here", "Twin, Ann", "6600005", "7800003"])
    response = client_for(draft.chief_arbiter).post(url("participants_add", draft.pk), {"players": text})
    assert response.status_code == 200
    errors = response.context["form"].errors["players"]
    assert errors == [
        "Line 2: no player has ID number 99999999.",
        "Line 3: no player is named “Nobody, Here”; enter the ID number, or register the player.",
        "Line 4: 2 players are named “Twin, Ann” (ID numbers 7800001, 7800002); enter the ID number.",
        "Line 5: Desk05, Test (6600005) already takes part (starting rank 5).",
        f"Line 6: {known} is listed twice (also line 1).",
    ]
    assert Participant.objects.filter(event=draft).count() == 40  # nothing written
    assert "Traceback" not in response.content.decode()


def test_a_submitted_event_takes_no_pasted_participants(draft):
    Event.objects.filter(pk=draft.pk).update(status=EventStatus.SUBMITTED)
    client = client_for(draft.chief_arbiter)
    assert client.post(url("participants_add", draft.pk), {"players": "6600001"}).status_code == 403


def test_another_arbiters_event_takes_no_pasted_participants(draft):
    response = client_for(make_arbiter("other")).post(url("participants_add", draft.pk), {"players": "1"})
    assert response.status_code == 302  # the change page's answer for an event they do not see
    assert Participant.objects.filter(event=draft).count() == 40


# --- the events list ----------------------------------------------------------------------------------------------


def test_the_events_list_puts_the_status_beside_the_name_and_dates_in_one_column(draft):
    response = client_for(make_officer()).get(url("changelist"))
    html = response.content.decode()
    columns = [name for name in response.context["cl"].list_display if name != "action_checkbox"]
    assert columns[:3] == ["event_name", "event_status", "dates"]
    assert len(columns) <= 7  # from 10: the row fits 1280 px
    assert "2026-01-10 – 01-12" in html
    assert "Standard · Swiss · 5 rounds" in html


# --- corrections: a round (or a player) at a time ------------------------------------------------------------------


@pytest.fixture
def rated():
    event = make_event(name="Rated Swiss", rounds=9, status=EventStatus.RATED)
    people = make_participants(event, [make_player(surname=f"R{n:03d}") for n in range(1, 61)])
    for round_ in range(1, 10):
        for board in range(30):
            make_game(event, round_, people[(board + round_) % 60], people[(board + round_ + 30) % 60], board=board + 1)
    return event


def test_the_corrections_page_shows_one_round_at_a_time(rated, django_assert_max_num_queries):
    client = client_for(make_officer())
    with django_assert_max_num_queries(12):
        first = client.get(url("correct", rated.pk))
    games = first.context["formset"].initial_forms
    assert {form.instance.round for form in games} == {1}
    assert len(games) == 30
    fourth = client.get(url("correct", rated.pk) + "?round=4").context["formset"].initial_forms
    assert {form.instance.round for form in fourth} == {4}


def test_the_corrections_page_shows_one_players_games_and_saves_a_change_there(rated):
    officer = make_officer()
    client = client_for(officer)
    page = client.get(url("correct", rated.pk) + "?player=7")
    games = page.context["formset"].initial_forms
    assert len(games) == 9
    assert all(7 in (form.instance.white.start_rank, form.instance.black.start_rank) for form in games)
    data = {"reason": "round 5 reported reversed", **formset_data(page.context["formset"])}
    index = next(i for i, form in enumerate(games) if form.instance.round == 5)
    data[f"games-{index}-result"] = Result.BLACK_WIN
    assert client.post(url("correct", rated.pk) + "?player=7", data).status_code == 302
    changed = Game.objects.get(pk=games[index].instance.pk)
    assert changed.result == Result.BLACK_WIN
    assert Game.objects.filter(event=rated).exclude(pk=changed.pk).exclude(result=Result.DRAW).count() == 0


def test_an_unknown_starting_rank_on_the_corrections_page_is_said_and_round_one_shown(rated):
    page = client_for(make_officer()).get(url("correct", rated.pk) + "?player=999")
    assert "No participant has starting rank 999" in page.content.decode()
    assert {form.instance.round for form in page.context["formset"].initial_forms} == {1}
