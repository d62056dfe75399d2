"""The rating types, spelled once: a federation rates standard, rapid and blitz play on separate lists
(B.02: one rating list per rate of play). Everything that names the three, in this order, imports it:
the engine, the FIDE list files, the public API and pages; events.models.RatingType (below the ratings
layer, so it cannot import this) is checked against it by a test.
"""

from __future__ import annotations

RATING_TYPES = ("standard", "rapid", "blitz")
