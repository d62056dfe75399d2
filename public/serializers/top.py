"""A list entry with its rank within the selection (the entries endpoint's filters and categories)."""

from rest_framework import serializers

from public.selectors.record import is_provisional
from public.serializers.ratings import RatingListEntrySerializer


class RankedEntrySerializer(RatingListEntrySerializer):
    rank = serializers.SerializerMethodField(
        help_text="Rank within the selection (the filters given), best first; null when sorted other than by rating"
    )
    world_rank = serializers.IntegerField(
        source="rank", read_only=True, allow_null=True, help_text="Rank among all active players of the list"
    )

    provisional = serializers.SerializerMethodField(
        help_text="Fewer than 30 rated games in all (B.02 8.3.3: K 40 until 30 games): the rating rests on few"
    )

    class Meta(RatingListEntrySerializer.Meta):
        fields = ["rank", *RatingListEntrySerializer.Meta.fields, "world_rank", "provisional"]

    def get_rank(self, entry) -> int | None:
        return getattr(entry, "selection_rank", None)

    def get_provisional(self, entry) -> bool:
        return is_provisional(entry.rated_games_total, entry.rating)


def rank_page(rows, first_line: int, count: int, sort: str) -> None:
    """Give each row of a page its rank within the selection: its line when sorted by rating, highest first;
    counted from the end when sorted lowest first (``count`` rows in all); none for the other sorts."""
    for line, row in enumerate(rows, start=first_line):
        if sort == "-rating":
            row.selection_rank = line
        elif sort == "rating":
            row.selection_rank = count - line + 1
