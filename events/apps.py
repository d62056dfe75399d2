from django.apps import AppConfig
from django.db.models.signals import post_migrate


class EventsConfig(AppConfig):
    name = "events"
    verbose_name = "Events"

    def ready(self):
        from events.roles import roles_sync

        # Keeps the "Arbiters" and "Rating officers" groups in step with their permissions (events/roles.py).
        post_migrate.connect(roles_sync, dispatch_uid="events.roles.roles_sync")
