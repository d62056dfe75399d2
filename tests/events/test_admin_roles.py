"""The two staff roles exist after migrate with their permissions. Also the helpers other admin tests use
(plain functions: users in a role, a signed-in client, the POST data of an admin change page)."""

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.test import Client

from events.roles import ARBITERS, RATING_OFFICERS, roles_sync

pytestmark = pytest.mark.django_db


# --- helpers for the admin tests -----------------------------------------------------------------------


def make_staff(username: str, group: str | None = None, **fields):
    user = get_user_model().objects.create_user(username=username, password="x", is_staff=True, **fields)
    if group:
        user.groups.add(Group.objects.get(name=group))
    return user


def make_arbiter(username: str = "arbiter"):
    return make_staff(username, ARBITERS)


def make_officer(username: str = "officer"):
    return make_staff(username, RATING_OFFICERS)


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _text(value):
    if isinstance(value, list | tuple):
        return [str(item) for item in value]
    return value.isoformat() if isinstance(value, datetime.date) else str(value)


def _form_values(form) -> dict:
    data = {}
    for name, field in form.fields.items():
        bound = form[name]
        if field.show_hidden_initial:
            # The browser also sends back the value it was shown (BoundField renders it hidden).
            initial = form.get_initial_for_field(field, name)
            if initial is not None:
                data[bound.html_initial_name] = _text(initial)
        value = bound.value()
        if value is None or value is False:
            continue
        data[bound.html_name] = "on" if value is True else _text(value)
    return data


def formset_data(formset) -> dict:
    management = formset.management_form
    data = {management[name].html_name: str(management[name].value()) for name in management.fields}
    for form in formset.forms:
        data.update(_form_values(form))
    return data


def change_page_data(response) -> dict:
    """What the browser would post back unchanged from an admin change page (main form and inlines)."""
    data = _form_values(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        data.update(formset_data(inline.formset))
    return data


# --- the roles -----------------------------------------------------------------------------------------


def codenames(group_name: str) -> set[str]:
    group = Group.objects.get(name=group_name)
    return {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.select_related("content_type")}


def test_migrate_creates_the_arbiters_group_with_event_entry_permissions_only():
    perms = codenames(ARBITERS)
    assert {
        "events.change_event",
        "events.add_game",
        "events.change_game",
        "events.delete_participant",
        "events.submit_event",
        "players.view_player",
    } <= perms
    # Arbiters never see every event, never correct rated results, never merge or publish.
    assert "events.manage_all_events" not in perms
    assert "events.correct_event" not in perms
    assert "players.merge_player" not in perms
    assert not any(p.startswith("ratings.") for p in perms)


def test_migrate_creates_the_rating_officers_group_with_every_events_players_and_ratings_permission():
    perms = codenames(RATING_OFFICERS)
    assert {
        "events.manage_all_events",
        "events.correct_event",
        "players.merge_player",
        "ratings.change_ratinglist",
        "ratings.view_ratinglistentry",
    } <= perms
    every_ratings_permission = {
        f"ratings.{codename}"
        for codename in Permission.objects.filter(content_type__app_label="ratings").values_list("codename", flat=True)
    }
    assert every_ratings_permission <= perms


def test_roles_sync_is_idempotent_and_keeps_permissions_granted_by_hand():
    group = Group.objects.get(name=ARBITERS)
    extra = Permission.objects.get(content_type__app_label="ratings", codename="view_ratinglist")
    group.permissions.add(extra)
    before = codenames(ARBITERS)
    roles_sync()
    roles_sync()
    assert codenames(ARBITERS) == before
    assert Group.objects.filter(name__in=[ARBITERS, RATING_OFFICERS]).count() == 2


def test_roles_sync_restores_a_removed_permission():
    group = Group.objects.get(name=ARBITERS)
    group.permissions.remove(Permission.objects.get(content_type__app_label="events", codename="change_game"))
    roles_sync()
    assert "events.change_game" in codenames(ARBITERS)
