"""Template helpers of the public pages: translated labels, signed numbers, and the rating history chart."""

from __future__ import annotations

import datetime

from django import template
from django.utils.formats import number_format
from django.utils.html import format_html_join

from core.charts import Frame, label_every, polyline, rating_step
from events.models import EventStatus, EventSystem, RatingType
from public.selectors.events import fraction_text
from ratings.engine.classes import roman as engine_roman
from ratings.engine.rating_types import RATING_TYPES

register = template.Library()

# One colour per rating type, also used in the legend; the browser test looks for the standard colour.
CHART_COLOURS = {"standard": "#1d4ed8", "rapid": "#c2410c", "blitz": "#15803d"}
# The labels are the models' (translated there): one definition of each.
RATING_TYPE_LABELS = dict(RatingType.choices)
STATUS_LABELS = dict(EventStatus.choices)
SYSTEM_LABELS = dict(EventSystem.choices)


@register.filter
def rating_type_label(value: str) -> str:
    return str(RATING_TYPE_LABELS.get(value, value))


@register.filter
def event_status_label(value: str) -> str:
    return str(STATUS_LABELS.get(value, value))


@register.filter
def event_system_label(value: str) -> str:
    return str(SYSTEM_LABELS.get(value, value))


@register.filter
def signed(value, decimals: int = 0) -> str:
    """+12 / −3 / 0 (a real minus sign); ``decimals`` for unrounded changes (+7.60)."""
    if value is None or value == "":
        return ""
    number = float(value)
    plain = f"{abs(number):.{int(decimals)}f}"
    text = number_format(plain, int(decimals))  # the page's language's decimal separator (2,50 in Spanish)
    if float(plain) == 0:
        return text
    return ("+" if number > 0 else "−") + text


@register.filter
def points(value) -> str:
    """2.5 -> 2½, 3.0 -> 3, 0.5 -> ½, 2.75 -> 2¾: public.selectors.events.fraction_text, the one definition (a
    tie-break such as Sonneborn-Berger runs in quarters; halves only printed 2.75 as "3")."""
    if value is None or value == "":
        return ""
    return fraction_text(float(value))


@register.filter
def decimal2(value) -> str:
    """Two decimals with the page's language's separator: one decimal separator per page (0,76 in Spanish)."""
    return "" if value is None else number_format(f"{float(value):.2f}", 2)


@register.filter
def roman(value) -> str:
    """Tournament categories are printed in Roman numerals (XX = 20)."""
    return engine_roman(int(value)) if value else ""


@register.filter
def colour_of(rating_type: str) -> str:
    return CHART_COLOURS.get(rating_type, "#444444")


# --- chart ----------

WIDTH, HEIGHT = 720, 290
# BOTTOM holds the years' labels and the legend (one swatch and label a rating type, LEGEND_STEP apart)
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 14, 64
FRAME = Frame(WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM)
LEGEND_STEP = 170


def chart_geometry(points) -> dict:
    """SVG coordinates for the rating history: one polyline per rating type, rated lists only.

    ``points``: (list date, rating type, rating) oldest first (public.selectors.ratings.player_chart_points).
    """
    points_by_type: dict[str, list[tuple[datetime.date, int]]] = {}
    for list_date, rating_type, rating in points:
        if rating is not None:
            points_by_type.setdefault(rating_type, []).append((list_date, rating))
    if not points_by_type:
        return {"empty": True, "width": WIDTH, "height": HEIGHT, "middle": WIDTH // 2, "label_y": HEIGHT // 2}
    dates = [day for series in points_by_type.values() for day, _ in series]
    ratings = [rating for series in points_by_type.values() for _, rating in series]
    first, last = min(dates), max(dates)
    step = rating_step(max(ratings) - min(ratings) or 1)
    low = (min(ratings) // step) * step
    high = -(-max(ratings) // step) * step
    if high == low:
        high = low + step
    x_days, y = FRAME.x(0, (last - first).days), FRAME.y(low, high)

    def x(day: datetime.date) -> float:
        return x_days((day - first).days)

    series: list[dict[str, object]] = []
    for rating_type in RATING_TYPES:
        if rating_type not in points_by_type:
            continue
        pts = points_by_type[rating_type]
        series.append(
            {
                "rating_type": rating_type,
                "label": RATING_TYPE_LABELS[rating_type],
                "colour": CHART_COLOURS[rating_type],
                "points": polyline((x(day), y(rating)) for day, rating in pts),
                "legend_x": LEFT + LEGEND_STEP * len(series),
                # one circle a list, written here: a template loop cost a tenth of a millisecond a point
                "dots": format_html_join(
                    "",
                    '<circle cx="{}" cy="{}" r="3.5" fill="{}"><title>{} {}: {}</title></circle>',
                    (
                        (
                            x(day),
                            y(rating),
                            CHART_COLOURS[rating_type],
                            RATING_TYPE_LABELS[rating_type],
                            f"{day:%Y-%m-%d}",
                            rating,
                        )
                        for day, rating in pts
                    ),
                ),
            }
        )
    y_ticks = [{"y": y(value), "label": value} for value in range(int(low), int(high) + 1, step)]
    years = range(first.year, last.year + 1)
    year_every = label_every(len(years), 8)
    x_ticks: list[dict[str, object]] = [
        {"x": x(datetime.date(year, 1, 1)), "label": year}
        for year in years[::year_every]
        if first <= datetime.date(year, 1, 1) <= last
    ]
    if not x_ticks:
        x_ticks = [{"x": x(first), "label": first.strftime("%Y-%m")}]
    return {
        "empty": False,
        **FRAME.box(),
        "series": series,
        "y_ticks": y_ticks,
        "x_ticks": x_ticks,
        "label_y": HEIGHT - BOTTOM + 22,
        "legend_y": HEIGHT - 12,
        "first": first,
        "last": last,
    }


@register.inclusion_tag("ratings/_chart.svg")
def rating_chart(points, title=""):
    """The chart as an SVG document (public.views.players.player_chart serves it; the profile embeds it)."""
    return {"chart": chart_geometry(points), "title": title}
