"""Merging duplicates from the admin: the record to keep is picked with the player autocomplete (not a typed ID),
both records are shown side by side, a dry run says what would move, and only the confirmation merges."""

import pytest
from django.contrib.admin.widgets import AutocompleteSelect
from django.urls import reverse

from players.models import PlayerMerge
from players.services import player_merge_plan
from tests.events.test_admin_roles import client_for, make_officer
from tests.factories import make_event, make_federation, make_participants, make_player

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:players_player_changelist")


@pytest.fixture
def pair():
    kept = make_player(
        surname="Novak",
        given_names="Petra",
        birth_year=1995,
        id_number=3100001,
        federation=make_federation("CZE", "Czechia"),
    )
    duplicate = make_player(surname="Novak", given_names="P.", birth_year=1996, id_number=9100001, needs_review=True)
    make_participants(make_event(name="Prague Open"), [duplicate, make_player(surname="Other")])
    return kept, duplicate


def preview(client, kept, duplicate, **extra):
    data = {"action": "merge_into", "_selected_action": [duplicate.pk], "kept": kept.pk, "reason": "same person"}
    return client.post(CHANGELIST, {**data, **extra})


def test_the_record_to_keep_is_picked_with_the_player_autocomplete(pair):
    kept, duplicate = pair
    client = client_for(make_officer())
    page = client.post(CHANGELIST, {"action": "merge_into", "_selected_action": [duplicate.pk], "index": "0"})
    assert isinstance(page.context["form"].fields["kept"].widget, AutocompleteSelect)
    assert 'class="admin-autocomplete' in page.content.decode()
    found = client.get(
        reverse("admin:autocomplete"),
        {"term": "NOVAK, PE", "app_label": "players", "model_name": "player", "field_name": "merged_into"},
    )
    assert [row["id"] for row in found.json()["results"]] == [str(kept.pk)]


def test_the_preview_shows_both_records_and_what_would_move_and_merges_nothing(pair, django_assert_max_num_queries):
    kept, duplicate = pair
    client = client_for(make_officer())
    client.get(CHANGELIST)  # the session and permissions are read once
    with django_assert_max_num_queries(40):  # a fixed number: one page, two records
        page = preview(client, kept, duplicate, preview="Preview the merge")
    html = page.content.decode()
    assert page.status_code == 200
    compare = {label: values for label, values, _differs in page.context["compare"]}
    assert compare["ID number"] == [3100001, 9100001]
    assert compare["Born"] == [1995, 1996]
    assert compare["Events"] == [0, 1]
    assert 'class="merge-differs"' in html
    assert "would move 1 event participations (with their games)" in " ".join(html.split())
    assert 'name="apply"' in html  # the confirmation
    duplicate.refresh_from_db()
    assert duplicate.merged_into is None
    assert not PlayerMerge.objects.exists()


def test_confirming_the_preview_merges_and_is_audited(pair):
    kept, duplicate = pair
    client = client_for(make_officer())
    response = preview(client, kept, duplicate, apply="Merge")
    assert response.status_code == 302
    duplicate.refresh_from_db()
    assert duplicate.merged_into == kept
    assert PlayerMerge.objects.get().reason == "same person"


def test_a_refused_merge_is_said_in_the_dry_run_with_no_merge_button(pair):
    kept, duplicate = pair
    make_participants(make_event(name="Brno Open"), [kept, duplicate])
    page = preview(client_for(make_officer()), kept, duplicate, preview="Preview the merge")
    html = page.content.decode()
    assert "both took part in Brno Open" in html
    assert 'name="apply"' not in html


def test_the_dry_run_selects_exactly_what_the_merge_moves(pair):
    kept, duplicate = pair
    plan = player_merge_plan(kept, duplicate)
    assert plan.refusal == ""
    assert plan.moves["participants"] == 1
    merge = player_merge(kept, duplicate)
    assert len(merge.moved["participants"]) == plan.moves["participants"]


def player_merge(kept, merged):
    from players.services import player_merge as merge

    return merge(kept, merged, user=make_officer(), reason="same person")


def test_the_merge_and_reverse_pages_speak_spanish(pair):
    kept, duplicate = pair
    officer = make_officer()
    client = client_for(officer)
    data = {"action": "merge_into", "_selected_action": [duplicate.pk], "kept": kept.pk, "reason": "x", "preview": "1"}
    page = client.post(CHANGELIST, data, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Simulación: lo que haría la fusión" in page
    assert "Conservar este jugador" in page
    from players.services import player_merge as merge_players

    merge = merge_players(kept, duplicate, user=officer, reason="same person")
    reverse_page = client.post(
        reverse("admin:players_playermerge_changelist"),
        {"action": "reverse_merges", "_selected_action": [merge.pk], "index": "0"},
        HTTP_ACCEPT_LANGUAGE="es",
    ).content.decode()
    assert "Deshacer fusiones de jugadores" in reverse_page
    assert "Las listas publicadas desde la fusión no se recalculan." in reverse_page
