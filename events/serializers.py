"""Public representations of events and their crosstables."""

from rest_framework import serializers

from events.models import Event


class EventSerializer(serializers.ModelSerializer):
    federation = serializers.CharField(source="federation_id", allow_null=True)
    rated_on = serializers.DateField(
        source="rated_on.list_date",
        allow_null=True,
        default=None,
        help_text="Date of the list the event was rated on",
    )
    participant_count = serializers.IntegerField()

    class Meta:
        model = Event
        fields = [
            "id",
            "name",
            "city",
            "federation",
            "start_date",
            "end_date",
            "rating_type",
            "system",
            "rounds",
            "time_control",
            "status",
            "rated_on",
            "participant_count",
        ]


class CrosstableCellSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    opponent_rank = serializers.IntegerField(
        allow_null=True, help_text="Final rank of the opponent; null: bye"
    )
    opponent_start_rank = serializers.IntegerField(allow_null=True)
    colour = serializers.CharField(allow_blank=True, help_text="w, b, or empty for a bye")
    points = serializers.FloatField()
    result_text = serializers.CharField()
    rated = serializers.BooleanField()


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    start_rank = serializers.IntegerField(source="participant.start_rank")
    id_number = serializers.IntegerField(source="participant.player.id_number")
    name = serializers.CharField(source="participant.player.name")
    title = serializers.CharField(source="participant.player.title")
    federation = serializers.CharField(source="participant.player.federation_id", allow_null=True)
    rating = serializers.IntegerField(allow_null=True, help_text="Rating used (list in force at the start)")
    points = serializers.FloatField()
    buchholz = serializers.FloatField()
    sonneborn_berger = serializers.FloatField()
    rated_games = serializers.IntegerField()
    performance = serializers.IntegerField(
        allow_null=True, help_text="Ra + dp over rated games (Title Regs 1.4)"
    )
    rating_change = serializers.FloatField(allow_null=True, help_text="K x sum(score - PD); null until rated")
    k_factor = serializers.FloatField(allow_null=True)
    results = CrosstableCellSerializer(source="cells", many=True, allow_null=True)


class EventDetailSerializer(serializers.Serializer):
    event = EventSerializer()
    average_rating = serializers.IntegerField(allow_null=True)
    rated_players = serializers.IntegerField()
    category = serializers.IntegerField(
        allow_null=True, help_text="FIDE category (I = 2251-2275); null below"
    )
    is_rated = serializers.BooleanField()
    standings = StandingSerializer(source="rows", many=True)
