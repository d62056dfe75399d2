"""Deployment security: admin sign-in throttling (django-axes), a hard request-size ceiling and deploy checks.

Sign-in throttling is django-axes with its database handler, so failures are rows shared by every web process
(``axes.AccessAttempt``). The project's policy, on top of axes (settings ``AXES_*`` in federation/settings.py):

* a username (any letter case) is locked after ``LOGIN_FAILURE_LIMIT`` failures, an address after
  ``LOGIN_FAILURE_IP_LIMIT`` (axes has one limit: ``SignInThrottleHandler.get_failures`` applies both);
* a lock ends ``LOGIN_FAILURE_WINDOW_SECONDS`` after the failures that caused it: refusals while locked are
  not counted again;
* a successful sign-in clears that username's failures (not the address's: one valid account must not buy
  an address more guesses at the others);
* the client address is the one the TLS proxy appended to X-Forwarded-For (``client_ip``);
* the admin sign-in page says plainly why and until when sign-in is refused (``SignInForm``,
  ``sign_in_refused_response``).
"""

from __future__ import annotations

import datetime
import ipaddress
import logging

from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.backends import ModelBackend
from django.core import checks
from django.core.exceptions import ValidationError
from django.db.models import QuerySet, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.module_loading import import_string
from django.utils.translation import gettext
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer

logger = logging.getLogger("core.security")

DEVELOPMENT_SECRET_KEY_PREFIX = "development-only-key"
USERNAME_MAX_LENGTH = 150  # auth.User.username; axes' column holds 255


# ------------------------------------------------------------------------------------------ throttling


def _valid_ip(value: str | None) -> str | None:
    try:
        return str(ipaddress.ip_address((value or "").strip()))
    except ValueError:
        return None


def client_ip(request: HttpRequest | None) -> str | None:
    """The client's address (AXES_CLIENT_IP_CALLABLE), or None when the request carries no valid one.

    Behind the TLS proxy (BEHIND_TLS_PROXY, which sets SECURE_PROXY_SSL_HEADER) REMOTE_ADDR is the proxy
    itself, so the address the proxy appended to X-Forwarded-For is used: the right-most one, as a client can
    forge only those before it. Anything that is not an IP address is never stored (PostgreSQL's inet column
    would refuse it with a server error)."""
    if request is None:
        return None
    if getattr(settings, "SECURE_PROXY_SSL_HEADER", None):
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded.strip():
            address = _valid_ip(forwarded.split(",")[-1])
            if address:
                return address
    return _valid_ip(request.META.get("REMOTE_ADDR"))


def normalise_username(username: object) -> str | None:
    """The username as throttling counts it: case variants share one budget; NUL characters (which
    PostgreSQL refuses in text) are dropped; None when nothing is left."""
    name = str(username or "").replace("\x00", "").strip().lower()[:USERNAME_MAX_LENGTH]
    return name or None


def sign_in_username(request: HttpRequest, credentials: dict | None = None) -> str | None:
    """AXES_USERNAME_CALLABLE: the typed username (from the credentials, else the posted form), normalised."""
    field = _username_field()
    if credentials:
        return normalise_username(credentials.get(field))
    data = getattr(request, "data", None) or request.POST
    return normalise_username(data.get(field))


def _username_field() -> str:
    from django.contrib.auth import get_user_model

    return get_user_model().USERNAME_FIELD


def username_failure_limit(request: HttpRequest | None = None, credentials: dict | None = None) -> int:
    """AXES_FAILURE_LIMIT: axes compares one number; the address limit is folded into get_failures."""
    return int(settings.LOGIN_FAILURE_LIMIT)


def sign_in_window(request: HttpRequest | None = None) -> datetime.timedelta:
    """AXES_COOLOFF_TIME: how long failures count, and so how long a lock lasts."""
    return datetime.timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_SECONDS)


