"""Title awards and the candidates for titles by rating (issue 33): the writes.

``title_award_record`` is the one way a title is awarded by hand (admin, the dashboard's "Record award"): the
award, the player's current title, the audit trail and the ``title.awarded`` webhook in one transaction. It
lives here, not in players, because it reads the engine's title rules (ratings.engine.classes: which track a
title is on and what is higher), and players sits below ratings. FIDE list imports write awards in bulk
(ratings.services.fide_list_import); publications write candidates (ratings.services.publication.write).
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from audit.services import Actor, audit_record
from outbox.webhooks import webhooks_notify
from players.models import Player, Title, TitleAward, TitleMethod
from ratings.engine.classes import WOMEN_TITLE_ORDER, title_covers, title_track
from ratings.models import TitleCandidate

if TYPE_CHECKING:
    from django.contrib.auth.models import User

TITLE_AWARD_PERMISSION = "players.add_titleaward"
TITLE_AWARD_ACTION = "title.award"


def title_award_record(
    player: Player,
    title: str,
    *,
    date: datetime.date,
    method: str,
    reference: str = "",
    user: Actor,
) -> TitleAward:
    """Record that ``player`` was awarded ``title`` on ``date`` (how: ``method``, a TitleMethod), in one
    transaction: the award (with its history record), the player's current title raised to it when it is
    higher than the one held in its track (Player.title for GM..CM, women_title for WGM..WCM; an earlier, lower
    award recorded later never lowers it), open candidacies it settles linked to it, an audit record and the
    ``title.awarded`` webhook.

    Refused (ValidationError, nothing written): an unknown title or method, a women's title for a player not
    recorded as a woman (B.01: women's titles for women), a date in the future, a merged record."""
    user = _require_title_permission(user)
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player.pk)
        reference = title_award_check(player, title, date=date, method=method, reference=reference)
        women = title in WOMEN_TITLE_ORDER
        award = TitleAward(player=player, title=title, date=date, method=method, reference=reference, recorded_by=user)
        award._history_user = user
        award.save()
        field = "women_title" if women else "title"
        before = {"title": player.title, "women_title": player.women_title}
        # One source: the current title is the highest awarded of its track (B.01 0.3's order).
        if not title_covers(getattr(player, field), title):
            setattr(player, field, title)
            player._history_user = user
            player._change_reason = f"{title} awarded ({method}) {date:%Y-%m-%d}"
            player.save(update_fields=[field, "updated_at"])
        # Candidacies for this title or a lower one of its track are settled by it.
        track = title_track(title)
        settled = track[: track.index(title) + 1]
        TitleCandidate.objects.filter(player=player, title__in=settled, award__isnull=True).update(award=award)
        after = {"title": player.title, "women_title": player.women_title, "award": award.pk}
        audit_record(user, TITLE_AWARD_ACTION, award, reason=reference, before=before, after=after)
        webhooks_notify("title.awarded", [title_award_payload(award, player)])
    return award


def title_award_check(player: Player, title: str, *, date: datetime.date, method: str, reference: str = "") -> str:
    """Why ``title_award_record`` would refuse (a ValidationError naming the field), else the reference as it
    will be stored; the admin's form asks it before saving, the service again under the player's lock."""
    reference = (reference or "").strip()
    if title not in Title.values:
        raise ValidationError({"title": f"Title {title!r}: expected one of {', '.join(Title.values)}."})
    if method not in TitleMethod.values:
        raise ValidationError({"method": f"{method!r}: expected one of {', '.join(TitleMethod.values)}."})
    if date > timezone.localdate():
        raise ValidationError({"date": f"The title's date {date:%Y-%m-%d} is in the future."})
    if len(reference) > 300:
        raise ValidationError({"reference": "The reference is longer than 300 characters."})
    if player.merged_into_id:
        raise ValidationError(
            {"player": f"{player} was merged into player #{player.merged_into_id}; record the title there."}
        )
    if title in WOMEN_TITLE_ORDER and player.sex != "F":  # B.01: women's titles for women
        raise ValidationError({"title": f"{title} is a women's title and {player} is not recorded as a woman."})
    return reference


def title_candidate_award(candidate: TitleCandidate, *, user: Actor) -> TitleAward:
    """The dashboard's one-click "Record award": the candidate's title by rating (B.01 1.3), dated the list's
    date, referring to the list, the rating and the games that earned it."""
    if candidate.award_id is not None:
        raise ValidationError(f"The {candidate.title} of player #{candidate.player_id} was recorded already.")
    rating_list = candidate.rating_list
    reference = (
        f"Rating list {rating_list.list_date:%Y-%m-%d} ({rating_list.get_rating_type_display()}): "
        f"{candidate.rating:.0f} after {candidate.games} rated games"
    )
    return title_award_record(
        candidate.player,
        candidate.title,
        date=rating_list.list_date,
        method=TitleMethod.RATING,
        reference=reference,
        user=user,
    )


def title_award_payload(award: TitleAward, player: Player) -> dict[str, Any]:
    """The ``title.awarded`` webhook's data: the player (followers key on the ID number) and the award."""
    return {
        "id_number": player.id_number,
        "name": player.name,
        "title": award.title,
        "date": award.date,
        "method": award.method,
        "reference": award.reference,
    }


def _require_title_permission(user: Actor) -> User:
    if user is None or not user.is_authenticated or not user.has_perm(TITLE_AWARD_PERMISSION):
        raise PermissionDenied("Recording a title needs the 'add title award' permission (rating officers).")
    return user
