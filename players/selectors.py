"""Reads about players shared by several callers."""

from django.db.models import Q, QuerySet

from players.models import Player

# Surname letters compared when looking for duplicates: enough to survive a misspelt ending
# ("Fernández" / "Fernandes"), few enough to use the search_name prefix index.
DUPLICATE_SURNAME_PREFIX = 4


def likely_duplicates(player: Player, *, limit: int = 20) -> list[Player]:
    """Other (not merged) players who are probably the same person as ``player``.

    A candidate starts with the same surname letters (``DUPLICATE_SURNAME_PREFIX``) and either was born the
    same year or has exactly the same name. One indexed query (the ``search_name`` prefix).
    """
    surname = player.surname.strip().upper()
    if not surname:
        return []
    prefix = surname[:DUPLICATE_SURNAME_PREFIX]
    search_name = player.name.upper()
    same_person = Q(search_name=search_name)
    if player.birth_year:
        same_person |= Q(birth_year=player.birth_year)
    return list(
        Player.objects.filter(search_name__startswith=prefix)
        .filter(same_person)
        .filter(merged_into__isnull=True)
        .exclude(pk=player.pk)
        .select_related("federation")
        .order_by("search_name", "pk")[:limit]
    )


# --- search ----------


def players_matching(query: str) -> QuerySet[Player]:
    """Registered players (merged records left out) whose ID number equals ``query`` (digits) or whose
    "SURNAME, GIVEN" starts with it, by name (every one for an empty query): the profile search and the
    players API alike."""
    query = query.strip()
    players = Player.objects.filter(merged_into__isnull=True).order_by("search_name", "id_number")
    if not query:
        return players
    if query.isascii() and query.isdigit():  # "¹".isdigit() is True, int("¹") fails
        if len(query) > 18:  # longer than any ID number a 64-bit column holds
            return players.none()
        return players.filter(id_number=int(query))
    return players.filter(search_name__startswith=query.upper())


def search_players(query: str, limit: int = 50) -> list[Player]:
    """The first ``limit`` players_matching ``query`` with their federation (none for an empty query)."""
    if not query.strip():
        return []
    return list(players_matching(query).select_related("federation")[:limit])
