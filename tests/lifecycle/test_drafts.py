"""Incomplete files become drafts, not refusals (issue 15): a readable TRF lacking what rating needs imports as
a draft with each problem named where it must be fixed; submission is refused until it is fixed; only an
unreadable file is refused whole, with nothing written."""

import dataclasses
import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from events.models import Event, EventStatus, Game, Participant
from events.services import event_problems, event_submit
from events.trf import ERROR
from events.trf_services import event_import_trf
from players.models import Player
from tests.events.test_admin_roles import client_for, make_arbiter
from tests.events.test_trf_import import CORPUS, CORPUS_FILES, build_trf, file_counts, four_players, row_counts

pytestmark = pytest.mark.django_db

# The corpus files that lack something rating needs, and what the draft's submission must name.
INCOMPLETE = {
    "bbp_issue_7_cr_line_endings.trf": ["start date is missing", "end date is missing", "rating type"],
    "icu_latin-1.tab": ["end date is missing", "rating type"],
}


def test_the_corpus_has_the_incomplete_files():
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} is absent: the real-file tests have no files to read")
    assert set(INCOMPLETE) <= {p.name for p in CORPUS_FILES}


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_every_real_file_imports_as_a_draft_or_is_refused_with_line_and_problem(path):
    data = path.read_bytes()
    before = row_counts()

    outcome = event_import_trf(data, file_name=path.name, user=None)

    if outcome.event is None:  # refused: every error says where, and nothing was written
        assert outcome.errors and row_counts() == before
        assert all(problem.line or "file" in problem.message for problem in outcome.errors)
        return
    event = outcome.event
    counted = file_counts(data)
    assert event.status == EventStatus.DRAFT and outcome.errors == []
    assert Participant.objects.filter(event=event).count() == counted["players"]
    assert Game.objects.filter(event=event).count() == counted["games"]
    missing = event_problems(event)
    for expected in INCOMPLETE.get(path.name, []):
        assert any(expected in problem for problem in missing), (expected, missing)
    if missing:  # submission refused, naming what is missing; the draft stays as it was
        with pytest.raises(ValidationError) as refused:
            event_submit(event, user=None)
        assert refused.value.messages == missing
        assert Event.objects.get(pk=event.pk).status == EventStatus.DRAFT


def test_a_file_without_dates_or_rating_type_is_a_draft_until_the_arbiter_sets_them():
    arbiter = make_arbiter()
    data = build_trf(four_players(), start_date=None, end_date=None, tournament_type="Swiss")
    outcome = event_import_trf(data, file_name="n.trf", user=arbiter)
    event = outcome.event
    assert (event.start_date, event.end_date, event.rating_type) == (None, None, "")
    assert any("choose the rating type in the event before submitting" in w.message for w in outcome.warnings)
    client = client_for(arbiter)
    page = client.get(reverse("admin:events_event_change", args=[event.pk])).content.decode()
    assert 'id="event-missing"' in page
    assert "the start date is missing (TRF record 042); enter it in the event&#x27;s Start date." in page
    assert "the rating type is not given (TRF record 092); choose it in the event&#x27;s Rating type." in page

    with pytest.raises(ValidationError, match="the end date is missing"):
        event_submit(event, user=arbiter)
    Event.objects.filter(pk=event.pk).update(
        start_date=dt.date(2026, 2, 6), end_date=dt.date(2026, 2, 8), rating_type="standard"
    )
    event.refresh_from_db()
    assert event_problems(event) == []
    event_submit(event, user=arbiter)
    assert Event.objects.get(pk=event.pk).status == EventStatus.SUBMITTED


def test_a_new_player_without_birth_year_or_sex_keeps_the_event_a_draft():
    players = four_players()
    players[1] = dataclasses.replace(players[1], sex="", birth_year=None)
    outcome = event_import_trf(build_trf(players), file_name="p.trf", user=None, submit=True)
    event = outcome.event
    assert event.status == EventStatus.DRAFT  # imported, not submitted
    warning = next(w for w in outcome.warnings if w.message.startswith("player 2 (Beta, Bert) is new and has no"))
    assert warning.line and warning.column == 10
    assert "no sex (column 10) and no birth year (columns 70-79)" in warning.message
    assert any(w.message.startswith("not submitted for rating: Player 2, Beta, Bert") for w in outcome.warnings)
    beta = Player.objects.get(participations__event=event, participations__start_rank=2)
    assert event_problems(event) == [
        f"Player 2, Beta, Bert (ID {beta.id_number}), is new and has no birth year and sex: enter it in the "
        "player's record (the list carries year of birth and gender, B.02 7.1.2; K depends on age, B.02 8.3.3)."
    ]
    beta.birth_year, beta.sex = 1991, "M"
    beta.save()
    event_submit(event, user=None)
    assert Event.objects.get(pk=event.pk).status == EventStatus.SUBMITTED


def test_only_an_unreadable_file_is_refused_whole_with_nothing_written():
    before = row_counts()
    data = build_trf(four_players(), start_date=None).replace(b"    2 w 1", b"    2 x 1", 1)
    outcome = event_import_trf(data, file_name="bad.trf", user=None)
    assert outcome.event is None and row_counts() == before
    assert all(p.severity == ERROR and p.line and p.column for p in outcome.errors)


def test_an_imported_event_starts_its_timeline_with_results_received():
    arbiter = make_arbiter()
    event = event_import_trf(build_trf(four_players()), file_name="open.trf", user=arbiter).event
    event_submit(event, user=arbiter)
    steps = list(event.status_changes.order_by("at", "id").values_list("from_status", "to_status", "reason"))
    assert steps[0] == ("", "draft", "results received: imported from open.trf")
    assert [step[:2] for step in steps[1:]] == [("draft", "checked"), ("checked", "submitted")]
