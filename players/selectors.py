"""Reads about players shared by several callers."""

from collections import defaultdict
from collections.abc import Sequence
from typing import Protocol

from django.db.models import Q, QuerySet

from players.models import Player
from players.names import fold_name, name_words

# --- likely duplicates ----------

# Surname letters compared when looking for duplicates: enough to survive a misspelt ending
# ("Fernández" / "Fernandes"), few enough to use the search_name prefix index.
DUPLICATE_SURNAME_PREFIX = 4
# players per OR query of likely_duplicates_among (three name conditions each): within SQLite's limits on
# variables and expression depth
_DUPLICATE_QUERY_CHUNK = 150


class _Named(Protocol):
    @property
    def surname(self) -> str: ...
    @property
    def given_names(self) -> str: ...
    @property
    def birth_year(self) -> int | None: ...


def _surname_start(surname: str) -> str:
    return surname.strip().upper()[:DUPLICATE_SURNAME_PREFIX]


def duplicate_reason(player: _Named, candidate: _Named) -> str | None:
    """Why ``candidate`` is probably the same person as ``player`` ("same name", "same surname and birth year
    1990", "similar surname and birth year 1990"), or None: the one rule for likely duplicate players.

    The surnames start with the same DUPLICATE_SURNAME_PREFIX letters, and either the names are the same
    (surname and given names, compared by fold_name; a player without given names is not matched by name
    alone) or both were born the same year.
    """
    start = _surname_start(player.surname)
    if not start or not candidate.surname.strip().upper().startswith(start):
        return None
    same_surname = fold_name(player.surname) == fold_name(candidate.surname)
    if same_surname and player.given_names and fold_name(player.given_names) == fold_name(candidate.given_names):
        return "same name"
    if player.birth_year and candidate.birth_year == player.birth_year:
        return f"{'same' if same_surname else 'similar'} surname and birth year {player.birth_year}"
    return None


def _duplicate_query(player: Player) -> Q:
    """The registered players duplicate_reason may name for ``player``, by the indexed search_name ("SURNAME,
    GIVEN NAMES"): the same surname, or the same surname start and birth year."""
    surname = player.surname.strip().upper()
    query = Q(search_name=surname) | Q(search_name__startswith=f"{surname}, ")
    if player.birth_year:
        query |= Q(search_name__startswith=_surname_start(surname), birth_year=player.birth_year)
    return query


def likely_duplicates_among(players: Sequence[Player], *, limit: int | None = None) -> list[list[tuple[Player, str]]]:
    """For each of ``players`` (registered or not yet saved), the other registered players (merged records
    left out) that duplicate_reason says are probably the same person, with the reason, by name: at most
    ``limit`` each. One query per _DUPLICATE_QUERY_CHUNK players."""
    named = [player for player in players if _surname_start(player.surname)]
    found: dict[int, Player] = {}
    for first in range(0, len(named), _DUPLICATE_QUERY_CHUNK):
        query = Q()
        for player in named[first : first + _DUPLICATE_QUERY_CHUNK]:
            query |= _duplicate_query(player)
        # Only the indexed search_name in the query (a planner guessing merged_into's share of a freshly
        # loaded table scanned it whole); merged records are dropped here.
        for candidate in Player.objects.filter(query).select_related("federation").order_by():
            if candidate.merged_into_id is None:
                found[candidate.pk] = candidate
    by_start: dict[str, list[Player]] = defaultdict(list)
    for candidate in sorted(found.values(), key=lambda c: (c.search_name, c.pk)):
        by_start[_surname_start(candidate.surname)].append(candidate)
    out = []
    for player in players:
        start = _surname_start(player.surname)
        if len(start) == DUPLICATE_SURNAME_PREFIX:  # the usual case: one group, in order already
            candidates = by_start.get(start, [])
        else:  # a shorter surname (or none): every group starting with it
            candidates = sorted(
                (c for key, group in by_start.items() if start and key.startswith(start) for c in group),
                key=lambda c: (c.search_name, c.pk),
            )
        matches = [
            (candidate, reason)
            for candidate in candidates
            if candidate.pk != player.pk and (reason := duplicate_reason(player, candidate)) is not None
        ]
        out.append(matches[:limit])
    return out


def likely_duplicates(player: Player, *, limit: int = 20) -> list[Player]:
    """Other (not merged) registered players who are probably the same person as ``player`` (duplicate_reason),
    by name."""
    return [candidate for candidate, _ in likely_duplicates_among([player], limit=limit)[0]]


# --- search ----------

# Words of a query that are looked for (a name has rarely more; a longer query is cut, not refused).
MAX_QUERY_WORDS = 6


def _word_anywhere(word: str) -> Q:
    """A word of the folded key starts with ``word`` (the key's first word, or one after a space)."""
    return Q(search_key__startswith=word) | Q(search_key__contains=f" {word}")


def players_matching(query: str) -> QuerySet[Player]:
    """Registered players (merged records left out) whose ID number equals ``query`` (digits) or whose name has
    every word of ``query`` at the start of one of its words, without case or accents, in any order ("García",
    "Elena Moreno", "Moreno, Elena", "mor ele"), by name (every one for an empty query): the profile search and
    the players API alike (issue 32)."""
    query = query.strip()
    players = Player.objects.filter(merged_into__isnull=True).order_by("search_name", "id_number")
    if not query:
        return players
    if query.isascii() and query.isdigit():  # "¹".isdigit() is True, int("¹") fails
        if len(query) > 18:  # longer than any ID number a 64-bit column holds
            return players.none()
        return players.filter(id_number=int(query))
    words = sorted(set(name_words(query)), key=len, reverse=True)[:MAX_QUERY_WORDS]
    if not words:  # punctuation only
        return players.none()
    condition = Q()
    for word in words:  # the longest first: the most selective condition for a planner that reads them in order
        condition &= _word_anywhere(word)
    return players.filter(condition)


def search_players(query: str, limit: int = 50) -> list[Player]:
    """The first ``limit`` players_matching ``query`` with their federation (none for an empty query)."""
    if not query.strip():
        return []
    return list(players_matching(query).select_related("federation")[:limit])
