"""Rating lists, the per-player rating state they carry, and rating changes with per-game detail.

A published list is immutable: a correction publishes a new *version* of the list (and of every later list
of the same rating type) and marks the old one superseded. Each entry carries the full rating state of the
player after that list (K inputs, newcomer pool, last game), so any list can be recomputed from its
predecessor alone.
"""

from __future__ import annotations

import datetime
import operator
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.contrib.postgres.aggregates import ArrayAgg
from django.core.exceptions import ValidationError
from django.db import connections, models
from django.db.models import Max, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_lazy as _

from events.models import Event, RatingType
from ratings.engine.adjustments import AdjustmentSpec
from ratings.fields import GameLinesField


class RatingPolicy(models.Model):
    """What officials choose per rating type: rules preset, list months and closing date."""

    rating_type = models.CharField(_("rating type"), max_length=8, choices=RatingType.choices, unique=True)
    rules_preset = models.CharField(
        _("rules preset"), max_length=40, default="fide-2024", help_text=_("Slug of a rules preset")
    )
    list_months = models.CharField(
        _("list months"),
        max_length=40,
        default="1,3,5,7,9,11",
        help_text=_("Months with a list on the 1st, comma-separated"),
    )
    closing_days = models.PositiveSmallIntegerField(
        _("closing days"),
        default=7,
        help_text=_("Events ending on or before (list date − this many days) are rated on the list"),
    )
    shadow_preset = models.CharField(
        _("shadow preset"),
        max_length=40,
        blank=True,
        help_text=_(
            "A second rules preset computed beside each published list from the same games (e.g. glicko2); "
            "shown as unofficial, never mixed with the official ratings. Empty: none"
        ),
    )

    class Meta:
        verbose_name = _("rating policy")
        verbose_name_plural = _("rating policies")

    def __str__(self) -> str:
        return f"{self.get_rating_type_display()}: {self.rules_preset}"

    def clean(self) -> None:
        from ratings.engine import get_preset

        errors = {}
        try:
            self.list_months = ",".join(str(m) for m in self.months)  # normalised: "1, 3,5" -> "1,3,5"
        except ValueError as exc:
            errors["list_months"] = str(exc)
        try:
            get_preset(self.rules_preset)
        except KeyError as exc:
            errors["rules_preset"] = exc.args[0]
        if self.shadow_preset:
            try:
                get_preset(self.shadow_preset)
            except KeyError as exc:
                errors["shadow_preset"] = exc.args[0]
            if self.shadow_preset == self.rules_preset:
                errors["shadow_preset"] = "the shadow preset must differ from the official rules preset"
        if errors:
            raise ValidationError(errors)

    # --- the schedule: a list on the 1st of each of ``months`` ------------------------------------------
    @property
    def months(self) -> list[int]:
        """The list months, 1..12, sorted; ValueError naming the bad item otherwise."""
        months = set()
        for item in self.list_months.split(","):
            item = item.strip()
            if not item:
                continue
            if not (item.isascii() and item.isdigit()) or not 1 <= int(item) <= 12:
                raise ValueError(f"list months: {item!r} is not a month number 1..12 (e.g. 1,3,5,7,9,11)")
            months.add(int(item))
        if not months:
            raise ValueError("list months: at least one month is needed (e.g. 1,3,5,7,9,11)")
        return sorted(months)

    def is_list_date(self, day: datetime.date) -> bool:
        return day.day == 1 and day.month in self.months

    def closing_date(self, list_date: datetime.date) -> datetime.date:
        """Events ending on or before this date are rated on the list of ``list_date``."""
        return list_date - datetime.timedelta(days=self.closing_days)

    def previous_list_date(self, day: datetime.date) -> datetime.date:
        """The latest list date strictly before ``day``."""
        months = self.months
        year, month = day.year, day.month
        if day.day == 1:  # the 1st itself is not "before"
            month -= 1
        while True:
            if month < 1:
                year, month = year - 1, 12
            if month in months:
                return datetime.date(year, month, 1)
            month -= 1

    def next_list_date(self, day: datetime.date) -> datetime.date:
        """The earliest list date strictly after ``day``."""
        months = self.months
        year, month = day.year, day.month + 1
        while True:
            if month > 12:
                year, month = year + 1, 1
            if month in months:
                return datetime.date(year, month, 1)
            month += 1

    def list_dates_between(self, start: datetime.date, end: datetime.date) -> list[datetime.date]:
        """Every list date in [start, end]."""
        dates = []
        day = start if self.is_list_date(start) else self.next_list_date(start)
        while day <= end:
            dates.append(day)
            day = self.next_list_date(day)
        return dates


class RatingListStatus(models.TextChoices):
    DRAFT = "draft", _("Draft preview")
    PUBLISHED = "published", _("Published")


