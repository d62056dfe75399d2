"""Shadow lists: a second rules preset (RatingPolicy.shadow_preset, e.g. glicko2) computed beside every
published list from the same games, stored apart (ShadowRatingList / ShadowRatingEntry), never mixed with the
official ratings.

Each shadow list continues the shadow list of the official list's predecessor; the first one of a chain
starts from the official ratings of that predecessor (Glicko-2: with the preset's unrated deviation and
volatility, Glickman 2013 step 1). Glicko-2 rates every played game of the events the official list rated
(ratings.engine.glicko2.glicko2_list); an Elo preset runs the publication's own computation
(rating_list_compute) on the same plan with its rules and the shadow state; an event that started before the
previous list is rated with the older shadow list in force at its start (rules 1.3), or with the official one
where the chain had not begun. One-off adjustments are official and are not applied to shadow lists.

Compute, then write: the publication computes the shadow list (:func:`shadow_list_compute`) before it writes
anything, and its write step stores it (:func:`shadow_list_write`) without computing again.
"""

from __future__ import annotations

import bisect
import dataclasses
from dataclasses import dataclass

import numpy as np

from core.bulk import copy_columns, read_columns
from players.models import Player
from ratings.engine import RulesPreset, get_preset
from ratings.engine.glicko2 import glicko2_list
from ratings.models import RatingList, RatingListEntry, RatingPolicy, ShadowRatingEntry, ShadowRatingList
from ratings.services.publication.compute import ComputedList, rating_list_compute
from ratings.services.publication.load import STATE_COLUMNS
from ratings.services.publication.plan import Arrays, ListPlan

ELO_STATE = [name for name in STATE_COLUMNS if name != "player_id"]


def _merged() -> np.ndarray:
    return np.fromiter(Player.objects.filter(merged_into__isnull=False).values_list("id", flat=True), dtype=np.int64)


def _without_merged(rows: Arrays) -> Arrays:
    merged = _merged()
    if not merged.size:
        return rows
    keep = ~np.isin(rows["player_id"], merged)
    return {name: values[keep] for name, values in rows.items()}


def _sorted(rows: Arrays) -> Arrays:
    order = np.argsort(rows["player_id"], kind="stable")
    return {name: values[order] for name, values in rows.items()}


def _previous_shadow(previous: RatingList | None, rules: RulesPreset) -> ShadowRatingList | None:
    if previous is None:
        return None
    shadow = ShadowRatingList.objects.filter(rating_list=previous).first()
    return shadow if shadow is not None and shadow.rules_preset == rules.slug else None


def _glicko2_entries(computed: ComputedList, rules: RulesPreset) -> Arrays:
    spec = rules.glicko2
    assert spec is not None
    previous = computed.plan.previous
    shadow = _previous_shadow(previous, rules)
    if shadow is not None:
        rows = read_columns(
            ShadowRatingEntry.objects.filter(shadow_list=shadow, rating__isnull=False).order_by(),
            {"player_id": "int64", "rating": "float64", "deviation": "float64", "volatility": "float64"},
        )
    else:  # a new chain: the official ratings of the previous list, unrated uncertainty
        rows = read_columns(
            RatingListEntry.objects.filter(rating_list=previous, rating__isnull=False).order_by()
            if previous is not None
            else RatingListEntry.objects.none(),
            {"player_id": "int64", "rating": "float64"},
        )
        rows["deviation"] = np.full(rows["rating"].size, spec.initial_deviation)
        rows["volatility"] = np.full(rows["rating"].size, spec.initial_volatility)
    rows = _sorted(_without_merged(rows))
    games, ids = computed.games, computed.player_ids
    assert games is not None
    assert ids is not None
    period = glicko2_list(
        rows["player_id"],
        rows["rating"],
        rows["deviation"],
        rows["volatility"],
        ids[games.white],
        ids[games.black],
        games.white_score,
        spec,
    )
    return {
        "player_id": period.player_id,
        "rating": period.rating,
        "deviation": period.deviation,
        "volatility": period.volatility,
        "games": period.games,
    }


def _older_shadow_ratings(plan: ListPlan, rules: RulesPreset) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """(player ids sorted, ratings) of the shadow lists in force at the start of the plan's events, other than
    the previous list's (whose state the computation has): a few bulk reads, usually none."""
    # events without dates are drafts, never submitted for rating (events.services refuses them)
    starts = sorted({day for day in plan.events.values_list("start_date", flat=True) if day is not None})
    lists = list(
        RatingList.objects.current(plan.rating_type)
        .filter(list_date__lt=plan.list_date)
        .order_by("list_date")
        .values_list("id", "list_date")
    )
    dates = [day for _, day in lists]
    needed = {lists[i][0] for i in (bisect.bisect_right(dates, start) - 1 for start in starts) if i >= 0}
    needed.discard(plan.previous.pk if plan.previous is not None else 0)
    found: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for shadow in ShadowRatingList.objects.filter(rating_list_id__in=needed, rules_preset=rules.slug):
        rows = _sorted(
            read_columns(
                ShadowRatingEntry.objects.filter(shadow_list=shadow).order_by(),
                {"player_id": "int64", "rating": "float64"},
            )
        )
        found[shadow.rating_list_id] = (rows["player_id"], rows["rating"])
    return found


def _elo_entries(computed: ComputedList, rules: RulesPreset) -> Arrays:
    shadow = _previous_shadow(computed.plan.previous, rules)
    state = None
    if shadow is not None:
        columns = {"id": "int64", **STATE_COLUMNS}
        rows = read_columns(ShadowRatingEntry.objects.filter(shadow_list=shadow).order_by(), columns, chunk_by="id")
        state = _sorted({name: rows[name] for name in STATE_COLUMNS})
    older = _older_shadow_ratings(computed.plan, rules)
    plan = dataclasses.replace(computed.plan, rules=rules, previous_state=state, replayed_ratings=older, version=0)
    entries = rating_list_compute(plan).entries
    return {name: entries[name] for name in ("player_id", "rating", "games", *ELO_STATE)}


@dataclass
class ShadowList:
    """A shadow list as computed, not yet stored: its rules and its entries (ShadowRatingEntry columns)."""

    rules: RulesPreset
    entries: Arrays


def shadow_list_compute(computed: ComputedList) -> ShadowList | None:
    """The shadow list beside the list being published from ``computed``, if the rating type's policy names a
    shadow preset (None otherwise); reads only, inside the publication's transaction, before its write."""
    policy = RatingPolicy.objects.filter(rating_type=computed.plan.rating_type).first()
    if policy is None or not policy.shadow_preset:
        return None
    rules = get_preset(policy.shadow_preset)
    entries = _glicko2_entries(computed, rules) if rules.glicko2 is not None else _elo_entries(computed, rules)
    return ShadowList(rules=rules, entries=entries)


def shadow_list_write(rating_list: RatingList, shadow: ShadowList) -> ShadowRatingList:
    """Store a computed shadow list beside ``rating_list`` (being published), inside its transaction."""
    entries, rules = shadow.entries, shadow.rules
    rated = ~np.isnan(entries["rating"])
    stored = ShadowRatingList.objects.create(
        rating_list=rating_list,
        rules_preset=rules.slug,
        rules=rules.to_json(),
        entry_count=int(entries["player_id"].size),
        rated_count=int(rated.sum()),
    )
    copy_columns(ShadowRatingEntry, {"shadow_list_id": np.full(entries["player_id"].size, stored.pk), **entries})
    return stored
