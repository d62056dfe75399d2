"""A published list as a download: FIDE's fixed-width TXT, CSV or XML (writers in players/fide_list.py)."""

from __future__ import annotations

from collections.abc import Iterator

from players.fide_list import write_fide_list_csv, write_fide_list_txt, write_fide_list_xml
from ratings.models import RatingList
from ratings.public_selectors import download_rows

EXPORT_FORMATS = ("txt", "csv", "xml")


def rating_list_export(rating_list: RatingList, fmt: str) -> Iterator[str]:
    """Chunks of text of the list in ``fmt`` (txt: FIDE's single-type layout headed by the list's month)."""
    # The same rows, in the same order, as the public download (one reader for both).
    rows = download_rows(rating_list, chunk_size=5000)
    if fmt == "txt":
        return write_fide_list_txt(rows, rating_list.rating_type, list_date=rating_list.list_date)
    if fmt == "csv":
        return write_fide_list_csv(rows, rating_list.rating_type)
    if fmt == "xml":
        return write_fide_list_xml(rows, rating_list.rating_type)
    raise ValueError(f"format {fmt!r} is unknown; use one of {', '.join(EXPORT_FORMATS)}")
