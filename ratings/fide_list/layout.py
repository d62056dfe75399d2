"""FIDE's list layouts (reference/formats.md §4): the header lines, their labels and the XML tags; the
plausible values of each field; the columns of a TXT list from its header line.
"""

from __future__ import annotations

import re

from ratings.engine.rating_types import RATING_TYPES
from ratings.fide_list.rows import FideListFormatError, FideListLayout

_TYPE_PREFIX = {"standard": "S", "rapid": "R", "blitz": "B"}

# Exact header of players_list_foa.txt (formats.md §4.2); every token starts where its field starts.
COMBINED_FOA_HEADER = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit"
    "           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag"
)
COMBINED_LEGACY_HEADER = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit"
    "           SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag"
)
_SINGLE_HEADER_HEAD = COMBINED_FOA_HEADER[:113]  # single-type lists share the columns up to FOA [109,113)

# Header token (lower case) -> field key. Keys "single.*" are the one rating of a single-type list.
_LABELS = {
    "id": "id",
    "name": "name",
    "fed": "federation",
    "sex": "sex",
    "tit": "title",
    "titl": "title",
    "wtit": "women_title",
    "otit": "other_titles",
    "foa": "foa_title",
    "srtng": "standard.rating",
    "sgm": "standard.games",
    "sk": "standard.k",
    "rrtng": "rapid.rating",
    "rgm": "rapid.games",
    "rk": "rapid.k",
    "brtng": "blitz.rating",
    "bgm": "blitz.games",
    "bk": "blitz.k",
    "rtng": "single.rating",
    "gms": "single.games",
    "games": "single.games",
    "game": "single.games",
    "k": "single.k",
    "b-day": "birth_year",
    "born": "birth_year",
    "flag": "flag",
}
_IGNORED_LABELS = {"number"}  # "ID Number" is one field
_MONTH_TOKEN = re.compile(r"[a-z]{3}\d{2}")  # the rating column of a single-type list is headed by its month
_FOA_CODES = ("AWGM", "AWIM", "AWFM", "AWCM", "AGM", "AIM", "AFM", "ACM")
_TITLES = {  # pre-2012 lists used one-letter titles
    "g": "GM",
    "m": "IM",
    "f": "FM",
    "c": "CM",
    "wg": "WGM",
    "wm": "WIM",
    "wf": "WFM",
    "wc": "WCM",
}
_XML_FIELDS = (
    "fideid",
    "name",
    "country",
    "sex",
    "title",
    "w_title",
    "o_title",
    "foa_title",
    "rating",
    "games",
    "k",
    "rapid_rating",
    "rapid_games",
    "rapid_k",
    "blitz_rating",
    "blitz_games",
    "blitz_k",
    "birthday",
    "flag",
)
_XML_PREFIX = {"standard": "", "rapid": "rapid_", "blitz": "blitz_"}


# Plausible values, so that what is read always fits the database (IDs bigint, ratings smallint):
# anything else is a typing or layout error in the line and is reported, not stored.
_MAX_FIDE_ID = 10**15 - 1  # the ID field is 15 characters wide
_LIMITS = {
    "rating": (1, 9999),
    "games": (0, 9999),
    "k": (1, 999),
    "birth_year": (1800, 2200),
    "birthday": (1800, 2200),
}


_MAX_DIGITS = 18  # more digits than any field holds: out of range without int() (which refuses > 4300 digits)


def _bounded(value: str) -> int | None:
    """``value`` as a number when it has at most ``_MAX_DIGITS`` ASCII digits, else None (check isdigit first)."""
    return int(value) if len(value.lstrip("0")) <= _MAX_DIGITS else None


def _number_problem(key: str, value: str) -> str | None:
    """Why ``value`` is not acceptable for ``key`` (a field key or XML tag), or None when it is."""
    if not (value.isdigit() and value.isascii()):
        return "is not a number"
    number = _bounded(value)
    low, high = _LIMITS[key if key in _LIMITS else re.split(r"[._]", key)[-1]]  # "rapid.k", "blitz_rating"
    if number is not None and (number == 0 or low <= number <= high):  # FIDE writes 0 for "none"
        return None
    return f"is outside {low}-{high}"


