"""The roles the product knows, by group name, and who counts as an official."""

RATING_OFFICERS_GROUP = "Rating officers"
ARBITERS_GROUP = "Arbiters"


def is_official(user) -> bool:
    """Superusers and active staff in the "Rating officers" group (the group is looked up by name)."""
    if not (user and user.is_active and user.is_staff):
        return False
    if user.is_superuser:
        return True
    cached = getattr(user, "_is_rating_officer", None)
    if cached is None:
        cached = user.groups.filter(name=RATING_OFFICERS_GROUP).exists()
        user._is_rating_officer = cached
    return cached
