"""The player admin: merge for rating officers only (action with an intermediate form, per-player page,
reversal), likely duplicates for players needing review, and a changelist with a fixed number of queries."""

import pytest
from django.urls import reverse

from players.models import Player, PlayerMerge
from players.selectors import likely_duplicates
from players.services import player_merge
from tests.events.test_admin_roles import client_for, make_arbiter, make_officer, make_staff
from tests.factories import make_event, make_participants, make_player

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:players_player_changelist")


@pytest.fixture
def duplicates():
    kept = make_player(surname="Novak", given_names="Petra", birth_year=1995, id_number=3100001)
    duplicate = make_player(surname="Novak", given_names="P.", birth_year=1995, id_number=9100001, needs_review=True)
    return kept, duplicate


def action_names(response) -> set[str]:
    form = response.context["action_form"]  # None when the user has no action at all
    return {name for name, _ in form.fields["action"].choices} if form else set()


def merge_post(kept, players, reason="same person", apply=True) -> dict:
    data = {"action": "merge_into", "_selected_action": [p.pk for p in players]}
    if apply:
        data.update({"apply": "1", "kept": str(kept.pk), "reason": reason})
    else:
        data["index"] = "0"
    return data


def test_the_merge_action_is_offered_to_rating_officers_only(duplicates):
    assert "merge_into" in action_names(client_for(make_officer()).get(CHANGELIST))
    arbiter_page = client_for(make_arbiter()).get(CHANGELIST)
    assert arbiter_page.status_code == 200
    assert "merge_into" not in action_names(arbiter_page)


def test_an_arbiter_posting_the_merge_action_merges_nothing(duplicates):
    kept, duplicate = duplicates
    client_for(make_arbiter()).post(CHANGELIST, merge_post(kept, [duplicate]))
    duplicate.refresh_from_db()
    assert duplicate.merged_into is None
    assert not PlayerMerge.objects.exists()


def test_the_merge_action_asks_for_the_kept_player_then_merges(duplicates):
    kept, duplicate = duplicates
    client = client_for(make_officer())
    form_page = client.post(CHANGELIST, merge_post(kept, [duplicate], apply=False))
    assert form_page.status_code == 200
    assert form_page.templates[0].name == "admin/players/player/merge_into.html"
    assert "Novak, P. (9100001)" in form_page.content.decode()

    response = client.post(CHANGELIST, merge_post(kept, [duplicate]), follow=True)
    assert response.status_code == 200
    duplicate.refresh_from_db()
    assert duplicate.merged_into == kept
    assert PlayerMerge.objects.get().reason == "same person"
    assert "Novak, P. (9100001) merged into Novak, Petra (3100001)." in [str(m) for m in response.context["messages"]]


def test_the_merge_form_shows_why_a_merge_is_refused_and_merges_nothing(duplicates):
    kept, duplicate = duplicates
    event = make_event(name="Prague Open")
    make_participants(event, [kept, duplicate])
    response = client_for(make_officer()).post(CHANGELIST, merge_post(kept, [duplicate]))
    assert response.status_code == 200
    errors = " ".join(response.context["form"].non_field_errors())
    assert "both took part in Prague Open" in errors
    duplicate.refresh_from_db()
    assert duplicate.merged_into is None


def test_the_merge_form_needs_a_known_player_and_a_reason(duplicates):
    kept, duplicate = duplicates
    data = merge_post(kept, [duplicate], reason=" ")
    data["kept"] = "424242"  # no such record
    response = client_for(make_officer()).post(CHANGELIST, data)
    assert response.context["form"].errors == {
        "kept": ["Pick the player to keep from the list (an active record)."],
        "reason": ["This field is required."],
    }


def test_several_selected_duplicates_merge_into_one_in_one_transaction(duplicates):
    kept, duplicate = duplicates
    third = make_player(surname="Novakova", given_names="Petra", birth_year=1995)
    clash_event = make_event(name="Brno Open")
    make_participants(clash_event, [kept, third])  # third cannot be merged
    response = client_for(make_officer()).post(CHANGELIST, merge_post(kept, [duplicate, third, kept]))
    assert response.status_code == 200  # refused: neither merge happens
    assert not Player.objects.filter(merged_into=kept).exists()


