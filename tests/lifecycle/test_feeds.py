"""Atom feeds (issue 15): new lists per rating type, rated events, a player's rating changes; each valid Atom
(RFC 4287: feed and entries with id, title, updated; entries with a link) in a fixed number of queries."""

import datetime as dt
import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from ratings.services import rating_list_publish
from tests.ratings.scenarios import MAR, build_federation

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def atom(response) -> ET.Element:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = ET.fromstring(response.content)
    assert feed.tag == f"{ATOM}feed"
    for node in (feed, *feed.findall(f"{ATOM}entry")):  # RFC 4287 4.1.1 / 4.1.2: required elements
        for required in ("id", "title", "updated"):
            element = node.find(f"{ATOM}{required}")
            assert element is not None and (element.text or "").strip(), (node.tag, required)
        dt.datetime.fromisoformat(node.find(f"{ATOM}updated").text)  # RFC 3339 date-time
    for entry in feed.findall(f"{ATOM}entry"):
        assert entry.find(f"{ATOM}link").get("href")
    return feed


def titles(feed):
    return [entry.find(f"{ATOM}title").text for entry in feed.findall(f"{ATOM}entry")]


@pytest.fixture
def published():
    everyone, _, events = build_federation()
    rating_list_publish("standard", MAR)
    return everyone, events


def test_new_lists_feed_per_rating_type(client, published, django_assert_max_num_queries):
    with django_assert_max_num_queries(2):
        feed = atom(client.get(reverse("feed-lists", args=["standard"])))
    assert len(titles(feed)) == 2  # the January starting list and March
    assert titles(atom(client.get(reverse("feed-lists", args=["blitz"])))) == []


def test_rated_events_feed(client, published):
    _, (winter, cup) = published
    feed = atom(client.get(reverse("feed-rated-events")))
    assert sorted(titles(feed)) == sorted([winter.name, cup.name])


def test_a_players_rating_changes_feed(client, published):
    everyone, (winter, _cup) = published
    feed = atom(client.get(reverse("feed-player", args=[everyone[0].id_number])))
    assert any(title.startswith(f"{winter.name}: ") for title in titles(feed))
    assert client.get(reverse("feed-player", args=[999999999])).status_code == 404


def test_feeds_speak_spanish(client, published):
    response = client.get(reverse("feed-rated-events"), HTTP_ACCEPT_LANGUAGE="es")
    assert "<title>Torneos evaluados</title>" in response.content.decode()
