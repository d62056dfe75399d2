"""The norm calculator's input and output, and an event's norm report (B.01 1.4; ratings.engine.norms)."""

from rest_framework import serializers

from core.schema import StrictJSONSerializer
from players.models import Sex, Title
from ratings.engine.norms import EXEMPTIONS, NORM_TITLES, PLAYED_RESULTS, SYSTEMS, UNPLAYED_RESULTS

MAX_NORM_GAMES = 30


class NormPlayerInputSerializer(StrictJSONSerializer):
    federation = serializers.RegexField(r"^[A-Za-z]{3}$", help_text="FIDE federation code, e.g. ESP (FID: none)")
    sex = serializers.ChoiceField(choices=Sex.choices, help_text="Women's titles are for women (B.01 1.3)")


class NormEventInputSerializer(StrictJSONSerializer):
    rounds = serializers.IntegerField(
        min_value=1, max_value=99, help_text="The event's rounds (at least the highest round of the games given)"
    )
    system = serializers.ChoiceField(choices=list(SYSTEMS), default="swiss")
    exemption = serializers.ChoiceField(
        choices=list(EXEMPTIONS),
        default="",
        allow_blank=True,
        help_text="1.4.3a-d: national championship, national team championship, zonal, large Swiss; empty: none",
    )


class NormGameInputSerializer(StrictJSONSerializer):
    round = serializers.IntegerField(min_value=1, max_value=99)
    opponent_rating = serializers.IntegerField(
        min_value=1, max_value=4000, allow_null=True, required=False, help_text="null or absent: unrated (1400)"
    )
    opponent_title = serializers.ChoiceField(choices=Title.choices, default="", allow_blank=True)
    opponent_federation = serializers.RegexField(r"^[A-Za-z]{3}$", required=False, help_text="e.g. FRA; FID")
    result = serializers.ChoiceField(
        choices=[*PLAYED_RESULTS, *sorted(UNPLAYED_RESULTS)], help_text="1, 0.5, 0; + / - forfeits; bye"
    )


class NormCheckInputSerializer(StrictJSONSerializer):
    player = NormPlayerInputSerializer()
    event = NormEventInputSerializer()
    title = serializers.ChoiceField(
        choices=list(NORM_TITLES), required=False, help_text="Absent: every norm title (women's for women)"
    )
    games = NormGameInputSerializer(many=True, allow_empty=False, max_length=MAX_NORM_GAMES)  # type: ignore[call-arg]


class NormCheckLineSerializer(serializers.Serializer):
    rule = serializers.CharField(help_text="B.01 article, e.g. 1.4.5")
    required = serializers.CharField()  # type: ignore[assignment]  # the JSON key; Field.required is a flag
    actual = serializers.CharField()
    ok = serializers.BooleanField()
    key = serializers.CharField(help_text="Which requirement (ratings.engine.norms.REQUIREMENTS)")
    params = serializers.DictField(child=serializers.CharField(), help_text="The figures its text is written with")


class RaisedOpponentSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    rating = serializers.IntegerField(help_text="The rating the average would have used (1400 when unrated)")
    raised_to = serializers.IntegerField(help_text="The title's rating floor (1.4.7)")


class NormResultSerializer(serializers.Serializer):
    title = serializers.CharField()
    norm = serializers.BooleanField()
    games = serializers.IntegerField(help_text="Games the norm is worth toward 27 (1.4.1c, 1.7)")
    score = serializers.FloatField()
    percentage = serializers.IntegerField()
    average_rating = serializers.IntegerField(help_text="Ra, rounded half up, the raised opponent included")
    performance = serializers.IntegerField(help_text="Rp = Ra + dp (table 1.4.9)")
    raised_opponent = RaisedOpponentSerializer(allow_null=True)
    required_score = serializers.FloatField(allow_null=True, help_text="The least score for the norm on these games")
    games_used = serializers.ListField(child=serializers.IntegerField(), help_text="Rounds counted (1.4.1e/f)")
    checks = NormCheckLineSerializer(many=True)
    one_four_one_c = serializers.BooleanField(help_text="8 games and a forfeit win or bye in 9 rounds (1.4.1c)")


class NormCheckResultSerializer(serializers.Serializer):
    norms = NormResultSerializer(many=True)


class PlayerNormsSerializer(serializers.Serializer):
    id_number = serializers.IntegerField()
    name = serializers.CharField()
    norms = NormResultSerializer(many=True)


class EventNormReportSerializer(serializers.Serializer):
    players = PlayerNormsSerializer(many=True)
