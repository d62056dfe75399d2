from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Shared infrastructure"

    def ready(self) -> None:
        # Registers the deploy checks.
        from core import security  # noqa: F401
