"""Create (or reset the password of) the administrator account used by the run command."""

import os

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Ensure a superuser exists; the password comes from FEDERATION_ADMIN_PASSWORD."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin", help="account name (default: admin)")

    def handle(self, *args, username: str, **options):
        password = os.environ.get("FEDERATION_ADMIN_PASSWORD")
        if not password:
            raise CommandError("FEDERATION_ADMIN_PASSWORD is not set")
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(
            username=username, defaults={"is_staff": True, "is_superuser": True}
        )
        if created or not user.check_password(password):
            user.set_password(password)
            user.is_staff = user.is_superuser = True
            user.save()
        self.stdout.write(f"administrator '{username}' {'created' if created else 'ready'}")
