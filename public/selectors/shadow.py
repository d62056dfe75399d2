"""Shadow ratings of a player (ratings.services.publication.shadow): unofficial, beside the official ones. One query."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from players.models import Player
from ratings.models import ShadowRatingEntry, current_list_condition

PROVISIONAL_GAMES = 30  # an Elo shadow rating on fewer rated games is shown as provisional (B.02 8.3.3's 30)


@dataclass(frozen=True)
class ShadowRating:
    rating_type: str
    list_date: datetime.date
    rules: str
    rating: float | None
    deviation: float | None  # Glicko-2 RD
    volatility: float | None
    games: int  # in the list's period
    rated_games_total: int

    @property
    def interval(self) -> tuple[float, float] | None:
        """rating +- 2 RD (Glicko-2: about 95 %), None for an Elo shadow."""
        if self.rating is None or self.deviation is None:
            return None
        return self.rating - 2 * self.deviation, self.rating + 2 * self.deviation

    @property
    def provisional(self) -> bool:
        return self.deviation is None and self.rated_games_total < PROVISIONAL_GAMES

    def to_json(self) -> dict[str, object]:
        interval = self.interval
        return {
            "official": False,
            "rating_type": self.rating_type,
            "list_date": self.list_date.isoformat(),
            "rules": self.rules,
            "rating": None if self.rating is None else round(self.rating, 2),
            "deviation": None if self.deviation is None else round(self.deviation, 2),
            "volatility": None if self.volatility is None else round(self.volatility, 6),
            "interval": None if interval is None else [round(interval[0], 2), round(interval[1], 2)],
            "games": self.games,
            "rated_games_total": self.rated_games_total,
            "provisional": self.provisional,
        }


def player_shadow_ratings(player: Player) -> list[ShadowRating]:
    """The player's newest shadow rating of each rating type (on current lists only); one query."""
    rows = (
        ShadowRatingEntry.objects.filter(player=player)
        .filter(current_list_condition("shadow_list__rating_list"))
        .select_related("shadow_list__rating_list")
        .order_by("shadow_list__rating_list__rating_type", "-shadow_list__rating_list__list_date")
    )
    newest: dict[str, ShadowRatingEntry] = {}
    for row in rows:
        newest.setdefault(row.shadow_list.rating_list.rating_type, row)
    return [
        ShadowRating(
            rating_type=rating_type,
            list_date=row.shadow_list.rating_list.list_date,
            rules=row.shadow_list.rules_preset,
            rating=row.rating,
            deviation=row.deviation,
            volatility=row.volatility,
            games=row.games,
            rated_games_total=row.rated_games_total,
        )
        for rating_type, row in newest.items()
    ]
