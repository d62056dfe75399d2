"""The registry: federations and players."""

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from players.names import name_search_key

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class Federation(models.Model):
    code = models.CharField(_("code"), max_length=3, primary_key=True, help_text=_("FIDE three-letter code, e.g. ESP"))
    name = models.CharField(_("name"), max_length=100, blank=True)

    class Meta:
        verbose_name = _("federation")
        verbose_name_plural = _("federations")
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.code} {self.name}".strip()


class Club(models.Model):
    """A chess club: players' registry field (Player.club), edited in the admin or read from imports whose
    files carry it (the club codes some TRF exports write in the federation column)."""

    name = models.CharField(_("name"), max_length=120)
    code = models.CharField(_("code"), max_length=20, blank=True, help_text=_("Short code as files write it, e.g. KIL"))
    federation = models.ForeignKey(
        Federation, on_delete=models.PROTECT, null=True, blank=True, related_name="clubs", verbose_name=_("federation")
    )
    city = models.CharField(_("city"), max_length=100, blank=True)

    class Meta:
        verbose_name = _("club")
        verbose_name_plural = _("clubs")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["federation", "code"], condition=~Q(code=""), name="club_code_unique"),
        ]

    def __str__(self) -> str:
        return self.name


class Sex(models.TextChoices):
    MALE = "M", _("Male")
    FEMALE = "F", _("Female")


class Title(models.TextChoices):
    # FIDE titles as written on FIDE's lists (upper-case forms of g/m/f/c and wg/wm/wf/wc).
    GM = "GM", _("Grandmaster")
    IM = "IM", _("International Master")
    FM = "FM", _("FIDE Master")
    CM = "CM", _("Candidate Master")
    WGM = "WGM", _("Woman Grandmaster")
    WIM = "WIM", _("Woman International Master")
    WFM = "WFM", _("Woman FIDE Master")
    WCM = "WCM", _("Woman Candidate Master")


class WomenTitle(models.TextChoices):
    WGM = "WGM", _("Woman Grandmaster")
    WIM = "WIM", _("Woman International Master")
    WFM = "WFM", _("Woman FIDE Master")
    WCM = "WCM", _("Woman Candidate Master")


