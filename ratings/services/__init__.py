"""Services: every write about ratings goes through these functions (one transaction per user action).

Publication (ratings.services.publication): rating_list_publish, rating_list_compute_preview,
rating_list_publish_preview, rating_list_republish_from, rating_list_publish_scheduled, plus the two steps
rating_list_compute / rating_list_write. Policies, the beat schedule and the checks the
officials' buttons make before queueing a publication (ratings.services.schedule).
"""

from ratings.services.errors import NothingToPublish, RatingListRefused, UnknownRatingType
from ratings.services.publication import (
    ComputedList,
    ListPlan,
    PublishOutcome,
    rating_list_compute,
    rating_list_compute_preview,
    rating_list_publish,
    rating_list_publish_preview,
    rating_list_publish_scheduled,
    rating_list_republish_from,
    rating_list_write,
)
from ratings.services.schedule import (
    check_rating_type,
    rating_list_draft_publishable,
    rating_list_due,
    rating_list_next_date,
    rating_list_republication_reason,
    rating_list_request_check,
    rating_policy_for,
    rating_policy_save,
    rating_schedule_sync,
)

__all__ = [
    "ComputedList",
    "ListPlan",
    "NothingToPublish",
    "PublishOutcome",
    "RatingListRefused",
    "UnknownRatingType",
    "check_rating_type",
    "rating_list_compute",
    "rating_list_compute_preview",
    "rating_list_draft_publishable",
    "rating_list_due",
    "rating_list_next_date",
    "rating_list_publish",
    "rating_list_publish_preview",
    "rating_list_publish_scheduled",
    "rating_list_republication_reason",
    "rating_list_republish_from",
    "rating_list_request_check",
    "rating_list_write",
    "rating_policy_for",
    "rating_policy_save",
    "rating_schedule_sync",
]
