"""Membership's admin: officials only; the CSV upload reports by line and writes nothing when refused; every
model's admin page opens; edits keep their history."""

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile

from membership.models import Membership, MembershipCategory
from tests.factories import make_federation, make_player

pytestmark = pytest.mark.django_db
IMPORT = "/admin/membership/membership/import/"


@pytest.fixture
def official(client):
    user = User.objects.create_superuser("officer", "o@example.org", "x")
    client.force_login(user)
    return user


@pytest.fixture
def eng():
    federation = make_federation("ENG", "England")
    MembershipCategory.objects.create(federation=federation, code="adult", name="Adult", price="18.00")
    make_player(id_number=101, federation=federation)
    return federation


def test_upload_refused_names_the_line_and_writes_nothing(client, official, eng):
    data = b"id_number,category,start\n101,adult,2025-10-01\n101,adult,2025-10-32\n"
    response = client.post(IMPORT, {"file": SimpleUploadedFile("m.csv", data), "federation": "ENG"})
    assert response.status_code == 200
    assert "line 3: start &#x27;2025-10-32&#x27; is not a date (YYYY-MM-DD)" in response.content.decode()
    assert Membership.objects.count() == 0


def test_upload_imports_and_history_is_shown(client, official, eng):
    data = b"id_number,category,start\n101,adult,2025-10-01\n"
    response = client.post(IMPORT, {"file": SimpleUploadedFile("m.csv", data), "federation": "ENG"})
    assert response.status_code == 302
    membership = Membership.objects.get()
    assert client.get("/admin/membership/membership/?q=101").status_code == 200
    change = f"/admin/membership/membership/{membership.pk}/change/"
    form = {"player": membership.player_id, "category": membership.category_id, "start": "2025-10-02",
            "end": "2026-08-31", "season": "2025", "source": "admin", "price": "18.00",
            "created_at_0": "2025-10-01", "created_at_1": "00:00:00"}  # fmt: skip
    response = client.post(change, form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert membership.history.count() == 1  # the edit (the bulk import is audited as one record)
    assert client.get(f"/admin/membership/membership/{membership.pk}/history/").status_code == 200


@pytest.mark.parametrize(
    "page", ["membershipsettings", "membershipcategory", "membership", "membershippolicy", "feeschedule", "licence"]
)
def test_pages_open_for_officials_only(client, official, page):
    assert client.get(f"/admin/membership/{page}/").status_code == 200
    assert client.get(f"/admin/membership/{page}/add/").status_code == 200
    staff = User.objects.create_user("arbiter", is_staff=True)
    client.force_login(staff)
    assert client.get(f"/admin/membership/{page}/").status_code == 403


def test_fide_schedule_is_there_from_the_start(client, official):
    response = client.get("/admin/membership/feeschedule/")
    assert "FIDE tournament rating fees" in response.content.decode()
