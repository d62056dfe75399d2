"""Issue 32, the public player and list pages: numbers that misled. The list's rank counts active players only (the
rank the profile and the API give); a first rating's calculation shows how the initial rating was computed (B.02
7.1.4 and 8.2) instead of 0.00 everywhere; a rating gone below the floor says why (B.02 7.2); an unrated player's
games show no 0.00 change; opponents' ratings are whole numbers; a Spanish page writes decimals with its comma."""

import re

import pytest
from django.conf import settings

from ratings.models import RatingChange, RatingListEntry
from tests.factories import make_rated_event

# Five games against rated opponents: 1600..2000 (sum 9000), 3 points. FIDE 2024: two hypothetical 1800 draws,
# Ra = (9000 + 3600) / 7 = 1800, p = 4 / 7 = 57 %, dp(57 %) = +50 (table 8.1.1), Ru = 1850.
OPPONENT_RATINGS = [1600, 1700, 1800, 1900, 2000]
SCORES = [1.0, 1.0, 1.0, 0.0, 0.0]


def spanish(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    return client


def first_rating(federation):
    """The federation's unrated player gets a first rating of 1850 on the latest list from five counted games."""
    newcomer = federation.players[-1]
    latest = federation.latest
    event = make_rated_event(latest, name="Newcomers Open")
    opponents = federation.players[:5]
    lines = [
        {
            "game": None,
            "round": n + 1,
            "colour": "white" if n % 2 else "black",
            "opponent": opponent.id_number,
            "opponent_rating": float(rating),
            "opponent_rating_used": float(rating),
            "capped": False,
            "difference": None,
            "expected_score": None,
            "score": score,
            "rated": False,
            "rating_change": None,
            "weighted_change": 0.0,
            "counted": True,
        }
        for n, (opponent, rating, score) in enumerate(zip(opponents, OPPONENT_RATINGS, SCORES, strict=True))
    ]
    RatingChange.objects.create(
        rating_list=latest,
        player=newcomer,
        event=event,
        rating_before=None,
        k_factor=None,
        games=5,
        score=3.0,
        expected_score=0.0,
        change=0.0,
        details=lines,
    )
    RatingListEntry.objects.filter(rating_list=latest, player=newcomer).update(
        rating=1850, change=None, is_new_rating=True, k_factor=40
    )
    return newcomer, latest


def test_list_page_ranks_active_players_only_as_the_profile_does(client, federation):
    latest = federation.latest
    page = client.get(f"/lists/{latest.list_date}/standard/").content.decode()
    rows = re.findall(
        r'<td class="num rank-col">([^<]*)</td>\s*<td class="sticky-col name">.*?href="/players/(\d+)/"', page
    )
    shown = {int(id_number): rank for rank, id_number in rows}
    inactive = federation.players[3]
    assert shown[inactive.id_number] == "—"  # listed, not ranked
    for entry in RatingListEntry.objects.filter(rating_list=latest, rating__isnull=False, inactive=False):
        assert shown[entry.player.id_number] == str(entry.rank)
    after = federation.players[4]  # below the inactive player: rank 4, where the line count said 5
    assert shown[after.id_number] == "4"
    profile = client.get(f"/players/{after.id_number}/").content.decode()
    assert "<dt>Rank</dt><dd>4</dd>" in profile
    assert "World rank" not in client.get("/top/").content.decode()


def test_rating_class_reads_as_a_band_not_a_title(client, federation):
    page = client.get(f"/players/{federation.players[1].id_number}/").content.decode()
    assert "<dt>Rating band</dt>" in page
    assert "a strength band, not a title" in page
    assert "<dt>Class</dt>" not in page


def test_first_rating_calculation_shows_the_initial_rating_computed(client, federation):
    newcomer, latest = first_rating(federation)
    page = client.get(f"/players/{newcomer.id_number}/calculations/{latest.list_date}/standard/").content.decode()
    initial = page[page.index('id="initial"') : page.index("</section>", page.index('id="initial"'))]
    assert "How the first rating was computed" in initial
    assert "rated 1800 each, scored as draws" in initial
    assert "(9000 + 3600) / 7" in initial  # Ra
    assert "1800.00" in initial
    assert "57 %" in initial  # p
    assert "+50" in initial  # dp (table 8.1.1)
    assert "<strong>1850</strong>" in initial
    assert "published: at least 1400" in initial
    assert "first rating" in page  # the change since the previous list
    calc = page[page.index('<table class="calc">') : page.index("</table>", page.index('<table class="calc">'))]
    assert "0.00" not in calc  # no change a game, no expected score: the games changed no rating
    assert "K × Σ(score − PD)" not in page


def test_unrated_player_games_show_no_change_and_whole_opponent_ratings(client, federation):
    newcomer, _ = first_rating(federation)
    page = client.get(f"/players/{newcomer.id_number}/", {"tab": "games"}).content.decode()
    games = page[page.index('<table class="games">') : page.index("</table>", page.index('<table class="games">'))]
    assert "0.00" not in games
    assert "1600.0" not in games
    assert '<td class="num">1600</td>' in games
    stats = client.get(f"/players/{newcomer.id_number}/", {"tab": "statistics"}).content.decode()
    events = stats[
        stats.index('<table class="events">') : stats.index("</table>", stats.index('<table class="events">'))
    ]
    assert "0.00" not in events
    assert "#initial" in events


def test_a_rating_below_the_floor_says_why_it_is_gone(client, federation):
    dropped = federation.players[5]
    latest, previous = federation.lists["standard"][-1], federation.lists["standard"][-2]
    RatingListEntry.objects.filter(rating_list=previous, player=dropped).update(rating=1407)
    RatingListEntry.objects.filter(rating_list=latest, player=dropped).update(
        rating=None, change=-139, dropped_below_floor=True
    )
    page = client.get(f"/players/{dropped.id_number}/calculations/{latest.list_date}/standard/").content.decode()
    note = page[page.index('id="floor"') :]
    assert "1407" in note
    assert "−139" in note
    assert "1268" in note  # 1407 − 139
    assert "floor of 1400" in note
    assert "B.02 7.2" in note
    assert "unrated (below the floor)" in page


def test_spanish_calculation_page_has_one_decimal_separator(client, federation):
    star = federation.star
    page = spanish(client).get(f"/players/{star.id_number}/calculations/{federation.latest.list_date}/standard/")
    body = page.content.decode()
    calc = body[body.index('<table class="calc">') : body.index("</table>", body.index('<table class="calc">'))]
    assert re.search(r"\d,\d\d", calc)
    assert not re.search(r"\d\.\d\d", calc)


@pytest.mark.parametrize("path", ["/lists/{date}/standard/", "/top/"])
def test_lists_explain_every_flag(client, federation, path):
    page = client.get(path.format(date=federation.latest.list_date)).content.decode()
    legend = page[page.index('<dl class="flag-legend">') :]
    for mark in ("<dt>i</dt>", "<dt>p</dt>", "<dt>w</dt>", "<dt>K</dt>", "<dt>new</dt>"):
        assert mark in legend
