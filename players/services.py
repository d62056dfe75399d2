"""Duplicate-player merge and its reversal (rating officers).

``player_merge(kept, merged, ...)`` moves everything that belongs to ``merged`` onto ``kept`` — event
participations (and so every game, since games point at participants), rating changes, rating list entries
(current ratings, the PlayerRating view, follow the entries), and records previously merged into ``merged``
— marks ``merged.merged_into = kept`` and keeps the primary keys of every moved row in ``PlayerMerge.moved``
so ``player_merge_reverse`` can put them back.

Clash rules:

- both players took part in the same event → refused: one person cannot be two participants of one event;
  the event must be corrected first (the message names the events).
- both players have a line on the same rating list → the kept player's line is the one that counts and stays;
  the merged player's line stays on the merged record (published lists are immutable, and a list cannot show
  one player twice). These rows are listed in
  ``moved["left_on_merged"]``; the rating officer checks the kept rating before the next list.
- a relation to Player that no app registered (``player_rows_register``) that has rows for ``merged`` →
  refused, so a merge never silently leaves data behind.

The registry sits in this layer and the rows in the layers above: events and ratings register their rows
(``PlayerRows``) in their ``AppConfig.ready``, so the registry never imports upwards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, models, transaction
from django.utils import timezone

from audit.models import AuditAction
from audit.services import Actor, audit_record
from players.models import Player, PlayerMerge, TitleAward

if TYPE_CHECKING:
    from django.contrib.auth.models import User


@dataclass(frozen=True)
class PlayerRows:
    """Rows of a model that point at a player (``field``) and move with them in a merge.

    ``shared`` names a field whose value both players may have (the event of a participant, the list of an
    entry). Where they do, ``refuse_shared`` (given kept, merged and the merged player's clashing rows)
    returns the refusal; without it, the merged player's clashing rows stay on the merged record (listed in
    ``moved["left_on_merged"]``). ``moves=False``: rows that follow other rows by themselves (a view).
    ``identity``: the field whose values the merge record keeps to name the rows, the primary key unless the
    player is part of it (an entry's key is its player and list: it is named by its list).
    """

    key: str  # the moved[...] key
    model: type[models.Model]
    field: str = "player"
    shared: str | None = None
    refuse_shared: Callable[[Player, Player, models.QuerySet[Any]], str] | None = None
    moves: bool = True
    identity: str = "pk"


_PLAYER_ROWS: dict[tuple[type[models.Model], str], PlayerRows] = {}


def player_rows_register(rows: PlayerRows) -> None:
    """Make ``player_merge`` move (or knowingly keep) ``rows``; apps call it from ``AppConfig.ready``."""
    _PLAYER_ROWS[(rows.model, rows.field)] = rows


def _moved_rows() -> list[PlayerRows]:
    return [rows for rows in _PLAYER_ROWS.values() if rows.moves]


# (Merges recorded before current ratings became a view also list "player_ratings": rows of that view now,
# which follow the entries; reversing such a merge moves the entries back and ignores them.)
# Reverse relations of Player this module handles itself.
_OWN_RELATIONS = {
    (Player, "merged_into"),
    (PlayerMerge, "kept"),
    (PlayerMerge, "merged"),
}


# What other apps know of a player, for the merge's side-by-side comparison: each registered function takes the
# players and returns rows (label, {player pk: value}) — ratings its current ratings, events its events and games.
PlayerFacts = Callable[[list[Player]], list[tuple[str, dict[int, Any]]]]
_PLAYER_FACTS: list[PlayerFacts] = []


def player_facts_register(facts: PlayerFacts) -> None:
    """Show ``facts`` of each player beside the registry's own on the merge page (AppConfig.ready)."""
    if facts not in _PLAYER_FACTS:
        _PLAYER_FACTS.append(facts)


def player_facts(players: list[Player]) -> list[tuple[str, dict[int, Any]]]:
    """The registered facts of ``players``, side by side: a fixed number of queries per registered function."""
    return [row for facts in _PLAYER_FACTS for row in facts(players)]


@dataclass(frozen=True)
class MergePlan:
    """What ``player_merge(kept, merged)`` would do, computed and written nowhere (the merge page's dry run):
    the rows that would move by kind, those that would stay on the merged record, the records earlier merged into
    ``merged`` that would follow, or why the merge would be refused."""

    kept: Player
    merged: Player
    moves: dict[str, int]
    stays: dict[str, int]
    earlier_merged: int
    refusal: str = ""


def player_merge_plan(kept: Player, merged: Player) -> MergePlan:
    """The dry run of a merge: the same checks and the same row selection as ``player_merge``, nothing written."""
    try:
        ids, left = _merge_selection(kept, merged)
    except ValidationError as exc:
        return MergePlan(kept, merged, {}, {}, 0, refusal=" ".join(exc.messages))
    earlier = Player.objects.filter(merged_into=merged).count()
    return MergePlan(
        kept,
        merged,
        {key: len(rows) for key, rows in ids.items()},
        {key: len(rows) for key, rows in left.items()},
        earlier,
    )


def _merge_selection(kept: Player, merged: Player) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """The checks a merge makes and the identities of the rows it moves (and leaves), by ``PlayerRows.key``."""
    if kept.pk == merged.pk:
        raise ValidationError(f"{kept} cannot be merged into itself.")
    if merged.merged_into_id:
        raise ValidationError(f"{merged} was already merged into player #{merged.merged_into_id}.")
    if kept.merged_into_id:
        raise ValidationError(
            f"{kept} was itself merged into player #{kept.merged_into_id}; merge into that player instead."
        )
    _refuse_unknown_relations(merged)
    ids: dict[str, list[int]] = {}
    left_on_merged: dict[str, list[int]] = {}
    for rows in _moved_rows():
        ids[rows.key], left = _rows_to_move(rows, kept, merged)
        if left is not None:
            left_on_merged[rows.key] = left
    return ids, left_on_merged


def player_merge(kept: Player, merged: Player, *, user: Actor, reason: str) -> PlayerMerge:
    """Merge the duplicate ``merged`` into ``kept`` (one transaction); returns the reversible record."""
    user = _require_permission(user)
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError("A merge needs a reason (it is kept with the merge record).")
    if kept.pk == merged.pk:
        raise ValidationError(f"{kept} cannot be merged into itself.")
    with transaction.atomic():
        kept, merged = _lock(kept, merged)
        ids, left_on_merged = _merge_selection(kept, merged)  # the same selection as the dry run's
        moved: dict[str, Any] = {"left_on_merged": left_on_merged}

        try:
            for rows in _moved_rows():
                moving = {f"{rows.identity}__in": ids[rows.key], rows.field: merged}
                rows.model._default_manager.filter(**moving).update(**{rows.field: kept})
                moved[rows.key] = ids[rows.key]
            # One hop: records earlier merged into ``merged`` now point at ``kept``.
            earlier = list(Player.objects.filter(merged_into=merged).values_list("pk", flat=True))
            Player.objects.filter(pk__in=earlier).update(merged_into=kept)
            moved["merged_players"] = earlier
        except IntegrityError as exc:
            raise ValidationError(f"The database refused to merge {merged} into {kept}: {exc}") from exc

        merged.merged_into = kept
        merged.needs_review = False
        merged._history_user = user
        merged._change_reason = f"merged into {kept.id_number}: {reason}"
        merged.save(update_fields=["merged_into", "needs_review", "updated_at"])
        merge = PlayerMerge.objects.create(kept=kept, merged=merged, reason=reason, moved=moved, merged_by=user)
        audit_record(
            user,
            AuditAction.PLAYER_MERGE,
            merged,
            reason=reason,
            before={"merged_into": None},
            after={
                "merged_into": kept.pk,
                "kept_id_number": kept.id_number,
                "merge": merge.pk,
                "moved": moved,
            },
        )
        return merge


def player_merge_reverse(merge: PlayerMerge, *, user: Actor, reason: str) -> PlayerMerge:
    """Undo a merge: every row recorded in ``merge.moved`` goes back to the merged player (one transaction).

    Refused if already reversed, if the kept player has since been merged into another (reverse that first),
    or if a moved row no longer belongs to the kept player. Lists published since the merge are not
    recomputed: republish them (ratings) if the merge changed a rating.
    """
    user = _require_permission(user)
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError("Reversing a merge needs a reason.")
    with transaction.atomic():
        merge = PlayerMerge.objects.select_for_update().get(pk=merge.pk)
        if merge.reversed_at:
            raise ValidationError(f"The merge of {merge.merged} into {merge.kept} was already reversed.")
        kept, merged = _lock(merge.kept, merge.merged)
        if kept.merged_into_id:
            raise ValidationError(
                f"{kept} was merged into player #{kept.merged_into_id} after this merge; reverse that merge first."
            )
        if merged.merged_into_id != kept.pk:
            raise ValidationError(f"{merged} is no longer recorded as merged into {kept}.")
        try:
            for rows in _moved_rows():
                key = rows.key
                ids = merge.moved.get(key, [])
                manager = rows.model._default_manager
                back = manager.filter(**{f"{rows.identity}__in": ids, rows.field: kept}).update(**{rows.field: merged})
                if back != len(ids):
                    raise ValidationError(
                        f"{len(ids) - back} of the {len(ids)} {key.replace('_', ' ')} moved by this merge no "
                        f"longer belong to {kept}; they were changed since, so the merge cannot be reversed "
                        "automatically."
                    )
            earlier = merge.moved.get("merged_players", [])
            Player.objects.filter(pk__in=earlier, merged_into=kept).update(merged_into=merged)
        except IntegrityError as exc:
            raise ValidationError(f"The database refused to reverse the merge: {exc}") from exc
        merged.merged_into = None
        merged._history_user = user
        merged._change_reason = f"merge into {kept.id_number} reversed: {reason}"
        merged.save(update_fields=["merged_into", "updated_at"])
        merge.reversed_by = user
        merge.reversed_at = timezone.now()
        merge.reverse_reason = reason
        merge.save(update_fields=["reversed_by", "reversed_at", "reverse_reason"])
        audit_record(
            user,
            AuditAction.PLAYER_MERGE_REVERSE,
            merged,
            reason=reason,
            before={"merged_into": kept.pk, "merge": merge.pk},
            after={"merged_into": None},
        )
        return merge


# --- internals -----------------------------------------------------------------------------------------


def _require_permission(user: Actor) -> User:
    """The user who merges, if they may (an anonymous user has no permission)."""
    if user is None or not user.is_authenticated or not user.has_perm("players.merge_player"):
        raise PermissionDenied("Merging players needs the 'merge duplicate players' permission (rating officers).")
    return user


def _lock(kept: Player, merged: Player) -> tuple[Player, Player]:
    # Lock both rows in primary-key order so two concurrent merges of the same pair cannot deadlock.
    rows = {p.pk: p for p in Player.objects.select_for_update().filter(pk__in=[kept.pk, merged.pk]).order_by("pk")}
    return rows[kept.pk], rows[merged.pk]


def _rows_to_move(rows: PlayerRows, kept: Player, merged: Player) -> tuple[list[int], list[int] | None]:
    """The identities (``rows.identity``) of ``merged``'s rows to move, and those left on the merged record
    (None: no rule)."""
    manager = rows.model._default_manager
    own = manager.filter(**{rows.field: merged})
    ids = sorted(own.values_list(rows.identity, flat=True))
    if rows.shared is None:
        return ids, None
    clashing = own.filter(**{f"{rows.shared}__in": manager.filter(**{rows.field: kept}).values(rows.shared)})
    if rows.refuse_shared is not None:
        if clashing.exists():
            raise ValidationError(rows.refuse_shared(kept, merged, clashing))
        return ids, None
    # Rows whose unique key includes a value the kept player already has stay on the merged record.
    left = sorted(clashing.values_list(rows.identity, flat=True))
    return sorted(set(ids) - set(left)), left


def _refuse_unknown_relations(merged: Player) -> None:
    for relation in Player._meta.related_objects:
        model, field_name = relation.related_model, relation.field.name
        if (model, field_name) in _OWN_RELATIONS or (model, field_name) in _PLAYER_ROWS or relation.many_to_many:
            continue
        if model._default_manager.filter(**{field_name: merged}).exists():
            raise ValidationError(
                f"{merged} has {model._meta.verbose_name_plural} that the merge does not know how to move; "
                "register them with players.services.player_rows_register first."
            )


# Title awards (issue 33; written by ratings.services.titles, which reads the engine's title rules): a merge moves
# the merged record's awards to the kept player, their history going with the person.
player_rows_register(PlayerRows("title_awards", TitleAward))
