"""Searches by ID number accept ASCII digits only: '¹'.isdigit() is True in Python but int('¹') fails."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("url", ["/api/v1/players/", "/players/"])
def test_search_with_a_superscript_digit_is_a_name_search_not_a_server_error(client, url):
    assert client.get(url, {"q": "¹"}).status_code == 200