class SignInThrottleHandler(AxesDatabaseHandler):
    """axes' database handler with a limit per lockout parameter (AXES_LOCKOUT_PARAMETERS is
    ``["username", "ip_address"]``: LOGIN_FAILURE_LIMIT and LOGIN_FAILURE_IP_LIMIT)."""

    def _counted(self, request, credentials: dict | None) -> tuple[list[QuerySet[AccessAttempt]], list[int]]:
        by_username, by_address = self.get_user_attempts(request, credentials)
        if get_client_username(request, credentials) is None:
            by_username = by_username.none()  # no username typed: only the address counts
        if request.axes_ip_address is None:
            by_address = by_address.none()
        return [by_username, by_address], [settings.LOGIN_FAILURE_LIMIT, settings.LOGIN_FAILURE_IP_LIMIT]

    def get_failures(self, request, credentials: dict | None = None) -> int:
        """Failures on the username's scale (axes compares this with LOGIN_FAILURE_LIMIT): the username's own
        count, raised to the limit once the address has reached LOGIN_FAILURE_IP_LIMIT."""
        (by_username, by_address), (_, address_limit) = self._counted(request, credentials)
        username_failures = by_username.aggregate(n=Sum("failures_since_start"))["n"] or 0
        address_failures = by_address.aggregate(n=Sum("failures_since_start"))["n"] or 0
        if address_failures >= address_limit:
            return max(username_failures, settings.LOGIN_FAILURE_LIMIT)
        return username_failures

    def lock_ends_at(self, request, credentials: dict | None = None) -> datetime.datetime | None:
        """When the current lock ends, or None when there is none: for each locked parameter, the row whose
        failures brought the count to its limit (newest first) stops counting one window after its time."""
        window = sign_in_window(request)
        ends = []
        for attempts, limit in zip(*self._counted(request, credentials), strict=True):
            total = 0
            for failures, at in attempts.order_by("-attempt_time").values_list("failures_since_start", "attempt_time"):
                total += failures
                if total >= limit:
                    ends.append(at + window)
                    break
        return max(ends) if ends else None

    def reset_user_attempts(self, request, credentials: dict | None = None) -> int:
        """On success, clear the username's failures only (see the module docstring)."""
        username = get_client_username(request, credentials)
        if username is None:
            return 0
        count, _ = AccessAttempt.objects.filter(username=username).delete()
        return count


def throttle() -> SignInThrottleHandler:
    from axes.handlers.proxy import AxesProxyHandler

    handler = AxesProxyHandler.get_implementation()
    if not isinstance(handler, SignInThrottleHandler):
        raise TypeError(f"AXES_HANDLER must be core.security.SignInThrottleHandler, not {settings.AXES_HANDLER}")
    return handler


