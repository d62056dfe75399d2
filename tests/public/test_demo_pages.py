"""On a fresh install the demo's data (simulate_federation, every rating type, published) gives every page of
the public site meaningful content: top lists per category and type, federations, clubs, a player's games and
a head-to-head, movers over twelve months."""

import datetime
import re

import pytest

from players.models import Club
from ratings.models import RatingChange
from ratings.services.publication import rating_list_publish
from ratings.services.simulation import federation_simulate

TODAY = datetime.date(2026, 11, 20)


@pytest.fixture
def demo(db):
    summary = federation_simulate(300, 12, 1, today=TODAY, rating_types=("standard", "rapid", "blitz"))
    for rating_type in summary.rating_types:
        for list_date in summary.list_dates_by_type[rating_type]:
            rating_list_publish(rating_type, list_date, today=TODAY)
    return summary


def profiles(html: str) -> list[str]:
    return re.findall(r'href="/players/(\d+)/"', html)


def test_every_page_of_the_site_has_content_from_the_demo(client, demo):
    latest = demo.list_dates_by_type["standard"][-1].isoformat()
    for rating_type in ("standard", "rapid", "blitz"):
        for category in ("open", "women", "juniors", "seniors50"):
            html = client.get("/top/", {"rating_type": rating_type, "category": category}).content.decode()
            assert len(profiles(html)) >= 3, (rating_type, category)
    federations = client.get("/federations/").content.decode()
    assert len(set(re.findall(r'href="/federations/([A-Z]{3})/"', federations))) >= 5
    esp = client.get("/federations/ESP/").content.decode()
    assert len(profiles(esp)) >= 20
    assert "/clubs/" in esp
    assert "/events/" in esp
    club = Club.objects.order_by("pk").first()
    assert len(profiles(client.get(f"/clubs/{club.pk}/").content.decode())) >= 3
    change = RatingChange.objects.filter(games__gte=5).select_related("player").order_by("pk").first()
    games = client.get(f"/players/{change.player.id_number}/", {"tab": "games"}).content.decode()
    assert len(re.findall(r'href="/events/\d+/"', games)) >= 5
    opponent = change.details[0]["opponent"]
    vs = client.get(f"/players/{change.player.id_number}/vs/{opponent}/").content.decode()
    assert re.search(r'href="/events/\d+/"', vs)
    movers = client.get(f"/lists/{latest}/standard/movers/").content.decode()
    improved = re.search(r'<ol class="improved">(.*?)</ol>', movers, re.S).group(1)
    assert len(profiles(improved)) >= 5
    histogram = client.get(f"/lists/{latest}/blitz/").content.decode()
    assert histogram.count('<rect class="bar"') >= 5
