"""Admin sign-in is throttled (django-axes, policy in core/security.py) per username and per address, across
processes (failures are database rows), with a refusal that says why and until when."""

import base64
import datetime
import os
import subprocess
import sys

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import Group
from django.db.models import Sum

from core.roles import RATING_OFFICERS_GROUP
from core.security import check_production_security
from tests.conftest import ROOT, database_url_for

PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def fast_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.LOGIN_FAILURE_LIMIT = 5
    settings.LOGIN_FAILURE_IP_LIMIT = 20
    settings.LOGIN_FAILURE_WINDOW_SECONDS = 900


@pytest.fixture
def official(db):
    return get_user_model().objects.create_user("officer", "officer@example.org", PASSWORD, is_staff=True)


def sign_in(client, username, password, ip="203.0.113.7", **headers):
    return client.post(
        "/admin/login/?next=/admin/", {"username": username, "password": password}, REMOTE_ADDR=ip, **headers
    )


def signed_in(response) -> bool:
    return response.status_code == 302 and response["Location"] == "/admin/"


def refused(response) -> bool:
    return response.status_code == 429 and "Sign-in refused" in response.content.decode()


def failures(**filters) -> int:
    return AccessAttempt.objects.filter(**filters).aggregate(n=Sum("failures_since_start"))["n"] or 0


def age_failures(seconds: int) -> None:
    """What the passing of time does to the recorded failures."""
    for attempt in AccessAttempt.objects.all():
        AccessAttempt.objects.filter(pk=attempt.pk).update(
            attempt_time=attempt.attempt_time - datetime.timedelta(seconds=seconds)
        )


def test_five_wrong_passwords_lock_the_account_with_a_plain_refusal_on_the_sign_in_page(client, official):
    for _ in range(4):
        response = sign_in(client, "officer", "wrong")
        assert response.status_code == 200
        assert "Please enter the correct username and password" in response.content.decode()
    # The fifth failure locks, and the page says so at once.
    assert refused(sign_in(client, "officer", "wrong"))
    response = sign_in(client, "officer", PASSWORD)
    assert not signed_in(response)
    assert refused(response)
    text = response.content.decode()
    assert "Sign-in refused: too many failed attempts for this account or from your address" in text
    assert "Try again in 15 minutes" in text
    # Still the admin's sign-in page (with its form), not a bare error page or the generic message.
    assert 'name="username"' in text
    assert "Please enter the correct username" not in text
    # Refusals are not counted: the lock still ends one window after the five failures.
    assert failures() == 5


def test_after_the_window_the_right_password_works_again_and_clears_the_failures(client, official):
    for _ in range(5):
        sign_in(client, "officer", "wrong")
    assert refused(sign_in(client, "officer", PASSWORD))
    age_failures(14 * 60)
    response = sign_in(client, "officer", PASSWORD)
    assert "Try again in 1 minute " in response.content.decode()
    age_failures(61)
    assert signed_in(sign_in(client, "officer", PASSWORD))
    # A successful sign-in clears the account's failures.
    assert not AccessAttempt.objects.filter(username="officer").exists()


def test_a_success_resets_the_count_so_four_more_failures_do_not_lock(client, official):
    for _ in range(4):
        sign_in(client, "officer", "wrong")
    assert signed_in(sign_in(client, "officer", PASSWORD))
    client.logout()
    for _ in range(4):
        assert not refused(sign_in(client, "officer", "wrong"))
    assert signed_in(sign_in(client, "officer", PASSWORD))


def test_changing_the_case_of_the_username_does_not_buy_more_attempts(client, official):
    for variant in ("officer", "Officer", "OFFICER", "oFFicer", "officeR"):
        sign_in(client, variant, "wrong")
    assert refused(sign_in(client, "officer", PASSWORD))


def test_lock_holds_for_every_address_not_just_the_attackers(client, official):
    for i in range(5):
        sign_in(client, "officer", "wrong", ip=f"198.51.100.{i}")
    assert refused(sign_in(client, "officer", PASSWORD, ip="192.0.2.1"))


def test_many_failures_from_one_address_lock_that_address_for_every_account(client, official, settings):
    settings.LOGIN_FAILURE_IP_LIMIT = 6
    for i in range(5):
        assert not refused(sign_in(client, f"guess{i}", "wrong", ip="203.0.113.99"))
    assert refused(sign_in(client, "guess5", "wrong", ip="203.0.113.99"))
    assert refused(sign_in(client, "officer", PASSWORD, ip="203.0.113.99"))
    assert signed_in(sign_in(client, "officer", PASSWORD, ip="203.0.113.100"))


