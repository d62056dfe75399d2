"""Public representations of a player's record: rated games, opponents, statistics, head-to-head."""

from rest_framework import serializers


class OpponentRefSerializer(serializers.Serializer):
    id_number = serializers.IntegerField()
    name = serializers.CharField()
    federation = serializers.CharField(source="federation_id", allow_null=True)


class GameRowSerializer(serializers.Serializer):
    """One rated game as calculated on a published list."""

    date = serializers.DateField(help_text="The event's end date")
    list_date = serializers.DateField(help_text="The list the game was rated on")
    rating_type = serializers.CharField()
    event_id = serializers.IntegerField()
    event_name = serializers.CharField()
    round = serializers.IntegerField(allow_null=True)
    colour = serializers.CharField(help_text="white, black, or empty when not recorded")
    opponent_id_number = serializers.IntegerField(allow_null=True)
    opponent = OpponentRefSerializer(allow_null=True)
    opponent_rating = serializers.IntegerField(allow_null=True, help_text="On the list in force; null: unrated")
    score = serializers.FloatField()
    rating_change = serializers.FloatField(
        allow_null=True,
        help_text="K x dR of this game (B.02 8.3.2); null: the player was unrated (towards a first rating)",
    )


class OpponentRowSerializer(serializers.Serializer):
    opponent_id_number = serializers.IntegerField()
    opponent = OpponentRefSerializer(allow_null=True)
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    score = serializers.FloatField()
    percent = serializers.IntegerField()
    performance = serializers.IntegerField(
        allow_null=True, help_text="FIDE performance against this opponent's rated games (null: never rated)"
    )
    last_date = serializers.DateField()


class TallySerializer(serializers.Serializer):
    colour = serializers.CharField(source="label", help_text="white, black or all")
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    score = serializers.FloatField()
    percent = serializers.IntegerField()


class PeakSerializer(serializers.Serializer):
    rating_type = serializers.CharField()
    rating = serializers.IntegerField()
    list_date = serializers.DateField(help_text="The first list with this rating")


class EventPerformanceSerializer(serializers.Serializer):
    event_id = serializers.IntegerField(source="event.pk")
    event_name = serializers.CharField(source="event.name")
    end_date = serializers.DateField(source="event.end_date")
    rating_type = serializers.CharField()
    list_date = serializers.DateField()
    games = serializers.IntegerField()
    score = serializers.FloatField()
    average_opponent = serializers.IntegerField(allow_null=True)
    performance = serializers.IntegerField(allow_null=True)
    rating_change = serializers.FloatField()


class ProvisionalRatingSerializer(serializers.Serializer):
    rating_type = serializers.CharField()
    rating = serializers.IntegerField(allow_null=True)
    rated_games_total = serializers.IntegerField()
    provisional = serializers.BooleanField(help_text="Fewer than 30 rated games (B.02 8.3.3: K 40 until 30)")


class PlayerStatisticsSerializer(serializers.Serializer):
    id_number = serializers.IntegerField()
    name = serializers.CharField()
    ratings = ProvisionalRatingSerializer(many=True)
    peaks = PeakSerializer(many=True)
    colours = TallySerializer(many=True)
    events = EventPerformanceSerializer(many=True)


class HeadToHeadGameSerializer(serializers.Serializer):
    game_id = serializers.IntegerField()
    event_id = serializers.IntegerField()
    event_name = serializers.CharField()
    rating_type = serializers.CharField()
    date = serializers.DateField()
    round = serializers.IntegerField()
    result = serializers.CharField(help_text="White's result: 1-0, 1/2-1/2, 0-1")
    first_colour = serializers.CharField()
    first_score = serializers.FloatField()
    first_rating = serializers.IntegerField(allow_null=True)
    second_rating = serializers.IntegerField(allow_null=True)


class PlayerRefSerializer(serializers.Serializer):
    id_number = serializers.IntegerField()
    name = serializers.CharField()


class HeadToHeadSerializer(serializers.Serializer):
    first = PlayerRefSerializer()
    second = PlayerRefSerializer()
    first_score = serializers.FloatField()
    second_score = serializers.FloatField()
    first_wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    second_wins = serializers.IntegerField()
    games = HeadToHeadGameSerializer(many=True)
