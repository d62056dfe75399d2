"""A published list exported in FIDE's layout and imported into an empty database gives the same entries:
the downloads are a faithful, complete copy of what the federation published."""

import pytest
from django.core.management import call_command

from players.models import Player
from ratings.models import RatingList, RatingListEntry
from ratings.services import rating_list_publish
from tests.ratings.scenarios import MAR, build_federation

pytestmark = pytest.mark.django_db(transaction=True)

PUBLISHED_FIELDS = (
    "rating",
    "games",
    "k_factor",
    "inactive",
    "title",
    "women_title",
    "other_titles",
    "federation",
    "sex",
    "birth_year",
)


def rated_entries(rating_list: RatingList) -> dict[int, tuple]:
    """What the list says of each rated player (the published list shows rated players, B.02 7.1.2)."""
    return {
        row["player__id_number"]: (
            row["player__surname"],
            row["player__given_names"],
            *(row[f] for f in PUBLISHED_FIELDS),
        )
        for row in RatingListEntry.objects.filter(rating_list=rating_list, rating__isnull=False).values(
            "player__id_number", "player__surname", "player__given_names", *PUBLISHED_FIELDS
        )
    }


@pytest.mark.parametrize("fmt", ["txt", "xml"])
def test_published_list_exported_and_imported_into_an_empty_database_has_identical_entries(tmp_path, fmt):
    build_federation()
    published = rating_list_publish("standard", MAR).rating_list
    # Titles, a woman and an inactive player make every column count.
    first, second = RatingListEntry.objects.filter(rating_list=published, rating__isnull=False)[:2]
    RatingListEntry.objects.filter(pk=first.pk).update(title="FM", other_titles="IA,FT", inactive=True)
    RatingListEntry.objects.filter(pk=second.pk).update(sex="F", women_title="WIM", title="WIM")
    expected = rated_entries(published)
    assert len(expected) >= 5

    exported = tmp_path / f"standard_mar26frl.{fmt}"
    call_command(
        "export_rating_list",
        "--date",
        MAR.isoformat(),
        "--rating-type",
        "standard",
        "--format",
        fmt,
        "-o",
        str(exported),
    )
    call_command("flush", "--no-input")
    assert not Player.objects.exists()
    assert not RatingList.objects.exists()

    call_command(
        "import_fide_list", str(exported), "--list-date", MAR.isoformat(), "--rating-type", "standard", "--quiet"
    )
    [imported] = RatingList.objects.filter(list_date=MAR, rating_type="standard")
    assert imported.is_imported
    assert rated_entries(imported) == expected
    # Exporting the imported list again gives the same file, byte for byte.
    again = tmp_path / f"again.{fmt}"
    call_command(
        "export_rating_list", "--date", MAR.isoformat(), "--rating-type", "standard", "--format", fmt, "-o", str(again)
    )
    assert again.read_bytes() == exported.read_bytes()
