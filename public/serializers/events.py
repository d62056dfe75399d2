"""Public representations of events and their crosstables."""

from rest_framework import serializers

from events.models import Event
from public.serializers.event_status import StatusChangeSerializer


class EventSerializer(serializers.ModelSerializer):
    federation = serializers.CharField(source="federation_id", allow_null=True)
    rated_on = serializers.DateField(
        source="rated_on.list_date",
        allow_null=True,
        default=None,
        help_text="Date of the list the event was rated on",
    )
    participant_count = serializers.IntegerField()
    chief_arbiter = serializers.CharField(source="chief_arbiter_name", help_text="As the tournament report names them")
    last_update = serializers.DateTimeField(source="updated_at", help_text="When the event's record last changed")

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
            "chief_arbiter",
            "organiser",
            "last_update",
        ]


class CrosstableCellSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    opponent = serializers.IntegerField(
        source="opponent_rank",
        allow_null=True,
        help_text="The opponent's starting number; null: bye or not paired",
    )
    colour = serializers.CharField(allow_blank=True, help_text="w, b, or empty for a bye / not paired")
    result = serializers.CharField(allow_blank=True, help_text="The stored result code; empty when not paired")
    points = serializers.FloatField()
    rated = serializers.BooleanField(help_text="Only played games are rated (B.02 1.2)")
    text = serializers.CharField(allow_blank=True, help_text="As printed in the crosstable, e.g. 12w1")


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField(source="standing.rank")
    start_rank = serializers.IntegerField(source="standing.start_rank")
    id_number = serializers.IntegerField(source="standing.id_number")
    name = serializers.CharField(source="standing.name")
    title = serializers.CharField(source="standing.title")
    federation = serializers.CharField(source="standing.federation")
    rating = serializers.IntegerField(
        source="standing.rating", allow_null=True, help_text="Rating used (list in force at the start)"
    )
    points = serializers.FloatField(source="standing.points")
    buchholz = serializers.FloatField(source="standing.buchholz")
    sonneborn_berger = serializers.FloatField(
        source="standing.sonneborn_berger", help_text="The round robin's tie-break (FIDE tie-break regulations)"
    )
    rated_games = serializers.IntegerField(source="standing.rated_games")
    performance = serializers.IntegerField(allow_null=True, help_text="Ra + dp over rated games (Title Regs 1.4)")
    rating_change = serializers.FloatField(allow_null=True, help_text="K x sum(score - PD); null until rated")
    k_factor = serializers.FloatField(allow_null=True)
    results = CrosstableCellSerializer(source="standing.cells", many=True)


class EventDetailSerializer(serializers.Serializer):
    event = EventSerializer()
    average_rating = serializers.IntegerField(allow_null=True)
    rated_players = serializers.IntegerField()
    category = serializers.IntegerField(allow_null=True, help_text="FIDE category (I = 2251-2275); null below")
    is_rated = serializers.BooleanField()
    standings = StandingSerializer(source="rows", many=True)
    tie_break = serializers.CharField(source="tie_break.code", help_text="BH (Buchholz) or SB (Sonneborn-Berger)")
    standings_round = serializers.IntegerField(help_text="The standings are after this round")
    rounds_finished = serializers.IntegerField(help_text="Rounds 1..N all paired with no game still to play")
    is_complete = serializers.BooleanField(help_text="Every declared round paired and played: final standings")
    ratings_source = serializers.ChoiceField(
        choices=["used", "in_force", "reported"],
        help_text="Ratings shown: used by the calculation, of the list in force at the start, or as reported",
    )
    # Where the event stands (issue 15): its status and every step with who, when and on which list.
    status = serializers.CharField(source="event.status")
    timeline = StatusChangeSerializer(many=True)
