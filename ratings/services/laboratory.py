"""The rating laboratory's runs (ratings.models.BacktestRun): create, execute as a job with progress, compare
side by side and export as CSV. The computation is ratings.services.backtest's."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from django.core.exceptions import ValidationError
from django.utils import timezone

from audit.services import Actor, acting_user
from players.models import Player
from ratings.models import BacktestRun, BacktestRunStatus
from ratings.services.backtest import Backtest, BacktestError, backtest_rules, rating_backtest_run

log = logging.getLogger(__name__)

MOVERS = 20
DIFFERENCE_BUCKET = 10  # points per bar of the distribution of rating differences
CSV_HEADER: list[object] = [
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


def backtest_run_create(
    *,
    rating_type: str,
    rules_preset: str,
    overrides: str = "",
    start: datetime.date | None = None,
    end: datetime.date | None = None,
    user: Actor = None,
) -> BacktestRun:
    """A queued run (the caller queues its job: ratings.tasks.queue_backtest); the rules and overrides are
    checked first (ValidationError naming the field)."""
    run = BacktestRun(rating_type=rating_type, rules_preset=rules_preset, overrides=overrides, start=start, end=end)
    try:
        backtest_rules(rules_preset, run.override_list)
    except BacktestError as error:
        field = "overrides" if "--set" in str(error) else "rules_preset"
        raise ValidationError({field: str(error)}) from None
    if start and end and end < start:
        raise ValidationError({"end": "the last list date is before the start"})
    run.created_by = acting_user(user)
    run.save()
    return run


def _differences(report: Backtest) -> list[dict[str, Any]]:
    """Per list: the distribution of (replayed - published) of the players rated on both, in 10-point bars."""
    out = []
    for item in report.lists:
        mine, theirs = item.replayed.get("rating"), item.replayed.get("published")
        if mine is None or theirs is None:
            continue
        both = ~np.isnan(mine) & ~np.isnan(theirs)
        delta = (mine - theirs)[both]
        bars = np.floor(delta / DIFFERENCE_BUCKET).astype(np.int64) * DIFFERENCE_BUCKET
        values, counts = np.unique(bars, return_counts=True)
        out.append(
            {
                "list_date": item.list_date.isoformat(),
                "bars": [[int(v), int(c)] for v, c in zip(values, counts, strict=True)],
                "only_replayed": int((~np.isnan(mine) & np.isnan(theirs)).sum()),
                "only_published": int((np.isnan(mine) & ~np.isnan(theirs)).sum()),
                "mean_difference": round(float(delta.mean()), 2) if delta.size else None,
            }
        )
    return out


def _movers(report: Backtest) -> list[dict[str, Any]]:
    """The players whose replayed rating on the last list differs most from the published one (one query)."""
    if not report.lists or not report.lists[-1].replayed:
        return []
    last = report.lists[-1].replayed
    delta = last["rating"] - last["published"]
    known = np.flatnonzero(~np.isnan(delta))
    top = known[np.argsort(-np.abs(delta[known]), kind="stable")[:MOVERS]]
    players = Player.objects.in_bulk([int(last["player_id"][i]) for i in top])
    rows = []
    for i in top:
        player = players.get(int(last["player_id"][i]))
        rows.append(
            {
                "id_number": player.id_number if player else None,
                "name": player.name if player else "",
                "published": float(last["published"][i]),
                "replayed": float(last["rating"][i]),
                "difference": float(delta[i]),
            }
        )
    return rows


def backtest_run_execute(run_id: int) -> BacktestRun:
    """Run a queued backtest (the Celery job): progress is saved after each list; the result or the error is
    kept on the run. A run already done or running is returned as it is (a redelivered job)."""
    run = BacktestRun.objects.get(pk=run_id)
    if run.status != BacktestRunStatus.QUEUED:
        return run
    BacktestRun.objects.filter(pk=run.pk).update(status=BacktestRunStatus.RUNNING)

    def progress(done: int, total: int, list_date: datetime.date) -> None:
        BacktestRun.objects.filter(pk=run.pk).update(lists_done=done, lists_total=total)

    try:
        rules = backtest_rules(run.rules_preset, run.override_list)
        report = rating_backtest_run(
            run.rating_type, rules, start=run.start, end=run.end, progress=progress, keep_ratings=True, atomic=False
        )
    except (BacktestError, ArithmeticError, ValueError) as error:
        BacktestRun.objects.filter(pk=run.pk).update(
            status=BacktestRunStatus.FAILED, error=str(error), finished_at=timezone.now()
        )
        log.info("backtest run %s failed: %s", run.pk, error)
        run.refresh_from_db()
        return run
    result = report.to_json()
    result["difference_distribution"] = _differences(report)
    result["movers"] = _movers(report)
    BacktestRun.objects.filter(pk=run.pk).update(
        status=BacktestRunStatus.DONE,
        result=result,
        lists_done=len(report.lists),
        lists_total=len(report.lists),
        finished_at=timezone.now(),
    )
    run.refresh_from_db()
    return run


def backtest_runs_compare(runs: Sequence[BacktestRun]) -> dict[str, Any]:
    """Side by side: per list date the scores of each run, the summaries, the calibration by bucket."""
    done = [run for run in runs if run.result]
    results: list[dict[str, Any]] = [run.result for run in done if run.result]
    dates = sorted({item["list_date"] for result in results for item in result["lists"]})
    by_run = [{item["list_date"]: item for item in result["lists"]} for result in results]
    buckets = sorted({row["from"] for result in results for row in result["calibration"]})
    calibration = [{row["from"]: row for row in result["calibration"]} for result in results]
    return {
        "runs": done,
        "rows": [{"list_date": day, "cells": [scores.get(day) for scores in by_run]} for day in dates],
        "summaries": [result["summary"] for result in results],
        "calibration": [
            {"from": bucket, "to": bucket + 49, "cells": [table.get(bucket) for table in calibration]}
            for bucket in buckets
        ],
    }


def backtest_runs_csv(runs: Sequence[BacktestRun]) -> Iterator[list[object]]:
    """CSV rows: the header, then per run one row per list and a summary row (list_date 'summary')."""
    yield list(CSV_HEADER)
    for run in runs:
        if not run.result:
            continue
        rules, rating_type = run.result["rules"], run.result.get("rating_type", run.rating_type)
        for item in run.result["lists"]:
            yield [
                run.pk,
                rules,
                rating_type,
                item["list_date"],
                item["players"],
                item["games"],
                item["log_loss"],
                item["brier"],
                item["rmse"],
                item["differences"],
            ]
        s = run.result["summary"]
        players = sum(item["players"] for item in run.result["lists"])
        games = sum(item["games"] for item in run.result["lists"])
        yield [
            run.pk,
            rules,
            rating_type,
            "summary",
            players,
            games,
            s["log_loss"],
            s["brier"],
            s["rmse"],
            s["differences"],
        ]
