"""Participants on the event page: a page of start ranks at a time, the player chosen by name or ID number
through the admin's autocomplete, checked against the participants of the other pages too; a newcomer
registered from the participant box waits for the duplicate check."""

import datetime

import pytest
from django.urls import reverse

from events.models import Participant
from players.models import Player
from tests.events.test_admin_roles import change_page_data, client_for, make_arbiter, make_officer
from tests.factories import make_event, make_participants, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    arbiter = make_arbiter()
    event = make_event(name="Paged Open", chief_arbiter=arbiter)
    make_participants(event, [make_player(surname=f"Q{n:02d}", id_number=5_500_000 + n) for n in range(1, 31)])
    return event


def test_the_event_page_shows_one_page_of_participants_with_an_autocomplete_labelled_by_name_and_id(event):
    client = client_for(event.chief_arbiter)
    url = reverse("admin:events_event_change", args=[event.pk])
    first = client.get(url)
    html = first.content.decode()
    forms = first.context["inline_admin_formsets"][0].formset.forms
    assert [f.instance.start_rank for f in forms] == list(range(1, 26))
    assert "admin-autocomplete" in html
    assert 'data-model-name="participant"' in html
    # the ID number the arbiter knows (not the database key), the federation: namesakes told apart (issue 32)
    assert ">Q01, Test (5500001) · ESP</option>" in html
    second = client.get(url + "?participants=2")
    assert [f.instance.start_rank for f in second.context["inline_admin_formsets"][0].formset.forms] == list(
        range(26, 31)
    )
    assert second.context["participant_pages"]["numbers"] == range(1, 3)


@pytest.mark.parametrize("term", ["5500007", "Q07"])
def test_the_player_box_finds_a_player_by_id_number_or_name(event, term):
    client = client_for(event.chief_arbiter)
    response = client.get(
        reverse("admin:events_event_player_choices"),
        {"app_label": "events", "model_name": "participant", "field_name": "player", "term": term, "event": event.pk},
    )
    assert response.status_code == 200
    assert [r["text"] for r in response.json()["results"]] == ["Q07, Test (5500007) · ESP · unrated"]


def test_a_player_already_on_another_page_is_refused_naming_the_rank(event):
    client = client_for(event.chief_arbiter)
    url = reverse("admin:events_event_change", args=[event.pk]) + "?participants=2"
    data = change_page_data(client.get(url))
    index = int(data["participants-TOTAL_FORMS"])
    already = Player.objects.get(id_number=5_500_003)
    data.update({f"participants-{index}-start_rank": "31", f"participants-{index}-player": str(already.pk)})
    data[f"participants-{index}-event"] = str(event.pk)
    data["participants-TOTAL_FORMS"] = str(index + 1)
    response = client.post(url, data)
    assert response.status_code == 200
    errors = str(response.context["inline_admin_formsets"][0].formset.non_form_errors())
    assert "Q03, Test (5500003) already takes part with starting rank 3 (on another page of participants)" in errors
    assert Participant.objects.filter(event=event).count() == 30


def test_a_start_rank_taken_on_another_page_is_refused(event):
    client = client_for(event.chief_arbiter)
    url = reverse("admin:events_event_change", args=[event.pk]) + "?participants=2"
    data = change_page_data(client.get(url))
    index = int(data["participants-TOTAL_FORMS"])
    newcomer = make_player(surname="Newcomer")
    data.update({f"participants-{index}-start_rank": "4", f"participants-{index}-player": str(newcomer.pk)})
    data["participants-TOTAL_FORMS"] = str(index + 1)
    response = client.post(url, data)
    errors = str(response.context["inline_admin_formsets"][0].formset.non_form_errors())
    assert "Starting rank 4 is already given to Q04, Test (5500004)" in errors


