"""Digits typed into the admin's addresses and forms are read safely (issue 32, the fresh try): a number of
thousands of digits (past Python's integer-string limit) or a non-ASCII digit ("²" is a digit to str.isdigit but
not to int) is a clean page, a form error or a 404 — never a 500. core.pagination.whole_number reads them. (The
corrections page's ``?player=`` was already read with a length limit.)"""

import pytest
from django.urls import reverse

from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.factories import make_event, make_participants, make_player

pytestmark = pytest.mark.django_db

HUGE = "9" * 5000  # past sys.get_int_max_str_digits() (4300): int() raises ValueError
BAD_NUMBERS = [HUGE, "²", "1" * 19]


@pytest.fixture
def event():
    arbiter = make_arbiter()
    event = make_event(name="Digits Open", chief_arbiter=arbiter, rounds=3)
    players = [make_player(surname=f"D{n:02d}", given_names="Test", id_number=4_400_000 + n) for n in range(1, 5)]
    make_participants(event, players)
    return event, client_for(arbiter)


@pytest.mark.parametrize("value", BAD_NUMBERS)
@pytest.mark.parametrize("parameter", ["round", "participants"])
def test_event_page_reads_round_and_participants_page_safely(event, parameter, value):
    event, client = event
    response = client.get(reverse("admin:events_event_change", args=[event.pk]), {parameter: value})
    assert response.status_code == 200


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_flags_list_reads_the_event_safely(event, value):
    response = client_for(make_officer()).get("/admin/events/integrityflag/", {"event": value})
    assert response.status_code in (200, 302)  # the admin's own answer to a bad filter, never a 500


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_round_entry_reads_posted_counts_safely(event, value):
    event, client = event
    url = reverse("admin:events_event_round", args=[event.pk, 1])
    data = {"rows": value, "known": f"{value}:{value},1:{value}", "_save": "Save"}
    assert client.post(url, data).status_code in (200, 302)
    data = {"rows": "1", "known": "", "b0-meta": f"{value};;;", "b0-white": value, "b0-black": "2", "_save": "Save"}
    assert client.post(url, data).status_code in (200, 302)


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_a_posted_start_rank_of_thousands_of_digits_is_a_form_error(event, value):
    from tests.events.test_admin_roles import change_page_data

    event, client = event
    url = reverse("admin:events_event_change", args=[event.pk])
    data = change_page_data(client.get(url))
    index = int(data["participants-TOTAL_FORMS"])
    data[f"participants-{index}-start_rank"] = value
    data[f"participants-{index}-player"] = ""
    data["participants-TOTAL_FORMS"] = str(index + 1)
    response = client.post(url, data)
    assert response.status_code in (200, 302)
