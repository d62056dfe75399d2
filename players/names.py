"""Names compared loosely: without case, accents or punctuation. Pure (no Django): the registry's model, its
selectors and every bulk writer of players (FIDE lists, TRF files, the simulation) fold names the same way."""

import unicodedata

# Apostrophes join the parts of a name ("O'Brien" = "OBrien"); any other character that is not a letter or a
# digit separates words ("García-López, Ana" -> "garcia lopez ana").
_APOSTROPHES = "'\u2019"

# The same folding for ASCII bytes, as a bytes.translate table (numpy.char.translate on FIDE's ASCII columns):
# letters lower-cased, digits kept, apostrophes deleted (ASCII_KEY_DELETE), everything else a space.
ASCII_KEY_TABLE = bytes(c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or 48 <= c <= 57 else 32 for c in range(256))
ASCII_KEY_DELETE = b"'"


def fold_name(text: str) -> str:
    """A name compared without case, accents or punctuation ("Mícheál" = "MICHEAL")."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isalnum()).casefold()


def name_words(text: str) -> list[str]:
    """The words of a name or a query, each folded like fold_name ("Martín, Elena" -> ["martin", "elena"])."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(
        c if c.isalnum() else " " for c in decomposed if c not in _APOSTROPHES and not unicodedata.combining(c)
    )
    return kept.casefold().split()


def name_search_key(name: str) -> str:
    """Player.search_key of a name ("SURNAME, GIVEN NAMES"): its words, folded, one space apart ("Fernández
    García, María José" -> "fernandez garcia maria jose"). Searched word by word (players.selectors)."""
    return " ".join(name_words(name))[:210]
