from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from events.services import submission_screen_register
        from players.services import PlayerRows, player_rows_register
        from ratings.models import PlayerRating, RatingChange, RatingListEntry, ShadowRatingEntry
        from ratings.services.integrity import event_integrity_screen

        # A merge moves rating changes (unique per list, player and event: they cannot clash once shared
        # events are refused) and list entries; where both players have a line on the same list, the kept
        # player's line counts and the merged player's stays on the merged record (published lists are
        # immutable and cannot show one player twice). Current ratings are a view over the entries.
        player_rows_register(PlayerRows("rating_changes", RatingChange))
        player_rows_register(
            PlayerRows("list_entries", RatingListEntry, shared="rating_list", identity="rating_list_id")
        )
        player_rows_register(PlayerRows("player_ratings", PlayerRating, moves=False))
        # Shadow lists (ratings.services.publication.shadow) follow the entries' rule.
        player_rows_register(PlayerRows("shadow_entries", ShadowRatingEntry, shared="shadow_list"))
        # Title candidates of a list (issue 33) follow the entries' rule.
        from ratings.models import TitleCandidate

        player_rows_register(PlayerRows("title_candidates", TitleCandidate, shared="rating_list"))
        # The merge page shows each record's current ratings side by side (players.services.player_facts).
        from players.services import player_facts_register
        from ratings.selectors import players_current_ratings

        player_facts_register(players_current_ratings)

        # The round entry screen (events) shows the rating change the next list would give each player.
        # and a new participant's row on the event page is filled in with the rating in force at its start.
        from events.selectors import participant_rating_lookup_register
        from events.selectors_rounds import round_projection_register
        from ratings.services.projection import event_rating_projection, ratings_in_force

        round_projection_register(event_rating_projection)
        # An event's title norms are kept when its results are complete and again after each correction.
        from events.services import results_complete_register
        from ratings.services.norms import event_norms_store

        results_complete_register(event_norms_store)
        participant_rating_lookup_register(ratings_in_force)

        # PostgreSQL: a list created by the ORM gets its partition of the entries table at once; publications
        # and imports create theirs in bulk (ratings.services.entry_storage).
        from django.db.models.signals import post_save

        from ratings.models import RatingList
        from ratings.services.entry_storage import on_list_created

        post_save.connect(on_list_created, sender=RatingList, dispatch_uid="ratings.entry_partition")
        # current ratings' partition bound (ratings.models.current_lists_bound): tight again after a list is saved
        from ratings.models import current_lists_bound_forget

        post_save.connect(current_lists_bound_forget, sender=RatingList, dispatch_uid="ratings.current_bound")

        # Integrity screening of submitted events (issue 15): it needs the rating rules, so ratings registers it.
        submission_screen_register(event_integrity_screen)
