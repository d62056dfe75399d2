"""Rules of a round that hold wherever its pairings come from: the admin's game forms (``events.forms``), the round
entry screen (``events.services_rounds``) and a TRF file (``events.trf``).

Pure (no Django, no models): the admin form, the services and the pure TRF package all import it; each caller
words its own messages. The database keeps the last line of defence (migration 0003's triggers).
"""

from __future__ import annotations

from collections.abc import Iterable

# (round, white, black): a player is any number that names them (a participant's key, a start rank); None is
# nobody (the black side of a bye).
Pairing = tuple[int, int | None, int | None]


def paired_twice(pairings: Iterable[Pairing]) -> dict[tuple[int, int], list[int]]:
    """A player plays once per round: every (round, player) found in more than one pairing of ``pairings``.

    Returns (round, player) -> the positions of their pairings in ``pairings`` (in that order), ordered by round
    then player. A player on both sides of one pairing is in it twice (the position comes twice).
    """
    first: dict[tuple[int, int], int] = {}  # (round, player) -> the position of their first pairing
    twice: dict[tuple[int, int], list[int]] = {}
    for position, (round_, white, black) in enumerate(pairings):
        for player in (white, black):
            if player is None:
                continue
            key = (round_, player)
            if key in first:
                twice.setdefault(key, [first[key]]).append(position)
            else:
                first[key] = position
    return dict(sorted(twice.items()))
