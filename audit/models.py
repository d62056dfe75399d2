"""The audit trail: official actions (publications, corrections, merges, ...).

Failed sign-ins are django-axes' rows (axes.AccessAttempt), shown in this app's admin (audit/admin.py).

Field-level history of players, events, participants and games is kept by django-simple-history in each app's
historical tables; ``HistoryRecord`` is the admin's single window onto all of them (see audit/selectors.py).
"""

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class AuditAction(models.TextChoices):
    """The actions other services record (free text is accepted too; these are the agreed names)."""

    RATING_LIST_PUBLISH = "rating_list.publish", _("Rating list published")
    RATING_LIST_REPUBLISH = "rating_list.republish", _("Rating list republished after a correction")
    EVENT_SUBMIT = "event.submit", _("Event submitted for rating")
    EVENT_CORRECT = "event.correct", _("Event corrected")
    PLAYER_MERGE = "player.merge", _("Players merged")
    PLAYER_MERGE_REVERSE = "player.merge_reverse", _("Player merge reversed")
    FIDE_LIST_IMPORT = "fide_list.import", _("FIDE list imported")


class AuditEvent(models.Model):
    """One official action: who, when, what, why, and the state before and after."""

    at = models.DateTimeField(_("at"), default=timezone.now, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("Empty for scheduled jobs"),
        verbose_name=_("actor"),
    )
    actor_name = models.CharField(
        _("actor name"), max_length=150, blank=True, help_text=_("The username as it was at the time")
    )
    action = models.CharField(_("action"), max_length=40, db_index=True)
    object_type = models.ForeignKey(
        ContentType, on_delete=models.PROTECT, null=True, blank=True, related_name="+", verbose_name=_("object type")
    )
    object_id = models.CharField(_("object id"), max_length=64, blank=True)
    object_repr = models.CharField(_("object repr"), max_length=300)
    reason = models.TextField(_("reason"), blank=True)
    before = models.JSONField(_("before"), null=True, blank=True, encoder=DjangoJSONEncoder)
    after = models.JSONField(_("after"), null=True, blank=True, encoder=DjangoJSONEncoder)

    class Meta:
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["object_type", "object_id"], name="audit_event_object")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name or 'system'}: {self.action} {self.object_repr}"


class HistoryRecord(models.Model):
    """No table: the admin entry point for the change history of players, events, participants and games.

    The rows live in simple-history's historical tables; ``audit.selectors.history_page`` reads them as one
    stream. A database view would do the same but would break the other apps' SQLite migrations, which rebuild
    those tables.
    """

    class Meta:
        managed = False
        default_permissions = ("view",)
        verbose_name = _("change history record")
        verbose_name_plural = _("change history")

    def __str__(self) -> str:
        return "change history"
