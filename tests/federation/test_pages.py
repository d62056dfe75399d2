import pytest

pytestmark = pytest.mark.django_db


def test_home_and_admin_login_are_served(client):
    assert client.get("/").status_code == 200
    response = client.get("/admin/", follow=True)
    assert response.status_code == 200
    assert b"username" in response.content.lower()
