"""Memberships, membership policies, rating-fee schedules and licences (issue 35).

Every model keeps its history (simple_history, as players and events do); bulk imports are audited once
(``membership.services``). The rules that read these rows are pure functions in ``membership/rules.py``.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from events.models import RatingType
from membership import rules


def _choices_text(values: str) -> frozenset[str]:
    return frozenset(v.strip() for v in values.split(",") if v.strip())


class MembershipSettings(models.Model):
    """A federation's season and its backdating rule, and what its public API may show (issue 35)."""

    federation = models.OneToOneField(
        "players.Federation", on_delete=models.CASCADE, related_name="membership_settings", verbose_name=_("federation")
    )
    season_start_month = models.PositiveSmallIntegerField(
        _("season start month"), default=9, validators=[MinValueValidator(1), MaxValueValidator(12)]
    )
    season_start_day = models.PositiveSmallIntegerField(
        _("season start day"), default=1, validators=[MinValueValidator(1), MaxValueValidator(28)]
    )
    backdate_until_month = models.PositiveSmallIntegerField(
        _("backdated if taken by (month)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(12)],
        help_text=_("A membership taken by this day counts from the season's start (e.g. 30 June)."),
    )
    backdate_until_day = models.PositiveSmallIntegerField(
        _("backdated if taken by (day)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(31)],
    )
    status_public = models.BooleanField(
        _("membership status public"),
        default=False,
        help_text=_("The public API shows whether a player is a member today."),
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("membership settings")
        verbose_name_plural = _("membership settings")

    def __str__(self) -> str:
        return str(self.federation)

    @property
    def season(self) -> rules.Season:
        backdate = None
        if self.backdate_until_month and self.backdate_until_day:
            backdate = (self.backdate_until_month, self.backdate_until_day)
        return rules.Season(self.season_start_month, self.season_start_day, backdate)


class CategoryKind(models.TextChoices):
    ANNUAL = "annual", _("Season")
    LIFE = "life", _("Life")
    TOURNAMENT = "tournament", _("Tournament membership")
    DAY = "day", _("Day pass")


class MembershipCategory(models.Model):
    """A category of membership (data): adult, junior, senior, life, tournament, day pass; its price for an
    age at the season's start (one row per age band)."""

    federation = models.ForeignKey(
        "players.Federation",
        on_delete=models.CASCADE,
        related_name="membership_categories",
        verbose_name=_("federation"),
    )
    code = models.SlugField(_("code"), max_length=30)
    name = models.CharField(_("name"), max_length=100)
    kind = models.CharField(_("kind"), max_length=10, choices=CategoryKind.choices, default=CategoryKind.ANNUAL)
    min_age = models.PositiveSmallIntegerField(_("minimum age"), null=True, blank=True)
    max_age = models.PositiveSmallIntegerField(_("maximum age"), null=True, blank=True)
    price = models.DecimalField(_("price"), max_digits=10, decimal_places=2, default=Decimal("0.00"))
    currency = models.CharField(_("currency"), max_length=3, default="EUR")
    history = HistoricalRecords()

    class Meta:
        ordering = ["federation", "kind", "min_age", "code"]
        verbose_name = _("membership category")
        verbose_name_plural = _("membership categories")
        constraints = [models.UniqueConstraint(fields=["federation", "code"], name="membership_category_code")]

    def __str__(self) -> str:
        return f"{self.name} ({self.federation_id})"

    def for_age(self, age: int | None) -> bool:
        return rules.FeeRule(kind="", description="", min_age=self.min_age, max_age=self.max_age).for_age(age)


class MembershipSource(models.TextChoices):
    ADMIN = "admin", _("Admin")
    CSV = "csv", _("CSV import")
    API = "api", _("API")
    SUBMISSION = "submission", _("Sold at submission")


class Membership(models.Model):
    """A player's membership: a dated interval (no end: life) in a category, and where it came from."""

    player = models.ForeignKey(
        "players.Player", on_delete=models.CASCADE, related_name="memberships", verbose_name=_("player")
    )
    category = models.ForeignKey(
        MembershipCategory, on_delete=models.PROTECT, related_name="memberships", verbose_name=_("category")
    )
    start = models.DateField(_("start"))
    end = models.DateField(_("end"), null=True, blank=True, help_text=_("Empty for a life membership."))
    season = models.PositiveSmallIntegerField(
        _("season"), null=True, blank=True, help_text=_("The year the season starts in (2025 for 2025/26).")
    )
    source = models.CharField(
        _("source"), max_length=10, choices=MembershipSource.choices, default=MembershipSource.ADMIN
    )
    price = models.DecimalField(_("price"), max_digits=10, decimal_places=2, null=True, blank=True)
    event = models.ForeignKey(
        "events.Event",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("event"),
        help_text=_("The event a tournament membership was sold for."),
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    history = HistoricalRecords()

    class Meta:
        ordering = ["player", "start", "id"]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        indexes = [models.Index(fields=["player", "start"], name="membership_player_start")]
        constraints = [
            models.CheckConstraint(
                condition=Q(end__isnull=True) | Q(end__gte=models.F("start")), name="membership_dates"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.category_id} {self.start}–{self.end or ''}"


class PolicyKind(models.TextChoices):
    NONE = rules.POLICY_NONE, _("None: everybody is rated")
    MEMBERS_ONLY = rules.POLICY_MEMBERS_ONLY, _("Members only")
    NON_MEMBER_FEE = rules.POLICY_NON_MEMBER_FEE, _("Non-members rated with a fee")
    TOURNAMENT_MEMBERSHIP = rules.POLICY_TOURNAMENT_MEMBERSHIP, _("Tournament membership sold at submission")


class MembersOnlyAction(models.TextChoices):
    REFUSE = rules.ACTION_REFUSE, _("Refuse the non-members' games")
    HOLD = rules.ACTION_HOLD, _("Hold the event")


class FeeBasis(models.TextChoices):
    RESULT = rules.BASIS_RESULT, _("Per result")
    SEASON = rules.BASIS_SEASON, _("Per season")
    EVENT = rules.BASIS_EVENT, _("Per event (pay to play)")


class MembershipPolicy(models.Model):
    """Who may be rated, per federation and rating type, versioned by effective date like the rules presets:
    the policy in force at an event is the newest that took effect on or before its start."""

    federation = models.ForeignKey(
        "players.Federation", on_delete=models.CASCADE, related_name="membership_policies", verbose_name=_("federation")
    )
    rating_type = models.CharField(_("rating type"), max_length=8, choices=RatingType.choices)
    effective_from = models.DateField(_("effective from"))
    kind = models.CharField(_("policy"), max_length=24, choices=PolicyKind.choices, default=PolicyKind.NONE)
    members_only_action = models.CharField(
        _("non-members' games"), max_length=8, choices=MembersOnlyAction.choices, default=MembersOnlyAction.REFUSE
    )
    fee_basis = models.CharField(_("fee basis"), max_length=8, choices=FeeBasis.choices, default=FeeBasis.RESULT)
    fee_schedule = models.ForeignKey(
        "FeeSchedule",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("fee schedule"),
        help_text=_("The schedule whose non-member lines give the fee."),
    )
    tournament_category = models.ForeignKey(
        MembershipCategory,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("tournament membership category"),
        help_text=_("Sold at submission; the price of the first category of this kind that fits the age."),
    )
    chief_arbiter_licence_required = models.BooleanField(
        _("chief arbiter licence required"),
        default=False,
        help_text=_("An event is held until its chief arbiter holds a valid arbiter's licence."),
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["federation", "rating_type", "-effective_from"]
        verbose_name = _("membership policy")
        verbose_name_plural = _("membership policies")
        constraints = [
            models.UniqueConstraint(
                fields=["federation", "rating_type", "effective_from"], name="membership_policy_version"
            )
        ]

    def __str__(self) -> str:
        return f"{self.federation_id} {self.rating_type} {self.effective_from}: {self.get_kind_display()}"


class FeeSchedule(models.Model):
    """A schedule of rating fees with its effective dates and currency (versioned: a new version is a new row
    with the same ``code``). No federation: it applies to every event (FIDE's)."""

    code = models.SlugField(_("code"), max_length=40)
    name = models.CharField(_("name"), max_length=120)
    federation = models.ForeignKey(
        "players.Federation",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="fee_schedules",
        verbose_name=_("federation"),
        help_text=_("Empty: every event (FIDE's schedule)."),
    )
    currency = models.CharField(_("currency"), max_length=3, default="EUR")
    effective_from = models.DateField(_("effective from"))
    effective_to = models.DateField(_("effective to"), null=True, blank=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["code", "-effective_from"]
        verbose_name = _("fee schedule")
        verbose_name_plural = _("fee schedules")
        constraints = [models.UniqueConstraint(fields=["code", "effective_from"], name="fee_schedule_version")]

    def __str__(self) -> str:
        return f"{self.name} ({self.effective_from})"


class FeeKind(models.TextChoices):
    PER_PLAYER = rules.PER_PLAYER, _("Per player per event")
    PER_PLAYER_BAND = rules.PER_PLAYER_BAND, _("Per player, by average rating band")
    PER_GAME = rules.PER_GAME, _("Per ratable game (with a minimum)")
    PER_NON_MEMBER_RESULT = rules.PER_NON_MEMBER_RESULT, _("Per non-member result")
    PER_NON_MEMBER_SEASON = rules.PER_NON_MEMBER_SEASON, _("Per non-member per season")
    PER_NON_MEMBER_EVENT = rules.PER_NON_MEMBER_EVENT, _("Per non-member per event")
    WAIVER = rules.WAIVER, _("Waiver")
    CAP = rules.CAP, _("Cap")
    REBATE = rules.REBATE, _("Rebate (percent)")


class FeeScheduleLine(models.Model):
    """A line of a schedule: what it charges and when (see ``membership.rules.FeeRule``)."""

    schedule = models.ForeignKey(
        FeeSchedule, on_delete=models.CASCADE, related_name="lines", verbose_name=_("schedule")
    )
    order = models.PositiveSmallIntegerField(_("order"), default=0)
    kind = models.CharField(_("kind"), max_length=24, choices=FeeKind.choices)
    description = models.CharField(_("description"), max_length=200)
    rule = models.CharField(_("rule"), max_length=200, blank=True, help_text=_("The rule it implements, cited."))
    amount = models.DecimalField(_("amount"), max_digits=10, decimal_places=2, default=Decimal("0.00"))
    minimum = models.DecimalField(_("minimum"), max_digits=10, decimal_places=2, null=True, blank=True)
    percent = models.DecimalField(_("percent"), max_digits=5, decimal_places=2, null=True, blank=True)
    band_min = models.PositiveSmallIntegerField(_("average rating from"), null=True, blank=True)
    band_max = models.PositiveSmallIntegerField(_("average rating below"), null=True, blank=True)
    min_age = models.PositiveSmallIntegerField(_("minimum age"), null=True, blank=True)
    max_age = models.PositiveSmallIntegerField(_("maximum age"), null=True, blank=True)
    rating_types = models.CharField(
        _("rating types"), max_length=30, blank=True, help_text=_("Comma-separated; empty: every rating type.")
    )
    event_kinds = models.CharField(
        _("event kinds"),
        max_length=60,
        blank=True,
        help_text=_("Comma-separated systems (swiss, round_robin, match, team); empty: every kind."),
    )
    valid_from = models.DateField(_("valid from"), null=True, blank=True)
    valid_to = models.DateField(_("valid to"), null=True, blank=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["schedule", "order", "id"]
        verbose_name = _("fee schedule line")
        verbose_name_plural = _("fee schedule lines")

    def __str__(self) -> str:
        return self.description

    def as_rule(self) -> rules.FeeRule:
        return rules.FeeRule(
            kind=self.kind,
            description=self.description,
            rule=self.rule,
            amount=self.amount,
            minimum=self.minimum,
            band_min=self.band_min,
            band_max=self.band_max,
            min_age=self.min_age,
            max_age=self.max_age,
            rating_types=_choices_text(self.rating_types),
            event_kinds=_choices_text(self.event_kinds),
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            percent=self.percent,
        )


class LicenceKind(models.TextChoices):
    ARBITER = "arbiter", _("Arbiter")
    ORGANISER = "organiser", _("Organiser")
    TRAINER = "trainer", _("Trainer")


class Licence(models.Model):
    """A dated licence: arbiters (IA, FA, NA), organisers, trainers (FT, FST, FI, DI, NI...)."""

    kind = models.CharField(_("kind"), max_length=10, choices=LicenceKind.choices)
    grade = models.CharField(_("grade"), max_length=10, blank=True, help_text=_("IA, FA, NA; FT, FST, FI, DI, NI..."))
    player = models.ForeignKey(
        "players.Player", on_delete=models.CASCADE, related_name="licences", verbose_name=_("holder")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="licences",
        verbose_name=_("user account"),
        help_text=_("The account that directs events as chief arbiter."),
    )
    number = models.CharField(_("number"), max_length=30, blank=True)
    valid_from = models.DateField(_("valid from"))
    valid_to = models.DateField(_("valid to"), null=True, blank=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["kind", "player__surname", "player__given_names", "-valid_from"]
        verbose_name = _("licence")
        verbose_name_plural = _("licences")
        indexes = [models.Index(fields=["kind", "valid_from"], name="licence_kind_from")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.grade} {self.player_id}".strip()

    def valid_on(self, day: datetime.date) -> bool:
        return self.valid_from <= day and (self.valid_to is None or day <= self.valid_to)
