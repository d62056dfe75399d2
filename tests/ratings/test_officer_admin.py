"""The rating officer's admin pages, server side: "Preview or publish" checks a request before queueing it (the
Celery path through the outbox as before) and follows it on a progress page; a list's page shows its entries,
paged, and its rules in words; tasks are listed by what they do; the laboratory's presets have names and default
to the federation's policy."""

import datetime
from types import SimpleNamespace

import pytest
from django.urls import reverse
from django.utils import timezone

from outbox.models import PendingTask
from ratings.admin_lab import BacktestRunForm
from ratings.models import RatingPolicy
from ratings.services import rating_list_compute_preview, rating_list_publish, rating_policy_for
from tests.ratings.scenarios import JAN, MAR, build_federation

pytestmark = pytest.mark.django_db

PUBLISH = reverse("admin:ratings_ratinglist_publish")


@pytest.fixture
def sent(monkeypatch):
    from federation.celery import app

    calls = []
    monkeypatch.setattr(
        app,
        "send_task",
        lambda name, args=None, **kw: calls.append((name, tuple(args))) or SimpleNamespace(id=f"t{len(calls)}"),
    )
    return calls


@pytest.fixture
def on_march_10(monkeypatch):
    monkeypatch.setattr(timezone, "localdate", lambda *a: datetime.date(2026, 3, 10))


def test_the_page_shows_each_type_with_its_next_list_and_no_action_drop_down(
    admin_client, on_march_10, django_assert_max_num_queries
):
    build_federation()
    admin_client.get(PUBLISH)  # policies created on demand the first time
    with django_assert_max_num_queries(16):  # three rating types, whatever the number of lists and tasks
        page = admin_client.get(PUBLISH)
    html = page.content.decode()
    assert page.status_code == 200
    assert [card["rating_type"] for card in page.context["cards"]] == ["standard", "rapid", "blitz"]
    standard = page.context["cards"][0]
    assert standard["next_date"] == MAR
    assert standard["due"]
    assert 'name="action"' not in html
    assert html.count('value="preview"') == 3


def test_preview_queues_the_task_after_commit_and_opens_its_progress(
    admin_client, admin_user, sent, on_march_10, django_capture_on_commit_callbacks
):
    build_federation()
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(PUBLISH, {"rating_type": "standard", "list_date": "2026-03-01", "do": "preview"})
    task = PendingTask.objects.get()
    assert response["Location"] == reverse("admin:ratings_ratinglist_task", args=[task.pk])
    assert sent == [("ratings.compute_rating_list_preview", ("standard", "2026-03-01", admin_user.pk))]
    progress = admin_client.get(response["Location"]).content.decode()
    assert "Compute a draft preview of a rating list" in progress
    assert 'http-equiv="refresh"' in progress  # not finished: the page follows the job
    # the worker computes the draft and reports the end; the page then links to the list
    draft = rating_list_compute_preview("standard", MAR)
    PendingTask.objects.filter(pk=task.pk).update(finished_at=timezone.now())
    done = admin_client.get(response["Location"])
    assert done.context["rating_list"] == draft
    assert 'http-equiv="refresh"' not in done.content.decode()


def test_a_request_the_worker_would_refuse_is_refused_on_the_page_and_nothing_is_queued(admin_client, on_march_10):
    build_federation()
    rating_list_publish("standard", MAR)
    queued = PendingTask.objects.count()  # the publication's own e-mails
    cases = [
        ({"list_date": "2026-05-01", "do": "publish"}, "not due yet"),
        ({"list_date": "2026-03-01", "do": "preview"}, "already published"),
        ({"list_date": "2026-04-01", "do": "preview"}, "is not a standard list date"),
        ({"list_date": "not a date", "do": "preview"}, "Enter a valid date."),
    ]
    for data, message in cases:
        page = admin_client.post(PUBLISH, {"rating_type": "standard", **data})
        assert page.status_code == 200
        assert message in page.content.decode(), message
    assert PendingTask.objects.count() == queued


def test_a_finished_request_that_left_no_list_says_why(admin_client, on_march_10):
    build_federation()
    rating_list_publish("standard", MAR)
    task = PendingTask.objects.create(
        name="ratings.compute_rating_list_preview", args=["standard", "2026-03-01", None], finished_at=timezone.now()
    )
    page = admin_client.get(reverse("admin:ratings_ratinglist_task", args=[task.pk]))
    assert page.context["task"]["failed"]
    assert "already published" in page.context["task"]["error"]


