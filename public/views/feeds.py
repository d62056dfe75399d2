"""Public Atom feeds (issue 15), with Django's syndication framework: new lists per rating type, rated events,
a player's rating changes. A fixed number of queries each (the newest FEED_ITEMS items)."""

from __future__ import annotations

import datetime
import re

from django.contrib.sites.shortcuts import get_current_site
from django.contrib.syndication.views import Feed
from django.db.models import QuerySet
from django.http import Http404
from django.http.request import split_domain_port
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext as _

from events.models import Event, RatingType
from players.models import Player
from public.selectors.events import public_events
from ratings.models import RatingChange, RatingList, current_list_condition

FEED_ITEMS = 50
# RFC 4151: a tag URI names an authority (the site's host) and a date at which it held that name. The date is
# fixed, so that an id never changes (RFC 4287 4.2.6: "permanent, universally unique").
TAG_DATE = "2026"
_DNS_NAME = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")


def tag_uri(host: str, specific: str) -> str:
    """``tag:<host>,2026:<specific>`` (RFC 4151); a host that is no DNS name (an IPv6 literal) is "localhost"."""
    return f"tag:{host if _DNS_NAME.fullmatch(host) else 'localhost'},{TAG_DATE}:{specific.lstrip('/')}"


class AtomFeed(Feed):
    """Django's Atom feed with what RFC 4287 asks and Atom1Feed leaves to us: every atom:id an IRI that does not
    change (4.2.6: tag URIs, the feed's from its path, an entry's from ``item_guid``), and an atom:author for the
    feed (4.1.1: a feed has one unless every entry has one)."""

    feed_type = Atom1Feed

    def author_name(self) -> str:
        return _("Federation rating database")

    def get_feed(self, obj, request):
        feed = super().get_feed(obj, request)
        host, _port = split_domain_port(get_current_site(request).domain)
        feed.feed["id"] = tag_uri(host, f"feed{request.path}")
        for item in feed.items:
            item["unique_id"] = tag_uri(host, item["unique_id"])
        return feed


def _moment(value: datetime.date | datetime.datetime | None) -> datetime.datetime:
    """Atom needs a time for every entry: a date's midnight (UTC) when only the date is known."""
    if isinstance(value, datetime.datetime):
        return value
    day = value or datetime.date(1970, 1, 1)
    return datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC)


class RatingListsFeed(AtomFeed):
    """The published lists of one rating type, newest first."""

    def get_object(self, request, rating_type: str) -> str:
        if rating_type not in RatingType.values:
            raise Http404("unknown rating type")
        return rating_type

    def title(self, rating_type: str) -> str:
        return _("New %(type)s rating lists") % {"type": RatingType(rating_type).label}

    def link(self, rating_type: str) -> str:
        return reverse("ratings:index")

    def subtitle(self, rating_type: str) -> str:
        return _("Each list when it is published (a correction publishes a new version).")

    def items(self, rating_type: str) -> QuerySet[RatingList]:
        return RatingList.objects.current(rating_type).order_by("-list_date")[:FEED_ITEMS]

    def item_title(self, item: RatingList) -> str:
        return str(item)

    def item_description(self, item: RatingList) -> str:
        return _("%(entries)s players, %(rated)s rated in the period, %(events)s events.") % {
            "entries": item.entry_count,
            "rated": item.rated_count,
            "events": item.event_count,
        }

    def item_link(self, item: RatingList) -> str:
        return reverse("ratings:detail", args=[item.list_date, item.rating_type])

    def item_guid(self, item: RatingList) -> str:
        return f"rating-list/{item.pk}"  # each version of a list (a correction publishes a new one)

    def item_updateddate(self, item: RatingList) -> datetime.datetime:
        return item.published_at or _moment(item.list_date)

    def item_pubdate(self, item: RatingList) -> datetime.datetime:
        return self.item_updateddate(item)


class RatedEventsFeed(AtomFeed):
    """Events rated on a published list, most recently rated first."""

    def title(self) -> str:
        return _("Rated events")

    def link(self) -> str:
        return reverse("events:list")

    def items(self) -> QuerySet[Event]:
        return (
            public_events()
            .filter(rated_on__isnull=False)
            .order_by("-rated_on__list_date", "-end_date", "-id")[:FEED_ITEMS]
        )

    def item_title(self, item: Event) -> str:
        return item.name

    def item_description(self, item: Event) -> str:
        rated_on = item.rated_on
        return _("Rated on the list of %(date)s.") % {"date": rated_on.list_date if rated_on else "—"}

    def item_link(self, item: Event) -> str:
        return reverse("events:detail", args=[item.pk])

    def item_guid(self, item: Event) -> str:
        return f"event/{item.pk}/list/{item.rated_on_id}"  # re-rated on a new version: a new entry

    def item_updateddate(self, item: Event) -> datetime.datetime:
        rated_on = item.rated_on
        return (rated_on.published_at if rated_on else None) or item.updated_at or timezone.now()


class PlayerRatingChangesFeed(AtomFeed):
    """A player's rating changes on the current published lists, newest first."""

    def get_object(self, request, id_number: int) -> Player:
        return get_object_or_404(Player, id_number=id_number)

    def title(self, player: Player) -> str:
        return _("Rating changes of %(name)s") % {"name": player.name}

    def link(self, player: Player) -> str:
        return reverse("players:profile", args=[player.id_number])

    def items(self, player: Player) -> QuerySet[RatingChange]:
        return (
            RatingChange.objects.filter(current_list_condition("rating_list"), player=player)
            .select_related("rating_list", "event", "player")
            .order_by("-rating_list__list_date", "-id")[:FEED_ITEMS]
        )

    def item_title(self, item: RatingChange) -> str:
        return f"{item.event.name}: {item.change:+.1f}"

    def item_description(self, item: RatingChange) -> str:
        return _("%(games)s games, score %(score)s, change %(change)s on the %(list)s list.") % {
            "games": item.games,
            "score": item.score,
            "change": f"{item.change:+.2f}",
            "list": item.rating_list,
        }

    def item_link(self, item: RatingChange) -> str:
        list_ = item.rating_list
        return reverse("players:calculations", args=[item.player.id_number, list_.list_date, list_.rating_type])

    def item_guid(self, item: RatingChange) -> str:
        return f"rating-change/{item.pk}"

    def item_updateddate(self, item: RatingChange) -> datetime.datetime:
        return item.rating_list.published_at or _moment(item.rating_list.list_date)
