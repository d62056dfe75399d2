from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class EventsConfig(AppConfig):
    name = "events"
    verbose_name = _("Events")

    def ready(self) -> None:
        from events.models import Participant
        from events.roles import roles_sync
        from players.services import PlayerRows, player_rows_register

        # Keeps the "Arbiters" and "Rating officers" groups in step with their permissions (events/roles.py).
        post_migrate.connect(roles_sync, dispatch_uid="events.roles.roles_sync")
        # A merge moves participations (and so every game, since games point at participants); one person
        # cannot be two participants of one event, so a shared event refuses the merge.
        player_rows_register(
            PlayerRows("participants", Participant, shared="event", refuse_shared=_shared_events_refusal)
        )
        # The merge page shows each record's events and games side by side (players.services.player_facts).
        from events.selectors import players_events_and_games
        from players.services import player_facts_register

        player_facts_register(players_events_and_games)


def _shared_events_refusal(kept, merged, clashing) -> str:
    shared = clashing.select_related("event").order_by("event__start_date")
    events = "; ".join(f"{p.event.name} ({p.event.start_date:%Y-%m-%d}, event #{p.event_id})" for p in shared)
    return (
        f"{merged} and {kept} both took part in {events}. One person cannot be two participants of an "
        "event: correct the event first (remove or replace one of them), then merge."
    )