def test_behind_the_tls_proxy_the_right_most_forwarded_address_is_the_one_counted(client, official, settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.LOGIN_FAILURE_IP_LIMIT = 3
    for i in range(3):
        # The client forged the left entry; the proxy (10.0.0.1) appended the real address.
        sign_in(client, f"guess{i}", "x", ip="10.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.5")
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.5"}
    assert refused(sign_in(client, "officer", PASSWORD, ip="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.5"))
    # Another client behind the same proxy is not locked out.
    assert signed_in(sign_in(client, "officer", PASSWORD, ip="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.6"))


def test_without_the_tls_proxy_a_forged_forwarded_header_does_not_dodge_the_address_lock(client, official, settings):
    settings.LOGIN_FAILURE_IP_LIMIT = 3
    for i in range(3):
        sign_in(client, f"guess{i}", "x", ip="203.0.113.8", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}")
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.8"}
    assert refused(sign_in(client, "officer", PASSWORD, ip="203.0.113.8", HTTP_X_FORWARDED_FOR="192.0.2.9"))


def test_a_forwarded_value_that_is_not_an_address_counts_against_the_proxy_not_the_database(client, settings, db):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    response = sign_in(client, "guess", "x", ip="10.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, not-an-address")
    assert response.status_code == 200
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == ["10.0.0.1"]


@pytest.mark.django_db(transaction=True)
def test_failures_in_another_process_count_towards_the_same_lock(client):
    from django.db import connection

    get_user_model().objects.create_user("officer", "officer@example.org", PASSWORD, is_staff=True)
    script = (
        "import django; django.setup()\n"
        "from django.contrib.auth import authenticate\n"
        "from django.test import RequestFactory\n"
        "for _ in range(3):\n"
        "    request = RequestFactory().post('/admin/login/', REMOTE_ADDR='198.51.100.77')\n"
        "    assert authenticate(request, username='officer', password='wrong') is None\n"
    )
    env = {
        **os.environ,
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "DJANGO_SETTINGS_MODULE": "federation.settings",
        "LOGIN_FAILURE_LIMIT": "5",
        "LOGIN_FAILURE_WINDOW_SECONDS": "900",
    }
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert failures(username="officer") == 3
    # This process adds two: five in all, from two processes, lock the account.
    for _ in range(2):
        sign_in(client, "officer", "wrong")
    assert refused(sign_in(client, "officer", PASSWORD))


def test_the_lock_refuses_every_sign_in_path_not_only_the_admin_form(client, official, rf):
    for _ in range(5):
        assert authenticate(rf.post("/"), username="officer", password="wrong") is None
    request = rf.post("/")
    assert authenticate(request, username="officer", password=PASSWORD) is None
    assert request.axes_locked_out
    # The API's Basic authentication is refused too, even with the right password (never a server error).
    token = base64.b64encode(f"officer:{PASSWORD}".encode()).decode()
    response = client.get("/api/v1/players/", HTTP_AUTHORIZATION=f"Basic {token}")
    assert response.status_code == 403
    assert response.json() == {"detail": "Invalid username/password."}
    assert failures() == 5


@pytest.mark.parametrize("name", ["off\x00icer", "\x00", "officer\x00"])
def test_a_basic_authorization_user_name_with_nul_is_refused_not_a_server_error(client, official, name):
    token = base64.b64encode(f"{name}:{PASSWORD}".encode()).decode()
    response = client.get("/api/v1/players/", HTTP_AUTHORIZATION=f"Basic {token}")
    # PostgreSQL refuses NUL in text: the name must be refused or cleaned before any query.
    assert response.status_code == 403
    assert all("\x00" not in (name or "") for name in AccessAttempt.objects.values_list("username", flat=True))
    assert failures() == 1


def test_a_nul_in_a_header_is_refused_before_sign_in_records_it(client, official):
    response = sign_in(client, "officer", "wrong", HTTP_USER_AGENT="Mozilla\x00/5.0")
    assert response.status_code == 400
    assert "User-Agent header contains a NUL character" in response.content.decode()
    assert not AccessAttempt.objects.exists()


def test_officials_see_the_failures_and_a_superuser_lifts_a_lock_by_deleting_them(client, official, admin_user):
    for _ in range(5):
        sign_in(client, "officer", "wrong")
    rating_officer = get_user_model().objects.create_user("ro", password=PASSWORD, is_staff=True)
    rating_officer.groups.add(Group.objects.get_or_create(name=RATING_OFFICERS_GROUP)[0])
    plain_staff = get_user_model().objects.create_user("clerk", password=PASSWORD, is_staff=True)
    viewer = type(client)()
    viewer.force_login(rating_officer)
    page = viewer.get("/admin/axes/accessattempt/")
    assert page.status_code == 200
    assert "203.0.113.7" in page.content.decode()
    viewer.force_login(plain_staff)
    assert viewer.get("/admin/axes/accessattempt/").status_code == 403

    admin_client = type(client)()
    admin_client.force_login(admin_user)
    ids = list(AccessAttempt.objects.values_list("pk", flat=True))
    response = admin_client.post(
        "/admin/axes/accessattempt/",
        {"action": "delete_selected", "_selected_action": ids, "post": "yes"},
    )
    assert response.status_code == 302
    assert signed_in(sign_in(client, "officer", PASSWORD))


def test_check_deploy_warns_when_throttling_is_off(settings):
    assert not [e for e in check_production_security() if e.id == "federation.W001"]
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if m != "axes.middleware.AxesMiddleware"]
    assert any(e.id == "federation.W001" for e in check_production_security())
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "axes.middleware.AxesMiddleware"]
    settings.AXES_HANDLER = "axes.handlers.cache.AxesCacheHandler"
    warnings = [e for e in check_production_security() if e.id == "federation.W001"]
    assert warnings
    assert "AXES_HANDLER" in warnings[0].msg
