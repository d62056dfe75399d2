from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "audit"
    verbose_name = "Audit trail"

    def ready(self):
        from django.contrib import admin

        # Connects the sign-in failure receivers and registers the deploy checks.
        from core import security

        # The admin's sign-in form says plainly when sign-in is throttled.
        admin.site.login_form = security.ThrottledAdminLoginForm
