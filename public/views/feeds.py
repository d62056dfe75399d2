"""Public Atom feeds (issue 15), with Django's syndication framework: new lists per rating type, rated events,
a player's rating changes. A fixed number of queries each (the newest FEED_ITEMS items)."""

from __future__ import annotations

import datetime

from django.contrib.syndication.views import Feed
from django.db.models import QuerySet
from django.http import Http404
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


def _moment(value: datetime.date | datetime.datetime | None) -> datetime.datetime:
    """Atom needs a time for every entry: a date's midnight (UTC) when only the date is known."""
    if isinstance(value, datetime.datetime):
        return value
    day = value or datetime.date(1970, 1, 1)
    return datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC)


class RatingListsFeed(Feed):
    """The published lists of one rating type, newest first."""

    feed_type = Atom1Feed

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
        return f"rating-list-{item.pk}"

    def item_updateddate(self, item: RatingList) -> datetime.datetime:
        return item.published_at or _moment(item.list_date)

    def item_pubdate(self, item: RatingList) -> datetime.datetime:
        return self.item_updateddate(item)


class RatedEventsFeed(Feed):
    """Events rated on a published list, most recently rated first."""

    feed_type = Atom1Feed

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
        return f"event-{item.pk}-list-{item.rated_on_id}"

    def item_updateddate(self, item: Event) -> datetime.datetime:
        rated_on = item.rated_on
        return (rated_on.published_at if rated_on else None) or item.updated_at or timezone.now()


class PlayerRatingChangesFeed(Feed):
    """A player's rating changes on the current published lists, newest first."""

    feed_type = Atom1Feed

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
        return f"rating-change-{item.pk}"

    def item_updateddate(self, item: RatingChange) -> datetime.datetime:
        return item.rating_list.published_at or _moment(item.rating_list.list_date)
