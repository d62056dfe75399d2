"""Integrity flags have their own list and pages in the admin (issue 32). The Clear form used to sit inside the
event's change form: browsers drop a nested form, so Clear re-saved the event and the flag stayed open. Now the
event page holds no form but its own, and officials clear flags from the list (one or several, with a reason)
or from a flag's page; the dashboard names the submitted events a flag holds off the next list."""

import datetime as dt
import re

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from events.models import EventStatus, IntegrityCheck, IntegrityFlag
from ratings.selectors_dashboard import dashboard_read
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.factories import make_event

pytestmark = pytest.mark.django_db

LIST = "/admin/events/integrityflag/"


@pytest.fixture
def arbiter():
    return make_arbiter()


@pytest.fixture
def flagged(arbiter):
    event = make_event(
        name="Held Open",
        status=EventStatus.SUBMITTED,
        chief_arbiter=arbiter,
        start_date=dt.date(2026, 1, 10),
    )
    flag = IntegrityFlag.objects.create(
        event=event,
        kind=IntegrityCheck.DUPLICATE_EVENT,
        rule="Shares 90% of players with another event",
        evidence={"shared_players": 27},
    )
    return event, flag


def forms_in(page: str) -> list[str]:
    """The <form> tags of a page, in order, with whether each opens before the previous one closed."""
    nested, depth = [], 0
    for tag in re.findall(r"<form\b|</form>", page):
        if tag == "</form>":
            depth -= 1
            continue
        nested.append("nested" if depth else "top")
        depth += 1
    return nested


def clear_url(flag):
    return reverse("admin:events_integrityflag_clear", args=[flag.pk])


def test_the_event_page_has_no_form_inside_its_change_form(flagged):
    event, flag = flagged
    page = client_for(make_officer()).get(reverse("admin:events_event_change", args=[event.pk])).content.decode()
    assert 'id="event-integrity-flags"' in page
    assert "nested" not in forms_in(page)
    # each open flag links to its own page, where the clear form is a form of its own
    assert f"{reverse('admin:events_integrityflag_change', args=[flag.pk])}#clear-flag" in page
    flag_page = client_for(make_officer("officer2")).get(reverse("admin:events_integrityflag_change", args=[flag.pk]))
    text = flag_page.content.decode()
    assert 'id="clear-flag"' in text
    assert f'action="{clear_url(flag)}"' in text
    assert "nested" not in forms_in(text)


def test_an_official_clears_a_flag_from_its_page_with_a_reason(flagged):
    event, flag = flagged
    client = client_for(make_officer())
    refused = client.post(clear_url(flag), {"reason": "  "}, follow=True)
    assert "This field is required." in refused.content.decode()
    assert IntegrityFlag.objects.get(pk=flag.pk).cleared_at is None
    done = client.post(clear_url(flag), {"reason": "Two sections of one festival."}, follow=True)
    assert "1 flag cleared" in done.content.decode()
    flag.refresh_from_db()
    assert flag.cleared_at is not None
    assert flag.clear_reason == "Two sections of one festival."
    audit = AuditEvent.objects.get(action="event.integrity_clear", object_id=str(event.pk))
    assert audit.reason == "Two sections of one festival."
    again = client.post(clear_url(flag), {"reason": "again"}, follow=True).content.decode()
    assert "already cleared" in again


def test_the_arbiter_sees_the_flag_on_the_event_but_cannot_clear_or_list_flags(flagged, arbiter):
    event, flag = flagged
    client = client_for(arbiter)
    page = client.get(reverse("admin:events_event_change", args=[event.pk])).content.decode()
    assert "a rating officer must clear it" in page
    assert "#clear-flag" not in page
    assert client.get(LIST).status_code == 403
    assert client.post(clear_url(flag), {"reason": "fine"}).status_code == 403
    assert IntegrityFlag.objects.get(pk=flag.pk).cleared_at is None


def test_the_list_shows_open_flags_first_and_filters_by_state_event_and_check(flagged):
    _event, flag = flagged
    other = make_event(name="Other Open", status=EventStatus.SUBMITTED)
    cleared = IntegrityFlag.objects.create(
        event=other,
        kind=IntegrityCheck.PERFORMANCE,
        rule="Performance",
        cleared_at=dt.datetime(2026, 2, 1, tzinfo=dt.UTC),
    )
    client = client_for(make_officer())

    def shown(query=""):
        return set(client.get(LIST + query).context["cl"].result_list)

    assert shown() == {flag}  # open, by default
    assert shown("?state=cleared") == {cleared}
    assert shown("?state=all") == {flag, cleared}
    assert shown(f"?state=all&event={other.pk}") == {cleared}
    assert shown("?state=all&kind__exact=duplicate_event") == {flag}
    assert shown("?event=nonsense") == set()


def test_several_flags_are_cleared_at_once_from_the_list_with_one_reason(flagged):
    event, flag = flagged
    second = IntegrityFlag.objects.create(event=event, kind=IntegrityCheck.PERFORMANCE, rule="Performance")
    client = client_for(make_officer())
    picked = {"action": "clear_selected", "_selected_action": [flag.pk, second.pk]}
    ask = client.post(LIST, picked)
    assert ask.status_code == 200
    assert "Clear integrity flags" in ask.content.decode()
    assert IntegrityFlag.objects.filter(cleared_at__isnull=True).count() == 2
    client.post(LIST, {**picked, "apply": "yes", "reason": ""})
    assert IntegrityFlag.objects.filter(cleared_at__isnull=True).count() == 2  # no reason, nothing cleared
    done = client.post(LIST, {**picked, "apply": "yes", "reason": "Checked with the organiser."}, follow=True)
    assert "2 flags cleared" in done.content.decode()
    assert set(IntegrityFlag.objects.values_list("clear_reason", flat=True)) == {"Checked with the organiser."}
    assert AuditEvent.objects.filter(action="event.integrity_clear").count() == 2


def test_the_flag_list_reads_a_fixed_number_of_queries(flagged, django_assert_num_queries):
    event, _flag = flagged
    for n in range(5):
        IntegrityFlag.objects.create(event=event, kind=IntegrityCheck.PERFORMANCE, rule=f"Performance {n}")
    client = client_for(make_officer())
    client.get(LIST)  # warm the session and permission caches
    # session, user, permissions (user, group), the filter's events, counts (filtered, total), the page
    with django_assert_num_queries(9):
        client.get(LIST)


def test_the_dashboard_names_the_events_a_flag_holds_off_the_next_list(flagged):
    event, _flag = flagged
    make_event(name="Free Open", status=EventStatus.SUBMITTED, start_date=dt.date(2026, 1, 11))
    board = dashboard_read(dt.date(2026, 3, 10), preview=False)
    standard = next(o for o in board.lists if o.rating_type == "standard")
    assert standard.events_pending == 1  # Free Open
    assert [e.name for e in standard.events_held] == ["Held Open"]
    assert standard.events_held_count == 1
    assert board.flags_open == 1
    page = client_for(make_officer()).get("/admin/").content.decode()
    assert 'id="desk-held-standard"' in page
    assert "1 submitted event is held off this list by an open integrity flag:" in page
    assert f'href="{LIST}?event={event.pk}">Held Open</a>' in page
