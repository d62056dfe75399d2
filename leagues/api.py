"""Leagues in the read-only API (/api/v1/leagues/…): competitions, a season's divisions with their tables and
matches, a match card, a team with its squad. Thin: leagues.selectors read, serializers shape."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.response import Response

from core.api import PublicReadMixin
from leagues import selectors


class LeagueSeasonRefSerializer(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.CharField()
    start_date = serializers.DateField()
    end_date = serializers.DateField()


class LeagueCompetitionSerializer(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.CharField()
    kind = serializers.CharField()
    federation = serializers.CharField(source="federation_id", allow_null=True)
    rating_type = serializers.CharField()
    boards_per_match = serializers.IntegerField()
    rating_policy = serializers.CharField(help_text="fide-slices (≤ 30 days a slice) or game-date")
    seasons = LeagueSeasonRefSerializer(many=True, source="seasons.all")


class LeagueTeamRefSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()


class LeagueTeamStandingSerializer(serializers.Serializer):
    """One line of a division table (the names ``events/<pk>/teams/`` uses too)."""

    team = LeagueTeamRefSerializer()
    name = serializers.CharField(source="team.name")
    rank = serializers.IntegerField(source="row.rank")
    played = serializers.IntegerField(source="row.played")
    match_points = serializers.FloatField(source="row.match_points")
    game_points = serializers.FloatField(source="row.game_points")
    wins = serializers.IntegerField(source="row.wins")
    draws = serializers.IntegerField(source="row.draws")
    losses = serializers.IntegerField(source="row.losses")
    sonneborn_berger = serializers.FloatField(source="row.sonneborn_berger", help_text="FIDE C.07 team SB")
    buchholz = serializers.FloatField(source="row.buchholz", help_text="Sum of the opponents' match points")
    direct_encounter = serializers.FloatField(source="row.direct_encounter")
    zone = serializers.CharField(help_text="promoted, relegated or empty")


class LeagueMatchRefSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="match.pk")
    round = serializers.IntegerField(source="match.round.number")
    date = serializers.DateField(source="match.date")
    home = LeagueTeamRefSerializer(source="match.home")
    away = LeagueTeamRefSerializer(source="match.away")
    status = serializers.CharField(source="match.status")
    home_points = serializers.FloatField(allow_null=True, help_text="Game points; null until the card is complete")
    away_points = serializers.FloatField(allow_null=True)


class LeagueDivisionSerializer(serializers.Serializer):
    name = serializers.CharField(source="division.name")
    level = serializers.IntegerField(source="division.level")
    promotion_count = serializers.IntegerField(source="division.promotion_count")
    relegation_count = serializers.IntegerField(source="division.relegation_count")
    table = LeagueTeamStandingSerializer(many=True, source="lines")
    matches = LeagueMatchRefSerializer(many=True)


class LeagueSeasonSerializer(serializers.Serializer):
    competition = serializers.CharField(source="season.competition.slug")
    name = serializers.CharField(source="season.name")
    slug = serializers.CharField(source="season.slug")
    start_date = serializers.DateField(source="season.start_date")
    end_date = serializers.DateField(source="season.end_date")
    divisions = LeagueDivisionSerializer(many=True, source="tables")


class LeaguePlayerRefSerializer(serializers.Serializer):
    id_number = serializers.IntegerField()
    name = serializers.CharField()


class LeagueBoardSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    home_player = LeaguePlayerRefSerializer(allow_null=True)
    away_player = LeaguePlayerRefSerializer(allow_null=True)
    home_white = serializers.BooleanField()
    result = serializers.CharField(
        help_text="1-0, 1/2-1/2, 0-1 (played, rated); +-, -+, --, +-u, -+u (defaults); "
        "*u unfinished; 1-0a, 1/2a, 0-1a adjudicated; * not yet played"
    )
    rated = serializers.BooleanField(source="game_id", help_text="Rated as a game of its slice")


class LeagueMatchSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="match.pk")
    competition = serializers.CharField(source="match.round.division.season.competition.slug")
    season = serializers.CharField(source="match.round.division.season.slug")
    division = serializers.CharField(source="match.round.division.name")
    round = serializers.IntegerField(source="match.round.number")
    date = serializers.DateField(source="match.date")
    venue = serializers.CharField(source="match.venue")
    status = serializers.CharField(source="match.status")
    home = LeagueTeamRefSerializer(source="match.home")
    away = LeagueTeamRefSerializer(source="match.away")
    home_points = serializers.FloatField(allow_null=True)
    away_points = serializers.FloatField(allow_null=True)
    rated_event = serializers.IntegerField(source="match.rated_event_id", allow_null=True)
    boards = LeagueBoardSerializer(many=True)


class LeagueSquadLineSerializer(serializers.Serializer):
    board_order = serializers.IntegerField(source="entry.board_order")
    id_number = serializers.IntegerField(source="entry.player.id_number")
    name = serializers.CharField(source="entry.player.name")
    registered_on = serializers.DateField(source="entry.registered_on")
    left_on = serializers.DateField(source="entry.left_on", allow_null=True)
    games = serializers.IntegerField()
    points = serializers.FloatField()
    boards = serializers.ListField(child=serializers.IntegerField())


class LeagueTeamSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="team.pk")
    name = serializers.CharField(source="team.name")
    club = serializers.CharField(source="team.club.name")
    designation = serializers.CharField(source="team.designation")
    division = serializers.CharField(source="team.division.name")
    squad = LeagueSquadLineSerializer(many=True)
    matches = LeagueMatchRefSerializer(many=True)


class CompetitionListAPI(PublicReadMixin, generics.GenericAPIView):
    """Every league and team competition with its seasons."""

    serializer_class = LeagueCompetitionSerializer
    pagination_class = None

    @extend_schema(responses=LeagueCompetitionSerializer(many=True))
    def get(self, request):
        return Response(LeagueCompetitionSerializer(selectors.competitions(), many=True).data)


@extend_schema(parameters=[OpenApiParameter("slug", OpenApiTypes.STR, OpenApiParameter.PATH)])
class CompetitionDetailAPI(PublicReadMixin, generics.GenericAPIView):
    """One competition with its seasons."""

    serializer_class = LeagueCompetitionSerializer
    pagination_class = None

    def get(self, request, slug: str):
        return Response(LeagueCompetitionSerializer(selectors.competition_get(slug)).data)


@extend_schema(
    parameters=[
        OpenApiParameter("slug", OpenApiTypes.STR, OpenApiParameter.PATH),
        OpenApiParameter("season", OpenApiTypes.STR, OpenApiParameter.PATH, description="e.g. 2025-26"),
    ],
)
class SeasonDetailAPI(PublicReadMixin, generics.GenericAPIView):
    """A season: each division's table (match points, game points, team tie-breaks) and its matches."""

    serializer_class = LeagueSeasonSerializer
    pagination_class = None

    @extend_schema(operation_id="leagues_season_retrieve")
    def get(self, request, slug: str, season: str):
        found = selectors.season_get(slug, season)
        return Response(LeagueSeasonSerializer({"season": found, "tables": selectors.season_tables(found)}).data)


class MatchDetailAPI(PublicReadMixin, generics.GenericAPIView):
    """A match card: the boards with their players, colours and results."""

    serializer_class = LeagueMatchSerializer
    pagination_class = None

    def get(self, request, pk: int):
        match, boards, score = selectors.match_card(pk)
        home, away = score if score is not None else (None, None)
        return Response(
            LeagueMatchSerializer({"match": match, "boards": boards, "home_points": home, "away_points": away}).data
        )


class TeamDetailAPI(PublicReadMixin, generics.GenericAPIView):
    """A team: its squad in board order with each player's games and points, and its matches."""

    serializer_class = LeagueTeamSerializer
    pagination_class = None

    def get(self, request, pk: int):
        team, squad, matches = selectors.team_page(pk)
        return Response(LeagueTeamSerializer({"team": team, "squad": squad, "matches": matches}).data)