def refusal_message(request, credentials: dict | None = None) -> str:
    """The plain-words refusal shown while sign-in is locked for this request's username or address."""
    ends = throttle().lock_ends_at(request, credentials) or (timezone.now() + sign_in_window(request))
    minutes = max(1, -(-int((ends - timezone.now()).total_seconds()) // 60))
    return (
        f"Sign-in refused: too many failed attempts for this account or from your address. "
        f"Try again in {minutes} minute{'s' if minutes != 1 else ''} "
        f"(after {timezone.localtime(ends):%H:%M} {timezone.get_current_timezone_name()}), "
        f"or ask an administrator to check the account."
    )


class SignInModelBackend(ModelBackend):
    """Django's ModelBackend (after axes' AxesStandaloneBackend), refusing a username that contains NUL
    before it reaches the database: PostgreSQL refuses NUL in text, which would turn e.g. an HTTP Basic
    Authorization header into a server error."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is not None and "\x00" in str(username):
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class SignInForm(AdminAuthenticationForm):
    """The admin sign-in form, saying plainly why a locked sign-in is refused and until when."""

    error_messages = {**AdminAuthenticationForm.error_messages, "throttled": "%(message)s"}

    def clean(self):
        try:
            return super().clean()
        except ValidationError:
            if self.request is not None and getattr(self.request, "axes_locked_out", False):
                credentials = {_username_field(): self.cleaned_data.get("username")}
                message = refusal_message(self.request, credentials)
                self.request.sign_in_refusal_shown = True
                raise ValidationError(
                    self.error_messages["throttled"], code="throttled", params={"message": message}
                ) from None
            raise


def sign_in_refused_response(request, original_response=None, credentials: dict | None = None) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE. The admin sign-in page already shows the refusal in its form (SignInForm): keep
    that page, with 429 Too Many Requests. Anything else (e.g. the API's Basic authentication) gets the same
    sentence as plain text."""
    if original_response is not None and getattr(request, "sign_in_refusal_shown", False):
        original_response.status_code = 429
        return original_response
    return HttpResponse(
        refusal_message(request, credentials) + "\n", status=429, content_type="text/plain; charset=utf-8"
    )


# --------------------------------------------------------------------------------------------- requests


class RequestScreeningMiddleware:
    """Refuse, before any view runs, what no view should have to handle:

    * a declared body above REQUEST_MAX_BYTES (413) — DATA_UPLOAD_MAX_MEMORY_SIZE covers form fields but not
      file parts, which Django streams to disk, so without this an upload endpoint accepts any size;
    * a malformed Content-Length (400);
    * a chunked body (``Transfer-Encoding: chunked``, no Content-Length) (411): Django reads a body only up to
      its declared length, so a chunked body would be read as empty and the view would answer as if nothing
      had been sent;
    * a NUL character in the path, the query string or a header (400): it is never valid there, and
      PostgreSQL refuses it in text, which would turn a search (or the User-Agent that sign-in throttling
      records) into a server error.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        refusal = self.refusal(request)
        if refusal is not None:
            status, message = refusal
            logger.warning("request refused (%s): %s %s: %s", status, request.method, request.path[:200], message)
            if "/api/" in request.path:  # the API answers JSON, as its schema documents ({"detail": ...})
                return JsonResponse({"detail": message}, status=status)
            return HttpResponse(message + "\n", status=status, content_type="text/plain; charset=utf-8")
        return self.get_response(request)

    @staticmethod
    def refusal(request) -> tuple[int, str] | None:
        declared = request.META.get("CONTENT_LENGTH")
        if not declared and request.META.get("HTTP_TRANSFER_ENCODING", "").strip():
            return (
                411,
                gettext(
                    "Length Required: send the request body with a Content-Length header (chunked bodies are not read)."
                ),
            )
        raw = declared or "0"
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
        for key, value in request.META.items():
            if key.startswith("HTTP_") and isinstance(value, str) and "\x00" in value:
                header = key[5:].replace("_", "-").title()
                return 400, f"The {header} header contains a NUL character, which is never valid."
        return None


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, answering 400 (not 500) to JSON nested deeper than Python's recursion limit
    (``[[[[…]]]]``), DRF itself turning only ValueError into a parse error, and to a lone UTF-16 surrogate
    (``"\\ud800"``): JSON's escapes allow it, but it is no character, UTF-8 cannot encode it, and every
    refusal that echoes the value (a field's "not a valid choice") would fail to render."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type=media_type, parser_context=parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
        place = lone_surrogate_at(data)
        if place is not None:
            raise ParseError(
                gettext(
                    "JSON parse error - %(place)s contains a lone UTF-16 surrogate (an escape such as \\ud800 "
                    "without its pair), which is not a character"
                )
                % {"place": place or gettext("the body")}
            )
        return data


def lone_surrogate_at(data: object) -> str | None:
    """Where a JSON value holds a string with a lone surrogate (``games[0].score``; "" for the value itself),
    or None. Iterative: the parser has already bounded the depth, this must not recurse either."""
    stack: list[tuple[object, str]] = [(data, "")]
    while stack:
        value, place = stack.pop()
        if isinstance(value, str):
            if _has_surrogate(value):
                return place
        elif isinstance(value, dict):
            for key in value:
                if _has_surrogate(str(key)):
                    return f"{place}.<key>" if place else "<key>"
            # reversed: the stack pops them in the document's order, so the first one is named
            stack.extend((item, f"{place}.{key}" if place else str(key)) for key, item in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((value[index], f"{place}[{index}]") for index in range(len(value) - 1, -1, -1))
    return None


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class SafeJSONRenderer(JSONRenderer):
    """DRF's JSON renderer, never failing on a string UTF-8 cannot encode (a lone surrogate reaching a
    response some other way than a JSON body): such a response is written with ASCII escapes instead."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            ascii_only = JSONRenderer()
            ascii_only.ensure_ascii = True
            return ascii_only.render(data, accepted_media_type, renderer_context)


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
    problem = sign_in_throttling_problem()
    if problem:
        errors.append(
            checks.Warning(
                f"Admin sign-in is not throttled: {problem}.",
                hint="Keep the AXES_* settings, AUTHENTICATION_BACKENDS and AxesMiddleware of federation/settings.py.",
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


def sign_in_throttling_problem() -> str | None:
    """What keeps django-axes from throttling sign-in across every web process, or None when it does."""
    if "axes" not in settings.INSTALLED_APPS:
        return "'axes' is not in INSTALLED_APPS"
    if not getattr(settings, "AXES_ENABLED", False):
        return "AXES_ENABLED is off"
    backends = [import_string(name) for name in settings.AUTHENTICATION_BACKENDS]
    if not backends or not issubclass(backends[0], AxesStandaloneBackend):
        return "axes.backends.AxesStandaloneBackend is not the first of AUTHENTICATION_BACKENDS"
    if "axes.middleware.AxesMiddleware" not in settings.MIDDLEWARE:
        return "axes.middleware.AxesMiddleware is not in MIDDLEWARE"
    handler = import_string(getattr(settings, "AXES_HANDLER", ""))
    if not (isinstance(handler, type) and issubclass(handler, SignInThrottleHandler)):
        return "AXES_HANDLER is not core.security.SignInThrottleHandler (failures shared in the database)"
    return None
