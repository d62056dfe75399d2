"""The fresh try of issue 32, without a browser: tie-breaks in quarters, the histogram's players axis in whole
numbers, the federation page's rank named for what it is, the calculator's signs, and a stylesheet free of merge
leftovers (a stray "=======" swallowed the rule after it: dates broke at their hyphens on every event page)."""

from pathlib import Path

import pytest

from public.templatetags.ratings_public import points
from public.templatetags.site_charts import histogram_geometry, player_ticks
from tests.public.test_federations import world  # noqa: F401  (a fixture)

ROOT = Path(__file__).resolve().parents[2]


def test_points_print_quarters_as_the_tie_breaks_have_them():
    assert [points(v) for v in (0, 0.5, 2.5, 2.75, 3, 10.25, None)] == ["0", "½", "2½", "2¾", "3", "10¼", ""]


@pytest.mark.parametrize("most", [1, 2, 3, 7, 38, 55, 999])
def test_histogram_players_axis_is_whole_numbers_from_zero_past_the_tallest_bar(most):
    ticks = player_ticks(most)
    assert ticks[0] == 0
    assert ticks[-1] >= most
    assert all(isinstance(tick, int) for tick in ticks)
    assert len(set(ticks)) == len(ticks)  # never "1, 1, 2, 2"
    assert 2 <= len(ticks) <= 7


def test_histogram_tallest_bar_reaches_the_tick_above_it_and_labels_are_distinct():
    bands = [{"low": 1000 + 100 * i, "players": players} for i, players in enumerate([1, 2, 1, 2, 1, 0, 2])]
    chart = histogram_geometry(bands)
    labels = [tick["label"] for tick in chart["y_ticks"]]
    assert labels == [0, 1, 2]
    tallest = max(bar["height"] for bar in chart["bars"])
    assert tallest == pytest.approx(chart["bottom"] - chart["top"], abs=0.2)  # the top tick is 2: a full bar
    x_labels = [bar["label"] for bar in chart["bars"] if bar["label"] is not None]
    assert len(x_labels) == len(set(x_labels))


def test_no_merge_conflict_markers_in_templates_styles_or_scripts():
    markers = ("<<<<<<< ", "=======\n", ">>>>>>> ")  # a line's first 8 characters
    found = []
    for folder in ("templates", "static"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".html", ".css", ".js", ".svg", ".txt"}:
                lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
                found += [f"{path.relative_to(ROOT)}:{n}" for n, line in enumerate(lines, 1) if line[:8] in markers]
    assert found == []


@pytest.mark.django_db
def test_federation_page_says_rank_not_world_rank(client, world):  # noqa: F811
    page = client.get("/federations/ESP/").content.decode()
    assert "World rank" not in page
    assert ">Rank</th>" in page


def test_calculator_prints_minus_signs_and_halves(client):
    games = "2450 0\n1700 1\n1810 ½\n2300 0"
    page = client.get("/calculator/", {"rating_type": "standard", "rating": "1850", "games": games}).content.decode()
    table = page[page.index('<table class="calc calc-page">') : page.index("</table>")]
    assert "−1.60" in table
    assert "-1.60" not in table
    assert "−400" in table
    assert "-400" not in table
    assert ">½<" in table
    assert ">1½<" in table


def test_every_chart_draws_with_decimal_points_in_spanish():
    """The reported "1, 1, 2, 2": the Spanish page wrote the histogram's coordinates with decimal commas
    ("186,0"), which SVG reads as two numbers; every chart template keeps its numbers out of localisation."""
    from django.template.loader import render_to_string
    from django.utils import translation

    chart = histogram_geometry([{"low": 1400 + 100 * i, "players": p} for i, p in enumerate([24, 19, 26, 18, 3])])
    with translation.override("es"):
        svg = render_to_string("ratings/_histogram.html", {"chart": chart, "title": "Distribución"})
    assert "<rect" in svg
    import re

    assert not re.search(r'(x|y|x1|x2|y1|y2|width|height)="[0-9.]*,', svg), svg[:400]
    for template in ROOT.glob("templates/**/*"):
        text = template.read_text() if template.is_file() else ""
        if "<svg" in text:
            assert "{% localize off %}" in text, template
