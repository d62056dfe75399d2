"""Charts of the site's newer pages, drawn as inline SVG (no script, no external asset): a list's rating
distribution."""

from __future__ import annotations

from django import template

from core.charts import Frame, label_every, nice_step, scale

register = template.Library()

HISTOGRAM_WIDTH, HISTOGRAM_HEIGHT = 720, 220
H_LEFT, H_RIGHT, H_TOP, H_BOTTOM = 56, 12, 12, 34
HISTOGRAM_COLOUR = "#1d4ed8"  # the standard colour of the history chart; the browser test looks for it
HISTOGRAM_FRAME = Frame(HISTOGRAM_WIDTH, HISTOGRAM_HEIGHT, H_LEFT, H_RIGHT, H_TOP, H_BOTTOM)


def player_ticks(most: int) -> list[int]:
    """The players axis' ticks from 0 to the first whole step at or above ``most``: whole numbers only (a count
    of players has no halves: a step of 0.5 printed as whole numbers read "0, 1, 1, 2, 2"), about four steps."""
    step = max(1, round(nice_step(most, 4)))
    top = max(step, -(-most // step) * step)
    return list(range(0, top + 1, step))


def histogram_geometry(bands: list[dict[str, int]], bucket: int = 100) -> dict:
    """One bar per rating band (``bands``: {"low", "players"}, lowest first), gaps filled with empty bands."""
    if not bands:
        return {"empty": True}
    counts = {band["low"]: band["players"] for band in bands}
    lows = list(range(min(counts), max(counts) + bucket, bucket))
    most = max(counts.values())
    ticks = player_ticks(most)
    plot_w, plot_h = HISTOGRAM_FRAME.plot_width, HISTOGRAM_FRAME.plot_height
    bar_height = scale(0, ticks[-1], 0, plot_h)  # a bar's height: players, the top tick the plot's height
    slot = plot_w / len(lows)
    every = label_every(len(lows), 8)
    bars = []
    for i, low in enumerate(lows):
        players = counts.get(low, 0)
        height = bar_height(players)
        bars.append(
            {
                "x": round(H_LEFT + i * slot + 1, 1),
                "y": round(H_TOP + plot_h - height, 1),
                "width": round(max(slot - 2, 1), 1),
                "height": height,
                "low": low,
                "high": low + bucket - 1,
                "players": players,
                "label": low if i % every == 0 else None,
                "label_x": round(H_LEFT + i * slot + slot / 2, 1),
            }
        )
    y_ticks = [{"y": round(H_TOP + plot_h - bar_height(tick), 1), "label": tick} for tick in ticks]
    return {
        "empty": False,
        **HISTOGRAM_FRAME.box(),
        "bars": bars,
        "label_y": HISTOGRAM_HEIGHT - 12,
        "most": most,
        "y_ticks": y_ticks,
        "colour": HISTOGRAM_COLOUR,
        "total": sum(counts.values()),
    }


@register.inclusion_tag("ratings/_histogram.html")
def rating_histogram(bands, title=""):
    return {"chart": histogram_geometry(bands), "title": title}