class Player(models.Model):
    """A registered player. Addressed everywhere by ``id_number`` (the FIDE ID where known)."""

    id_number = models.BigIntegerField(
        _("id number"), unique=True, help_text=_("Federation ID number; the FIDE ID where known")
    )
    surname = models.CharField(_("surname"), max_length=100)
    given_names = models.CharField(_("given names"), max_length=100, blank=True)
    # Upper-cased "SURNAME, GIVEN NAMES" kept in step by save(); indexed for prefix search (Meta.indexes).
    search_name = models.CharField(_("search name"), max_length=210, editable=False)
    # The name's words folded ("garcia lopez ana"; players.names.name_search_key), kept in step by save() and by
    # every bulk writer: searched word by word, in any order, without accents (issue 32).
    search_key = models.CharField(_("search key"), max_length=210, editable=False, default="")
    sex = models.CharField(_("sex"), max_length=1, choices=Sex.choices, blank=True)
    birth_date = models.DateField(_("birth date"), null=True, blank=True)
    birth_year = models.PositiveSmallIntegerField(
        _("birth year"), null=True, blank=True, help_text=_("Shown publicly; the date never is")
    )
    federation = models.ForeignKey(
        Federation,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="players",
        verbose_name=_("federation"),
    )
    title = models.CharField(_("title"), max_length=3, choices=Title.choices, blank=True)
    women_title = models.CharField(_("women title"), max_length=3, choices=WomenTitle.choices, blank=True)
    other_titles = models.CharField(
        _("other titles"), max_length=40, blank=True, help_text=_("IA, FA, NA, IO, FT, FST, DI, NI, ...")
    )
    club = models.ForeignKey(
        Club, on_delete=models.SET_NULL, null=True, blank=True, related_name="members", verbose_name=_("club")
    )
    needs_review = models.BooleanField(
        _("needs review"), default=False, help_text=_("Created by an import without an ID match; check for duplicates")
    )
    merged_into = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="merged_players",
        help_text=_("Set when this record was merged into another player"),
        verbose_name=_("merged into"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    history = HistoricalRecords()
    # Read by simple_history when the row is saved or deleted: who did it and why (services set them).
    _history_user: "User | None"
    _change_reason: str | None

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        ordering = ["surname", "given_names"]
        constraints = [
            models.CheckConstraint(condition=Q(id_number__gt=0), name="player_id_number_positive"),
            models.CheckConstraint(condition=~Q(merged_into=models.F("id")), name="player_not_merged_into_self"),
        ]
        permissions = [("merge_player", "Can merge duplicate players and reverse merges")]
        indexes = [
            # Name prefixes (LIKE 'MARI%' is a range of it: the C collation, migration 0003) in name order.
            # It carries merged_into and id, so counting the players a prefix matches (the players API
            # counts up to its window of 10,000) reads the index alone: 3.5 ms instead of 28 on two million
            # players. (One index: Django's second, varchar_pattern_ops, index is not needed under "C".)
            models.Index(fields=["search_name"], include=["merged_into", "id"], name="player_search_name"),
            # A search's first word as a range of the folded key (PostgreSQL adds a trigram index for the
            # other words: migration players 0007).
            models.Index(fields=["search_key"], name="player_search_key"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.id_number})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.search_name = self.name.upper()
        self.search_key = name_search_key(self.name)
        if self.birth_date and not self.birth_year:
            self.birth_year = self.birth_date.year
        super().save(*args, **kwargs)

    @property
    def name(self) -> str:
        return f"{self.surname}, {self.given_names}" if self.given_names else self.surname


class PlayerMerge(models.Model):
    """A duplicate-player merge: what moved from ``merged`` to ``kept``, so an official can reverse it."""

    kept = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="merges_kept", verbose_name=_("kept"))
    merged = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="merges_absorbed", verbose_name=_("merged")
    )
    reason = models.TextField(_("reason"))
    moved = models.JSONField(
        _("moved"), default=dict, help_text=_("Every row moved, by model: its primary key (list entries: their list)")
    )
    merged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("merged by")
    )
    merged_at = models.DateTimeField(_("merged at"), auto_now_add=True)
    reversed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("reversed by"),
    )
    reversed_at = models.DateTimeField(_("reversed at"), null=True, blank=True)
    reverse_reason = models.TextField(_("reverse reason"), blank=True)

    class Meta:
        verbose_name = _("player merge")
        verbose_name_plural = _("player merges")
        ordering = ["-merged_at"]

    def __str__(self) -> str:
        return f"{self.merged} → {self.kept}"


class TitleMethod(models.TextChoices):
    """How a title was earned (issue 33)."""

    RATING = "rating", _("by rating")
    NORMS = "norms", _("by norms")
    DIRECT = "direct", _("direct title")
    IMPORTED = "imported", _("imported from a FIDE list")


class TitleAward(models.Model):
    """A title a player was awarded: when, how and on what authority. ``Player.title`` / ``women_title`` stay
    the current titles; players.services.title_award_record writes both in one transaction (one source: the
    award raises the current title, never lowers it). FIDE list imports record title changes as awards in bulk
    (ratings.services.fide_list_import)."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="title_awards")
    title = models.CharField(max_length=3, choices=Title.choices)
    date = models.DateField(help_text="The date the title holds from (FIDE's confirmation, or the list's date)")
    method = models.CharField(max_length=10, choices=TitleMethod.choices)
    reference = models.CharField(
        max_length=300, blank=True, help_text="Where it is written: the list, the FIDE Council meeting, the event"
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    history = HistoricalRecords()
    _history_user: "User | None"
    _change_reason: str | None

    class Meta:
        verbose_name = _("title award")
        verbose_name_plural = _("title awards")
        ordering = ["player", "-date", "-id"]
        indexes = [
            models.Index(fields=["player", "date"], name="title_award_player_date"),
            models.Index(fields=["date"], name="title_award_date"),
        ]

    def __str__(self) -> str:
        return f"{self.title} {self.date:%Y-%m-%d} ({self.player_id})"
