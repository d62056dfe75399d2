"""The officers' dashboard's titles section (templates/admin/ratings/_desk_title_candidates.html, issue 33):
the open candidates for titles by rating. Thin: who is asking, then one selector (one query)."""

from typing import Any

from django import template

from core.roles import is_official
from ratings.selectors_titles import norm_applications_complete, title_candidates_open

register = template.Library()


def _asked_by_official(context: Any) -> bool:
    user = getattr(context.get("request"), "user", None)
    return user is not None and is_official(user)


@register.simple_tag(takes_context=True)
def desk_title_candidates(context: Any) -> list[Any]:
    return title_candidates_open() if _asked_by_official(context) else []


@register.simple_tag(takes_context=True)
def desk_norm_applications(context: Any) -> list[Any]:
    """Players whose norms and rating complete a GM/IM/WGM/WIM application (issue 33; two queries)."""
    return norm_applications_complete() if _asked_by_official(context) else []