def test_the_player_merge_page_is_for_rating_officers(duplicates):
    kept, duplicate = duplicates
    url = reverse("admin:players_player_merge", args=[duplicate.pk])
    assert client_for(make_arbiter()).get(url).status_code == 403
    client = client_for(make_officer())
    page = client.get(f"{url}?kept={kept.id_number}")
    assert page.context["form"].initial["kept"] == kept.pk  # the link's ID number, picked in the autocomplete
    response = client.post(url, {"kept": str(kept.pk), "reason": "duplicate", "apply": "Merge"})
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:players_player_change", args=[kept.pk])
    duplicate.refresh_from_db()
    assert duplicate.merged_into == kept


def test_a_player_needing_review_shows_likely_duplicates_with_merge_links(duplicates):
    kept, duplicate = duplicates
    content = client_for(make_officer()).get(reverse("admin:players_player_change", args=[duplicate.pk])).content
    text = content.decode()
    assert "likely duplicates" in text.lower()
    assert "Novak, Petra (3100001)" in text
    assert f"{reverse('admin:players_player_merge', args=[duplicate.pk])}?kept={kept.id_number}" in text
    arbiter_text = (
        client_for(make_arbiter()).get(reverse("admin:players_player_change", args=[duplicate.pk])).content.decode()
    )
    assert "Novak, Petra (3100001)" in arbiter_text
    assert "merge this record into it" not in arbiter_text


def test_likely_duplicates_match_surname_start_with_birth_year_or_the_exact_name():
    player = make_player(surname="Fernandez", given_names="Luis", birth_year=1988)
    same_year = make_player(surname="Fernandes", given_names="L.", birth_year=1988)
    same_name = make_player(surname="Fernandez", given_names="Luis", birth_year=1970)
    make_player(surname="Fernandez", given_names="Juan", birth_year=1970)  # other name, other year
    make_player(surname="Ferrer", given_names="Luis", birth_year=1988)  # other surname
    make_player(surname="Fernandez", given_names="Luis", birth_year=1988, merged_into=same_year)  # merged
    assert likely_duplicates(player) == [same_year, same_name]


def test_merged_into_is_read_only_in_the_player_form(duplicates):
    _kept, duplicate = duplicates
    page = client_for(make_officer()).get(reverse("admin:players_player_change", args=[duplicate.pk]))
    assert "merged_into" not in page.context["adminform"].form.fields


def test_a_player_registered_by_an_arbiter_needs_review():
    client = client_for(make_arbiter())
    response = client.post(
        reverse("admin:players_player_add"),
        {
            "id_number": "77000001",
            "surname": "Newcomer",
            "given_names": "Nina",
            "sex": "F",
        },
    )
    assert response.status_code == 302
    assert Player.objects.get(id_number=77000001).needs_review


def test_merges_are_reversed_from_the_merge_records(duplicates):
    kept, duplicate = duplicates
    officer = make_officer()
    merge = player_merge(kept, duplicate, user=officer, reason="duplicate")
    client = client_for(officer)
    changelist = reverse("admin:players_playermerge_changelist")
    page = client.post(changelist, {"action": "reverse_merges", "_selected_action": [merge.pk], "index": "0"})
    assert page.templates[0].name == "admin/players/playermerge/reverse.html"
    client.post(
        changelist,
        {
            "action": "reverse_merges",
            "_selected_action": [merge.pk],
            "apply": "1",
            "reason": "different people",
        },
    )
    merge.refresh_from_db()
    assert merge.reverse_reason == "different people"
    duplicate.refresh_from_db()
    assert duplicate.merged_into is None


def test_merge_records_are_not_shown_to_arbiters_nor_editable(duplicates):
    kept, duplicate = duplicates
    merge = player_merge(kept, duplicate, user=make_officer(), reason="duplicate")
    assert client_for(make_arbiter()).get(reverse("admin:players_playermerge_changelist")).status_code == 403
    officer = client_for(make_officer("officer2"))
    assert officer.get(reverse("admin:players_playermerge_add")).status_code == 403
    assert (
        officer.post(reverse("admin:players_playermerge_delete", args=[merge.pk]), {"post": "yes"}).status_code == 403
    )
    assert PlayerMerge.objects.filter(pk=merge.pk).exists()


@pytest.mark.parametrize("who", ["officer", "arbiter"])
def test_player_changelist_queries_do_not_grow_with_rows(who, django_assert_max_num_queries):
    for n in range(100):
        make_player(surname=f"Many{n:03d}")
    user = make_officer() if who == "officer" else make_arbiter()
    client = client_for(user)
    # Session, user, permissions (user, groups), count, page, federation filter choices.
    with django_assert_max_num_queries(9):
        response = client.get(CHANGELIST)
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == 100


def test_staff_without_a_role_cannot_open_players(duplicates):
    assert client_for(make_staff("visitor")).get(CHANGELIST).status_code == 403
