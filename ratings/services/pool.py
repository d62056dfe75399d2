"""Pool health: for every published list a ledger of rating points that balances to the point.

Definitions (docs/rating-laboratory.md, "Pool ledger"):

- A list's *rated players* are its entries with a rating (active or inactive alike); an entry without a
  rating (unrated, dropped below the floor) is not in the pool.
- ``previous_total``: the sum of the ratings of the rated players of the list this one continues
  (``RatingList.previous``; 0 for a first list).
- The *stable cohort*: players rated on both lists (matched by player, as stored now: a merge moves a
  duplicate's entries to the player kept, so a merged pair counts once).
- ``from_games``: the cohort's summed rating change (rating here - rating there) minus ``adjustments``.
- ``adjustments``: the sum of the one-off adjustments (ratings.models.RatingAdjustment) recorded on the
  cohort's entries of this list (``RatingListEntry.adjustment``); a player adjusted and then dropped below
  the floor is a leaver with the previous rating, so the adjustment is not counted twice.
- ``newcomers``: the sum of the ratings of players rated here but not on the previous list: first published
  ratings, and players rated again after falling below the floor.
- ``leavers``: the sum of the previous-list ratings of players rated there but not here: fallen below the
  floor, merged into another record whose rating is the one kept, removed.
- ``total``: the sum of the ratings of the rated players of this list. Then
  ``previous_total + from_games + newcomers - leavers + adjustments == total`` exactly, in whole points.

Kept per list once computed (PoolLedgerRecord). Computed in four queries for any number of lists and players:
the value counts of every list's ratings, the current side joined to the previous list, the previous side
joined to the current list (GROUP BY in SQL), and the previous lists' dates.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import Count

from ratings.models import PoolLedgerRecord, RatingList, RatingListEntry

THRESHOLDS = (2000, 2200, 2400)
DISTRIBUTION_BUCKET = 100  # rating points per bar of the distribution


@dataclass(frozen=True)
class PoolLedger:
    list_date: datetime.date
    rating_type: str
    previous_list_date: datetime.date | None
    previous_total: int
    from_games: int
    newcomers: int
    leavers: int
    adjustments: int
    total: int
    rated: int
    mean: float | None
    median: float | None
    at_least_2000: int
    at_least_2200: int
    at_least_2400: int
    stable_players: int
    stable_mean_change: float | None  # mean (rating here - rating there) of the stable cohort
    newcomer_players: int
    leaver_players: int
    distribution: list[tuple[int, int]] = field(default_factory=list)  # (bucket low end, players)

    @property
    def balanced(self) -> bool:
        return self.previous_total + self.from_games + self.newcomers - self.leavers + self.adjustments == self.total

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["list_date"] = self.list_date.isoformat()
        data["previous_list_date"] = self.previous_list_date.isoformat() if self.previous_list_date else None
        del data["distribution"]
        return data

    def to_record(self) -> dict[str, Any]:
        """What PoolLedgerRecord keeps: the JSON and the distribution."""
        return {**self.to_json(), "distribution": [list(pair) for pair in self.distribution]}

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> PoolLedger:
        values = dict(data)
        values["list_date"] = datetime.date.fromisoformat(values["list_date"])
        previous = values["previous_list_date"]
        values["previous_list_date"] = datetime.date.fromisoformat(previous) if previous else None
        values["distribution"] = [(int(low), int(n)) for low, n in values["distribution"]]
        return cls(**values)


def _in(ids: Sequence[int]) -> str:
    return ", ".join(["%s"] * len(ids))


def _cursor_rows(sql: str, params: Sequence[int]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, list(params))
        return list(cursor.fetchall())


def _current_side(ids: list[int]) -> dict[int, tuple[int, int, int, int, int]]:
    """Per list: (stable players, stable change sum, newcomers' rating sum, newcomer players, the stable
    cohort's one-off adjustments)."""
    entry, lists = RatingListEntry._meta.db_table, RatingList._meta.db_table
    rows = _cursor_rows(
        f"""SELECT c.rating_list_id,
                   SUM(CASE WHEN p.rating IS NOT NULL THEN 1 ELSE 0 END),
                   SUM(CASE WHEN p.rating IS NOT NULL THEN c.rating - p.rating ELSE 0 END),
                   SUM(CASE WHEN p.rating IS NULL THEN c.rating ELSE 0 END),
                   SUM(CASE WHEN p.rating IS NULL THEN 1 ELSE 0 END),
                   SUM(CASE WHEN p.rating IS NOT NULL THEN COALESCE(c.adjustment, 0) ELSE 0 END)
            FROM {entry} c
            JOIN {lists} l ON l.id = c.rating_list_id
            LEFT JOIN {entry} p ON p.rating_list_id = l.previous_id AND p.player_id = c.player_id
            WHERE c.rating_list_id IN ({_in(ids)}) AND c.rating IS NOT NULL
            GROUP BY c.rating_list_id""",
        ids,
    )
    return {int(r[0]): tuple(int(value or 0) for value in r[1:6]) for r in rows}  # type: ignore[misc]


def _previous_side(ids: list[int]) -> dict[int, tuple[int, int, int]]:
    """Per list: (previous total, leavers' rating sum, leaver players)."""
    entry, lists = RatingListEntry._meta.db_table, RatingList._meta.db_table
    rows = _cursor_rows(
        f"""SELECT l.id,
                   SUM(p.rating),
                   SUM(CASE WHEN c.rating IS NULL THEN p.rating ELSE 0 END),
                   SUM(CASE WHEN c.rating IS NULL THEN 1 ELSE 0 END)
            FROM {lists} l
            JOIN {entry} p ON p.rating_list_id = l.previous_id
            LEFT JOIN {entry} c ON c.rating_list_id = l.id AND c.player_id = p.player_id
            WHERE l.id IN ({_in(ids)}) AND p.rating IS NOT NULL
            GROUP BY l.id""",
        ids,
    )
    return {int(r[0]): (int(r[1] or 0), int(r[2] or 0), int(r[3] or 0)) for r in rows}


def _value_counts(ids: list[int]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    rows = (
        RatingListEntry.objects.filter(rating_list_id__in=ids, rating__isnull=False)
        .values_list("rating_list_id", "rating")
        .annotate(n=Count("*"))
        .order_by()
    )
    grouped: dict[int, list[tuple[int, int]]] = {}
    for list_id, rating, n in rows:
        grouped.setdefault(int(list_id), []).append((int(rating), int(n)))
    result = {}
    for list_id, pairs in grouped.items():
        pairs.sort()
        result[list_id] = (np.array([p[0] for p in pairs], dtype=np.int64), np.array([p[1] for p in pairs]))
    return result


def _median(values: np.ndarray, counts: np.ndarray) -> float | None:
    total = int(counts.sum())
    if total == 0:
        return None
    cumulative = np.cumsum(counts)
    low = values[np.searchsorted(cumulative, (total + 1) // 2)]  # the ((n+1)//2)-th value, 1-based
    high = values[np.searchsorted(cumulative, total // 2 + 1)]
    return float(low + high) / 2 if total % 2 == 0 else float(low)


def _ledger(
    rating_list: RatingList,
    previous_date: datetime.date | None,
    counts: tuple[np.ndarray, np.ndarray] | None,
    current: tuple[int, int, int, int, int],
    previous: tuple[int, int, int],
) -> PoolLedger:
    values, n = counts if counts is not None else (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    rated = int(n.sum())
    total = int((values * n).sum())
    stable, stable_change, newcomers, newcomer_players, adjustments = current
    previous_total, leavers, leaver_players = previous
    buckets = (values // DISTRIBUTION_BUCKET) * DISTRIBUTION_BUCKET
    distribution = [(int(b), int(n[buckets == b].sum())) for b in np.unique(buckets)]
    return PoolLedger(
        list_date=rating_list.list_date,
        rating_type=rating_list.rating_type,
        previous_list_date=previous_date,
        previous_total=previous_total,
        from_games=stable_change - adjustments,
        newcomers=newcomers,
        leavers=leavers,
        adjustments=adjustments,
        total=total,
        rated=rated,
        mean=round(total / rated, 2) if rated else None,
        median=_median(values, n),
        at_least_2000=int(n[values >= 2000].sum()),
        at_least_2200=int(n[values >= 2200].sum()),
        at_least_2400=int(n[values >= 2400].sum()),
        stable_players=stable,
        stable_mean_change=round(stable_change / stable, 2) if stable else None,
        newcomer_players=newcomer_players,
        leaver_players=leaver_players,
        distribution=distribution,
    )


def pool_ledgers_compute(rating_lists: Sequence[RatingList]) -> list[PoolLedger]:
    """The ledger of each list (in the order given), computed from the entries now: four queries."""
    lists = list(rating_lists)
    if not lists:
        return []
    ids = [rating_list.pk for rating_list in lists]
    previous_dates = dict(
        RatingList.objects.filter(pk__in={rl.previous_id for rl in lists if rl.previous_id}).values_list(
            "pk", "list_date"
        )
    )
    counts = _value_counts(ids)
    current = _current_side(ids)
    previous = _previous_side(ids)
    return [
        _ledger(
            rl,
            previous_dates.get(rl.previous_id) if rl.previous_id else None,
            counts.get(rl.pk),
            current.get(rl.pk, (0, 0, 0, 0, 0)),
            previous.get(rl.pk, (0, 0, 0)),
        )
        for rl in lists
    ]


def pool_ledgers(rating_lists: Sequence[RatingList]) -> list[PoolLedger]:
    """The ledger of each list (in the order given): kept ones read in one query, the others computed
    (pool_ledgers_compute) and kept (PoolLedgerRecord) - one query when every ledger is kept, six otherwise.

    A published list's totals never change; a merge made after a ledger was kept may move a player between
    its cohort, newcomers and leavers, and is shown by the next list's ledger."""
    lists = list(rating_lists)
    if not lists:
        return []
    kept = {
        record.rating_list_id: PoolLedger.from_record(record.data)
        for record in PoolLedgerRecord.objects.filter(rating_list__in=lists)
    }
    missing = [rl for rl in lists if rl.pk not in kept]
    if missing:
        fresh = pool_ledgers_compute(missing)
        PoolLedgerRecord.objects.bulk_create(
            [
                PoolLedgerRecord(rating_list=rl, data=ledger.to_record())
                for rl, ledger in zip(missing, fresh, strict=True)
            ],
            ignore_conflicts=True,  # two first visitors at once: the same numbers
        )
        kept.update((rl.pk, ledger) for rl, ledger in zip(missing, fresh, strict=True))
    return [kept[rl.pk] for rl in lists]


def pool_history(rating_type: str) -> list[PoolLedger]:
    """The ledgers of every current list of the type, oldest first (a fixed number of queries)."""
    return pool_ledgers(list(RatingList.objects.current(rating_type).order_by("list_date")))