def test_a_new_player_added_on_the_last_page_is_saved(event):
    client = client_for(event.chief_arbiter)
    url = reverse("admin:events_event_change", args=[event.pk]) + "?participants=2"
    data = change_page_data(client.get(url))
    index = int(data["participants-TOTAL_FORMS"])
    newcomer = make_player(surname="Newcomer")
    data.update({f"participants-{index}-start_rank": "31", f"participants-{index}-player": str(newcomer.pk)})
    data["participants-TOTAL_FORMS"] = str(index + 1)
    assert client.post(url, data).status_code == 302
    assert Participant.objects.get(event=event, start_rank=31).player == newcomer


def test_a_player_registered_from_the_participant_box_waits_for_the_duplicate_check():
    officer = make_officer()
    client = client_for(officer)
    from players.models import Federation

    Federation.objects.get_or_create(code="ESP", defaults={"name": "Spain"})
    response = client.post(
        reverse("admin:players_player_add") + "?_to_field=id&_popup=1",
        {
            "_popup": "1",
            "id_number": "6600001",
            "surname": "Fresh",
            "given_names": "Face",
            "sex": "F",
            "federation": "ESP",
        },
    )
    assert response.status_code == 200, response.content[:500]
    assert Player.objects.get(id_number=6_600_001).needs_review is True


def test_a_new_participant_gets_the_rating_in_force_at_the_events_start(event):
    from tests.ratings.scenarios import starting_list

    newcomer = make_player(surname="Rated")
    later = make_player(surname="Later")
    starting_list(datetime.date(2026, 1, 1), {newcomer: 2105, later: 1999})
    client = client_for(event.chief_arbiter)
    url = reverse("admin:events_event_change", args=[event.pk]) + "?participants=2"
    data = change_page_data(client.get(url))
    index = int(data["participants-TOTAL_FORMS"])
    data.update({f"participants-{index}-start_rank": "31", f"participants-{index}-player": str(newcomer.pk)})
    data.update(
        {
            f"participants-{index + 1}-start_rank": "32",
            f"participants-{index + 1}-player": str(later.pk),
            f"participants-{index + 1}-rating": "2010",  # as the arbiter reports it: kept
        }
    )
    data["participants-TOTAL_FORMS"] = str(index + 2)
    assert client.post(url, data).status_code == 302
    assert Participant.objects.get(event=event, start_rank=31).rating == 2105
    assert Participant.objects.get(event=event, start_rank=32).rating == 2010


def test_new_participants_entered_without_a_start_rank_get_the_next_free_ones(event):
    client = client_for(event.chief_arbiter)
    url = reverse("admin:events_event_change", args=[event.pk]) + "?participants=2"
    data = change_page_data(client.get(url))
    index = int(data["participants-TOTAL_FORMS"])
    first, typed, second = (make_player(surname=name) for name in ("First", "Typed", "Second"))
    data.update({f"participants-{index}-player": str(first.pk)})  # no rank: after the event's 30 ...
    data.update({f"participants-{index + 1}-start_rank": "33", f"participants-{index + 1}-player": str(typed.pk)})
    data.update({f"participants-{index + 2}-player": str(second.pk)})  # ... and after the 33 typed beside it
    data["participants-TOTAL_FORMS"] = str(index + 3)
    assert client.post(url, data).status_code == 302
    ranks = dict(Participant.objects.filter(event=event, start_rank__gt=30).values_list("player", "start_rank"))
    assert ranks == {first.pk: 34, typed.pk: 33, second.pk: 35}


def test_a_new_participant_on_a_draft_without_dates_is_saved_without_a_rating_lookup(event):
    from events.models import Event

    Event.objects.filter(pk=event.pk).update(start_date=None, end_date=None)
    client = client_for(event.chief_arbiter)
    url = reverse("admin:events_event_change", args=[event.pk]) + "?participants=2"
    data = change_page_data(client.get(url))
    index = int(data["participants-TOTAL_FORMS"])
    newcomer = make_player(surname="Draftee")
    data.update({f"participants-{index}-start_rank": "31", f"participants-{index}-player": str(newcomer.pk)})
    data["participants-TOTAL_FORMS"] = str(index + 1)
    assert client.post(url, data).status_code == 302
    assert Participant.objects.get(event=event, start_rank=31).rating is None
