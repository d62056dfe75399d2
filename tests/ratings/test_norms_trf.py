"""A round robin imported from TRF, with players of several federations and titles, gets the norm report the rules
give (B.01 1.4), on the page, in the API and as an IT1 PDF whose text holds the numbers (issue 33)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command

from events.models import Event, EventStatus
from events.trf.records import TrfPlayer, TrfRoundEntry
from tests.events.test_trf_import import build_trf
from tests.ratings.test_norm_report import pdf_text_of, round_robin_pairs

pytestmark = pytest.mark.django_db

START = dt.date(2026, 4, 1)
# (name, title, federation, rating): the hero first; she beats everyone but the first two GMs (7/9).
FIELD = [
    ("Hero, Ana", "WGM", "ESP", 2450),
    ("Dupont, Jean", "GM", "FRA", 2500),
    ("Martin, Paul", "GM", "FRA", 2480),
    ("Weber, Karl", "GM", "GER", 2420),
    ("Vogel, Hans", "GM", "GER", 2400),
    ("Ruiz, Pedro", "GM", "ESP", 2380),
    ("Leroy, Luc", "IM", "FRA", 2360),
    ("Koch, Uwe", "IM", "GER", 2350),
    ("Gil, Rosa", "IM", "ESP", 2330),
    ("Bianchi, Ugo", "FM", "ITA", 2300),
]


def round_robin_file() -> bytes:
    entries: dict[int, list[TrfRoundEntry]] = {rank: [] for rank in range(1, 11)}
    points = dict.fromkeys(range(1, 11), 0.0)
    for number, pairs in enumerate(round_robin_pairs(10), 1):
        for w, b in pairs:
            white, black = w + 1, b + 1
            if 1 in (white, black):
                other = black if white == 1 else white
                hero_wins = other not in (2, 3)
                white_result = "1" if hero_wins == (white == 1) else "0"
            else:
                white_result = "="
            black_result = {"1": "0", "0": "1", "=": "="}[white_result]
            entries[white].append(TrfRoundEntry(number, black, "w", white_result))
            entries[black].append(TrfRoundEntry(number, white, "b", black_result))
            points[white] += {"1": 1, "0": 0, "=": 0.5}[white_result]
            points[black] += {"1": 1, "0": 0, "=": 0.5}[black_result]
    players = [
        TrfPlayer(
            start_rank=rank,
            name=name,
            sex="w" if rank in (1, 9) else "m",
            title=title,
            rating=rating,
            federation=fed,
            fide_id=str(32_000_000 + rank),
            birth_year=1990,
            points=points[rank],
            rounds=entries[rank],
        )
        for rank, (name, title, fed, rating) in enumerate(FIELD, 1)
    ]
    return build_trf(
        players,
        name="Norm Round Robin",
        start_date=START,
        end_date=START + dt.timedelta(days=8),
        tournament_type="Round robin (standard)",
        chief_arbiter="IA Jane Roe",
        round_dates=[START + dt.timedelta(days=n) for n in range(9)],
        rounds_declared=9,
    )


@pytest.fixture
def imported(tmp_path):
    path = tmp_path / "norm-rr.trf"
    path.write_bytes(round_robin_file())
    call_command("import_trf", str(path))
    event = Event.objects.get(name="Norm Round Robin")
    event.status = EventStatus.SUBMITTED
    event.save()
    return event


def test_the_imported_round_robin_gets_the_gm_norm_the_rules_give(client, imported):
    # Ra: (2500 + 2480 + 2420 + 2400 + 2380 + 2360 + 2350 + 2330 + 2300) / 9 = 21520 / 9 = 2391.1 -> 2391 (1.4.7);
    # 7/9 = 77.8 % -> 78 % -> dp 220 (1.4.9): Rp 2611 >= 2600; 5 GMs >= 3, 9 titled >= 5; FRA 3, GER 3, ITA 1.
    report = client.get(f"/api/v1/events/{imported.pk}/norms/").json()
    hero = next(p for p in report["players"] if p["name"] == "Hero, Ana")
    norms = {n["title"]: n for n in hero["norms"]}
    assert list(norms) == ["GM", "IM", "WGM", "WIM"]
    gm = norms["GM"]
    assert gm["norm"], [c for c in gm["checks"] if not c["ok"]]
    assert (gm["games"], gm["score"], gm["percentage"], gm["average_rating"], gm["performance"]) == (
        9,
        7.0,
        78,
        2391,
        2611,
    )
    assert gm["required_score"] == 7.0  # 6.5/9 = 72 % -> 166 -> 2557
    assert {c["rule"] for c in gm["checks"]} >= {"1.1", "1.4.1a", "1.4.3", "1.4.4", "1.4.5", "1.4.7", "1.4.8"}
    others = [p for p in report["players"] if p["name"] != "Hero, Ana"]
    assert not any(n["norm"] for p in others for n in p["norms"] if n["title"] == "GM")

    page = client.get(f"/events/{imported.pk}/norms/").content.decode()
    assert "Hero, Ana" in page
    assert f"/norms/{32_000_001}/it1.pdf?title=GM" in page

    text = pdf_text_of(client.get(f"/events/{imported.pk}/norms/{32_000_001}/it1.pdf?title=GM").content)
    for expected in ("Hero, Ana", "32000001", "Norm Round Robin", "2391", "2611", "7 (78 %)", "Dupont, Jean", "IA"):
        assert expected in text, expected
