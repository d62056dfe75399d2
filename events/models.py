"""What arbiters enter: events, their participants and games."""

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class RatingType(models.TextChoices):
    STANDARD = "standard", _("Standard")
    RAPID = "rapid", _("Rapid")
    BLITZ = "blitz", _("Blitz")


class EventSystem(models.TextChoices):
    SWISS = "swiss", _("Swiss")
    ROUND_ROBIN = "round_robin", _("Round robin")
    MATCH = "match", _("Match")
    TEAM = "team", _("Team")


class NormExemption(models.TextChoices):
    """B.01 1.4.3a-d: events whose norms need not meet the federation mix (ratings.engine.norms.EXEMPTIONS)."""

    NATIONAL_CHAMPIONSHIP = "national-championship", _("Final of a national championship")
    NATIONAL_TEAM_CHAMPIONSHIP = "national-team-championship", _("National team championship")
    ZONAL = "zonal", _("Zonal or sub-zonal")
    LARGE_SWISS = "large-swiss", _("Swiss with 20 foreign FIDE-rated players of 3 federations, 10 titled, each round")


class ArbiterTitle(models.TextChoices):
    IA = "IA", _("International Arbiter")
    FA = "FA", _("FIDE Arbiter")
    NA = "NA", _("National Arbiter")


class EventStatus(models.TextChoices):
    """Where an event stands: registered → results received (draft) → checked → submitted → rated on a list
    (→ corrected → re-rated), or refused with a reason. Every move goes through
    ``events.services.events_status_change`` and leaves an ``EventStatusChange`` (the timeline)."""

    REGISTERED = "registered", _("Registered")
    DRAFT = "draft", _("Draft")  # results received, being entered or checked by the arbiter
    CHECKED = "checked", _("Checked")
    SUBMITTED = "submitted", _("Submitted for rating")
    RATED = "rated", _("Rated")
    CORRECTED = "corrected", _("Corrected, awaiting re-rating")
    REFUSED = "refused", _("Refused")


# Which status may follow which (issue 15). rated → rated: re-rated on a new version of its list.
STATUS_TRANSITIONS: dict[str, tuple[str, ...]] = {
    # registered → registered: the registration approved by an official (a step of its own on the timeline)
    EventStatus.REGISTERED: (EventStatus.REGISTERED, EventStatus.DRAFT, EventStatus.REFUSED),
    EventStatus.DRAFT: (EventStatus.CHECKED, EventStatus.SUBMITTED, EventStatus.REFUSED),
    EventStatus.CHECKED: (EventStatus.DRAFT, EventStatus.SUBMITTED, EventStatus.REFUSED),
    EventStatus.SUBMITTED: (EventStatus.DRAFT, EventStatus.RATED, EventStatus.REFUSED),
    EventStatus.RATED: (EventStatus.RATED, EventStatus.CORRECTED),
    EventStatus.CORRECTED: (EventStatus.RATED, EventStatus.CORRECTED),
    EventStatus.REFUSED: (EventStatus.DRAFT,),
}
# Events the public sees (pages, API, feeds): drafts are the arbiter's work in progress, an event is public once
# it is submitted for rating.
PUBLIC_STATUSES = (EventStatus.SUBMITTED, EventStatus.RATED, EventStatus.CORRECTED)
# Rated results change only through a correction (events.services.event_correct).
CORRECTABLE_STATUSES = (EventStatus.RATED, EventStatus.CORRECTED)


