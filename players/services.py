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
- a relation to Player this module does not know (added later) that has rows for ``merged`` → refused, so a
  merge never silently leaves data behind.
"""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.models import AuditAction
from audit.services import audit_record
from events.models import Participant
from players.models import Player, PlayerMerge
from ratings.models import PlayerRating, RatingChange, RatingListEntry

# moved[...] keys and the rows they hold. Rating changes cannot clash once event clashes are refused
# (they are unique per list, player and event).
_MOVED_BY_PLAYER = {
    "participants": Participant,
    "rating_changes": RatingChange,
    "list_entries": RatingListEntry,
}
# (Merges recorded before current ratings became a view also list "player_ratings": rows of that view now,
# which follow the entries; reversing such a merge moves the entries back and ignores them.)
# Reverse relations of Player this module handles (anything else with rows blocks the merge).
_HANDLED_RELATIONS = {
    (Participant, "player"),
    (RatingChange, "player"),
    (RatingListEntry, "player"),
    (PlayerRating, "player"),  # a view over the entries: moves with them
    (Player, "merged_into"),
    (PlayerMerge, "kept"),
    (PlayerMerge, "merged"),
}


def player_merge(kept: Player, merged: Player, *, user, reason: str) -> PlayerMerge:
    """Merge the duplicate ``merged`` into ``kept`` (one transaction); returns the reversible record."""
    _require_permission(user)
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError("A merge needs a reason (it is kept with the merge record).")
    if kept.pk == merged.pk:
        raise ValidationError(f"{kept} cannot be merged into itself.")
    with transaction.atomic():
        kept, merged = _lock(kept, merged)
        if merged.merged_into_id:
            raise ValidationError(f"{merged} was already merged into player #{merged.merged_into_id}.")
        if kept.merged_into_id:
            raise ValidationError(
                f"{kept} was itself merged into player #{kept.merged_into_id}; merge into that player instead."
            )
        _refuse_unknown_relations(merged)
        _refuse_shared_events(kept, merged)

        moved: dict = {"left_on_merged": {}}
        ids = _ids_by_player(merged)
        # Rows whose unique key includes a value the kept player already has stay on the merged record.
        clashing_lists = set(
            RatingListEntry.objects.filter(player=kept, rating_list__entries__player=merged).values_list(
                "rating_list_id", flat=True
            )
        )
        entries = RatingListEntry.objects.filter(pk__in=ids["list_entries"])
        left_entries = list(entries.filter(rating_list_id__in=clashing_lists).values_list("pk", flat=True))
        ids["list_entries"] = sorted(set(ids["list_entries"]) - set(left_entries))
        moved["left_on_merged"] = {"list_entries": sorted(left_entries)}

        try:
            for key, model in _MOVED_BY_PLAYER.items():
                model.objects.filter(pk__in=ids[key]).update(player=kept)
                moved[key] = ids[key]
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


def player_merge_reverse(merge: PlayerMerge, *, user, reason: str) -> PlayerMerge:
    """Undo a merge: every row recorded in ``merge.moved`` goes back to the merged player (one transaction).

    Refused if already reversed, if the kept player has since been merged into another (reverse that first),
    or if a moved row no longer belongs to the kept player. Lists published since the merge are not
    recomputed: republish them (ratings) if the merge changed a rating.
    """
    _require_permission(user)
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
            for key, model in _MOVED_BY_PLAYER.items():
                ids = merge.moved.get(key, [])
                back = model.objects.filter(pk__in=ids, player=kept).update(player=merged)
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


def _require_permission(user) -> None:
    if user is None or not user.has_perm("players.merge_player"):
        raise PermissionDenied("Merging players needs the 'merge duplicate players' permission (rating officers).")


def _lock(kept: Player, merged: Player) -> tuple[Player, Player]:
    # Lock both rows in primary-key order so two concurrent merges of the same pair cannot deadlock.
    rows = {p.pk: p for p in Player.objects.select_for_update().filter(pk__in=[kept.pk, merged.pk]).order_by("pk")}
    return rows[kept.pk], rows[merged.pk]


def _ids_by_player(merged: Player) -> dict[str, list[int]]:
    return {
        key: sorted(model.objects.filter(player=merged).values_list("pk", flat=True))
        for key, model in _MOVED_BY_PLAYER.items()
    }


def _refuse_shared_events(kept: Player, merged: Player) -> None:
    shared = list(
        Participant.objects.filter(player=merged, event__participants__player=kept)
        .select_related("event")
        .order_by("event__start_date")
    )
    if shared:
        events = "; ".join(f"{p.event.name} ({p.event.start_date:%Y-%m-%d}, event #{p.event_id})" for p in shared)
        raise ValidationError(
            f"{merged} and {kept} both took part in {events}. One person cannot be two participants of an "
            "event: correct the event first (remove or replace one of them), then merge."
        )


def _refuse_unknown_relations(merged: Player) -> None:
    for relation in Player._meta.related_objects:
        model, field_name = relation.related_model, relation.field.name
        if (model, field_name) in _HANDLED_RELATIONS or relation.many_to_many:
            continue
        if model._default_manager.filter(**{field_name: merged}).exists():
            raise ValidationError(
                f"{merged} has {model._meta.verbose_name_plural} that the merge does not know how to move; "
                "extend players.services.player_merge first."
            )
