"""``{{ problem|trf_message }}``: a TRF problem or group of problems in the page's language (events.trf_text)."""

from django import template

from events.trf.grouping import TrfProblemGroup
from events.trf.records import TrfProblem
from events.trf_text import trf_group_text, trf_problem_text

register = template.Library()


@register.filter
def trf_message(item: TrfProblem | TrfProblemGroup) -> str:
    if isinstance(item, TrfProblemGroup):
        return trf_group_text(item)
    return trf_problem_text(item)