def current_list_condition(through: str = "") -> Q:
    """The one definition of a *current* list: published and not superseded by a correction (exactly one per
    rating type and list date, constraint ``rating_list_one_current_published``). ``through`` names the
    foreign key to the list when filtering other rows by their list (``"rating_list"`` for entries and
    changes). The PlayerRating view's SQL (migration 0009) spells the same condition in SQL."""
    prefix = f"{through}__" if through else ""
    return Q(**{f"{prefix}status": RatingListStatus.PUBLISHED, f"{prefix}superseded_by__isnull": True})


class RatingListQuerySet(models.QuerySet["RatingList"]):
    def current(self, rating_type: str | None = None) -> RatingListQuerySet:
        """The current lists (``current_list_condition``), of one rating type if given."""
        lists = self.filter(current_list_condition())
        return lists if rating_type is None else lists.filter(rating_type=rating_type)


class RatingList(models.Model):
    rating_type = models.CharField(_("rating type"), max_length=8, choices=RatingType.choices)
    list_date = models.DateField(_("list date"))
    version = models.PositiveSmallIntegerField(_("version"), default=1)
    period_start = models.DateField(
        _("period start"),
        null=True,
        blank=True,
        help_text=_("Previous list date (exclusive); empty for the first list"),
    )
    closing_date = models.DateField(_("closing date"))
    status = models.CharField(
        _("status"), max_length=10, choices=RatingListStatus.choices, default=RatingListStatus.DRAFT
    )
    rules_preset = models.CharField(_("rules preset"), max_length=40)
    rules = models.JSONField(_("rules"), help_text=_("The exact rules used, frozen at computation"))
    previous = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="next_lists",
        help_text=_("The list whose ratings and state this one continues"),
        verbose_name=_("previous"),
    )
    superseded_by = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="supersedes",
        verbose_name=_("superseded by"),
    )
    superseded_at = models.DateTimeField(_("superseded at"), null=True, blank=True)
    is_imported = models.BooleanField(
        _("is imported"), default=False, help_text=_("Loaded from a FIDE download, not computed")
    )
    correction_reason = models.TextField(_("correction reason"), blank=True)
    computed_at = models.DateTimeField(_("computed at"), auto_now_add=True)
    published_at = models.DateTimeField(_("published at"), null=True, blank=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("published by"),
    )
    entry_count = models.PositiveIntegerField(_("entry count"), default=0)
    rated_count = models.PositiveIntegerField(_("rated count"), default=0)
    game_count = models.PositiveIntegerField(_("game count"), default=0)
    event_count = models.PositiveIntegerField(_("event count"), default=0)
    new_rating_count = models.PositiveIntegerField(
        _("new rating count"), default=0, help_text=_("Players with a first published rating")
    )
    dropped_count = models.PositiveIntegerField(
        _("dropped count"), default=0, help_text=_("Players whose rating fell below the floor")
    )
    input_digest = models.CharField(
        _("input digest"),
        max_length=64,
        blank=True,
        help_text=_(
            "SHA-256 of everything the computation read; a draft whose digest still matches is published as it is"
        ),
    )

    objects = RatingListQuerySet.as_manager()

    class Meta:
        verbose_name = _("rating list")
        verbose_name_plural = _("rating lists")
        ordering = ["-list_date", "rating_type", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["rating_type", "list_date", "version"], name="rating_list_version_unique"),
            # One current (not superseded) published list per date and type.
            models.UniqueConstraint(
                fields=["rating_type", "list_date"],
                condition=current_list_condition(),
                name="rating_list_one_current_published",
            ),
            # At most one draft preview per date and type.
            models.UniqueConstraint(
                fields=["rating_type", "list_date"], condition=Q(status="draft"), name="rating_list_one_draft"
            ),
        ]

    def __str__(self) -> str:
        suffix = f" v{self.version}" if self.version > 1 else ""
        return f"{self.get_rating_type_display()} {self.list_date:%Y-%m-%d}{suffix} ({self.get_status_display()})"

    @property
    def is_current(self) -> bool:
        """This list satisfies ``current_list_condition`` (published, not superseded)."""
        return self.status == RatingListStatus.PUBLISHED and self.superseded_by_id is None


# DERIVED_ROWS: entries and rating changes are written only by the publication service, from
# players, events and lists it reads in the same transaction, a million rows at a time. Their foreign keys
# have no database constraint: PostgreSQL checks one row at a time (a SELECT ... FOR KEY SHARE per row and
# key, 5 to 10 µs each), which cost more than writing the rows themselves. The ORM still applies on_delete
# (PROTECT keeps a player or event with ratings, CASCADE removes a list's rows), and every path that moves
# these rows (publication, merges) goes through services that read what they point to.


def entry_key(rating_list_id: int, player_id: int) -> int:
    """The single key of the entry of ``player_id`` on ``rating_list_id``, where one is needed: the admin's URLs
    (RatingListEntryRow) and the view of current ratings (PlayerRating), whose SQL computes it as
    ``rating_list_id * 4294967296 + player_id`` (ratings 0017). Entries have no key column of their own
    (RatingListEntry): list ids and player ids both stay below 2**32 (4-byte columns on PostgreSQL)."""
    return (int(rating_list_id) << 32) + int(player_id)


