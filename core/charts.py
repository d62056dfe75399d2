"""The drawing every SVG chart of the site shares, written once: the plot frame and its margins, linear scales
from values to SVG units, the axes' steps and how many ticks are labelled, and polyline points.

The four chart builders decide what is drawn and call these: the rating history
(public.templatetags.ratings_public.chart_geometry), the pool-health lines and bars (public.views.pool), a
list's rating distribution (public.templatetags.site_charts.histogram_geometry) and the laboratory's
calibration (ratings.admin_lab.calibration_chart); templates draw what they return. Pure Python (no Django):
the lowest layer, so the admin of ``ratings`` and the public pages both use it. Coordinates are rounded to a
tenth of a unit (a tenth of a pixel at full width: short documents).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

Scale = Callable[[float], float]


def scale(low: float, high: float, start: float, length: float) -> Scale:
    """value -> SVG unit: ``low`` at ``start``, ``high`` at ``start + length``; with nothing between them (one
    value) every value in the middle."""
    if high == low:
        middle = round(start + length / 2, 1)
        return lambda value: middle
    return lambda value: round(start + length * (value - low) / (high - low), 1)


def inverted_scale(low: float, high: float, start: float, length: float) -> Scale:
    """value -> SVG unit for a vertical axis: ``high`` at ``start`` (the top), ``low`` at ``start + length``
    (SVG's y grows downwards)."""
    return lambda value: round(start + length * (high - value) / (high - low), 1)


@dataclass(frozen=True)
class Frame:
    """A chart's size and its margins around the plot (the axes' labels and the legend live in them)."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int

    @property
    def plot_width(self) -> int:
        return self.width - self.left - self.right

    @property
    def plot_height(self) -> int:
        return self.height - self.top - self.bottom

    def x(self, low: float, high: float) -> Scale:
        """The horizontal scale putting ``low`` .. ``high`` across the plot."""
        return scale(low, high, self.left, self.plot_width)

    def y(self, low: float, high: float) -> Scale:
        """The vertical scale putting ``high`` at the plot's top and ``low`` at its bottom."""
        return inverted_scale(low, high, self.top, self.plot_height)

    def box(self) -> dict[str, int]:
        """The template's coordinates of the chart and of the plot's edges (the grid lines' ends)."""
        return {
            "width": self.width,
            "height": self.height,
            "left": self.left,
            "right": self.width - self.right,
            "top": self.top,
            "bottom": self.height - self.bottom,
        }


def rating_step(span: float) -> int:
    """A rating axis' step: the smallest of 25, 50, 100, 200, 250, 500 points giving at most six steps over
    ``span`` (1000 beyond)."""
    for step in (25, 50, 100, 200, 250, 500):
        if span / step <= 6:
            return step
    return 1000


def nice_step(span: float, target: int = 5) -> float:
    """An axis' step for any quantity: 1, 2, 2.5 or 5 times a power of ten, giving about ``target`` steps over
    ``span``."""
    raw = max(span, 1e-9) / target
    magnitude = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * magnitude:
            return float(factor * magnitude)
    return float(10 * magnitude)


def label_every(count: int, most: int) -> int:
    """Label one tick in this many so that at most ``most`` of ``count`` ticks are labelled (they never
    overlap)."""
    return max(1, -(-count // most))


def polyline(points: Iterable[tuple[float, float]]) -> str:
    """An SVG polyline's ``points`` attribute: "x,y x,y ..."."""
    return " ".join(f"{x},{y}" for x, y in points)
