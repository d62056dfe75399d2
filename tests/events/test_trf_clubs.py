"""Clubs read from imports: TRF exports that write the player's club in the federation column (ICU,
Swiss-Manager) give new players that club (created under the event's federation when missing)."""

from collections import Counter
from pathlib import Path

import pytest

from events.models import Participant
from events.trf_services import event_import_trf
from players.models import Club

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trf"
FILE = CORPUS / "icu_bunratty_masters_2011.tab"


@pytest.mark.skipif(not FILE.is_file(), reason=f"{FILE} is absent")
def test_club_codes_in_the_federation_column_become_the_new_players_clubs():
    written = Counter(
        line[53:56].strip()
        for line in FILE.read_bytes().decode("latin-1").splitlines()
        if line.startswith("001") and line[53:56].strip()
    )
    outcome = event_import_trf(FILE.read_bytes(), file_name=FILE.name, user=None)
    assert outcome.event is not None
    players = [p.player for p in Participant.objects.filter(event=outcome.event).select_related("player__club")]
    clubs = Counter(p.club.code for p in players if p.club is not None)
    assert clubs
    assert set(clubs) <= {code[:20] for code in written}
    assert clubs["KIL"] == written["KIL"] > 0
    assert all(club.federation_id == outcome.event.federation_id for club in Club.objects.all())
    # a second file with the same codes reuses the clubs
    count = Club.objects.count()
    event_import_trf(FILE.read_bytes().replace(b"Bunratty", b"Bunrattx"), file_name="again.tab", user=None)
    assert Club.objects.count() == count


def test_files_with_federations_create_no_club(client):
    from tests.events.test_trf_import import CORPUS as TRF_CORPUS

    path = TRF_CORPUS / "echecsjs_javafo_sample2.trf"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    event_import_trf(path.read_bytes(), file_name=path.name, user=None)
    assert not Club.objects.exists()
