"""Deployment security: admin sign-in throttling, a hard request-size ceiling and deploy checks.

Sign-in throttling works across any number of web processes because failures are rows in the database
(``audit.FailedLogin``), not entries in a per-process cache:

* ``user_login_failed`` records (username, client address, time) for every failed sign-in;
* ``ThrottledModelBackend`` (AUTHENTICATION_BACKENDS) refuses to even check a password once
  ``LOGIN_FAILURE_LIMIT`` failures for that username, or ``LOGIN_FAILURE_IP_LIMIT`` from that address,
  fall inside the last ``LOGIN_FAILURE_WINDOW_SECONDS``; refusals are not counted again, so the lock ends
  one window after the failures that caused it;
* ``ThrottledAdminLoginForm`` (installed on the admin site by ``audit.apps``) says so in plain words
  instead of the generic "enter a correct username and password".
"""

from __future__ import annotations

import datetime
import logging

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core import checks
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Q
from django.dispatch import receiver
from django.http import HttpResponse
from django.utils import timezone
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

logger = logging.getLogger("core.security")

DEVELOPMENT_SECRET_KEY_PREFIX = "development-only-key"


# ------------------------------------------------------------------------------------------ throttling


def client_ip(request) -> str:
    """The client's address. Behind the TLS proxy (BEHIND_TLS_PROXY) REMOTE_ADDR is the proxy itself, so
    the address the proxy appended to X-Forwarded-For (the right-most one: a client can forge only those
    before it) is used instead."""
    if request is None:
        return ""
    if getattr(settings, "SECURE_PROXY_SSL_HEADER", None):
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded.strip():
            return forwarded.split(",")[-1].strip()[:45]
    return (request.META.get("REMOTE_ADDR") or "")[:45]


def _normalise(username) -> str:
    # Case variants of one username count together, so "Admin" and "admin" share one budget.
    return str(username or "").strip().lower()[:150]