def _fide_id_problem(text: str) -> str | None:
    if not (text.isdigit() and text.isascii()):
        return "is not a number"
    number = _bounded(text)
    if number is None or not 0 < number <= _MAX_FIDE_ID:
        return f"is outside 1-{_MAX_FIDE_ID}"
    return None


def _shown(text: str) -> str:
    """A value as quoted in a problem: at most 20 characters of it (a hostile value may have millions)."""
    return repr(text) if len(text) <= 20 else f"{text[:20]!r}... ({len(text):,} characters)"


def _split_name(name: str) -> tuple[str, str]:
    surname, comma, given = name.partition(",")
    return surname.strip(), given.strip() if comma else ""


def _title(text: str) -> str:
    return _TITLES.get(text.lower(), text) if text else ""


# -------------------------------------------------------------------------------------------- TXT header


_LONGEST_LABEL = max(5, *map(len, _LABELS))  # a month token (oct26) has 5 characters


def _is_label(text: str) -> bool:
    return text in _LABELS or _MONTH_TOKEN.fullmatch(text) is not None


def _split_token(token: str) -> list[str] | None:
    """``titlfed`` -> [``titl``, ``fed``]: the pre-2012 header glues some labels together.

    The longest label first at each place, as long as the rest can still be split: decided from the end of
    the token backwards (each place tries at most ``_LONGEST_LABEL`` cuts), so time is linear in the token
    and there is no recursion, however long a hostile header token is.
    """
    if token in _LABELS or token in _IGNORED_LABELS or _MONTH_TOKEN.fullmatch(token):
        return [token]
    size = len(token)
    # cut[i]: the length of the label starting at i such that token[i + length:] splits too; 0: none
    cut = [0] * (size + 1)
    for start in range(size - 1, -1, -1):
        for length in range(min(_LONGEST_LABEL, size - start), 0, -1):
            end = start + length
            if (end == size or cut[end]) and _is_label(token[start:end]):
                cut[start] = length
                break
    if not cut[0]:
        return None
    parts, start = [], 0
    while start < size:
        parts.append(token[start : start + cut[start]])
        start += cut[start]
    return parts


def _txt_layout(header: str, rating_type: str | None) -> FideListLayout:
    starts: list[tuple[int, str]] = []
    unknown: list[str] = []
    for match in re.finditer(r"\S+", header):
        parts = _split_token(match.group().lower())
        if parts is None:
            unknown.append(match.group())
            continue
        position = match.start()
        for part in parts:
            if part not in _IGNORED_LABELS:
                key = "single.rating" if _MONTH_TOKEN.fullmatch(part) else _LABELS[part]
                starts.append((position, key))
            position += len(part)
    keys = [key for _, key in starts]
    has_rating = any(key.endswith(".rating") for key in keys)
    if "id" not in keys or "name" not in keys or not has_rating or len(set(keys)) != len(keys) or unknown:
        why = f"unknown column(s) {unknown}" if unknown else "expected ID, Name and a rating column"
        raise FideListFormatError(f"line 1: not a FIDE rating-list header ({why}): {header[:120]!r}")
    typed = [key.split(".")[0] for key in keys if key.endswith(".rating") and not key.startswith("single.")]
    single = "single.rating" in keys or (len(typed) == 1 and any(k.startswith("single.") for k in keys))
    # A single-type list: FIDE heads its rating with the month (OCT26), so the caller names the type;
    # a header written by write_fide_list_txt without a date says it (SRtng / RRtng / BRtng).
    single_type = rating_type or (typed[0] if len(typed) == 1 else "standard")
    fields: dict[str, tuple[int, int | None]] = {}
    for index, (start, key) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else None
        if single and "." in key:
            key = f"{single_type}.{key.split('.', 1)[1]}"
        fields[key] = (start, end)
    types = tuple(t for t in RATING_TYPES if f"{t}.rating" in fields)
    return FideListLayout("txt", types, fields, header)
