"""A published list under a Glicko-2 preset (ratings.engine.glicko2): the list's period is one rating period.

Called by ratings.services.publication.compute.rating_list_compute in place of rate_period, with the same loaded
inputs. This module only loads: the previous list's deviation and volatility (one query); the state of the next
list is the engine's (ratings.engine.list_state.glicko2_list_state_after, which says what is rated and how), and
the computation turns it into entries as for every list. Glicko-2 lists have no per-event rating changes (their
calculation pages are empty).
"""

from __future__ import annotations

import numpy as np

from core.bulk import read_columns
from ratings.engine import PeriodGames
from ratings.engine.glicko2 import glicko2_uncertainty
from ratings.engine.list_state import glicko2_list_state_after
from ratings.models import RatingListEntry
from ratings.services.publication.plan import Arrays, ListPlan


def _uncertainty(plan: ListPlan, union: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Deviation and volatility of every player on the previous list (one query); the unrated values where
    the previous list has none (ratings.engine.glicko2.glicko2_uncertainty)."""
    spec = plan.rules.glicko2
    assert spec is not None
    rows = read_columns(
        RatingListEntry.objects.filter(rating_list=plan.previous, deviation__isnull=False).order_by()
        if plan.previous is not None
        else RatingListEntry.objects.none(),
        {"player_id": "int64", "deviation": "float64", "volatility": "float64"},
    )
    order = np.argsort(rows["player_id"])
    return glicko2_uncertainty(
        rows["player_id"][order], rows["deviation"][order], rows["volatility"][order], union, spec
    )


def glicko2_list_state(
    plan: ListPlan,
    union: np.ndarray,
    rows: np.ndarray,
    before: Arrays,
    games: PeriodGames,
    event_end: np.ndarray,
) -> tuple[Arrays, Arrays]:
    """The state after a Glicko-2 list (``union``/``rows``/``before`` as rating_list_compute has them) and the
    entry columns only Glicko-2 lists fill (deviation, volatility; no one-off adjustment)."""
    spec = plan.rules.glicko2
    assert spec is not None
    deviation, volatility = _uncertainty(plan, union)
    after, entry_deviation, entry_volatility = glicko2_list_state_after(
        before, rows, games, event_end, deviation, volatility, spec
    )
    extra = {"deviation": entry_deviation, "volatility": entry_volatility, "adjustment": np.full(union.size, np.nan)}
    return after, extra
