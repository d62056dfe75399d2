"""Leagues and team competitions (issue 34): competition → season → division → round → match → boards, with
clubs' teams, their squads and penalties. Rated games are not kept here: each rated slice of a season is an
``events.Event`` of its own (system team), written through events' services (leagues/services.py)."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from events.models import RatingType
from leagues import rules


class CompetitionKind(models.TextChoices):
    LEAGUE = "league", _("League")
    TEAM_TOURNAMENT = "team_tournament", _("Team tournament")


class RatingPolicy(models.TextChoices):
    # reference leagues-membership.md §1: FIDE's slices of at most 30 days, or (ECF) each game in its own period
    FIDE_SLICES = "fide-slices", _("FIDE slices of at most 30 days")
    GAME_DATE = "game-date", _("Each game in the period of its date")


class BoardColours(models.TextChoices):
    HOME_WHITE_ODD = "home-white-odd", _("Home team white on odd boards")
    HOME_BLACK_ODD = "home-black-odd", _("Home team black on odd boards")


class UnfinishedGames(models.TextChoices):
    IGNORE = "ignore", _("Not counted")
    DRAW = "draw", _("Counted as drawn")


class Competition(models.Model):
    name = models.CharField(_("name"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=80, unique=True)
    kind = models.CharField(_("kind"), max_length=16, choices=CompetitionKind.choices, default=CompetitionKind.LEAGUE)
    federation = models.ForeignKey(
        "players.Federation", verbose_name=_("federation"), on_delete=models.PROTECT, null=True, blank=True
    )
    rating_type = models.CharField(
        _("rating type"), max_length=8, choices=RatingType.choices, default=RatingType.STANDARD
    )
    boards_per_match = models.PositiveSmallIntegerField(_("boards per match"), default=4)
    points_win = models.DecimalField(_("match points for a win"), max_digits=3, decimal_places=1, default=2)
    points_draw = models.DecimalField(_("match points for a draw"), max_digits=3, decimal_places=1, default=1)
    points_loss = models.DecimalField(_("match points for a loss"), max_digits=3, decimal_places=1, default=0)
    board_colours = models.CharField(
        _("board colours"), max_length=16, choices=BoardColours.choices, default=BoardColours.HOME_WHITE_ODD
    )
    board_order_tolerance = models.PositiveSmallIntegerField(
        _("board order tolerance"),
        default=0,
        help_text=_("How many places a player may stand above a player listed before them in the squad order."),
    )
    max_squad_size = models.PositiveSmallIntegerField(_("maximum squad size"), null=True, blank=True)
    rating_policy = models.CharField(
        _("rating policy"), max_length=12, choices=RatingPolicy.choices, default=RatingPolicy.FIDE_SLICES
    )
    unfinished_games = models.CharField(
        _("unfinished games"), max_length=8, choices=UnfinishedGames.choices, default=UnfinishedGames.IGNORE
    )
    rate_adjudicated = models.BooleanField(
        _("rate adjudicated games"),
        default=True,
        help_text=_("B.02 §5.1: a game where both players have made a move is rated."),
    )
    tie_breaks = models.CharField(
        _("tie-breaks"),
        max_length=20,
        default=",".join(rules.TIE_BREAKS),
        help_text=_("After match points, in order: gp (game points), de (direct encounter), sb, bh."),
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["name"]
        verbose_name = _("competition")
        verbose_name_plural = _("competitions")
        constraints = [models.CheckConstraint(condition=Q(boards_per_match__gte=1), name="competition_has_boards")]

    def __str__(self) -> str:
        return self.name

    @property
    def scoring(self) -> rules.Scoring:
        return rules.Scoring(float(self.points_win), float(self.points_draw), float(self.points_loss))

    @property
    def tie_break_order(self) -> list[str]:
        return [code for code in self.tie_breaks.replace(" ", "").split(",") if code in rules.TIE_BREAKS]


class Season(models.Model):
    competition = models.ForeignKey(
        Competition, verbose_name=_("competition"), on_delete=models.CASCADE, related_name="seasons"
    )
    name = models.CharField(_("name"), max_length=60)
    slug = models.SlugField(_("slug"), max_length=40)
    start_date = models.DateField(_("start date"))
    end_date = models.DateField(_("end date"))
    history = HistoricalRecords()

    class Meta:
        ordering = ["competition", "-start_date"]
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        constraints = [
            models.UniqueConstraint(fields=["competition", "slug"], name="season_slug_unique"),
            models.CheckConstraint(condition=Q(end_date__gte=F("start_date")), name="season_ends_after_start"),
        ]

    def __str__(self) -> str:
        return f"{self.competition} {self.name}"


class Division(models.Model):
    season = models.ForeignKey(Season, verbose_name=_("season"), on_delete=models.CASCADE, related_name="divisions")
    name = models.CharField(_("name"), max_length=80)
    level = models.PositiveSmallIntegerField(_("level"), default=1, help_text=_("1 is the top division."))
    promotion_count = models.PositiveSmallIntegerField(_("teams promoted"), default=0)
    relegation_count = models.PositiveSmallIntegerField(_("teams relegated"), default=0)
    history = HistoricalRecords()

    class Meta:
        ordering = ["season", "level", "name"]
        verbose_name = _("division")
        verbose_name_plural = _("divisions")

    def __str__(self) -> str:
        return f"{self.season} – {self.name}"


class Team(models.Model):
    club = models.ForeignKey("players.Club", verbose_name=_("club"), on_delete=models.PROTECT, related_name="teams")
    designation = models.CharField(
        _("designation"), max_length=4, blank=True, help_text=_("1, 2 … or A, B … when a club has several teams.")
    )
    division = models.ForeignKey(Division, verbose_name=_("division"), on_delete=models.CASCADE, related_name="teams")
    captain = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("captain"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="captained_teams",
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["division", "club__name", "designation"]
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        constraints = [
            models.UniqueConstraint(fields=["division", "club", "designation"], name="team_once_per_division")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return f"{self.club.name} {self.designation}".strip()

    @property
    def label(self) -> str:
        """The name as pages show it: a no-break space keeps the designation off a line of its own."""
        return f"{self.club.name}\u00a0{self.designation}" if self.designation else self.club.name


class SquadEntry(models.Model):
    team = models.ForeignKey(Team, verbose_name=_("team"), on_delete=models.CASCADE, related_name="squad")
    player = models.ForeignKey(
        "players.Player", verbose_name=_("player"), on_delete=models.PROTECT, related_name="squad_entries"
    )
    board_order = models.PositiveSmallIntegerField(_("board order"))
    registered_on = models.DateField(_("registered on"))
    left_on = models.DateField(_("left on"), null=True, blank=True, help_text=_("The day of a transfer out."))
    history = HistoricalRecords()

    class Meta:
        ordering = ["team", "board_order"]
        verbose_name = _("squad entry")
        verbose_name_plural = _("squad entries")
        constraints = [models.UniqueConstraint(fields=["team", "player"], name="squad_player_once")]

    def __str__(self) -> str:
        return f"{self.board_order}. {self.player}"


class LeagueRound(models.Model):
    division = models.ForeignKey(Division, verbose_name=_("division"), on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField(_("round"))
    date = models.DateField(_("date"))
    history = HistoricalRecords()

    class Meta:
        ordering = ["division", "number"]
        verbose_name = _("league round")
        verbose_name_plural = _("league rounds")
        constraints = [models.UniqueConstraint(fields=["division", "number"], name="league_round_unique")]

    def __str__(self) -> str:
        return f"{self.division} R{self.number}"


class MatchStatus(models.TextChoices):
    SCHEDULED = "scheduled", _("Scheduled")
    POSTPONED = "postponed", _("Postponed")
    ENTERED = "entered", _("Card entered")
    CONFIRMED = "confirmed", _("Confirmed by both captains")


class Match(models.Model):
    round = models.ForeignKey(LeagueRound, verbose_name=_("round"), on_delete=models.CASCADE, related_name="matches")
    home = models.ForeignKey(Team, verbose_name=_("home team"), on_delete=models.PROTECT, related_name="home_matches")
    away = models.ForeignKey(Team, verbose_name=_("away team"), on_delete=models.PROTECT, related_name="away_matches")
    date = models.DateField(_("date"))
    venue = models.CharField(_("venue"), max_length=200, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=MatchStatus.choices, default=MatchStatus.SCHEDULED)
    home_confirmed_at = models.DateTimeField(_("home captain confirmed"), null=True, blank=True)
    away_confirmed_at = models.DateTimeField(_("away captain confirmed"), null=True, blank=True)
    # The slice (an events.Event of system team) its played boards were rated in (leagues.services).
    rated_event = models.ForeignKey(
        "events.Event",
        verbose_name=_("rated in"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="league_matches",
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["round", "id"]
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        constraints = [models.CheckConstraint(condition=~Q(home=F("away")), name="match_home_is_not_away")]

    def __str__(self) -> str:
        return f"{self.home} – {self.away}"


class BoardResult(models.TextChoices):
    HOME_WIN = rules.HOME_WIN, "1-0"
    DRAW = rules.DRAW, "½-½"
    AWAY_WIN = rules.AWAY_WIN, "0-1"
    HOME_DEFAULT_WIN = rules.HOME_DEFAULT_WIN, _("+/− default win, home (not rated)")
    AWAY_DEFAULT_WIN = rules.AWAY_DEFAULT_WIN, _("−/+ default win, away (not rated)")
    DOUBLE_DEFAULT = rules.DOUBLE_DEFAULT, _("−/− double default")
    HOME_UNNAMED_DEFAULT = rules.HOME_UNNAMED_DEFAULT, _("+/− away named nobody (not rated)")
    AWAY_UNNAMED_DEFAULT = rules.AWAY_UNNAMED_DEFAULT, _("−/+ home named nobody (not rated)")
    UNFINISHED = rules.UNFINISHED, _("Unfinished")
    HOME_WIN_ADJUDICATED = rules.HOME_WIN_ADJUDICATED, _("1-0 adjudicated")
    DRAW_ADJUDICATED = rules.DRAW_ADJUDICATED, _("½-½ adjudicated")
    AWAY_WIN_ADJUDICATED = rules.AWAY_WIN_ADJUDICATED, _("0-1 adjudicated")
    PENDING = rules.PENDING, _("Not yet played")


# What a card cell shows (the full label is its title): short enough for a phone's column.
BOARD_RESULT_SHORT: dict[str, str] = {
    BoardResult.HOME_WIN: "1-0",
    BoardResult.DRAW: "½-½",
    BoardResult.AWAY_WIN: "0-1",
    BoardResult.HOME_DEFAULT_WIN: "+/−",
    BoardResult.AWAY_DEFAULT_WIN: "−/+",
    BoardResult.DOUBLE_DEFAULT: "−/−",
    BoardResult.HOME_UNNAMED_DEFAULT: "+/− u",
    BoardResult.AWAY_UNNAMED_DEFAULT: "−/+ u",
    BoardResult.UNFINISHED: "…",
    BoardResult.HOME_WIN_ADJUDICATED: "1-0 a",
    BoardResult.DRAW_ADJUDICATED: "½-½ a",
    BoardResult.AWAY_WIN_ADJUDICATED: "0-1 a",
    BoardResult.PENDING: "–",
}


class Board(models.Model):
    match = models.ForeignKey(Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="boards")
    number = models.PositiveSmallIntegerField(_("board"))
    home_player = models.ForeignKey(
        "players.Player",
        verbose_name=_("home player"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="league_boards_home",
    )
    away_player = models.ForeignKey(
        "players.Player",
        verbose_name=_("away player"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="league_boards_away",
    )
    home_white = models.BooleanField(_("home player has white"))
    result = models.CharField(_("result"), max_length=7, choices=BoardResult.choices, default=BoardResult.PENDING)
    # The rated game this board became in its slice's event (None: not rated, or not yet).
    game = models.ForeignKey(
        "events.Game", verbose_name=_("rated game"), on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["match", "number"]
        verbose_name = _("board")
        verbose_name_plural = _("boards")
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="board_once_per_match"),
            models.CheckConstraint(condition=Q(number__gte=1), name="board_number_positive"),
            models.CheckConstraint(condition=Q(result__in=[r.value for r in BoardResult]), name="board_result_known"),
        ]

    def __str__(self) -> str:
        return f"{self.match} board {self.number}"

    @property
    def short_result(self) -> str:
        return BOARD_RESULT_SHORT.get(self.result, self.result)


class Penalty(models.Model):
    team = models.ForeignKey(Team, verbose_name=_("team"), on_delete=models.CASCADE, related_name="penalties")
    match = models.ForeignKey(
        Match, verbose_name=_("match"), on_delete=models.CASCADE, null=True, blank=True, related_name="penalties"
    )
    match_points = models.DecimalField(_("match points deducted"), max_digits=4, decimal_places=1, default=0)
    game_points = models.DecimalField(_("game points deducted"), max_digits=4, decimal_places=1, default=0)
    reason = models.CharField(_("reason"), max_length=200)
    history = HistoricalRecords()

    class Meta:
        ordering = ["team", "id"]
        verbose_name = _("penalty")
        verbose_name_plural = _("penalties")

    def __str__(self) -> str:
        return f"{self.team}: {self.reason}"