class Event(models.Model):
    name = models.CharField(_("name"), max_length=200)
    city = models.CharField(_("city"), max_length=100, blank=True)
    federation = models.ForeignKey(
        "players.Federation",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="events",
        verbose_name=_("federation"),
    )
    # Empty only on a draft imported from a file that lacks them (issue 15): submission is refused until set.
    start_date = models.DateField(_("start date"), null=True, blank=True)
    end_date = models.DateField(_("end date"), null=True, blank=True)
    rating_type = models.CharField(
        _("rating type"), max_length=8, choices=RatingType.choices, default=RatingType.STANDARD, blank=True
    )
    system = models.CharField(_("system"), max_length=12, choices=EventSystem.choices, default=EventSystem.SWISS)
    rounds = models.PositiveSmallIntegerField(_("rounds"), default=1)
    time_control = models.CharField(
        _("time control"), max_length=100, blank=True, help_text=_("e.g. 90 min + 30 s from move 1")
    )
    chief_arbiter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="events_chief",
        verbose_name=_("chief arbiter"),
    )
    chief_arbiter_name = models.CharField(
        _("chief arbiter name"),
        max_length=200,
        blank=True,
        help_text=_("As the tournament report names them (TRF record 102)"),
    )
    arbiters = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="events_assigned", verbose_name=_("arbiters")
    )
    status = models.CharField(
        _("status"), max_length=10, choices=EventStatus.choices, default=EventStatus.DRAFT, db_index=True
    )
    submitted_at = models.DateTimeField(_("submitted at"), null=True, blank=True)
    rated_on = models.ForeignKey(
        "ratings.RatingList",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="events",
        help_text=_("The (current version of the) rating list this event was rated on"),
        verbose_name=_("rated on"),
    )
    source_file_name = models.CharField(_("source file name"), max_length=255, blank=True)
    # What the title-norm rules read of the event itself (B.01 1.1, 1.4.3a-d; titles-norms.md §2-3).
    norm_exemption = models.CharField(
        _("kind of event for the norm rules"),
        max_length=30,
        choices=NormExemption.choices,
        blank=True,
        help_text=_("Events exempt from the federation mix of norms (B.01 1.4.3a-d); empty: none"),
    )
    chief_arbiter_title = models.CharField(
        _("Chief Arbiter's title"), max_length=2, choices=ArbiterTitle.choices, blank=True
    )
    chief_arbiter_licence = models.CharField(
        _("Chief Arbiter's licence"), max_length=40, blank=True, help_text=_("FIDE ID or licence number")
    )
    # Registration before play (issue 15): what a rating authority asks, and the deadlines' verdicts.
    organiser = models.CharField(_("organiser"), max_length=200, blank=True)
    expected_players = models.PositiveIntegerField(_("expected players"), null=True, blank=True)
    strong_field = models.BooleanField(
        _("strong field"),
        default=False,
        help_text=_(
            "A player rated over 2700 or a woman over 2500 takes part (FIDE: register 30 days before the start)"
        ),
    )
    registered_at = models.DateTimeField(_("registered at"), null=True, blank=True)
    registration_approved_at = models.DateTimeField(_("registration approved at"), null=True, blank=True)
    deadline_flags = models.JSONField(
        _("deadline flags"),
        default=list,
        blank=True,
        help_text=_('Deadlines missed: [{"rule": ..., "detail": ..., "at": ...}]'),
    )
    # Rounds an imported file gave a game's result without an opponent (issue 15): no game was made of them,
    # and submission is refused while the player has no game in that round (events.services.event_problems).
    results_without_opponent = models.JSONField(
        _("results without opponent"),
        default=list,
        blank=True,
        help_text=_('From the TRF file: [{"round", "start_rank", "result", "line", "column"}] to be entered'),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    history = HistoricalRecords()
    # Read by simple_history when the row is saved or deleted: who did it and why (services set them).
    _history_user: "User | None"
    _change_reason: str | None

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        ordering = ["-end_date", "-id"]
        indexes = [models.Index(fields=["rating_type", "status", "end_date"], name="event_rating_queue")]
        constraints = [
            models.CheckConstraint(condition=Q(end_date__gte=F("start_date")), name="event_ends_after_start"),
            models.CheckConstraint(condition=Q(rounds__gte=1), name="event_has_rounds"),
        ]
        # The "Arbiters" and "Rating officers" groups (events/roles.py) are built from these.
        permissions = [
            ("submit_event", "Can submit an event for rating"),
            ("correct_event", "Can correct the results of a rated event"),
            ("manage_all_events", "Can see and edit every event, not only those assigned to them"),
            ("review_event", "Can approve or refuse events and clear their integrity flags"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.start_date:%Y-%m-%d})" if self.start_date else f"{self.name} (no dates yet)"


class Participant(models.Model):
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="participants", verbose_name=_("event"))
    # indexed with the event below: (player, event)
    player = models.ForeignKey(
        "players.Player",
        on_delete=models.PROTECT,
        related_name="participations",
        db_index=False,
        verbose_name=_("player"),
    )
    start_rank = models.PositiveIntegerField(_("start rank"), help_text=_("Starting rank (pairing number)"))
    rating = models.PositiveSmallIntegerField(
        _("rating"),
        null=True,
        blank=True,
        help_text=_("Rating reported by the arbiter (information; the list in force is used)"),
    )
    club = models.CharField(
        _("club"), max_length=60, blank=True, help_text=_("The club the player represents in this event")
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("participant")
        verbose_name_plural = _("participants")
        ordering = ["event", "start_rank"]
        constraints = [
            models.UniqueConstraint(fields=["event", "player"], name="participant_once_per_event"),
            models.UniqueConstraint(fields=["event", "start_rank"], name="participant_start_rank_unique"),
        ]
        indexes = [
            # a player's participations (the player's record), and those from a given event on, read in the index
            # alone: the live rating's events awaiting rating, whatever the player's history (issue 17)
            models.Index(fields=["player", "event"], name="participant_player_event"),
        ]

    def __str__(self) -> str:
        return f"{self.start_rank}. {self.player}"


class Result(models.TextChoices):
    """One code per game. Only the first three are rated (B.02 §1.2: unplayed games are not rated)."""

    WHITE_WIN = "1-0", _("1-0")
    DRAW = "1/2-1/2", _("½-½")
    BLACK_WIN = "0-1", _("0-1")
    WHITE_FORFEIT_WIN = "+-", _("+/− (forfeit, not rated)")
    BLACK_FORFEIT_WIN = "-+", _("−/+ (forfeit, not rated)")
    DOUBLE_FORFEIT = "--", _("−/− (double forfeit)")
    WHITE_WIN_UNPLAYED = "1-0u", _("1-0, less than one move (not rated)")
    DRAW_UNPLAYED = "1/2u", _("½-½, less than one move (not rated)")
    BLACK_WIN_UNPLAYED = "0-1u", _("0-1, less than one move (not rated)")
    HALF_POINT_BYE = "H", _("Half-point bye")
    FULL_POINT_BYE = "F", _("Full-point bye")
    PAIRING_BYE = "U", _("Pairing-allocated bye")
    ZERO_POINT_BYE = "Z", _("Zero-point bye (absent)")
    PENDING = "*", _("Not yet played")


RATED_RESULTS = (Result.WHITE_WIN, Result.DRAW, Result.BLACK_WIN)
BYE_RESULTS = (Result.HALF_POINT_BYE, Result.FULL_POINT_BYE, Result.PAIRING_BYE, Result.ZERO_POINT_BYE)
# Points for (white, black) per result; byes give points to ``white`` (the only participant).
RESULT_POINTS: dict[str, tuple[float, float]] = {
    Result.WHITE_WIN: (1.0, 0.0),
    Result.DRAW: (0.5, 0.5),
    Result.BLACK_WIN: (0.0, 1.0),
    Result.WHITE_FORFEIT_WIN: (1.0, 0.0),
    Result.BLACK_FORFEIT_WIN: (0.0, 1.0),
    Result.DOUBLE_FORFEIT: (0.0, 0.0),
    Result.WHITE_WIN_UNPLAYED: (1.0, 0.0),
    Result.DRAW_UNPLAYED: (0.5, 0.5),
    Result.BLACK_WIN_UNPLAYED: (0.0, 1.0),
    Result.HALF_POINT_BYE: (0.5, 0.0),
    Result.FULL_POINT_BYE: (1.0, 0.0),
    Result.PAIRING_BYE: (1.0, 0.0),
    Result.ZERO_POINT_BYE: (0.0, 0.0),
    Result.PENDING: (0.0, 0.0),
}


class Game(models.Model):
    """A pairing in a round. A bye has ``white`` = the player and no ``black``.

    The database refuses white = black (check), a second game for the same colour in a round (unique),
    and — through triggers created in migration 0003 — a participant appearing in two games of one round
    or a participant from another event.
    """

    # No index of their own on event, white and black (issue 36): game_event_round and the two unique constraints
    # below begin with them, and a TRF import of 103,896 games spent half its inserts keeping the three copies.
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="games", db_index=False, verbose_name=_("event")
    )
    round = models.PositiveSmallIntegerField(_("round"))
    board = models.PositiveSmallIntegerField(_("board"), null=True, blank=True)
    white = models.ForeignKey(
        Participant, on_delete=models.CASCADE, related_name="games_white", db_index=False, verbose_name=_("white")
    )
    black = models.ForeignKey(
        Participant,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="games_black",
        db_index=False,
        verbose_name=_("black"),
    )
    result = models.CharField(_("result"), max_length=7, choices=Result.choices, default=Result.PENDING)
    date = models.DateField(_("date"), null=True, blank=True)
    version = models.PositiveIntegerField(
        _("version"), default=1, help_text=_("Optimistic lock: bumped on every change")
    )
    history = HistoricalRecords()
    # Read by simple_history when the row is saved or deleted: who did it and why (services set them).
    _history_user: "User | None"
    _change_reason: str | None

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["event", "round", "board", "id"]
        indexes = [models.Index(fields=["event", "round"], name="game_event_round")]
        constraints = [
            models.CheckConstraint(condition=~Q(white=F("black")), name="game_white_is_not_black"),
            models.CheckConstraint(condition=Q(round__gte=1), name="game_round_positive"),
            models.UniqueConstraint(fields=["white", "round"], name="game_white_once_per_round"),
            models.UniqueConstraint(fields=["black", "round"], name="game_black_once_per_round"),
            # A bye has no opponent; every other result needs one.
            models.CheckConstraint(
                condition=(Q(black__isnull=True) & Q(result__in=[r.value for r in BYE_RESULTS]))
                | (Q(black__isnull=False) & ~Q(result__in=[r.value for r in BYE_RESULTS])),
                name="game_bye_iff_no_black",
            ),
            models.CheckConstraint(condition=Q(result__in=[r.value for r in Result]), name="game_result_known"),
        ]

    def __str__(self) -> str:
        black = self.black.player if self.black is not None else "bye"
        return f"R{self.round}: {self.white.player} – {black} {self.result}"

    @property
    def is_rated_result(self) -> bool:
        return self.result in RATED_RESULTS


