"""Refusals of the rating services: one-line messages meant for the official (commands print them as-is)."""


class RatingListRefused(Exception):
    """A publication, preview or republication that must not happen; the message says why in one line."""


class NothingToPublish(RatingListRefused):
    """No previous list and no event to rate: the list would be empty."""


class UnknownRatingType(RatingListRefused, ValueError):
    pass
