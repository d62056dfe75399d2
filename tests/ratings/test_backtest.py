"""rating_backtest replays the simulated federation exactly under its own rules and scores other rules."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from ratings.models import RatingList
from ratings.services.backtest import BacktestError, backtest_rules, rating_backtest_run


def run(*args):
    out = io.StringIO()
    call_command("rating_backtest", *args, stdout=out)
    return out.getvalue()


def test_replaying_under_the_published_rules_gives_no_difference(simulated, django_assert_max_num_queries):
    data = json.loads(run("--rating-type", "standard", "--rules", "fide-2024", "--json"))
    published = list(RatingList.objects.current("standard").order_by("list_date").values_list("list_date", flat=True))
    assert data["rules"] == "fide-2024"
    assert [item["list_date"] for item in data["lists"]] == [d.isoformat() for d in published[1:]]
    assert set(data) >= {"rules", "lists", "summary", "calibration"}
    for item in data["lists"]:
        assert set(item) == {"list_date", "players", "games", "log_loss", "brier", "rmse", "differences"}
        assert item["differences"] == 0, item
        assert item["games"] > 0
        assert item["players"] > 0
        assert 0 < item["log_loss"] < 0.5
        assert 0 < item["brier"] < 0.25
        assert item["rmse"] > 0
    assert data["summary"]["differences"] == 0
    assert set(data["summary"]) == {"log_loss", "brier", "rmse", "differences"}
    calibration = data["calibration"]
    assert calibration[0]["from"] == 0
    assert calibration[0]["to"] == 49
    assert sum(row["games"] for row in calibration) == sum(item["games"] for item in data["lists"])
    assert all(0.5 <= row["expected"] <= 1 for row in calibration)
    # the replay reads in bulk: the query count does not grow with players or games (a few per list)
    rules = backtest_rules("fide-2024")
    with django_assert_max_num_queries(40 * len(data["lists"])):
        rating_backtest_run("standard", rules)


def test_another_preset_scores_every_list_and_differs(simulated):
    data = json.loads(run("--rating-type", "standard", "--rules", "elo-logistic", "--json"))
    own = json.loads(run("--rating-type", "standard", "--rules", "fide-2024", "--json"))
    assert len(data["lists"]) == len(own["lists"]) == 3
    for item in data["lists"]:
        assert item["log_loss"] is not None
        assert item["brier"] is not None
        assert item["rmse"] is not None
    assert data["lists"][0]["games"] == own["lists"][0]["games"]  # the same ratings in force on the first list
    assert data["summary"]["differences"] > 0
    assert data["summary"]["log_loss"] != own["summary"]["log_loss"]


def test_glicko2_is_replayed_and_scored_on_every_list(simulated):
    data = json.loads(run("--rating-type", "standard", "--rules", "glicko2", "--json"))
    own = json.loads(run("--rating-type", "standard", "--rules", "fide-2024", "--json"))
    assert data["rules"] == "glicko2"
    assert len(data["lists"]) == 3
    for item in data["lists"]:
        assert 0 < item["log_loss"] < 0.5
        assert 0 < item["brier"] < 0.25
        assert item["rmse"] > 0
        assert item["games"] > 0
        assert item["differences"] > 0
    # the first list scores the same games as Elo: both players rated in force (the official list)
    assert data["lists"][0]["games"] == own["lists"][0]["games"]
    assert sum(row["games"] for row in data["calibration"]) == sum(item["games"] for item in data["lists"])
    other = json.loads(run("--rating-type", "standard", "--rules", "glicko2", "--set", "tau=1.2", "--json"))
    assert other["rules"] == "glicko2+tau=1.2"
    assert len(other["lists"]) == 3  # (tau moves volatility slowly)


def test_overrides_and_from_to(simulated):
    dates = list(RatingList.objects.current("standard").order_by("list_date").values_list("list_date", flat=True))
    data = json.loads(
        run(
            "--rating-type", "standard", "--rules", "fide-2024", "--set", "k_factor=16",
            "--from", dates[1].isoformat(), "--to", dates[2].isoformat(), "--json",
        )
    )  # fmt: skip
    assert data["rules"] == "fide-2024+k_factor=16"
    assert [item["list_date"] for item in data["lists"]] == [dates[2].isoformat()]
    assert data["lists"][0]["differences"] > 0  # K 16 instead of 40/20/10
    text = run("--rating-type", "standard", "--rules", "fide-2024")
    assert "summary" in text
    assert "Calibration" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rules", "fide-1850"], "unknown rules preset"),
        (["--rules", "fide-2024", "--set", "colour=blue"], "KEY=VALUE"),
        (["--rules", "fide-2024", "--set", "k_factor=lots"], "whole number"),
        (["--rules", "fide-2024", "--set", "tau=0.5"], "not a Glicko-2 preset"),
        (["--rules", "glicko2", "--set", "tau=-1"], "positive number"),
        (["--rules", "fide-2024", "--from", "1990-01-01"], "no standard list was in force"),
        (["--rules", "fide-2024", "--from", "2026-09-01", "--to", "2026-01-01"], "before --from"),
    ],
)
def test_bad_arguments_are_named(simulated, args, message):
    with pytest.raises(CommandError, match=message):
        run("--rating-type", "standard", *args)


def test_nothing_published_is_a_clear_error(db):
    with pytest.raises(BacktestError, match="no published blitz list"):
        rating_backtest_run("blitz", backtest_rules("fide-2024"))
