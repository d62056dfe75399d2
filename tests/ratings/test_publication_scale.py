"""The bulk paths of list publication (column-wise JSON details, COPY writes) store what was computed."""

import json

import numpy as np

from ratings.services.publication import DETAIL_KEYS, ChangeDetails


def detail_columns(n: int, rng) -> dict[str, np.ndarray]:
    expected = np.round(rng.random(n), 2)
    expected[3:4] = np.nan  # a pooled game of an unrated player has no PD
    return {
        "game": rng.integers(1, 10**9, n),
        "round": rng.integers(1, 12, n),
        "white": rng.random(n) < 0.5,
        "opponent": rng.integers(10**6, 10**8, n),
        "opponent_rating": np.where(rng.random(n) < 0.2, np.nan, rng.integers(1400, 2800, n).astype(float)),
        "opponent_rating_used": rng.integers(1400, 2800, n).astype(float),
        "capped": rng.random(n) < 0.1,
        "difference": rng.integers(-400, 400, n).astype(float),
        "expected_score": expected,
        "score": rng.choice([0.0, 0.5, 1.0], n),
        "change": 20 * (rng.choice([0.0, 0.5, 1.0], n) - expected),
        "rated": rng.random(n) < 0.8,
        "pooled": rng.random(n) < 0.5,
    }


def reference_line(c: dict, i: int) -> dict:
    """One line as the publication has always described it (public_selectors.DETAIL_KEYS reads these)."""

    def number(value):
        return None if value != value else float(value)

    return {
        "game": int(c["game"][i]),
        "round": int(c["round"][i]),
        "colour": "white" if c["white"][i] else "black",
        "opponent": int(c["opponent"][i]),
        "opponent_rating": number(c["opponent_rating"][i]),
        "opponent_rating_used": number(c["opponent_rating_used"][i]),
        "capped": bool(c["capped"][i]),
        "difference": number(c["difference"][i]),
        "expected_score": number(c["expected_score"][i]),
        "score": float(c["score"][i]),
        "delta": number(c["score"][i] - c["expected_score"][i]),
        "change": number(c["change"][i]),
        "counted": "rated" if c["rated"][i] else ("pooled" if c["pooled"][i] else "not rated"),
    }


def test_details_json_has_every_game_line_of_each_change_exactly():
    rng = np.random.default_rng(4)
    columns = detail_columns(40, rng)
    # changes with 3, 0 (no line), 1, 9, 27 lines
    offsets = np.array([0, 3, 3, 4, 13, 40])
    details = ChangeDetails(offsets=offsets, columns=columns)
    texts = details.json_texts(0, 5)
    assert len(texts) == 5
    parsed = [json.loads(text) for text in texts]
    for row, lines in enumerate(parsed):
        expected = [reference_line(columns, i) for i in range(offsets[row], offsets[row + 1])]
        assert lines == expected
        assert all(list(line) == list(DETAIL_KEYS) for line in lines)
    assert parsed[1] == []
    # a slice in the middle gives the same documents as the whole
    assert details.json_texts(2, 4) == texts[2:4]
    # floats keep every digit (json.dumps spells them with repr)
    line = parsed[3][0]
    assert line["change"] == float(columns["change"][4])
    assert line["expected_score"] == columns["expected_score"][4]


def test_details_json_of_changes_without_lines():
    details = ChangeDetails(offsets=np.array([0, 0, 0]), columns=detail_columns(0, np.random.default_rng(1)))
    assert details.json_texts(0, 2) == ["[]", "[]"]
