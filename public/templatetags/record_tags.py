"""Template helpers of the player's record: the provisional mark and a game's result from a score."""

from django import template

from public.selectors.record import is_provisional

register = template.Library()


@register.filter
def provisional(rating: dict) -> bool:
    """A published rating that still rests on few games (public.selectors.record.PROVISIONAL_GAMES)."""
    return is_provisional(rating.get("rated_games_total"), rating.get("rating"))


@register.filter
def provisional_entry(entry) -> bool:
    """A list entry whose rating rests on fewer than PROVISIONAL_GAMES rated games."""
    return is_provisional(entry.rated_games_total, entry.rating)


@register.filter
def score_mark(score) -> str:
    return {1.0: "1", 0.5: "½", 0.0: "0"}.get(float(score), str(score)) if score is not None else ""


@register.filter
def colour_mark(colour: str) -> str:
    return {"white": "○", "black": "●"}.get(colour, "")
