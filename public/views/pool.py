"""The pool-health page of a published list (/lists/<date>/<type>/pool/): the ledger of the list and charts
across every list of the type, drawn as inline SVG (no script). Thin: ratings.services.pool computes."""

from __future__ import annotations

import datetime
from typing import Any

from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from core.charts import Frame, label_every, nice_step, polyline
from public.views.base import public_page
from ratings.selectors import rating_list_current
from ratings.services.pool import PoolLedger, pool_history

WIDTH, HEIGHT = 720, 300
LEFT, RIGHT, TOP, BOTTOM = 70, 40, 16, 34
FRAME = Frame(WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM)
PART_COLOURS = {
    "from_games": "#1d4ed8",
    "newcomers": "#15803d",
    "leavers": "#b91c1c",
    "adjustments": "#a16207",
}
LINE_COLOURS = {"total": "#1d4ed8", "mean": "#1d4ed8", "median": "#c2410c", "distribution": "#0e7490"}


def _axis(low: float, high: float) -> tuple[float, float, float]:
    if high == low:
        high, low = high + 1, low - 1
    step = nice_step(high - low)
    return (low // step) * step, -(-high // step) * step, step


def _label(value: float) -> str:
    if abs(value) >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if abs(value) >= 10_000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def _frame(low: float, high: float, step: float) -> dict[str, Any]:
    y = FRAME.y(low, high)
    ticks = []
    value = low
    while value <= high + step / 2:
        ticks.append({"y": y(value), "label": _label(value)})
        value += step
    return {"y": y, "y_ticks": ticks}


def line_chart(dates: list[datetime.date], series: list[tuple[str, str, list[float | None]]]) -> dict[str, Any]:
    """Lines over the list dates: series are (label, colour, values) with None for a missing point."""
    values = [v for _, _, vs in series for v in vs if v is not None]
    if not dates or not values:
        return {"empty": True}
    low, high, step = _axis(min(values), max(values))
    frame = _frame(low, high, step)
    x = FRAME.x(0, len(dates) - 1)
    every = label_every(len(dates), 6)
    return {
        "empty": False,
        **FRAME.box(),
        "label_y": HEIGHT - 10,
        "y_ticks": frame["y_ticks"],
        "x_ticks": [{"x": x(i), "label": day.strftime("%Y-%m")} for i, day in enumerate(dates) if i % every == 0],
        "lines": [
            {
                "label": label,
                "colour": colour,
                "points": polyline((x(i), frame["y"](v)) for i, v in enumerate(vs) if v is not None),
                "dots": [
                    {"x": x(i), "y": frame["y"](v), "date": dates[i], "value": v}
                    for i, v in enumerate(vs)
                    if v is not None
                ],
            }
            for label, colour, vs in series
        ],
        "bars": [],
    }


def bar_chart(labels: list[str], series: list[tuple[str, str, list[float]]]) -> dict[str, Any]:
    """Grouped bars (positive up, negative down from zero) per label; series are (label, colour, values)."""
    values = [v for _, _, vs in series for v in vs] + [0.0]
    if not labels:
        return {"empty": True}
    low, high, step = _axis(min(values), max(values))
    frame = _frame(low, high, step)
    slot = FRAME.plot_width / len(labels)
    width = max(1.0, slot * 0.8 / len(series))
    zero = frame["y"](0.0)
    bars = []
    for s, (name, colour, vs) in enumerate(series):
        for i, v in enumerate(vs):
            top = min(zero, frame["y"](v))
            bars.append(
                {
                    "x": round(LEFT + slot * i + slot * 0.1 + width * s, 1),
                    "y": top,
                    "width": round(width, 1),
                    "height": round(abs(frame["y"](v) - zero), 1),
                    "colour": colour,
                    "title": f"{name} {labels[i]}: {v:g}",
                }
            )
    every = label_every(len(labels), 8)
    return {
        "empty": False,
        **FRAME.box(),
        "label_y": HEIGHT - 10,
        "y_ticks": frame["y_ticks"],
        "x_ticks": [
            {"x": round(LEFT + slot * (i + 0.5), 1), "label": label} for i, label in enumerate(labels) if i % every == 0
        ],
        "lines": [],
        "bars": bars,
        "legend": [{"label": name, "colour": colour} for name, colour, _values in series],
    }


def pool_charts(history: list[PoolLedger], ledger: PoolLedger) -> list[dict[str, Any]]:
    dates = [item.list_date for item in history]
    continued = [item for item in history if item.previous_list_date is not None]  # a first list has no flows
    months = [item.list_date.strftime("%Y-%m") for item in continued]
    charts: list[dict[str, Any]] = [
        {
            "id": "totals",
            "title": _("Total rating points of the rated players"),
            "chart": line_chart(dates, [(str(_("Total")), LINE_COLOURS["total"], [float(i.total) for i in history])]),
        },
        {
            "id": "mean",
            "title": _("Mean and median rating"),
            "chart": line_chart(
                dates,
                [
                    (str(_("Mean")), LINE_COLOURS["mean"], [i.mean for i in history]),
                    (str(_("Median")), LINE_COLOURS["median"], [i.median for i in history]),
                ],
            ),
        },
        {
            "id": "parts",
            "title": _("Where the points come from, list by list"),
            "chart": bar_chart(
                months,
                [
                    (str(_("From games")), PART_COLOURS["from_games"], [float(i.from_games) for i in continued]),
                    (str(_("Newcomers")), PART_COLOURS["newcomers"], [float(i.newcomers) for i in continued]),
                    (str(_("Leavers")), PART_COLOURS["leavers"], [-float(i.leavers) for i in continued]),
                    (str(_("Adjustments")), PART_COLOURS["adjustments"], [float(i.adjustments) for i in continued]),
                ],
            ),
        },
        {
            "id": "distribution",
            "title": _("Distribution of the ratings on this list"),
            "chart": bar_chart(
                [str(low) for low, _count in ledger.distribution],
                [(str(_("Players")), LINE_COLOURS["distribution"], [float(n) for _low, n in ledger.distribution])],
            ),
        },
    ]
    for item in charts:
        chart = item["chart"]
        if not chart["empty"] and "legend" not in chart:
            chart["legend"] = [{"label": line["label"], "colour": line["colour"]} for line in chart["lines"]]
    return charts


@public_page
def pool_page(request, list_date: datetime.date, rating_type: str):
    rating_list = rating_list_current(rating_type, list_date)
    if rating_list is None:
        raise Http404("no published list of that date and rating type")
    history = pool_history(rating_type)
    ledger = next(item for item in history if item.list_date == list_date)
    return render(
        request,
        "ratings/pool.html",
        {
            "rating_list": rating_list,
            "ledger": ledger,
            "history": list(reversed(history)),
            "charts": pool_charts(history, ledger),
        },
    )
