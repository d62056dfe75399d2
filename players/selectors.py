"""Reads about players shared by several callers."""

from django.db.models import Q

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
