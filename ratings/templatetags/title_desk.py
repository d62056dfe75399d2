"""The officers' dashboard's titles section (templates/admin/ratings/_desk_title_candidates.html, issue 33):
the open candidates for titles by rating. Thin: who is asking, then one selector (one query)."""

from typing import Any

from django import template

from core.roles import is_official
from ratings.selectors_titles import norm_applications_complete, title_candidates_open

register = template.Library()


@register.simple_tag(takes_context=True)
def desk_title_candidates(context: Any) -> list[Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not is_official(user):
        return []
    return title_candidates_open()


@register.simple_tag(takes_context=True)
def desk_norm_applications(context: Any) -> list[Any]:
    """Players whose norms and rating complete a GM/IM/WGM/WIM application (issue 33; two queries)."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not is_official(user):
        return []
    return norm_applications_complete()
