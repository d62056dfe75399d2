"""The players page's search (issue 32): a name or ID number (players.selectors.players_matching) narrowed by
federation, title, sex, birth years and a rating range of one rating type, in pages. Three queries a page: the
count, the page's players, their current ratings."""

import re
from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import Exists, OuterRef, Q
from django.utils.translation import gettext as _

from core.pagination import whole_number
from events.models import RatingType
from players.models import Sex, Title, WomenTitle
from players.selectors import players_matching
from ratings.models import PlayerRating

SEARCH_PAGE_SIZE = 50
TITLES = [*Title.values, *WomenTitle.values]
YEARS = (1850, 2100)
RATINGS = (0, 4000)


@dataclass
class PlayerSearch:
    """What the search form asked, read from its parameters; ``errors`` by field, in the visitor's language."""

    query: str = ""
    federation: str = ""
    title: str = ""
    sex: str = ""
    born_from: int | None = None
    born_to: int | None = None
    rating_type: str = RatingType.STANDARD
    rating_min: int | None = None
    rating_max: int | None = None
    errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_params(cls, params) -> "PlayerSearch":
        search = cls(query=(params.get("q") or "").strip()[:100])
        federation = (params.get("federation") or "").strip().upper()
        if federation and not re.fullmatch(r"[A-Z]{3}", federation):
            search.errors["federation"] = _("a three-letter code, such as ESP")
        search.federation = federation
        search.title = _choice(search, params, "title", TITLES)
        search.sex = _choice(search, params, "sex", Sex.values)
        search.rating_type = _choice(search, params, "rating_type", RatingType.values) or RatingType.STANDARD
        search.born_from = _number(search, params, "born_from", YEARS)
        search.born_to = _number(search, params, "born_to", YEARS)
        search.rating_min = _number(search, params, "rating_min", RATINGS)
        search.rating_max = _number(search, params, "rating_max", RATINGS)
        return search

    @property
    def narrowed(self) -> bool:
        """Any filter beyond the name (then an empty name lists every player the filters keep)."""
        return any((self.federation, self.title, self.sex, self.born_from, self.born_to)) or self.rated

    @property
    def rated(self) -> bool:
        return self.rating_min is not None or self.rating_max is not None

    @property
    def asked(self) -> bool:
        return bool(self.query) or self.narrowed


def _choice(search: PlayerSearch, params, name: str, choices: list[str]) -> str:
    value = (params.get(name) or "").strip()
    if value and value not in choices:
        search.errors[name] = _("one of %(choices)s") % {"choices": ", ".join(choices)}
        return ""
    return value


def _number(search: PlayerSearch, params, name: str, bounds: tuple[int, int]) -> int | None:
    raw = (params.get(name) or "").strip()
    if not raw:
        return None
    number = whole_number(raw)
    if number is None or not bounds[0] <= number <= bounds[1]:
        search.errors[name] = _("a whole number from %(low)d to %(high)d") % {"low": bounds[0], "high": bounds[1]}
        return None
    return number


def player_search_page(search: PlayerSearch, page_number: str | None) -> tuple[Page, dict[int, dict]]:
    """A page of the players ``search`` finds (by name) and their current ratings by player and rating type."""
    players = players_matching(search.query).select_related("federation")
    conditions = Q()
    if search.federation:
        conditions &= Q(federation_id=search.federation)
    if search.title:
        conditions &= Q(title=search.title) | Q(women_title=search.title)
    if search.sex:
        conditions &= Q(sex=search.sex)
    if search.born_from is not None:
        conditions &= Q(birth_year__gte=search.born_from)
    if search.born_to is not None:
        conditions &= Q(birth_year__lte=search.born_to)
    if search.rated:
        ratings = PlayerRating.objects.filter(player=OuterRef("pk"), rating_type=search.rating_type)
        if search.rating_min is not None:
            ratings = ratings.filter(rating__gte=search.rating_min)
        if search.rating_max is not None:
            ratings = ratings.filter(rating__lte=search.rating_max)
        players = players.filter(Exists(ratings))
    page = Paginator(players.filter(conditions), SEARCH_PAGE_SIZE).get_page(page_number)
    ratings_of: dict[int, dict] = {}
    for row in PlayerRating.objects.filter(player__in=[player.pk for player in page.object_list]):
        ratings_of.setdefault(row.player_id, {})[row.rating_type] = row
    return page, ratings_of
