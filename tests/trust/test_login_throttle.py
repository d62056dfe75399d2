"""Admin sign-in is throttled per username and per address, across processes (failures are database rows)."""

import datetime

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.exceptions import PermissionDenied

from audit.models import FailedLogin

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


def sign_in(client, username, password, ip="203.0.113.7"):
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def signed_in(response) -> bool:
    return response.status_code == 302 and response["Location"] == "/admin/"


def age_failures(seconds: int) -> None:
    """What the passing of time does to the recorded failures."""
    for failure in FailedLogin.objects.all():
        failure.at -= datetime.timedelta(seconds=seconds)
        failure.save(update_fields=["at"])


def test_five_wrong_passwords_then_the_right_one_is_refused_with_a_clear_message(client, official):
    for _ in range(5):
        response = sign_in(client, "officer", "wrong")
        assert response.status_code == 200
        assert "Please enter the correct username and password" in response.content.decode()
    response = sign_in(client, "officer", PASSWORD)
    assert not signed_in(response)
    text = response.content.decode()
    assert "Sign-in refused: too many failed attempts for this account or from your address" in text
    assert "Try again in 15 minutes" in text
    # The refusal itself is not counted: the lock still ends one window after the five failures.
    assert FailedLogin.objects.count() == 5


def test_after_the_window_the_right_password_works_again(client, official):
    for _ in range(5):
        sign_in(client, "officer", "wrong")
    assert not signed_in(sign_in(client, "officer", PASSWORD))
    age_failures(14 * 60)
    response = sign_in(client, "officer", PASSWORD)
    assert "Try again in 1 minute" in response.content.decode()
    age_failures(61)
    assert signed_in(sign_in(client, "officer", PASSWORD))
    # A successful sign-in clears the account's failures.
    assert not FailedLogin.objects.filter(username="officer").exists()


def test_four_failures_do_not_lock_the_account(client, official):
    for _ in range(4):
        sign_in(client, "officer", "wrong")
    assert signed_in(sign_in(client, "officer", PASSWORD))


def test_changing_the_case_of_the_username_does_not_buy_more_attempts(client, official):
    for variant in ("officer", "Officer", "OFFICER", "oFFicer", "officeR"):
        sign_in(client, variant, "wrong")
    assert not signed_in(sign_in(client, "officer", PASSWORD))


def test_lock_holds_for_every_address_not_just_the_attackers(client, official):
    for i in range(5):
        sign_in(client, "officer", "wrong", ip=f"198.51.100.{i}")
    assert not signed_in(sign_in(client, "officer", PASSWORD, ip="192.0.2.1"))


def test_many_failures_from_one_address_lock_that_address_for_every_account(client, official, settings):
    settings.LOGIN_FAILURE_IP_LIMIT = 6
    for i in range(6):
        sign_in(client, f"guess{i}", "wrong", ip="203.0.113.99")
    response = sign_in(client, "officer", PASSWORD, ip="203.0.113.99")
    assert not signed_in(response)
    assert "Sign-in refused" in response.content.decode()
    assert signed_in(sign_in(client, "officer", PASSWORD, ip="203.0.113.100"))


def test_behind_the_tls_proxy_the_forwarded_client_address_is_the_one_counted(client, official, settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.LOGIN_FAILURE_IP_LIMIT = 3
    for i in range(3):
        client.post(
            "/admin/login/",
            {"username": f"guess{i}", "password": "x"},
            REMOTE_ADDR="10.0.0.1",
            HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.5",
        )
    assert set(FailedLogin.objects.values_list("ip", flat=True)) == {"203.0.113.5"}
    # Another client behind the same proxy is not locked out.
    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": "officer", "password": PASSWORD},
        REMOTE_ADDR="10.0.0.1",
        HTTP_X_FORWARDED_FOR="203.0.113.6",
    )
    assert signed_in(response)


def test_throttle_refuses_every_sign_in_path_not_only_the_admin_form(official, rf):
    for _ in range(5):
        assert authenticate(rf.post("/"), username="officer", password="wrong") is None
    request = rf.post("/")
    assert authenticate(request, username="officer", password=PASSWORD) is None
    assert "Sign-in refused" in request.login_throttled
    backend = __import__("core.security", fromlist=["ThrottledModelBackend"]).ThrottledModelBackend()
    with pytest.raises(PermissionDenied):
        backend.authenticate(rf.post("/"), username="officer", password=PASSWORD)


def test_superuser_can_lift_a_lock_by_deleting_the_failures(client, official, admin_user):
    for _ in range(5):
        sign_in(client, "officer", "wrong")
    admin_client = type(client)()
    admin_client.force_login(admin_user)
    ids = list(FailedLogin.objects.values_list("pk", flat=True))
    response = admin_client.post(
        "/admin/audit/failedlogin/",
        {
            "action": "delete_selected",
            "_selected_action": ids,
            "post": "yes",
        },
    )
    assert response.status_code == 302
    assert signed_in(sign_in(client, "officer", PASSWORD))
