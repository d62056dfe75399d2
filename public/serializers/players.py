"""Public representations of players (read-only API)."""

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from players.models import Player
from public.serializers.titles import TitleAwardSerializer
from ratings.engine.rating_types import RATING_TYPES


class CurrentRatingSerializer(serializers.Serializer):
    rating = serializers.IntegerField(allow_null=True, help_text="Empty when unrated")
    k_factor = serializers.IntegerField(allow_null=True)
    games = serializers.IntegerField(help_text="Rated games in the period of the list")
    inactive = serializers.BooleanField()
    list_date = serializers.DateField(help_text="The list this rating was published on")


class RankedRatingSerializer(CurrentRatingSerializer):
    world_rank = serializers.IntegerField(allow_null=True, help_text="Rank among active rated players on the list")
    federation_rank = serializers.IntegerField(allow_null=True)
    rated_games_total = serializers.IntegerField()
    rating_class = serializers.CharField(
        source="rating_class.label", allow_null=True, help_text="Rating class (seed 000 classification)"
    )


class PlayerRatingsSerializer(serializers.Serializer):
    standard = CurrentRatingSerializer(allow_null=True)
    rapid = CurrentRatingSerializer(allow_null=True)
    blitz = CurrentRatingSerializer(allow_null=True)


class RankedPlayerRatingsSerializer(serializers.Serializer):
    standard = RankedRatingSerializer(allow_null=True)
    rapid = RankedRatingSerializer(allow_null=True)
    blitz = RankedRatingSerializer(allow_null=True)


class PlayerSerializer(serializers.ModelSerializer):
    """A player as the lists show them; the birth date is never public, only the year."""

    name = serializers.CharField(read_only=True)
    federation = serializers.CharField(source="federation_id", allow_null=True, read_only=True)
    ratings = serializers.SerializerMethodField()

    class Meta:
        model = Player
        fields = [
            "id_number",
            "name",
            "surname",
            "given_names",
            "federation",
            "sex",
            "birth_year",
            "title",
            "women_title",
            "other_titles",
            "ratings",
        ]

    @extend_schema_field(PlayerRatingsSerializer)
    def get_ratings(self, player: Player) -> dict:
        # ``ratings`` is prefetched by the view (one query for the whole page).
        by_type = {row.rating_type: row for row in player.ratings.all()}
        return {
            rating_type: (
                {
                    "rating": row.rating,
                    "k_factor": row.k_factor,
                    "games": row.games,
                    "inactive": row.inactive,
                    "list_date": row.rating_list.list_date,
                }
                if (row := by_type.get(rating_type)) is not None
                else None
            )
            for rating_type in RATING_TYPES
        }


class PlayerDetailSerializer(PlayerSerializer):
    """A player with ranks; ``ratings`` comes from public.selectors.ratings.player_ratings (view context), and
    ``title_awards`` from ratings.selectors_titles.player_titles (view context; issue 33)."""

    title_awards = serializers.SerializerMethodField()

    class Meta(PlayerSerializer.Meta):
        fields = [*PlayerSerializer.Meta.fields, "title_awards"]

    @extend_schema_field(TitleAwardSerializer(many=True))
    def get_title_awards(self, player: Player) -> list[dict[str, Any]]:
        return list(TitleAwardSerializer(self.context.get("title_awards", []), many=True).data)

    @extend_schema_field(RankedPlayerRatingsSerializer)
    def get_ratings(self, player: Player) -> dict:
        ranked = self.context["ratings"]
        return {
            rating_type: RankedRatingSerializer(ranked[rating_type]).data if rating_type in ranked else None
            for rating_type in RATING_TYPES
        }


class HistoryEventSerializer(serializers.Serializer):
    event = serializers.IntegerField(source="event_id")
    event_name = serializers.CharField(source="event.name")
    end_date = serializers.DateField(source="event.end_date")
    rating_before = serializers.IntegerField(allow_null=True)
    k_factor = serializers.FloatField(allow_null=True)
    games = serializers.IntegerField()
    score = serializers.FloatField()
    expected_score = serializers.FloatField()
    change = serializers.FloatField(help_text="K x sum of (score - expected score) for this event, unrounded")


class HistoryRowSerializer(serializers.Serializer):
    list_date = serializers.DateField(source="rating_list.list_date")
    rating_type = serializers.CharField(source="rating_list.rating_type")
    rating = serializers.IntegerField(source="entry.rating", allow_null=True)
    change = serializers.IntegerField(source="entry.change", allow_null=True)
    games = serializers.IntegerField(source="entry.games")
    k_factor = serializers.IntegerField(source="entry.k_factor", allow_null=True)
    inactive = serializers.BooleanField(source="entry.inactive")
    events = HistoryEventSerializer(source="changes", many=True)


class PlayerHistorySerializer(serializers.Serializer):
    id_number = serializers.IntegerField()
    name = serializers.CharField()
    count = serializers.IntegerField(help_text="Published lists the player is on (every page)")
    next = serializers.URLField(allow_null=True, help_text="The next page (older lists); null on the last")
    previous = serializers.URLField(allow_null=True, help_text="The previous page (newer lists); null on the first")
    history = HistoryRowSerializer(many=True, help_text="One row per published list, newest first: a page of them")