def entry_key_split(key: int) -> tuple[int, int]:
    """(rating_list_id, player_id) of an entry's single key (entry_key)."""
    return key >> 32, key & 0xFFFFFFFF


class EntryColumns(models.Model):
    """The columns of a player's line on a list (RatingListEntry; RatingListEntryRow reads the same rows)."""

    # No index of their own: the primary key (player, rating_list) and (rating_list, position) below serve every
    # lookup. No database constraint either (DERIVED_ROWS).
    rating_list = models.ForeignKey(
        RatingList,
        on_delete=models.CASCADE,
        related_name="entries",
        db_index=False,
        db_constraint=False,
        verbose_name=_("rating list"),
    )
    player = models.ForeignKey(
        "players.Player",
        on_delete=models.PROTECT,
        related_name="list_entries",
        db_index=False,
        db_constraint=False,
        verbose_name=_("player"),
    )
    rating = models.PositiveSmallIntegerField(_("rating"), null=True, blank=True, help_text=_("Empty = unrated"))
    games = models.PositiveSmallIntegerField(_("games"), default=0, help_text=_("Rated games in the period"))
    k_factor = models.PositiveSmallIntegerField(
        _("k factor"), null=True, blank=True, help_text=_("K for the next period")
    )
    inactive = models.BooleanField(_("inactive"), default=False)
    change = models.SmallIntegerField(_("change"), null=True, blank=True, help_text=_("Change since the previous list"))
    # As published (players' records may change later).
    title = models.CharField(_("title"), max_length=3, blank=True)
    women_title = models.CharField(_("women title"), max_length=3, blank=True)
    other_titles = models.CharField(_("other titles"), max_length=40, blank=True)
    federation = models.CharField(_("federation"), max_length=3, blank=True)
    sex = models.CharField(_("sex"), max_length=1, blank=True)
    birth_year = models.PositiveSmallIntegerField(_("birth year"), null=True, blank=True)
    # Rating state after this list (B.02 8.3.3 K inputs, 7.1.4 newcomer pool, 7.2 inactivity).
    rated_games_total = models.PositiveIntegerField(_("rated games total"), default=0)
    ever_2400 = models.BooleanField(_("ever 2400"), default=False)
    pool_games = models.PositiveSmallIntegerField(_("pool games"), default=0)
    # Empty (NULL) when the player has no pool (pool_games 0), read as 0: a NULL takes no room in the row, and
    # these two would otherwise cost 16 bytes on every entry of every list kept (publication.POOL_SUMS).
    pool_opponent_sum = models.FloatField(
        _("pool opponent sum"), null=True, blank=True, help_text=_("Empty: no pool (0)")
    )
    pool_score = models.FloatField(_("pool score"), null=True, blank=True, help_text=_("Empty: no pool (0)"))
    pool_since = models.DateField(
        _("pool since"), null=True, blank=True, help_text=_("Start of the newcomer's 26-month window")
    )
    pool_events = models.PositiveSmallIntegerField(
        _("pool events"), default=0, help_text=_("Events in the pool (incl. disregarded)")
    )
    ever_2300 = models.BooleanField(
        _("ever 2300"), default=False, help_text=_("A published rating reached 2300 (junior K rule)")
    )
    last_game_date = models.DateField(
        _("last game date"), null=True, blank=True, help_text=_("End date of the last rated event")
    )
    # What changed on this list (admin filters for officials checking a draft).
    is_new_rating = models.BooleanField(
        _("is new rating"), default=False, help_text=_("First published rating on this list")
    )
    dropped_below_floor = models.BooleanField(
        _("dropped below floor"), default=False, help_text=_("Rating fell below the floor: unrated from this list on")
    )
    adjustment = models.SmallIntegerField(
        _("adjustment"),
        null=True,
        blank=True,
        help_text=_("One-off adjustment included in this list's rating (RatingAdjustment), in rating points"),
    )
    # Lists under a Glicko-2 preset (ratings.services.publication.glicko2); empty on Elo lists.
    deviation = models.FloatField(_("deviation"), null=True, blank=True, help_text=_("Glicko-2 rating deviation (RD)"))
    volatility = models.FloatField(_("volatility"), null=True, blank=True, help_text=_("Glicko-2 volatility"))
    # Computed at publication (profiles read them instead of counting millions of entries); empty for an
    # inactive or unrated player. Lists imported from FIDE get them from ratings.services.list_order.
    position = models.PositiveIntegerField(
        _("position"),
        null=True,
        blank=True,
        help_text=_(
            "Line on the published list: 1 to the number of rated entries, by rating (highest first), "
            "then player; empty for an unrated entry"
        ),
    )
    rank = models.PositiveIntegerField(
        _("rank"), null=True, blank=True, help_text=_("World rank: active rated players rated higher + 1")
    )
    federation_rank = models.PositiveIntegerField(
        _("federation rank"),
        null=True,
        blank=True,
        help_text=_("Rank among the active rated players of the federation as published"),
    )

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.player_id}: {self.rating}"