class EventCorrection(models.Model):
    """A change to the results of a rated event: who, when, why and what (before/after per game).

    Rated results are read-only; this record is the only way they change. The event is left in status
    ``corrected`` until the rating officer republishes the lists it was rated on.
    """

    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="corrections", verbose_name=_("event"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("user")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    reason = models.TextField(_("reason"))
    status_before = models.CharField(_("status before"), max_length=10, choices=EventStatus.choices)
    changes = models.JSONField(
        _("changes"),
        default=dict,
        help_text=_('{"games": [{"game": pk, "action": "changed|added|deleted", "before", "after"}]}'),
    )

    class Meta:
        verbose_name = _("event correction")
        verbose_name_plural = _("event corrections")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Correction of {self.event} on {self.created_at:%Y-%m-%d %H:%M}"


class EventStatusChange(models.Model):
    """One step of an event's timeline: who moved it, when, from which status to which, why, and on which list
    (rated / re-rated). Written only by ``events.services.events_status_change``; never edited."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="status_changes", verbose_name=_("event"))
    at = models.DateTimeField(_("at"), default=timezone.now, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("user"),
    )
    from_status = models.CharField(_("from status"), max_length=10, choices=EventStatus.choices, blank=True)
    to_status = models.CharField(_("to status"), max_length=10, choices=EventStatus.choices)
    reason = models.TextField(_("reason"), blank=True)
    rating_list = models.ForeignKey(
        "ratings.RatingList",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("The list the event was rated on (rated / re-rated steps)"),
        verbose_name=_("rating list"),
    )

    class Meta:
        verbose_name = _("event status change")
        verbose_name_plural = _("event status changes")
        ordering = ["event", "at", "id"]
        indexes = [models.Index(fields=["event", "at"], name="event_status_change_timeline")]

    def __str__(self) -> str:
        return f"{self.event_id}: {self.from_status or '—'} → {self.to_status} ({self.at:%Y-%m-%d %H:%M})"

    @property
    def is_rerating(self) -> bool:
        return self.to_status == EventStatus.RATED and self.from_status in (EventStatus.RATED, EventStatus.CORRECTED)

    @property
    def reason_display(self) -> str:
        """The reason in the reader's language (issue 32): the services store the fixed reasons in English, as
        the record of what happened; the known ones are translated when shown, free text (an official's or an
        arbiter's words) is shown as written."""
        reason = self.reason
        if reason.startswith("rated on ") and self.rating_list_id:  # the list's name in the reader's language
            reason = f"rated on {self.rating_list}"
        for prefix, template in _REASON_TEMPLATES:
            if reason.startswith(prefix):
                return template() % {"rest": reason.removeprefix(prefix)}
        fixed = _FIXED_REASONS.get(reason)
        return str(fixed) if fixed is not None else reason


# The reasons events.services, events.trf_services and ratings' publication write, as written there.
_FIXED_REASONS = {
    "checked: ready for submission": _("checked: ready for submission"),
    "checked on submission": _("checked on submission"),
    "returned to draft": _("returned to draft"),
    "registration approved": _("registration approved"),
    "results received": _("results received"),
    "results changed after the check": _("results changed after the check"),
}
_REASON_TEMPLATES = (
    ("rated on ", lambda: gettext("rated on %(rest)s")),
    ("correction: ", lambda: gettext("correction: %(rest)s")),
    ("results replaced from ", lambda: gettext("results replaced from %(rest)s")),
    ("results received: imported from ", lambda: gettext("results received: imported from %(rest)s")),
    (
        "submitted incomplete, an official's decision: ",
        lambda: gettext("submitted incomplete, an official's decision: %(rest)s"),
    ),
)


class IntegrityCheck(models.TextChoices):
    """The automatic screening of a submitted event (issue 15); thresholds in ``settings.INTEGRITY_THRESHOLDS``."""

    PERFORMANCE = "performance", _("Performance far above rating in a small closed event")
    REPEATED_PAIRING = "repeated_pairing", _("The same two players meet repeatedly across events")
    LOPSIDED_LOSSES = "lopsided_losses", _("A player loses most games to one opponent")
    CONTRADICTION = "contradiction", _("Results contradict the declared rounds or dates")
    DUPLICATE_EVENT = "duplicate_event", _("The event duplicates another")
    SINGLE_CLUB = "single_club", _("One club, results far from the ratings")
    # Registered by the membership app (membership.services.checks): the federation's policy, not integrity.
    MEMBERSHIP = "membership", _("Players who are not members, under the membership policy")
    LICENCE = "licence", _("The Chief Arbiter holds no valid licence")


class IntegrityFlag(models.Model):
    """A finding of the integrity screening: its rule and evidence. An official clears it (with a reason) or
    refuses the event; an event with a flag not cleared is not rated (the publication skips it)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="integrity_flags", verbose_name=_("event"))
    kind = models.CharField(_("check"), max_length=20, choices=IntegrityCheck.choices)
    rule = models.TextField(_("rule"), help_text=_("The rule that fired, with its threshold"))
    evidence = models.JSONField(_("evidence"), default=dict)
    created_at = models.DateTimeField(_("raised"), default=timezone.now)
    cleared_at = models.DateTimeField(_("cleared"), null=True, blank=True)
    cleared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("cleared by"),
    )
    clear_reason = models.TextField(_("reason for clearing"), blank=True)

    class Meta:
        # The admin's own list of flags (events/admin/flags.py, issue 32), in the officials' language.
        verbose_name = _("integrity flag")
        verbose_name_plural = _("integrity flags")
        ordering = ["event", "created_at", "id"]
        indexes = [models.Index(fields=["event", "cleared_at"], name="integrity_flag_open")]
        permissions = [("clear_integrityflag", "Can clear an integrity flag")]

    def __str__(self) -> str:
        state = _("cleared") if self.cleared_at else _("open")
        return f"{self.get_kind_display()} ({state})"
