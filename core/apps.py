from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = _("Shared infrastructure")

    def ready(self) -> None:
        from django.contrib import admin

        # Registers the deploy checks.
        from core import security

        # The admin's sign-in form says plainly when, and until when, sign-in is refused (django-axes lock).
        admin.site.login_form = security.SignInForm