class RatingListEntry(EntryColumns):
    """A player's line on a list, with the state after the list (for K and newcomers)."""

    # The list and the player are the key (a player has one line on a list). No surrogate id: on a list of two
    # million lines that column cost 8 bytes a line, with its sequence drawn on every row written (issue 17,
    # <= 150 bytes an entry; ratings 0017). Player first: the key's index serves a player's history (every list
    # of one player) and the lookup of one player on one list; a list's rows are found through (rating_list,
    # position).
    pk = models.CompositePrimaryKey("player_id", "rating_list_id")

    class Meta:
        ordering = ["rating_list", "position", "player_id"]
        indexes = [
            # a list's lines in order: a page of a two-million-line list is a range of positions (no OFFSET);
            # best-first pages of a filtered list walk it too. Replaces (rating_list, -rating): same size.
            models.Index(fields=["rating_list", "position"], name="entry_list_position"),
            # a federation's lines in order: the federation top lists and pages read a range of it (a small
            # federation of a two-million-line list is not found by walking the whole list), skipping the inactive
            # lines on the rows they read anyway (ratings 0016: 7 bytes an entry less than with inactive in the key)
            models.Index(fields=["rating_list", "federation", "position"], name="entry_list_federation"),
            # the biggest gains and losses of a list (list pages); only players whose rating moved
            models.Index(
                fields=["rating_list", "change"],
                name="entry_list_change",
                condition=Q(change__gt=0) | Q(change__lt=0),
            ),
        ]
        verbose_name = _("rating list entry")
        verbose_name_plural = _("rating list entries")


class RatingListEntryRow(EntryColumns):
    """The entries as the admin reads them. Django's admin cannot register a model whose primary key is composite
    (Django 5.2, "Composite primary keys"), so it reads this view of the entries (ratings 0017), which gives each
    entry its single key (entry_key). Read-only (unmanaged)."""

    id = models.BigIntegerField(_("id"), primary_key=True)
    rating_list = models.ForeignKey(
        RatingList, on_delete=models.DO_NOTHING, related_name="+", db_constraint=False, verbose_name=_("rating list")
    )
    player = models.ForeignKey(
        "players.Player", on_delete=models.DO_NOTHING, related_name="+", db_constraint=False, verbose_name=_("player")
    )

    class Meta:
        managed = False
        db_table = "ratings_ratinglistentry_row"
        ordering = ["rating_list", "position", "player_id"]
        # one line a player on a list: the admin's ordering above is total without adding the key
        constraints = [models.UniqueConstraint(fields=["rating_list", "player"], name="entry_row_once_per_list")]
        verbose_name = _("rating list entry")
        verbose_name_plural = _("rating list entries")


class RatingChange(models.Model):
    """One player's change from one event on one list, with every game as calculated.

    ``details`` holds one line per rated game: opponent id number, opponent rating used, capped flag,
    D, PD, score, ΔR and the game's primary key — enough to reproduce FIDE's calculation page.
    """

    # (rating_list, player, event) and (player, rating_list) below serve the lookups by list and by player.
    # No database constraints (DERIVED_ROWS).
    rating_list = models.ForeignKey(
        RatingList,
        on_delete=models.CASCADE,
        related_name="changes",
        db_index=False,
        db_constraint=False,
        verbose_name=_("rating list"),
    )
    player = models.ForeignKey(
        "players.Player",
        on_delete=models.PROTECT,
        related_name="rating_changes",
        db_index=False,
        db_constraint=False,
        verbose_name=_("player"),
    )
    event = models.ForeignKey(
        "events.Event",
        on_delete=models.PROTECT,
        related_name="rating_changes",
        db_constraint=False,
        verbose_name=_("event"),
    )
    rating_before = models.PositiveSmallIntegerField(
        _("rating before"), null=True, blank=True, help_text=_("Rating used (list in force)")
    )
    k_factor = models.FloatField(_("k factor"), null=True, blank=True)
    games = models.PositiveSmallIntegerField(_("games"))
    score = models.FloatField(_("score"))
    expected_score = models.FloatField(_("expected score"))
    change = models.FloatField(_("change"), help_text=_("K × ΣΔR for this event, unrounded"))
    details = GameLinesField(_("details"), default=list)

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["rating_list", "player", "event"]
        constraints = [
            models.UniqueConstraint(fields=["rating_list", "player", "event"], name="change_once_per_list_event"),
        ]
        indexes = [models.Index(fields=["player", "rating_list"], name="change_player_list")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.event_id}: {self.change:+.2f}"


class AdjustmentOrder(models.TextChoices):
    AFTER_GAMES = "after-games", _("After the period's games (FIDE 1 March 2024)")
    BEFORE_GAMES = "before-games", _("Before the period's games")


class AdjustmentFormula(models.TextChoices):
    COMPRESS_BELOW = "compress-below", _("Below the threshold: + factor × (threshold − R)")
    SHIFT_BELOW = "shift-below", _("Below the threshold: + factor points")


