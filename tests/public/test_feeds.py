"""Atom feeds (issue 15): new lists per rating type, rated events, a player's rating changes, in a fixed number of
queries. "Feeds validate as Atom": every feed is validated against the RELAX NG schema of RFC 4287 Appendix B
(atom.rng here, translated into the XML syntax lxml reads) and checked for the rules of RFC 4287 that a schema
cannot express."""

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.urls import URLPattern, get_resolver, reverse
from lxml import etree

from ratings.services import rating_list_publish
from tests.ratings.scenarios import MAR, build_federation

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
SCHEMA = etree.RelaxNG(etree.parse(str(Path(__file__).with_name("atom.rng"))))
# RFC 4287 3.3: a date construct is an RFC 3339 date-time (section 5.6), "T" and "Z" upper-case.
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")
# RFC 3987 2.2: an absolute IRI starts with a scheme; no white space, no character IRIs exclude.
IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]+")
# RFC 4151 2.1: tag:<DNS name or e-mail>,<YYYY[-MM[-DD]]>:<specific>
TAG = re.compile(r"tag:[a-z0-9.-]+(@[a-z0-9.-]+)?,\d{4}(-\d{2}(-\d{2})?)?:[^\s#]*(#[^\s]*)?")


def rfc4287_rules(feed) -> None:
    """What RFC 4287 requires and Appendix B's RELAX NG cannot say."""
    entries = feed.findall(f"{ATOM}entry")
    ids = [node.findtext(f"{ATOM}id") for node in (feed, *entries)]
    for value in ids:  # 4.2.6: atom:id is a (normalised, absolute) IRI
        assert IRI.fullmatch(value), value
        assert not value.startswith("tag:") or TAG.fullmatch(value), value
    assert len(set(ids)) == len(ids), ids  # 4.2.6: universally unique (4.1.1: one entry per id here)
    for element in feed.iter(f"{ATOM}updated", f"{ATOM}published"):  # 3.3
        assert RFC3339.fullmatch(element.text), element.text
    # 4.1.1: a feed has an atom:author unless every one of its entries has one (Appendix B's s:rule).
    assert feed.find(f"{ATOM}author") is not None or all(e.find(f"{ATOM}author") is not None for e in entries)
    for node in (feed, *entries):
        links = node.findall(f"{ATOM}link")
        for link in links:  # 4.2.7.1: href is an IRI reference; these are absolute
            assert IRI.fullmatch(link.get("href")), link.get("href")
            assert urlsplit(link.get("href")).netloc, link.get("href")
        # 4.1.1 / 4.1.2: no two alternate links with the same type and hreflang
        alternates = [
            (link.get("type"), link.get("hreflang")) for link in links if link.get("rel", "alternate") == "alternate"
        ]
        assert len(set(alternates)) == len(alternates), alternates
    for entry in entries:  # 4.1.2: an alternate link or a content (Appendix B's other s:rule)
        assert any(link.get("rel", "alternate") == "alternate" for link in entry.findall(f"{ATOM}link")) or (
            entry.find(f"{ATOM}content") is not None
        )


def atom(response):
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = etree.fromstring(response.content)
    assert SCHEMA.validate(feed), [str(error) for error in SCHEMA.error_log]
    rfc4287_rules(feed)
    return feed


def titles(feed):
    return [entry.findtext(f"{ATOM}title") for entry in feed.findall(f"{ATOM}entry")]


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
    assert "<title>Torneos valorados</title>" in response.content.decode()
    assert atom(response).get("{http://www.w3.org/XML/1998/namespace}lang") == "es"


def feed_names(patterns=None, prefix: str = "") -> set[str]:
    """The names of every URL under /feeds/, through every include()."""
    names = set()
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        path = prefix + str(pattern.pattern)
        if isinstance(pattern, URLPattern):
            names |= {pattern.name} if path.startswith("feeds/") else set()
        else:
            names |= feed_names(pattern.url_patterns, path)
    return names


@pytest.mark.parametrize("language", ["en", "es"])
def test_every_feed_validates_as_atom_with_entries_and_without(client, published, language):
    everyone, _ = published
    urls = {
        "feed-lists": [reverse("feed-lists", args=[rating_type]) for rating_type in ("standard", "rapid", "blitz")],
        "feed-rated-events": [reverse("feed-rated-events")],
        "feed-player": [reverse("feed-player", args=[player.id_number]) for player in everyone],
    }
    assert set(urls) == feed_names()  # a new feed is validated here too
    feeds = {url: atom(client.get(url, HTTP_ACCEPT_LANGUAGE=language)) for group in urls.values() for url in group}
    assert any(not titles(feed) for feed in feeds.values())
    assert any(titles(feed) for feed in feeds.values())
    # Every feed and entry id is a tag URI of this host that differs from feed to feed (4.2.6).
    feed_ids = [feed.findtext(f"{ATOM}id") for feed in feeds.values()]
    assert len(set(feed_ids)) == len(feeds)
    assert all(i.startswith("tag:testserver,2026:") for i in feed_ids)
    assert feeds[urls["feed-lists"][0]].findtext(f"{ATOM}author/{ATOM}name")


def test_the_schema_and_the_rules_refuse_what_is_not_atom(client, published):
    """The checks can fail: the schema, and the rules it cannot express, each refuse a broken copy of a feed."""
    good = client.get(reverse("feed-lists", args=["standard"])).content
    assert SCHEMA.validate(etree.fromstring(good))

    def broken(old: bytes, new: bytes):
        assert old in good
        return etree.fromstring(good.replace(old, new, 1))

    assert not SCHEMA.validate(etree.fromstring(re.sub(rb"<title>(.*?)</title>", rb"<titel>\1</titel>", good, count=1)))
    assert not SCHEMA.validate(etree.fromstring(re.sub(rb"<updated>[^<]*<", b"<updated>yesterday<", good, count=1)))
    no_author = re.sub(rb"<author>.*?</author>", b"", good)
    with pytest.raises(AssertionError):
        rfc4287_rules(etree.fromstring(no_author))  # 4.1.1
    entry_id = re.search(rb"<entry>.*?<id>(.*?)</id>", good).group(1)
    with pytest.raises(AssertionError):
        rfc4287_rules(broken(b"<id>" + entry_id, b"<id>rating-list-1"))  # 4.2.6: not an IRI
    with pytest.raises(AssertionError):
        rfc4287_rules(broken(b"+00:00</updated>", b"</updated>"))  # 3.3: no time zone
    with pytest.raises(AssertionError):
        rfc4287_rules(broken(b'rel="self"', b'rel="alternate"'))  # 4.1.1: two alternate links alike
