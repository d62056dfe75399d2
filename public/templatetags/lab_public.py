"""The profile's shadow ratings (templates/players/_shadow.html): unofficial, clearly labelled."""

from django import template

from public.selectors.shadow import player_shadow_ratings

register = template.Library()


@register.inclusion_tag("players/_shadow.html")
def shadow_ratings(player):
    return {"shadow_ratings": player_shadow_ratings(player)}
