"""Points as league pages write them: whole numbers bare, halves with the language's decimal separator (one
separator per page: "2.5" in English, "2,5" in Spanish). Cheaper than ``floatformat`` for the hundreds of cells of
a division table and its crosstable (bench/league.py)."""

from functools import lru_cache

from django import template
from django.utils.formats import get_format
from django.utils.translation import get_language

register = template.Library()


@lru_cache(maxsize=16)
def _separator(language: str | None) -> str:
    return str(get_format("DECIMAL_SEPARATOR", language))


@register.filter
def points(value: float | int | None) -> str:
    if value is None:
        return ""
    number = float(value)
    if number == int(number):
        return str(int(number))
    return f"{number:.2f}".rstrip("0").replace(".", _separator(get_language()))
