"""A published list as a download: FIDE's fixed-width TXT, CSV or XML (writers in ratings/fide_list/writers.py).

One implementation for the public download (public.views.lists) and the export command.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from ratings.fide_list import (
    FideListRating,
    FideListRow,
    write_fide_list_csv,
    write_fide_list_txt,
    write_fide_list_xml,
)
from ratings.models import RatingList, RatingListEntry

# Format -> the media type of its download.
EXPORT_FORMATS = {
    "txt": "text/plain; charset=utf-8",
    "csv": "text/csv; charset=utf-8",
    "xml": "application/xml; charset=utf-8",
}
EXPORT_CHUNK_ROWS = 5000


def rating_list_export(rating_list: RatingList, fmt: str) -> Iterator[str]:
    """Chunks of text of the list in ``fmt``, read and written a chunk at a time (never held in memory)."""
    rows = download_rows(rating_list, chunk_size=EXPORT_CHUNK_ROWS)
    if fmt == "txt":
        # FIDE's single-type layout, the rating column headed by the list month (MAR26) as FIDE does
        return write_fide_list_txt(rows, rating_list.rating_type, list_date=rating_list.list_date)
    if fmt == "csv":
        return write_fide_list_csv(rows, rating_list.rating_type)
    if fmt == "xml":
        return write_fide_list_xml(rows, rating_list.rating_type)
    raise ValueError(f"format {fmt!r} is unknown; use one of {', '.join(EXPORT_FORMATS)}")


def download_rows(rating_list: RatingList, chunk_size: int = 2000) -> Iterator[FideListRow]:
    """Every rated entry of a list as FIDE list rows, best first, read in chunks (server-side cursor on PG).

    Title, federation, sex and birth year are the values as published on the list.
    """
    rows = (
        RatingListEntry.objects.filter(rating_list=rating_list, rating__isnull=False)
        .order_by("position")
        .values_list(
            "player__id_number",
            "player__surname",
            "player__given_names",
            "federation",
            "sex",
            "title",
            "women_title",
            "other_titles",
            "rating",
            "games",
            "k_factor",
            "birth_year",
            "inactive",
        )
        .iterator(chunk_size=chunk_size)
    )
    rating_type = rating_list.rating_type
    for (
        id_number,
        surname,
        given_names,
        federation,
        sex,
        title,
        women_title,
        other_titles,
        rating,
        games,
        k_factor,
        birth_year,
        inactive,
    ) in rows:
        yield FideListRow(
            fide_id=id_number,
            name=f"{surname}, {given_names}" if given_names else surname,
            surname=surname,
            given_names=given_names,
            federation=federation,
            sex=sex,
            title=title,
            women_title=women_title,
            other_titles=tuple(t for t in other_titles.replace(" ", "").split(",") if t),
            birth_year=birth_year,
            # FIDE flag column: i inactive, w woman, wi both (formats.md 4.2)
            flag=("w" if sex == "F" else "") + ("i" if inactive else ""),
            # the list's one rating, as the keyword of its type (standard=, rapid= or blitz=)
            **cast("dict[str, Any]", {rating_type: FideListRating(rating=rating, games=games, k_factor=k_factor)}),
        )
