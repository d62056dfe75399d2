"""One-off rating adjustments (ratings.models.RatingAdjustment): attach to the publication's rules, mark as
applied, and preview (who moves, by how much, what it does to the pool) before the list is published.

The formulas and their arithmetic are the engine's (ratings.engine.adjustments: adjust_before_games,
adjust_list, adjustment_effect); the publication's computation applies them
(ratings.services.publication.compute) and the write records each entry's amount.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from core.bulk import read_columns
from players.models import Player
from ratings.engine import RulesPreset
from ratings.engine.adjustments import PoolFigures, adjustment_effect
from ratings.models import RatingAdjustment, RatingList, RatingListEntry
from ratings.selectors import rating_list_previous

PREVIEW_MOVERS = 20


def rules_with_adjustment(rules: RulesPreset, rating_type: str, list_date: datetime.date) -> RulesPreset:
    """``rules`` with the adjustment attached to this list date, if any (one query)."""
    adjustment = RatingAdjustment.objects.filter(rating_type=rating_type, list_date=list_date).first()
    if adjustment is None or rules.glicko2 is not None:
        return rules
    return rules.replace(adjustment=adjustment.spec())


def rating_adjustments_by_date(rating_type: str) -> dict[datetime.date, RatingAdjustment]:
    """Every adjustment of a rating type by list date (one query; the backtest attaches them per list)."""
    return {a.list_date: a for a in RatingAdjustment.objects.filter(rating_type=rating_type)}


def rating_adjustment_applied(rating_list: RatingList) -> None:
    """Record that ``rating_list`` (being published) applied the adjustment of its date."""
    RatingAdjustment.objects.filter(rating_type=rating_list.rating_type, list_date=rating_list.list_date).update(
        applied_to=rating_list
    )


@dataclass
class AdjustmentPreview:
    """The adjustment applied to the ratings in force before its list date (the last published list)."""

    adjustment: RatingAdjustment
    in_force: RatingList | None
    moved: int
    points: int
    largest: int
    before: PoolFigures
    after: PoolFigures
    movers: list[dict[str, Any]]  # the players who move most: id_number, name, rating, amount, new rating
    note: str

    def to_json(self) -> dict[str, Any]:
        return {
            "moved": self.moved,
            "points": self.points,
            "largest": self.largest,
            "before": self.before.__dict__,
            "after": self.after.__dict__,
            "movers": self.movers,
        }


def rating_adjustment_preview(adjustment: RatingAdjustment) -> AdjustmentPreview:
    """Who moves and by how much, on the ratings in force before the adjustment's list date; three queries.

    An after-games adjustment will apply to the ratings after the period's games: the preview shows its effect
    on the ratings in force now (the games are not known until the list is computed)."""
    spec = adjustment.spec()
    in_force = rating_list_previous(adjustment.rating_type, adjustment.list_date)
    rows = read_columns(
        RatingListEntry.objects.filter(rating_list=in_force, rating__isnull=False).order_by()
        if in_force is not None
        else RatingListEntry.objects.none(),
        {"player_id": "int64", "rating": "float64"},
    )
    ratings = rows["rating"]
    effect = adjustment_effect(spec, ratings, PREVIEW_MOVERS)
    amounts, top = effect.amounts, effect.movers
    players = Player.objects.in_bulk(rows["player_id"][top].tolist())
    movers = [
        {
            "id_number": players[int(pid)].id_number if int(pid) in players else None,
            "name": players[int(pid)].name if int(pid) in players else "",
            "rating": int(ratings[i]),
            "amount": int(amounts[i]),
            "new_rating": int(ratings[i] + amounts[i]),
        }
        for i in top
        for pid in (rows["player_id"][i],)
    ]
    note = (
        "Applied to the ratings after the period's games when the list is published."
        if spec.order == "after-games"
        else "Applied to these ratings before the period's games are rated."
    )
    return AdjustmentPreview(
        adjustment=adjustment,
        in_force=in_force,
        moved=effect.moved,
        points=effect.points,
        largest=effect.largest,
        before=effect.before,
        after=effect.after,
        movers=movers,
        note=note,
    )
