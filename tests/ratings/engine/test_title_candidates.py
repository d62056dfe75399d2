"""B.01 1.3 at publication: who a list's ratings qualify for FM, CM, WFM or WCM (ratings.engine.classes)."""

import numpy as np
import pytest

from ratings.engine.classes import (
    TITLE_THRESHOLDS,
    title_by_rating_candidates,
    title_covers,
    title_rank,
    title_track,
    titles_by_rating,
)


def candidates(rows: list[tuple[float, int, str, str, str]]) -> dict[int, list[str]]:
    """rows of (rating, rated games, sex, title, women_title) -> {row: [titles]}"""
    rating = np.array([r[0] for r in rows], dtype=np.float64)
    games = np.array([r[1] for r in rows], dtype=np.int64)
    women = np.array([r[2] == "F" for r in rows])
    title = np.array([r[3] for r in rows], dtype=object)
    women_title = np.array([r[4] for r in rows], dtype=object)
    out: dict[int, list[str]] = {}
    for at, name in title_by_rating_candidates(rating, games, women, title, women_title):
        for row in at.tolist():
            out.setdefault(row, []).append(name)
    return out


def test_thresholds_and_the_30_games():
    found = candidates(
        [
            (2300, 30, "M", "", ""),  # FM exactly at 2300 with 30 games
            (2299, 30, "M", "", ""),  # CM only
            (2199, 200, "M", "", ""),  # nothing
            (2350, 29, "M", "", ""),  # 29 games: nothing yet (B.01 1.3)
            (np.nan, 100, "M", "", ""),  # unrated
        ]
    )
    assert found == {0: ["FM"], 1: ["CM"]}


def test_held_title_or_higher_is_no_candidate_and_higher_is():
    found = candidates(
        [
            (2350, 50, "M", "FM", ""),  # holds FM
            (2350, 50, "M", "IM", ""),  # holds a higher title
            (2350, 50, "M", "CM", ""),  # CM reaching 2300: FM candidate
            (2250, 50, "M", "CM", ""),  # CM at 2250: nothing
        ]
    )
    assert found == {2: ["FM"]}


def test_womens_titles_for_women_only_on_their_own_track():
    found = candidates(
        [
            (2150, 40, "F", "", ""),  # WFM
            (2150, 40, "M", "", ""),  # a man at 2150: nothing
            (2320, 40, "F", "", "WIM"),  # WIM reaching 2300: FM (open track), no WFM (WIM is higher)
            (2050, 40, "F", "", "WCM"),  # holds WCM: nothing
            (2220, 40, "F", "WGM", "WGM"),  # a list's "WGM" in the title column: CM on the open track
        ]
    )
    assert found == {0: ["WFM"], 2: ["FM"], 4: ["CM"]}


def test_agrees_with_titles_by_rating_on_players_without_titles():
    rng = np.random.default_rng(33)
    rating = rng.uniform(1900, 2450, 400).round()
    games = rng.integers(0, 80, 400)
    women = rng.random(400) < 0.4
    none = np.full(400, "", dtype=object)
    found: dict[int, set[str]] = {}
    for at, name in title_by_rating_candidates(rating, games, women, none, none):
        for row in at.tolist():
            found.setdefault(row, set()).add(name)
    for i in range(400):
        expected = set(titles_by_rating(rating[i], int(games[i]), bool(women[i])))
        # the highest of each track only
        best = {
            max((t for t in expected if TITLE_THRESHOLDS[t].women == w), key=title_rank)
            for w in (False, True)
            if any(TITLE_THRESHOLDS[t].women == w for t in expected)
        }
        assert found.get(i, set()) == best, i


def test_order_helpers():
    assert title_covers("GM", "FM")
    assert title_covers("FM", "FM")
    assert not title_covers("CM", "FM")
    assert not title_covers("WGM", "FM")
    assert not title_covers("", "CM")
    assert not title_covers(None, "WCM")
    assert title_track("WIM")[-1] == "WGM"
    with pytest.raises(ValueError, match="unknown title"):
        title_track("NM")


def test_progress_lists_the_titles_above_those_held_and_what_is_reached():
    from ratings.engine.classes import title_progress

    man = title_progress("CM", "", False, 2310, 80)
    assert [(p.title, p.rating, p.norms, p.reached) for p in man] == [
        ("FM", 2300, False, True),
        ("IM", 2400, True, False),  # the next title: GM comes after it
    ]
    woman = title_progress("", "WFM", True, 2150, 20)  # 20 games: nothing by rating yet
    assert [(p.title, p.reached) for p in woman] == [("CM", False), ("WIM", False)]
    assert [p.title for p in title_progress("", "", True, 2120, 40)] == ["CM", "WCM", "WFM", "WIM"]
    assert [p.title for p in title_progress("GM", "", False, None, 0)] == []
    assert title_progress("", "", False, 2205, 29)[0].reached is False  # CM needs 30 games
    assert title_progress("", "", False, 2205, 30)[0].reached is True
