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
    code = models.CharField(max_length=3, primary_key=True, help_text="FIDE three-letter code, e.g. ESP")
    name = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.code} {self.name}".strip()


class Club(models.Model):
    """A chess club: players' registry field (Player.club), edited in the admin or read from imports whose
    files carry it (the club codes some TRF exports write in the federation column)."""

    name = models.CharField(max_length=120)
    code = models.CharField(max_length=20, blank=True, help_text="Short code as files write it, e.g. KIL")
    federation = models.ForeignKey(Federation, on_delete=models.PROTECT, null=True, blank=True, related_name="clubs")
    city = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["federation", "code"], condition=~Q(code=""), name="club_code_unique"),
        ]

    def __str__(self) -> str:
        return self.name


class Sex(models.TextChoices):
    MALE = "M", "Male"
    FEMALE = "F", "Female"


class Title(models.TextChoices):
    # FIDE titles as written on FIDE's lists (upper-case forms of g/m/f/c and wg/wm/wf/wc).
    GM = "GM", "Grandmaster"
    IM = "IM", "International Master"
    FM = "FM", "FIDE Master"
    CM = "CM", "Candidate Master"
    WGM = "WGM", "Woman Grandmaster"
    WIM = "WIM", "Woman International Master"
    WFM = "WFM", "Woman FIDE Master"
    WCM = "WCM", "Woman Candidate Master"


class WomenTitle(models.TextChoices):
    WGM = "WGM", "Woman Grandmaster"
    WIM = "WIM", "Woman International Master"
    WFM = "WFM", "Woman FIDE Master"
    WCM = "WCM", "Woman Candidate Master"


class Player(models.Model):
    """A registered player. Addressed everywhere by ``id_number`` (the FIDE ID where known)."""

    id_number = models.BigIntegerField(unique=True, help_text="Federation ID number; the FIDE ID where known")
    surname = models.CharField(max_length=100)
    given_names = models.CharField(max_length=100, blank=True)
    # Upper-cased "SURNAME, GIVEN NAMES" kept in step by save(); indexed for prefix search (Meta.indexes).
    search_name = models.CharField(max_length=210, editable=False)
    # The name's words folded ("garcia lopez ana"; players.names.name_search_key), kept in step by save() and by
    # every bulk writer: searched word by word, in any order, without accents (issue 32).
    search_key = models.CharField(max_length=210, editable=False, default="")
    sex = models.CharField(max_length=1, choices=Sex.choices, blank=True)
    birth_date = models.DateField(null=True, blank=True)
    birth_year = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Shown publicly; the date never is")
    federation = models.ForeignKey(Federation, on_delete=models.PROTECT, null=True, blank=True, related_name="players")
    title = models.CharField(max_length=3, choices=Title.choices, blank=True)
    women_title = models.CharField(max_length=3, choices=WomenTitle.choices, blank=True)
    other_titles = models.CharField(max_length=40, blank=True, help_text="IA, FA, NA, IO, FT, FST, DI, NI, ...")
    club = models.ForeignKey(Club, on_delete=models.SET_NULL, null=True, blank=True, related_name="members")
    needs_review = models.BooleanField(
        default=False, help_text="Created by an import without an ID match; check for duplicates"
    )
    merged_into = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="merged_players",
        help_text="Set when this record was merged into another player",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    history = HistoricalRecords()
    # Read by simple_history when the row is saved or deleted: who did it and why (services set them).
    _history_user: "User | None"
    _change_reason: str | None

    class Meta:
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

    kept = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="merges_kept")
    merged = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="merges_absorbed")
    reason = models.TextField()
    moved = models.JSONField(
        default=dict, help_text="Every row moved, by model: its primary key (list entries: their list)"
    )
    merged_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    merged_at = models.DateTimeField(auto_now_add=True)
    reversed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    reversed_at = models.DateTimeField(null=True, blank=True)
    reverse_reason = models.TextField(blank=True)

    class Meta:
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
        ordering = ["player", "-date", "-id"]
        indexes = [
            models.Index(fields=["player", "date"], name="title_award_player_date"),
            models.Index(fields=["date"], name="title_award_date"),
        ]

    def __str__(self) -> str:
        return f"{self.title} {self.date:%Y-%m-%d} ({self.player_id})"
