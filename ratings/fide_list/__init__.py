"""FIDE rating-list downloads (https://ratings.fide.com/download_lists.phtml): streaming reader and writers.

Pure: no Django. ``iter_fide_list`` reads every layout FIDE has published (reference/formats.md §4): the
combined TXT with the FOA column (``players_list_foa.txt``), the combined "legacy" TXT without it, the
single-type standard / rapid / blitz TXT lists, the pre-2012 single list and the XML. Column offsets come
from the header line (the header tokens start where the fields start), never from constants alone. It
streams: one row at a time, memory independent of the file size (the combined list has 1.9 million lines).
Problems in a line (a bad ID, a rating that is not a number) are reported and never stop the file; only
an unrecognisable header does (``FideListFormatError``). ``events``/``players`` services persist the rows.
"""

from ratings.engine.rating_types import RATING_TYPES
from ratings.fide_list.layout import COMBINED_FOA_HEADER, COMBINED_LEGACY_HEADER
from ratings.fide_list.reader import FideListReader, iter_fide_list
from ratings.fide_list.rows import (
    FideListColumns,
    FideListFormatError,
    FideListLayout,
    FideListProblem,
    FideListRating,
    FideListRow,
)
from ratings.fide_list.source import fide_list_source
from ratings.fide_list.writers import write_fide_list_csv, write_fide_list_txt, write_fide_list_xml

__all__ = [
    "COMBINED_FOA_HEADER",
    "COMBINED_LEGACY_HEADER",
    "RATING_TYPES",
    "FideListColumns",
    "FideListFormatError",
    "FideListLayout",
    "FideListProblem",
    "FideListRating",
    "FideListReader",
    "FideListRow",
    "fide_list_source",
    "iter_fide_list",
    "write_fide_list_csv",
    "write_fide_list_txt",
    "write_fide_list_xml",
]
