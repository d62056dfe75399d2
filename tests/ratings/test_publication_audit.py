"""Publications and correction republications are on the audit trail: who, when, why, what replaced what."""

import pytest
from django.contrib.auth import get_user_model

from audit.models import AuditAction, AuditEvent
from events.models import Result
from ratings.selectors import rating_list_current
from ratings.services import rating_list_publish, rating_list_republish_from
from tests.ratings.scenarios import MAR, build_federation
from tests.ratings.test_corrections import correct_first_game, publish_march_and_may

pytestmark = pytest.mark.django_db


def test_publication_records_the_official_and_the_list_on_the_audit_trail():
    build_federation(first_result=1.0)
    official = get_user_model().objects.create(username="officer")
    outcome = rating_list_publish("standard", MAR, user=official)

    (record,) = AuditEvent.objects.filter(action=AuditAction.RATING_LIST_PUBLISH)
    assert (record.actor, record.after["list"], record.after["version"]) == (official, outcome.rating_list.pk, 1)
    assert record.after["rules_preset"] == outcome.rating_list.rules_preset
    assert record.before is None


def test_republication_records_who_why_and_the_superseded_version():
    _, (winter, _) = publish_march_and_may(first_result=1.0)
    official = get_user_model().objects.create(username="officer")
    old_mar = rating_list_current("standard", MAR)
    correct_first_game(winter, Result.BLACK_WIN)
    new_mar, new_may = rating_list_republish_from("standard", MAR, "round 1 was 0-1", official)

    records = AuditEvent.objects.filter(action=AuditAction.RATING_LIST_REPUBLISH).order_by("at")
    assert [(r.actor, r.reason, r.after["list"], r.after["version"]) for r in records] == [
        (official, "round 1 was 0-1", new_mar.pk, 2),
        (official, "round 1 was 0-1", new_may.pk, 2),
    ]
    assert records[0].before == {"superseded_list": old_mar.pk, "version": 1}
