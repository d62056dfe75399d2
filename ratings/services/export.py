"""A published list as a download: FIDE's fixed-width TXT, CSV or XML (writers in players/fide_list.py)."""

from __future__ import annotations

from collections.abc import Iterator

from players.fide_list import (
    FideListRating,
    FideListRow,
    write_fide_list_csv,
    write_fide_list_txt,
    write_fide_list_xml,
)
from ratings.models import RatingList, RatingListEntry

EXPORT_FORMATS = ("txt", "csv", "xml")
_COLUMNS = (
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


def rating_list_rows(rating_list: RatingList) -> Iterator[FideListRow]:
    """The rated players of a list (B.02 7.1.2: the list shows players with a rating), best first, streamed
    from one query; title, federation and birth year as published on the list."""
    entries = (
        RatingListEntry.objects.filter(rating_list=rating_list, rating__isnull=False)
        .order_by("-rating", "player__id_number")
        .values_list(*_COLUMNS)
        .iterator(chunk_size=5000)
    )
    for (
        id_number,
        surname,
        given,
        federation,
        sex,
        title,
        women_title,
        other_titles,
        rating,
        games,
        k,
        birth_year,
        inactive,
    ) in entries:
        flag = ("w" if sex == "F" else "") + ("i" if inactive else "")
        yield FideListRow(
            fide_id=id_number,
            name=f"{surname}, {given}" if given else surname,
            surname=surname,
            given_names=given,
            federation=federation,
            sex=sex,
            title=title,
            women_title=women_title,
            other_titles=tuple(t for t in other_titles.split(",") if t),
            birth_year=birth_year,
            flag=flag,
            **{rating_list.rating_type: FideListRating(rating=rating, games=games, k_factor=k)},
        )


def rating_list_export(rating_list: RatingList, fmt: str) -> Iterator[str]:
    """Chunks of text of the list in ``fmt`` (txt: FIDE's single-type layout headed by the list's month)."""
    rows = rating_list_rows(rating_list)
    if fmt == "txt":
        return write_fide_list_txt(rows, rating_list.rating_type, list_date=rating_list.list_date)
    if fmt == "csv":
        return write_fide_list_csv(rows, rating_list.rating_type)
    if fmt == "xml":
        return write_fide_list_xml(rows, rating_list.rating_type)
    raise ValueError(f"format {fmt!r} is unknown; use one of {', '.join(EXPORT_FORMATS)}")
