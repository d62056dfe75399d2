"""Personal API tokens in the admin (issue 15): each arbiter generates, sees and revokes only their own.

The tokens are Django REST framework's (``rest_framework.authtoken``: one per user, sent as
``Authorization: Token <key>``); the API uses them for ``POST /api/v1/events/check-trf/``. DRF's own admin
lists every user's token; this one replaces it so that a user other than a superuser reaches only theirs.
"""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.urls import reverse
from rest_framework.authtoken.admin import TokenAdmin
from rest_framework.authtoken.models import Token, TokenProxy

from core.admin import admin_user

if admin.site.is_registered(TokenProxy):
    admin.site.unregister(TokenProxy)


@admin.register(TokenProxy)
class PersonalTokenAdmin(TokenAdmin):
    list_display = ("user", "key", "created")
    list_filter = ()

    def get_queryset(self, request):
        tokens = super().get_queryset(request).select_related("user")
        return tokens if request.user.is_superuser else tokens.filter(user=request.user)

    def get_fields(self, request, obj=None):
        # Others always generate their own token: there is nothing to choose.
        return ("user",) if request.user.is_superuser else ()

    def has_change_permission(self, request, obj=None):
        return False  # a token is replaced by revoking it (delete) and generating a new one

    def add_view(self, request, form_url="", extra_context=None):
        # One token per user: a second is refused here (not in has_add_permission, which every admin page's
        # menu asks for every model: a query there would cost each page one).
        if not request.user.is_superuser and Token.objects.filter(user=request.user).exists():
            self.message_user(
                request, "You already have a token: revoke it (delete) to generate a new one.", messages.WARNING
            )
            return HttpResponseRedirect(reverse("admin:authtoken_tokenproxy_changelist"))
        return super().add_view(request, form_url, extra_context)

    def save_model(self, request, obj, form, change):
        if not request.user.is_superuser:
            obj.user = admin_user(request)
        if Token.objects.filter(user_id=obj.user_id).exists():
            raise PermissionDenied  # one token per user (a superuser choosing a user who has one)
        super().save_model(request, obj, form, change)
        self.message_user(
            request,
            f"Your API token is {obj.key}. Send it as the header 'Authorization: Token {obj.key}'.",
            messages.SUCCESS,
        )
