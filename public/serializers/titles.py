"""Public representations of titles (issue 33): awards and the candidates a list names."""

from rest_framework import serializers

from players.models import Title, TitleAward, TitleMethod


class TitleAwardSerializer(serializers.ModelSerializer):
    title = serializers.CharField(help_text=f"One of {', '.join(Title.values)}")
    method = serializers.ChoiceField(
        choices=TitleMethod.values, help_text="How the title was earned: rating, norms, direct, imported"
    )

    class Meta:
        model = TitleAward
        fields = ["title", "date", "method", "reference"]


class ListTitleAwardSerializer(TitleAwardSerializer):
    id_number = serializers.IntegerField(source="player.id_number")
    name = serializers.CharField(source="player.name")

    class Meta(TitleAwardSerializer.Meta):
        fields = ["id_number", "name", *TitleAwardSerializer.Meta.fields]


class TitleCandidateSerializer(serializers.Serializer):
    id_number = serializers.IntegerField(source="player.id_number")
    name = serializers.CharField(source="player.name")
    title = serializers.CharField(help_text="A title by rating (B.01 1.3): FM, CM, WFM or WCM")
    rating = serializers.IntegerField(help_text="The rating on this list that reaches the title")
    games = serializers.IntegerField(help_text="Rated games so far (30 needed)")
    awarded = serializers.DateField(
        source="award.date", allow_null=True, default=None, help_text="The award's date once recorded"
    )


class ListNewTitlesSerializer(serializers.Serializer):
    awards = ListTitleAwardSerializer(many=True, help_text="Titles awarded in the list's period")
    candidates = TitleCandidateSerializer(many=True, help_text="Players whose rating on the list earns a title")


class RatingListTitlesSerializer(serializers.Serializer):
    list_date = serializers.DateField()
    rating_type = serializers.CharField()
    new_titles = ListNewTitlesSerializer()