class RatingAdjustment(models.Model):
    """A named one-off adjustment (ratings.engine.adjustments) attached to a list date: the list of that date
    and rating type applies it when it is published and freezes it with its rules (``RatingList.rules``);
    each adjusted entry records its amount (``RatingListEntry.adjustment``)."""

    rating_type = models.CharField(_("rating type"), max_length=8, choices=RatingType.choices)
    list_date = models.DateField(_("list date"), help_text=_("The list that applies it"))
    name = models.CharField(_("name"), max_length=100, help_text=_("E.g. FIDE 1 March 2024 compression"))
    formula = models.CharField(
        _("formula"), max_length=20, choices=AdjustmentFormula.choices, default=AdjustmentFormula.COMPRESS_BELOW
    )
    threshold = models.FloatField(_("threshold"), default=2000, help_text=_("Ratings below this are adjusted"))
    factor = models.FloatField(_("factor"), default=0.4, help_text=_("0.4 for FIDE's compression; points for a shift"))
    order = models.CharField(
        _("order"), max_length=12, choices=AdjustmentOrder.choices, default=AdjustmentOrder.AFTER_GAMES
    )
    source = models.TextField(
        _("source"), blank=True, help_text=_("The decision it implements (e.g. FIDE Council 15 Dec 2023)")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    applied_to = models.ForeignKey(
        RatingList,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="adjustments",
        help_text=_("The published list that applied it"),
        verbose_name=_("applied to"),
    )

    class Meta:
        verbose_name = _("rating adjustment")
        verbose_name_plural = _("rating adjustments")
        ordering = ["-list_date", "rating_type"]
        constraints = [
            models.UniqueConstraint(fields=["rating_type", "list_date"], name="adjustment_once_per_list"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_rating_type_display()} {self.list_date:%Y-%m-%d})"

    def spec(self) -> AdjustmentSpec:
        """The engine's description of this adjustment."""
        return AdjustmentSpec(
            name=self.name, formula=self.formula, threshold=self.threshold, factor=self.factor, order=self.order
        )


class ShadowRatingList(models.Model):
    """A second list computed beside a published one (RatingPolicy.shadow_preset) from the same games:
    unofficial, stored apart from the official entries and never mixed with them
    (ratings.services.publication.shadow)."""

    rating_list = models.OneToOneField(
        RatingList, on_delete=models.CASCADE, related_name="shadow", verbose_name=_("rating list")
    )
    rules_preset = models.CharField(_("rules preset"), max_length=40)
    rules = models.JSONField(_("rules"), help_text=_("The exact rules used, frozen at computation"))
    computed_at = models.DateTimeField(_("computed at"), auto_now_add=True)
    entry_count = models.PositiveIntegerField(_("entry count"), default=0)
    rated_count = models.PositiveIntegerField(_("rated count"), default=0)

    class Meta:
        verbose_name = _("shadow rating list")
        verbose_name_plural = _("shadow rating lists")

    def __str__(self) -> str:
        return f"{self.rules_preset} beside {self.rating_list}"


class ShadowRatingEntry(models.Model):
    """A player's line on a shadow list: the rating with its uncertainty, and the state the next shadow list
    continues (Glicko-2: deviation and volatility; Elo presets: the same K and newcomer inputs as an entry)."""

    shadow_list = models.ForeignKey(
        ShadowRatingList,
        on_delete=models.CASCADE,
        related_name="entries",
        db_index=False,
        db_constraint=False,
        verbose_name=_("shadow list"),
    )
    player = models.ForeignKey(
        "players.Player",
        on_delete=models.PROTECT,
        related_name="shadow_entries",
        db_index=False,
        db_constraint=False,
        verbose_name=_("player"),
    )
    rating = models.FloatField(_("rating"), null=True, blank=True, help_text=_("Empty = unrated"))
    deviation = models.FloatField(_("deviation"), null=True, blank=True, help_text=_("Glicko-2 rating deviation (RD)"))
    volatility = models.FloatField(_("volatility"), null=True, blank=True, help_text=_("Glicko-2 volatility"))
    games = models.PositiveIntegerField(_("games"), default=0, help_text=_("Games rated in the period"))
    k_factor = models.FloatField(_("k factor"), null=True, blank=True)
    rated_games_total = models.PositiveIntegerField(_("rated games total"), default=0)
    ever_2400 = models.BooleanField(_("ever 2400"), default=False)
    ever_2300 = models.BooleanField(_("ever 2300"), default=False)
    pool_games = models.PositiveIntegerField(_("pool games"), default=0)
    pool_opponent_sum = models.FloatField(_("pool opponent sum"), default=0)
    pool_score = models.FloatField(_("pool score"), default=0)
    pool_events = models.PositiveIntegerField(_("pool events"), default=0)
    pool_since = models.DateField(_("pool since"), null=True, blank=True)
    last_game_date = models.DateField(_("last game date"), null=True, blank=True)
    inactive = models.BooleanField(_("inactive"), default=False)

    class Meta:
        verbose_name = _("shadow rating entry")
        constraints = [models.UniqueConstraint(fields=["player", "shadow_list"], name="shadow_entry_once_per_list")]
        indexes = [models.Index(fields=["shadow_list", "player"], name="shadow_entry_list_player")]
        verbose_name_plural = _("shadow rating entries")

    def __str__(self) -> str:
        return f"{self.player_id}: {self.rating}"


class BacktestRunStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class BacktestRun(models.Model):
    """A backtest run from the laboratory (ratings.services.laboratory): queued as a Celery job, its progress
    and result kept so that runs can be compared side by side and exported."""

    rating_type = models.CharField(
        _("rating type"), max_length=8, choices=RatingType.choices, default=RatingType.STANDARD
    )
    rules_preset = models.CharField(_("rules preset"), max_length=40, help_text=_("Slug of a rules preset"))
    overrides = models.TextField(
        _("overrides"),
        blank=True,
        help_text=_("KEY=VALUE, one per line (k_factor, difference_cap, k_times_n_cap, rating_floor, ...)"),
    )
    start = models.DateField(
        _("start"),
        null=True,
        blank=True,
        help_text=_("From the ratings in force on this date (default: the first list)"),
    )
    end = models.DateField(
        _("end"), null=True, blank=True, help_text=_("Last list date replayed (default: the newest)")
    )
    status = models.CharField(
        _("status"), max_length=8, choices=BacktestRunStatus.choices, default=BacktestRunStatus.QUEUED
    )
    lists_done = models.PositiveIntegerField(_("lists done"), default=0)
    lists_total = models.PositiveIntegerField(_("lists total"), default=0)
    error = models.TextField(_("error"), blank=True)
    result = models.JSONField(
        _("result"), null=True, blank=True, help_text=_("The backtest report (rating_backtest --json) and more")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )

    class Meta:
        verbose_name = _("backtest run")
        verbose_name_plural = _("backtest runs")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.rules_preset} {self.get_rating_type_display()} ({self.get_status_display()})"

    @property
    def override_list(self) -> list[str]:
        return [line.strip() for line in self.overrides.splitlines() if line.strip()]

    @property
    def progress_percent(self) -> int:
        if self.status == BacktestRunStatus.DONE:
            return 100
        return round(100 * self.lists_done / self.lists_total) if self.lists_total else 0


