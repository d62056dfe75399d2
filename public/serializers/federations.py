"""Public representations of federations (figures per rating type, top lists) and clubs with members."""

from rest_framework import serializers


class TypeFiguresSerializer(serializers.Serializer):
    rating_type = serializers.CharField()
    rated = serializers.IntegerField()
    active = serializers.IntegerField()
    top_average = serializers.IntegerField(
        allow_null=True, help_text="Average rating of the ten best active players (null: fewer than ten)"
    )


class FederationRankingSerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()
    types = TypeFiguresSerializer(many=True)


class FederationTopEntrySerializer(serializers.Serializer):
    rank = serializers.IntegerField(source="selection_rank", help_text="Rank within the federation")
    id_number = serializers.IntegerField(source="player.id_number")
    name = serializers.CharField(source="player.name")
    title = serializers.CharField()
    rating = serializers.IntegerField()
    world_rank = serializers.IntegerField(source="rank", allow_null=True)
    birth_year = serializers.IntegerField(allow_null=True)


class FederationTypeSerializer(TypeFiguresSerializer):
    list_date = serializers.DateField(source="rating_list.list_date")
    top = FederationTopEntrySerializer(many=True)


class EventRefSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    city = serializers.CharField()
    end_date = serializers.DateField()
    rating_type = serializers.CharField()


class ClubRefSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    city = serializers.CharField()
    member_count = serializers.IntegerField()


class FederationDetailSerializer(serializers.Serializer):
    code = serializers.CharField(source="federation.code")
    name = serializers.CharField(source="federation.name")
    types = FederationTypeSerializer(many=True)
    events = EventRefSerializer(many=True)
    clubs = ClubRefSerializer(many=True)


class MemberRatingSerializer(serializers.Serializer):
    rating_type = serializers.CharField()
    rating = serializers.IntegerField(allow_null=True)
    inactive = serializers.BooleanField()


class ClubMemberSerializer(serializers.Serializer):
    id_number = serializers.IntegerField(source="player.id_number")
    name = serializers.CharField(source="player.name")
    title = serializers.CharField(source="player.title")
    birth_year = serializers.IntegerField(source="player.birth_year", allow_null=True)
    ratings = serializers.SerializerMethodField()

    def get_ratings(self, row) -> list[dict]:  # type: ignore[type-arg]
        return MemberRatingSerializer(list(row["ratings"].values()), many=True).data  # type: ignore[return-value]


class ClubDetailSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="club.pk")
    name = serializers.CharField(source="club.name")
    code = serializers.CharField(source="club.code")
    city = serializers.CharField(source="club.city")
    federation = serializers.CharField(source="club.federation_id", allow_null=True)
    members = ClubMemberSerializer(many=True)
