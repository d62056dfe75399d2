"""The site's navigation: which section a page belongs to, so the menu can mark it (aria-current, issue 32)."""

from django import template

register = template.Library()

# Path prefixes of each menu section (the first match wins); a page outside them marks no item.
SECTIONS = (
    ("/players/", "players"),
    ("/calculator/", "calculator"),
    ("/lists/", "lists"),
    ("/top/", "top"),
    ("/federations/", "federations"),
    ("/clubs/", "federations"),
    ("/events/", "events"),
    ("/api/", "api"),
)


@register.simple_tag(takes_context=True)
def nav_section(context) -> str:
    """The menu section of the page being rendered ("" outside every section, or with no request: the 500 page
    renders without one)."""
    request = context.get("request")
    path = getattr(request, "path", "") or ""
    return next((section for prefix, section in SECTIONS if path.startswith(prefix)), "")