class PoolLedgerRecord(models.Model):
    """A list's pool ledger (ratings.services.pool), computed the first time it is asked for and kept: a
    published list's totals never change, and the page of a two-million-player list must not join millions of
    entries on every visit."""

    rating_list = models.OneToOneField(
        RatingList, on_delete=models.CASCADE, related_name="pool_ledger", verbose_name=_("rating list")
    )
    data = models.JSONField(_("data"))
    computed_at = models.DateTimeField(_("computed at"), auto_now_add=True)

    class Meta:
        verbose_name = _("pool ledger record")
        verbose_name_plural = _("pool ledger records")

    def __str__(self) -> str:
        return f"pool ledger of {self.rating_list}"


class TitleCandidate(models.Model):
    """A player whose rating on ``rating_list`` qualifies them for a title by rating (B.01 1.3: FM, CM; WFM,
    WCM for women; >= 30 rated games) that they do not hold, nor a higher one of its track. Computed by the
    publication (ratings.engine.classes.title_by_rating_candidates) and written with the list's entries; an
    official records the award (players.services.title_award_record), which links it here (``award``)."""

    rating_list = models.ForeignKey(RatingList, on_delete=models.CASCADE, related_name="title_candidates")
    player = models.ForeignKey("players.Player", on_delete=models.PROTECT, related_name="title_candidacies")
    title = models.CharField(max_length=3)
    rating = models.FloatField(help_text="The rating on the list that reaches the title's threshold")
    games = models.PositiveIntegerField(help_text="Rated games so far (B.01 1.3 needs 30)")
    award = models.ForeignKey(
        "players.TitleAward", on_delete=models.SET_NULL, null=True, blank=True, related_name="candidacies"
    )

    class Meta:
        verbose_name = _("title candidate")
        verbose_name_plural = _("title candidates")
        ordering = ["rating_list", "title", "-rating"]
        constraints = [
            models.UniqueConstraint(fields=["rating_list", "player", "title"], name="title_candidate_once_per_list")
        ]

    def __str__(self) -> str:
        return f"{self.title} {self.player_id} on {self.rating_list_id}"


