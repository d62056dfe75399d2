"""The laboratory in the admin: queue a backtest (a Celery job through the outbox), its progress and report,
runs compared side by side, CSV export; officials only."""

import csv
import io

import pytest
from django.contrib.auth import get_user_model

from outbox.models import PendingTask
from ratings.models import BacktestRun, BacktestRunStatus
from ratings.services.laboratory import backtest_run_create, backtest_run_execute
from ratings.tasks import run_backtest_task

ADD = "/admin/ratings/backtestrun/add/"


def test_an_official_queues_a_run_and_the_job_fills_it(simulated, admin_client):
    response = admin_client.post(
        ADD, {"rating_type": "standard", "rules_preset": "fide-2024", "overrides": "", "start": "", "end": ""}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    run = BacktestRun.objects.get()
    assert run.status == BacktestRunStatus.QUEUED
    task = PendingTask.objects.get(name="ratings.run_backtest")
    assert task.args == [run.pk]
    page = admin_client.get(f"/admin/ratings/backtestrun/{run.pk}/change/").content.decode()
    assert "<progress" in page
    assert 'http-equiv="refresh"' in page
    # the job (what the worker runs)
    assert run_backtest_task(run.pk) == {"run": run.pk, "status": "done", "lists": 3}
    run.refresh_from_db()
    assert run.progress_percent == 100
    assert run.lists_done == run.lists_total == 3
    assert run.result["summary"]["differences"] == 0
    assert len(run.result["difference_distribution"]) == 3
    assert all(item["bars"] == [[0, item_total]] for item, item_total in _totals(run))
    page = admin_client.get(f"/admin/ratings/backtestrun/{run.pk}/change/").content.decode()
    assert "Calibration" in page
    assert "<svg" in page
    assert 'http-equiv="refresh"' not in page
    # a redelivered job changes nothing
    assert backtest_run_execute(run.pk).result == run.result


def _totals(run):
    for item in run.result["difference_distribution"]:
        yield item, sum(count for _, count in item["bars"])


def test_runs_compared_side_by_side_and_exported(simulated, admin_client):
    runs = []
    for rules, overrides in (("fide-2024", ""), ("fide-2024", "k_factor=16"), ("elo-logistic", "")):
        run = backtest_run_create(rating_type="standard", rules_preset=rules, overrides=overrides)
        runs.append(backtest_run_execute(run.pk))
    assert runs[1].result["rules"] == "fide-2024+k_factor=16"
    assert runs[1].result["movers"]
    ids = [str(run.pk) for run in runs]
    changelist = "/admin/ratings/backtestrun/"
    page = admin_client.post(changelist, {"action": "compare_runs", "_selected_action": ids})
    assert page.status_code == 200
    html = page.content.decode()
    assert "Compare backtest runs" in html
    assert "fide-2024+k_factor=16" in html
    assert "elo-logistic" in html
    assert html.count("<polyline") == 2 * 3  # expected and actual, per run
    export = admin_client.post(changelist, {"action": "export_csv", "_selected_action": ids})
    rows = list(csv.reader(io.StringIO(export.content.decode())))
    assert rows[0] == [
        "run",
        "rules",
        "rating_type",
        "list_date",
        "players",
        "games",
        "log_loss",
        "brier",
        "rmse",
        "differences",
    ]
    assert len(rows) == 1 + 3 * (3 + 1)  # three lists and a summary per run
    summary = next(row for row in rows if row[0] == ids[0] and row[3] == "summary")
    assert summary[-1] == "0"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"rules_preset": "fide-1850"}, "rules_preset"),
        ({"overrides": "k_factor=lots"}, "overrides"),
        ({"start": "2026-09-01", "end": "2026-01-01"}, "end"),
    ],
)
def test_bad_runs_are_refused_on_the_form(db, admin_client, data, field):
    post = {"rating_type": "standard", "rules_preset": "fide-2024", "overrides": "", "start": "", "end": "", **data}
    response = admin_client.post(ADD, post)
    assert response.status_code == 200
    assert field in response.context["adminform"].form.errors
    assert not BacktestRun.objects.exists()


def test_a_failing_run_keeps_its_error(db):
    run = backtest_run_create(rating_type="blitz", rules_preset="fide-2024")
    run = backtest_run_execute(run.pk)
    assert run.status == BacktestRunStatus.FAILED
    assert "no published blitz list" in run.error


def test_only_officials_see_the_laboratory(db, client):
    clerk = get_user_model().objects.create_user("clerk", password="x", is_staff=True)
    client.force_login(clerk)
    assert client.get("/admin/ratings/backtestrun/").status_code == 403
    assert client.get(ADD).status_code == 403
