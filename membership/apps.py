from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MembershipConfig(AppConfig):
    name = "membership"
    verbose_name = _("Membership, fees and licences")

    def ready(self) -> None:
        from events.services import submission_screen_register
        from membership.services.checks import event_membership_screen

        # Issue 35: membership and the chief arbiter's licence are checked on submission through events'
        # registry (a lower layer never imports membership; membership registers itself).
        submission_screen_register(event_membership_screen)