# --- current ratings on PostgreSQL: read only the partitions that can hold them ----------
#
# On PostgreSQL the entries are partitioned by list (migration 0014). The PlayerRating view finds the newest
# current list of each type by a join, which the planner cannot use to leave partitions out: every query would
# plan and probe one partition per list ever kept (1.3 ms at 26 lists, growing with history; issue 17). So its
# queries also carry a constant bound on the list, which the planner prunes with: the ids of every list that is,
# or may become, the newest current list of its type. At the moment the bound is read those are
#
# - the newest current list of each type;
# - every list not published (a draft is promoted in place: publication keeps its id, however old);
# - every id not seen among the highest CURRENT_LISTS_LOOKBACK: a list whose id was drawn before the highest but
#   not committed yet (publications or imports of several types running at once); an id that was never
#   committed has no partition and costs nothing;
# - any id above the highest: the lists made later (ids come from the sequence).
#
# A published list is never deleted nor unpublished through the site (the admin refuses; drafts only are
# replaced), but a database restored under running processes, or rows removed by hand, can take the newest list
# away: a bound held from before would then hide every current rating (issue 36). So the bound is kept per
# process with the ListsMarker token it was read under and checked against it on each use (one primary-key read
# of a one-row table): the same token, the same lists; another, the bound is read again. A stale bound costs a
# query, never a wrong answer. The view keeps its own condition: the bound only narrows what the planner reads,
# never what the view means. In a steady state it names one partition per rating type, however many lists are
# kept. SQLite keeps one table: nothing to prune, no bound, no check.
CURRENT_LISTS_LOOKBACK = 8
_current_lists_bounds: dict[str, tuple[Any, ListsNamed]] = {}


class ListsMarker(models.Model):
    """One row whose ``token`` changes whenever the rating lists change: on PostgreSQL a trigger on every
    statement that writes ``ratings_ratinglist`` (INSERT, UPDATE, DELETE, TRUNCATE; raw SQL and restores
    included; migration 0018) sets a new random token, in the writer's transaction. A database replaced by
    another (a restore, a copy) brings the token of its own lists. ``current_lists_bound`` compares it."""

    token = models.UUIDField(default=uuid.uuid4)

    def __str__(self) -> str:
        return str(self.token)


class ListsNamed(models.Expression):
    """``rating_list_id IN (ids)`` (and ``OR rating_list_id > above`` if given) with the ids written into the
    query as constants, not passed as its parameters: the condition that leaves partitions of the entries out.

    A web process prepares the statements it runs often (settings: DATABASE_PREPARED_STATEMENTS), and after
    five runs PostgreSQL weighs a generic plan, made once for any parameters, against planning each run. Given
    the lists as parameters, a generic plan cannot leave a partition out when it is made, only when it runs
    (run-time pruning): it names every list's partition and is costed so, so PostgreSQL keeps planning each
    run instead, and that planning grows with the lists kept (measured on 26 lists: 0.38 ms a run; 0.006 ms
    with the lists written in). Written in, the lists are pruned when the plan is made: one generic plan, of
    the named partitions only, reused until the named lists change (a new statement then). Integers only,
    checked here: nothing from a request reaches the SQL text."""

    conditional = True

    def __init__(self, ids: Iterable[int], above: int | None = None) -> None:
        super().__init__(output_field=models.BooleanField())
        self.ids = tuple(sorted({operator.index(pk) for pk in ids}))
        self.above = None if above is None else operator.index(above)
        self.column: Any = models.F("rating_list_id")  # resolved to the entries' column by the query

    def get_source_expressions(self) -> list[Any]:
        return [self.column]

    def set_source_expressions(self, exprs: Sequence[Any]) -> None:
        (self.column,) = exprs

    def as_sql(self, compiler, connection, **extra_context):  # type: ignore[override]
        column, params = compiler.compile(self.column)
        terms = [f"{column} IN ({', '.join(map(str, self.ids))})"] if self.ids else []
        if self.above is not None:
            terms.append(f"{column} > {self.above}")
        return (f"({' OR '.join(terms)})" if terms else "(1 = 0)"), params


def current_lists_bound(alias: str) -> ListsNamed | None:
    """The condition on ``rating_list_id`` that PlayerRating's queries on database ``alias`` carry (above), or
    None where entries are one table (SQLite). One query (the ListsMarker token) while the lists are those the
    bound held was read under; two more on the lists when they changed or the database was replaced."""
    if connections[alias].vendor != "postgresql":
        return None
    # the token first: lists changed after it was read give another token on the next use (read again)
    token = ListsMarker.objects.using(alias).values_list("token", flat=True).first()
    held = _current_lists_bounds.get(alias)
    if held is not None and token is not None and held[0] == token:
        return held[1]
    lists = RatingList.objects.using(alias)
    newest = lists.current().order_by("rating_type", "-list_date").distinct("rating_type").values("pk")
    found = lists.aggregate(
        top=Coalesce(Max("pk"), 0),
        newest=ArrayAgg("pk", filter=Q(pk__in=Subquery(newest)), default=[]),
        unpublished=ArrayAgg("pk", filter=~Q(status=RatingListStatus.PUBLISHED), default=[]),
    )
    top = found["top"]
    seen = set(lists.filter(pk__gt=top - CURRENT_LISTS_LOOKBACK).values_list("pk", flat=True))
    unseen = [pk for pk in range(max(top - CURRENT_LISTS_LOOKBACK + 1, 1), top + 1) if pk not in seen]
    may_be_newest = sorted({*found["newest"], *found["unpublished"], *unseen})
    bound = ListsNamed(may_be_newest, above=top)
    _current_lists_bounds[alias] = (token, bound)
    return bound


