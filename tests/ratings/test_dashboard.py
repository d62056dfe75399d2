"""The admin start page: the rating officer's dashboard, checked figure by figure against the database of a
simulated federation (and against the list once it is published), and the arbiter's desk; both with a fixed
number of queries."""

import datetime

import pytest
from django.db import connection
from django.urls import reverse

from events.models import Event, EventStatus, RatingType
from outbox.models import PendingTask
from players.models import Player
from ratings.models import RatingListEntry
from ratings.selectors_dashboard import dashboard_read
from ratings.services import rating_list_publish
from ratings.services.simulation import federation_simulate
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer
from tests.factories import make_event, make_game, make_participants, make_player

pytestmark = pytest.mark.django_db

TODAY = datetime.date(2026, 3, 10)
NEXT_LIST = datetime.date(2026, 3, 1)
# Session, user, permissions (user and group), is_official, event statuses, events waiting, last publications,
# publication tasks, players to review (count, names), outbox (unsent, failing), and per rating type (3): policy,
# newest list, draft, events pending / later / held by an open integrity flag (issue 32), then the live preview
# (the publication's bulk reads) and the movers' names; the open flags; the open candidates for titles by rating
# (issue 33, one) and the norms that complete an application (one more); the admin's app list. Measured, and
# the same for 120 or 200 simulated players. Per database:
# on PostgreSQL the preview's bulk reads are partly COPY statements, which the query counter does not see, and the
# current ratings check their bound (ratings.models.current_lists_check_queries).
OFFICER_INDEX_QUERIES = {"sqlite": 64, "postgresql": 60}
# Session, user, permissions (user and group), is_official, the events with their counts, their rounds:
# measured, the same for 3 or 13 events.
ARBITER_INDEX_QUERIES = 7


def simulated(players: int):
    summary = federation_simulate(players, 2, seed=18, today=TODAY, games_per_month=players)
    extra = Event.objects.filter(status=EventStatus.SUBMITTED).order_by("pk").first()
    # A draft still being entered, an event ending after the closing date, newcomers to check, tasks waiting.
    make_event(name="Draft Open", start_date=datetime.date(2026, 3, 5))
    make_event(
        name="Late Open", start_date=datetime.date(2026, 2, 25), status=EventStatus.SUBMITTED, rating_type="standard"
    )
    make_player(surname="Newcomer", needs_review=True)
    PendingTask.objects.create(name="ratings.publish_rating_list", args=["standard", "2026-03-01"])
    PendingTask.objects.create(name="public.refresh", args=[], last_error="broker down")
    return summary, extra


@pytest.fixture
def federation():
    return simulated(120)


def test_the_dashboard_counts_every_status_and_what_waits(federation):
    board = dashboard_read(TODAY)
    for status, _label, count in board.statuses:
        assert count == Event.objects.filter(status=status).count()
    assert [status for status, _, _ in board.statuses] == list(EventStatus.values)
    assert board.review_count == Player.objects.filter(needs_review=True, merged_into__isnull=True).count() >= 1
    assert board.tasks_pending == PendingTask.objects.filter(sent_at__isnull=True).count() == 2
    assert board.tasks_failing == 1
    assert [line.state for line in board.publications_running] == ["queued"]
    assert {e.status for e in board.attention} <= {s for s in EventStatus.values if s not in ("draft", "rated")}


def test_the_next_list_its_closing_date_and_its_events(federation):
    standard = next(o for o in dashboard_read(TODAY).lists if o.rating_type == RatingType.STANDARD)
    assert (standard.list_date, standard.closing_date) == (NEXT_LIST, datetime.date(2026, 2, 22))
    assert standard.days_to_closing == -16
    waiting = Event.objects.filter(rating_type="standard", status=EventStatus.SUBMITTED, rated_on__isnull=True)
    assert standard.events_pending == waiting.filter(end_date__lte=standard.closing_date).count() > 0
    assert standard.events_later == waiting.filter(end_date__gt=standard.closing_date).count() >= 1  # Late Open


def test_the_live_preview_says_what_the_published_list_then_says(federation):
    standard = next(o for o in dashboard_read(TODAY).lists if o.rating_type == RatingType.STANDARD)
    preview = standard.preview
    assert preview is not None
    published = rating_list_publish(RatingType.STANDARD, NEXT_LIST, today=TODAY).rating_list
    entries = RatingListEntry.objects.filter(rating_list=published)
    assert preview.entries == published.entry_count == entries.count()
    assert preview.new_ratings == published.new_rating_count == entries.filter(is_new_rating=True).count()
    assert preview.dropped == published.dropped_count
    assert preview.changing == entries.exclude(change=0).exclude(change__isnull=True).count() > 0
    biggest = sorted(
        (abs(c) for c in entries.exclude(change__isnull=True).values_list("change", flat=True)), reverse=True
    )
    assert [abs(round(m.change)) for m in preview.movers] == biggest[: len(preview.movers)]
    new_ids = set(entries.filter(is_new_rating=True).values_list("player__id_number", flat=True))
    assert {f.id_number for f in preview.new} <= new_ids


def test_the_officials_start_page_shows_the_dashboard(federation, django_assert_num_queries):
    client = client_for(make_officer())
    client.get(reverse("admin:index"))
    with django_assert_num_queries(OFFICER_INDEX_QUERIES[connection.vendor]):
        response = client.get(reverse("admin:index"))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="desk-list-standard"' in html
    assert "Next Standard list: 2026-03-01" in html
    assert "new players waiting for the duplicate check" in html
    assert reverse("admin:events_event_changelist") in html  # the model list stays below


def test_the_officials_dashboard_runs_the_same_queries_on_a_bigger_federation(django_assert_num_queries):
    simulated(200)
    client = client_for(make_officer())
    client.get(reverse("admin:index"))
    with django_assert_num_queries(OFFICER_INDEX_QUERIES[connection.vendor]):
        assert client.get(reverse("admin:index")).status_code == 200


@pytest.mark.parametrize("events", [2, 12])
def test_the_arbiters_start_page_lists_their_events_by_status_with_what_each_needs(events, django_assert_num_queries):
    arbiter = make_arbiter()
    other = make_event(name="Someone else's")
    make_participants(other, [make_player(), make_player()])
    for n in range(events):
        event = make_event(name=f"Mine {n}", chief_arbiter=arbiter, rounds=3)
        people = make_participants(event, [make_player() for _ in range(4)])
        make_game(event, 1, people[0], people[1], result="1-0", board=1)
        make_game(event, 1, people[2], people[3], result="*", board=2)
    empty = make_event(name="Empty Open", chief_arbiter=arbiter)
    client = client_for(arbiter)
    client.get(reverse("admin:index"))
    with django_assert_num_queries(ARBITER_INDEX_QUERIES):
        response = client.get(reverse("admin:index"))
    html = response.content.decode()
    assert "Someone else&#x27;s" not in html
    assert "Someone else's" not in html
    assert f"Mine {events - 1}" in html
    assert "Empty Open" in html
    assert "1 game without a result" in html
    assert "enter round(s) 2, 3" in html
    assert "enter the participants (or upload the TRF file)" in html
    assert reverse("admin:events_event_round", args=[empty.pk, 1]) in html
