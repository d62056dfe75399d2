"""The admin start page's data (templates/admin/desk_index.html): the rating officer's dashboard for
officials, the arbiter's events for everyone else. Thin: who is asking, then one selector."""

from django import template
from django.utils import timezone

from core.roles import is_official
from events.roles import events_visible_to
from events.selectors_desk import events_desk
from ratings.selectors_dashboard import dashboard_read

register = template.Library()


@register.simple_tag(takes_context=True)
def desk_dashboard(context) -> dict:
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    if is_official(user):
        return {"official": True, "dashboard": dashboard_read(timezone.localdate())}
    return {"official": False, "groups": events_desk(events_visible_to(user))}