def test_a_draft_list_shows_its_entries_paged_and_its_rules_in_words(admin_client, django_assert_max_num_queries):
    build_federation()
    draft = rating_list_compute_preview("standard", MAR)
    url = reverse("admin:ratings_ratinglist_change", args=[draft.pk])
    admin_client.get(url)
    with django_assert_max_num_queries(20):
        page = admin_client.get(url)
    html = page.content.decode()
    lines = page.context["entries"]["lines"]
    assert len(lines) == draft.rated_count
    assert [line["entry"].position for line in lines] == list(range(1, draft.rated_count + 1))
    for line in lines:
        if line["entry"].change is not None and not line["entry"].is_new_rating:
            assert line["old"] + line["entry"].change == line["entry"].rating
    assert "{&quot;" not in html  # no JSON blob
    assert "FIDE B.02 2024 (as amended 1 Oct 2025) (fide-2024)" in html
    new = admin_client.get(url, {"show": "new"}).context["entries"]
    assert new["paginator"].count == draft.new_rating_count
    assert 'name="_save"' not in html  # nothing here is edited


def test_tasks_are_listed_by_what_they_do(admin_client):
    PendingTask.objects.create(name="ratings.publish_rating_list", args=["standard", "2026-03-01", None])
    html = admin_client.get(reverse("admin:outbox_pendingtask_changelist")).content.decode()
    assert "Publish a rating list" in html
    assert "waiting to be sent" in html
    rating_policy_for("standard")  # creates its periodic task
    periodic = admin_client.get(reverse("admin:django_celery_beat_periodictask_changelist")).content.decode()
    assert "Publish the rating list due today (schedule)" in periodic


def test_tasks_are_listed_by_what_they_do_in_spanish(admin_client):
    PendingTask.objects.create(name="ratings.publish_rating_list", args=["standard", "2026-03-01", None])
    html = admin_client.get(reverse("admin:outbox_pendingtask_changelist"), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Publicar una lista de Elo" in html


def test_backtest_presets_have_names_and_default_to_the_policy_of_the_type(admin_client):
    rating_policy_for("standard")
    RatingPolicy.objects.filter(rating_type="standard").update(rules_preset="fide-2014")
    rating_policy_for("rapid")
    choices = dict(BacktestRunForm().fields["rules_preset"].choices)
    assert choices["fide-2024"] == "FIDE B.02 2024 (as amended 1 Oct 2025) (fide-2024)"
    page = admin_client.get("/admin/ratings/backtestrun/add/")
    assert page.context["adminform"].form.initial["rules_preset"] == "fide-2014"
    rapid = admin_client.get("/admin/ratings/backtestrun/add/", {"rating_type": "rapid"})
    assert rapid.context["adminform"].form.initial["rules_preset"] == "fide-2024"
    assert "Standard: FIDE rating regulations 1 Jul 2014 (fide-2014)" in page.content.decode()


def test_a_rating_that_fell_below_the_floor_shows_where_from_and_where_to(admin_client):
    from ratings.models import RatingList, RatingListEntry
    from tests.factories import make_player

    player = make_player(surname="Rodriguez", given_names="Javier")
    lists = {}
    for day, previous in ((JAN, None), (MAR, "jan")):
        lists["jan" if day == JAN else "mar"] = RatingList.objects.create(
            rating_type="standard",
            list_date=day,
            closing_date=day,
            status="published",
            rules_preset="fide-2024",
            rules={},
            previous=lists.get(previous) if previous else None,
        )
    RatingListEntry.objects.create(rating_list=lists["jan"], player=player, rating=1466, position=1)
    RatingListEntry.objects.create(
        rating_list=lists["mar"], player=player, rating=None, change=-133, dropped_below_floor=True, games=12
    )
    url = reverse("admin:ratings_ratinglist_change", args=[lists["mar"].pk])
    page = admin_client.get(url, {"show": "dropped"})
    (line,) = page.context["entries"]["lines"]
    assert (line["old"], line["change"], line["fell_to"]) == (1466, "\u2212133", 1333)
    assert "below the floor (1333): unrated" in page.content.decode()
