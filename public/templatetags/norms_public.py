"""A norm requirement in the page's language (ratings.engine.norms.REQUIREMENTS: the English text is the msgid)."""

from django import template
from django.utils.translation import gettext

from ratings.engine.norms import NOT_RECORDED, REQUIREMENTS, NormRequirementCheck

register = template.Library()


@register.filter
def requirement_text(check: NormRequirementCheck) -> str:
    """What the requirement asks, translated, with its figures."""
    if check.key not in REQUIREMENTS:
        return check.required
    return gettext(REQUIREMENTS[check.key]).format(**dict(check.params))


@register.filter
def requirement_actual(check: NormRequirementCheck) -> str:
    """What the player had; "not recorded" translated."""
    return gettext(NOT_RECORDED) if check.actual == NOT_RECORDED else check.actual