def login_refusal(username, ip: str) -> str | None:
    """The message refusing a sign-in for ``username`` from ``ip``, or None when it may proceed."""
    from audit.models import FailedLogin

    window = datetime.timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_SECONDS)
    now = timezone.now()
    name = _normalise(username)
    recent = FailedLogin.objects.filter(at__gte=now - window)
    counts = recent.aggregate(
        by_user=Count("pk", filter=Q(username=name)) if name else Count("pk", filter=Q(pk__in=[])),
        by_ip=Count("pk", filter=Q(ip=ip)) if ip else Count("pk", filter=Q(pk__in=[])),
    )
    locks = []
    if name and counts["by_user"] >= settings.LOGIN_FAILURE_LIMIT:
        locks.append(
            recent.filter(username=name).order_by("-at").values_list("at", flat=True)[settings.LOGIN_FAILURE_LIMIT - 1]
            + window
        )
    if ip and counts["by_ip"] >= settings.LOGIN_FAILURE_IP_LIMIT:
        locks.append(
            recent.filter(ip=ip).order_by("-at").values_list("at", flat=True)[settings.LOGIN_FAILURE_IP_LIMIT - 1]
            + window
        )
    if not locks:
        return None
    minutes = max(1, -(-int((max(locks) - now).total_seconds()) // 60))
    return (
        f"Sign-in refused: too many failed attempts for this account or from your address. "
        f"Try again in {minutes} minute{'s' if minutes != 1 else ''}, "
        f"or ask an administrator to check the account."
    )


def record_failed_login(username, ip: str) -> None:
    from audit.models import FailedLogin

    now = timezone.now()
    FailedLogin.objects.create(username=_normalise(username), ip=ip, at=now)
    # Keep the table small: nothing older than a day can matter to any window worth configuring.
    window = datetime.timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_SECONDS)
    horizon = max(datetime.timedelta(days=1), window)
    FailedLogin.objects.filter(at__lt=now - horizon).delete()


class ThrottledModelBackend(ModelBackend):
    """Django's ModelBackend, refusing throttled usernames and addresses before any password is checked."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        from django.contrib.auth import get_user_model

        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is not None:
            ip = client_ip(request)
            refusal = login_refusal(username, ip)
            if refusal:
                logger.warning("sign-in refused (throttled): username=%r ip=%s", _normalise(username), ip)
                if request is not None:
                    request.login_throttled = refusal
                # PermissionDenied stops Django trying any other backend.
                raise PermissionDenied(refusal)
        return super().authenticate(request, username=username, password=password, **kwargs)


@receiver(user_login_failed, dispatch_uid="core.security.failed_login")
def _on_login_failed(sender, credentials, request=None, **kwargs):
    if request is not None and getattr(request, "login_throttled", None):
        return  # refused while throttled: not a new failure, so the lock still ends one window later
    username = credentials.get("username", "")
    ip = client_ip(request)
    logger.info("sign-in failed: username=%r ip=%s", _normalise(username), ip)
    record_failed_login(username, ip)


@receiver(user_logged_in, dispatch_uid="core.security.logged_in")
def _on_logged_in(sender, request, user, **kwargs):
    from audit.models import FailedLogin

    FailedLogin.objects.filter(username=_normalise(user.get_username())).delete()


class ThrottledAdminLoginForm(AdminAuthenticationForm):
    """The admin sign-in form, saying plainly why a throttled sign-in is refused."""

    error_messages = {
        **AdminAuthenticationForm.error_messages,
        "throttled": "%(message)s",
    }

    def clean(self):
        username = self.cleaned_data.get("username")
        if username:
            refusal = login_refusal(username, client_ip(self.request))
            if refusal:
                raise ValidationError(self.error_messages["throttled"], code="throttled", params={"message": refusal})
        return super().clean()


# --------------------------------------------------------------------------------------------- requests


class RequestScreeningMiddleware:
    """Refuse, before any view runs, what no view should have to handle:

    * a declared body above REQUEST_MAX_BYTES (413) — DATA_UPLOAD_MAX_MEMORY_SIZE covers form fields but not
      file parts, which Django streams to disk, so without this an upload endpoint accepts any size;
    * a malformed Content-Length (400);
    * a NUL character in the path or the query string (400): it is never valid in this site's URLs, and
      PostgreSQL refuses it in text, which would turn a search into a server error.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        refusal = self.refusal(request)
        if refusal is not None:
            status, message = refusal
            logger.warning("request refused (%s): %s %s: %s", status, request.method, request.path[:200], message)
            return HttpResponse(message + "\n", status=status, content_type="text/plain; charset=utf-8")
        return self.get_response(request)

    @staticmethod
    def refusal(request) -> tuple[int, str] | None:
        raw = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(raw)
        except ValueError:
            return 400, f"Malformed Content-Length header: {raw[:40]!r}."
        if length < 0:
            return 400, f"Malformed Content-Length header: {raw[:40]!r}."
        limit = settings.REQUEST_MAX_BYTES
        if length > limit:
            return 413, f"Request too large: {length} bytes; the limit is {limit} bytes."
        if "\x00" in request.path:
            return 400, "The URL contains a NUL character, which is never valid."
        for key, values in request.GET.lists():
            if "\x00" in key or any("\x00" in value for value in values):
                return 400, f"The query parameter {key.replace(chr(0), '')[:40]!r} contains a NUL character."
        return None


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, answering 400 (not 500) to JSON nested deeper than Python's recursion limit
    (``[[[[…]]]]``); DRF itself turns only ValueError into a parse error."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type=media_type, parser_context=parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None


# ------------------------------------------------------------------------------------------ deploy checks


@checks.register(checks.Tags.security, deploy=True)
def check_production_security(app_configs=None, **kwargs):
    errors = []
    if not settings.DEBUG and settings.SECRET_KEY.startswith(DEVELOPMENT_SECRET_KEY_PREFIX):
        errors.append(
            checks.Error(
                "SECRET_KEY is the development key.",
                hint="Set SECRET_KEY (or SECRET_KEY_FILE) to a long random value.",
                id="federation.E001",
            )
        )
    if "core.security.ThrottledModelBackend" not in settings.AUTHENTICATION_BACKENDS:
        errors.append(
            checks.Warning(
                "Admin sign-in is not throttled.",
                hint="Keep core.security.ThrottledModelBackend in AUTHENTICATION_BACKENDS.",
                id="federation.W001",
            )
        )
    if "core.security.RequestScreeningMiddleware" not in settings.MIDDLEWARE:
        errors.append(
            checks.Warning(
                "Request bodies are not size-limited.",
                hint="Keep core.security.RequestScreeningMiddleware in MIDDLEWARE.",
                id="federation.W002",
            )
        )
    return errors