def current_lists_bound_forget(**kwargs: object) -> None:
    """Read the bound again on next use (a list was saved in this process: tighter at once; tests)."""
    _current_lists_bounds.clear()


def current_lists_check_queries(alias: str = "default") -> int:
    """The queries each use of current ratings spends checking its bound (the ListsMarker token, above): one on
    PostgreSQL, none on SQLite (no bound). Query counts pinned in tests add it for each use."""
    return 1 if connections[alias].vendor == "postgresql" else 0


class PlayerRatingManager(models.Manager["PlayerRating"]):
    def get_queryset(self) -> models.QuerySet[PlayerRating]:
        queryset = super().get_queryset()
        bound = current_lists_bound(self.db)
        return queryset if bound is None else queryset.filter(bound)


class PlayerRating(models.Model):
    """The current published rating of a player per rating type: their entry on the newest current list of
    the type (``RatingList.objects.current(rating_type)``, the newest; ratings.selectors.rating_list_newest).

    A database VIEW over the entries (created by migration 0009; newest = no current list of the type has a
    later date), not a table: a publication writes the list and every current rating follows it at once, with
    nothing to copy (the copied table cost two million row updates per list) and no second copy of the truth
    to drift — a merge that moves entries, a FIDE import of an older list, a republication: each is right by
    construction. Read-only (unmanaged); its primary key is the entry's single key (entry_key). Lookups by
    player use the entries' primary key (player, rating_list).
    """

    player = models.ForeignKey(
        "players.Player",
        on_delete=models.DO_NOTHING,
        related_name="ratings",
        db_constraint=False,
        verbose_name=_("player"),
    )
    rating_type = models.CharField(_("rating type"), max_length=8, choices=RatingType.choices)
    rating = models.PositiveSmallIntegerField(_("rating"), null=True, blank=True)
    k_factor = models.PositiveSmallIntegerField(_("k factor"), null=True, blank=True)
    games = models.PositiveSmallIntegerField(_("games"), default=0)
    inactive = models.BooleanField(_("inactive"), default=False)
    rated_games_total = models.PositiveIntegerField(_("rated games total"), default=0)
    rating_list = models.ForeignKey(
        RatingList, on_delete=models.DO_NOTHING, related_name="+", db_constraint=False, verbose_name=_("rating list")
    )
    last_game_date = models.DateField(_("last game date"), null=True, blank=True)
    rank = models.PositiveIntegerField(_("rank"), null=True, blank=True, help_text=_("As on the list's entry"))
    federation_rank = models.PositiveIntegerField(
        _("federation rank"), null=True, blank=True, help_text=_("As on the list's entry")
    )

    objects = PlayerRatingManager()

    class Meta:
        verbose_name = _("player rating")
        verbose_name_plural = _("player ratings")
        managed = False
        db_table = "ratings_playerrating"

    def __str__(self) -> str:
        return f"{self.player_id} {self.rating_type}: {self.rating}"


class EventNorms(Event):
    """An event seen through its title norms (the admin's norm reports): no table of its own."""

    class Meta:
        proxy = True
        verbose_name = _("title norms of an event")
        verbose_name_plural = _("title norms")


class NormRecord(models.Model):
    """A title norm made in an event (B.01 1.4), stored when the event's results are complete and again when they
    are corrected (ratings.services.norms.event_norms_store): what profiles, applications and the IT1 read."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="norm_records")
    player = models.ForeignKey("players.Player", on_delete=models.PROTECT, related_name="norm_records")
    title = models.CharField(max_length=3)
    games = models.PositiveSmallIntegerField(help_text="What the norm is worth toward 27 games (1.4.1c, 1.7)")
    score = models.FloatField()
    average_rating = models.PositiveSmallIntegerField()
    performance = models.PositiveSmallIntegerField()
    # What an application reads of the norm (B.01 1.5, ratings.engine.norms.application_checks).
    one_four_one_c = models.BooleanField(default=False, help_text="Made with 8 games and a forfeit win or bye")
    exempt = models.BooleanField(default=False, help_text="Made under an exemption of 1.4.3a-d")
    one_round_a_day = models.BooleanField(default=False, help_text="One round a day for at least 3 days (1.1.3a)")
    qualifying = models.BooleanField(default=False, help_text="From an event 1.5.6 names")
    computed_at = models.DateTimeField()
    countersigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    countersigned_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("title norm")
        verbose_name_plural = _("title norms made")
        constraints = [models.UniqueConstraint(fields=["event", "player", "title"], name="norm_once_per_event")]
        indexes = [models.Index(fields=["player", "event"], name="norm_player_event")]

    def __str__(self) -> str:
        return f"{self.title} norm: {self.player_id} in {self.event_id}"
