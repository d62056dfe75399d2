"""Searching a name as people type it (issue 32): accents loosely ("García" finds "Garcia" and the reverse), the
surname and given names in any order ("Elena Moreno", "Martin, Elena"), any word of a name (a second surname, a
given name), each word by its start; the folded key every writer of players keeps (save(), FIDE lists, TRF)."""

import numpy as np
import pytest

from players.models import Player
from players.names import name_search_key
from players.selectors import players_matching, search_players
from ratings.services.fide_list_import import _search_keys
from tests.factories import make_player

pytestmark = pytest.mark.django_db

NAMES = [
    ("Garcia", "Ana"),
    ("García López", "Ana María"),
    ("Moreno", "Elena"),
    ("Martín Moreno", "Elena"),
    ("Martinez", "Pablo"),
    ("O'Brien", "Seán"),
    ("Müller-Lüdenscheidt", "Jörg"),
]


@pytest.fixture
def registry():
    return {surname: make_player(surname=surname, given_names=given) for surname, given in NAMES}


def found(query: str) -> list[str]:
    return [player.surname for player in search_players(query)]


def test_the_key_is_the_names_words_folded():
    assert name_search_key("García López, Ana María") == "garcia lopez ana maria"
    assert name_search_key("O'Brien, Seán") == "obrien sean"
    assert name_search_key("Müller-Lüdenscheidt, Jörg") == "muller ludenscheidt jorg"
    assert name_search_key("  Straße ,  Ödön ") == "strasse odon"


def test_accents_match_loosely_both_ways(registry):
    assert found("García") == ["Garcia", "García López"]
    assert found("garcia") == ["Garcia", "García López"]
    assert found("GARCIA LOPEZ") == ["García López"]
    assert found("Muller") == ["Müller-Lüdenscheidt"]
    assert found("Mueller") == []  # folding drops accents; it does not transliterate


def test_surname_and_given_names_in_any_order(registry):
    assert found("Elena Moreno") == ["Martín Moreno", "Moreno"]
    assert found("Moreno, Elena") == ["Martín Moreno", "Moreno"]
    assert found("Martin, Elena") == ["Martín Moreno"]
    assert found("Elena Martin") == ["Martín Moreno"]
    assert found("Ana Garcia") == ["Garcia", "García López"]


def test_any_word_of_a_name_by_its_start(registry):
    assert found("Lopez") == ["García López"]  # a second surname
    assert found("maria") == ["García López"]  # a second given name
    assert found("ludensch") == ["Müller-Lüdenscheidt"]
    assert found("mart") == ["Martinez", "Martín Moreno"]
    assert found("obrien") == found("O'Brien") == ["O'Brien"]
    assert found("tinez") == []  # words by their start: not any substring


def test_punctuation_only_or_an_id_number(registry):
    assert found(",.-") == []
    player = registry["Moreno"]
    assert [p.pk for p in players_matching(str(player.id_number))] == [player.pk]


def test_merged_records_are_left_out(registry):
    Player.objects.filter(pk=registry["Garcia"].pk).update(merged_into=registry["García López"])
    assert found("garcia") == ["García López"]


def test_renaming_a_player_keeps_the_key_in_step(registry):
    player = registry["Martinez"]
    player.surname = "Núñez"
    player.save()
    assert found("nunez") == ["Núñez"]
    assert found("martinez") == []


def test_the_fide_lists_vectorised_key_equals_the_one_definition():
    names = ["GARCIA LOPEZ, Ana-Maria", "O'Brien,  Sean", "Smith", "Van der Berg, J.", "A.B.  Cde"]
    vectorised = _search_keys(np.array([name.encode() for name in names], dtype="S"))
    assert [key.decode() for key in vectorised.tolist()] == [name_search_key(name) for name in names]


def test_the_search_page_finds_a_name_typed_with_accents_and_in_any_order(client, registry):
    page = client.get("/players/", {"q": "Elena Martín"}).content.decode()
    assert "Martín Moreno, Elena" in page
    assert "Moreno, Elena</a>" not in page.replace("Martín Moreno, Elena</a>", "")


def test_a_fide_list_import_stores_every_players_key_by_the_one_definition(monkeypatch):
    import dataclasses
    import io

    from ratings.fide_list import write_fide_list_txt
    from ratings.services import fide_list_import as fide_list_services
    from tests.ratings.test_fide_list_import import LIST_DATE, generated_rows, txt

    monkeypatch.setattr(fide_list_services, "BATCH_ROWS", 64)
    rows = generated_rows(200)
    rows[3] = dataclasses.replace(rows[3], name="O'Neill-Smith, Mary Ann")
    fide_list_services.fide_list_import(io.BytesIO(txt(write_fide_list_txt(rows))), list_date=LIST_DATE)
    stored = list(Player.objects.all())
    assert len(stored) == 200
    assert all(player.search_key == name_search_key(player.name) for player in stored)
    assert [p.name for p in search_players("mary oneill")] == ["O'Neill-Smith, Mary Ann"]


def test_a_trf_import_stores_the_new_players_keys():
    from events.trf_services import event_import_trf
    from tests.events.test_trf_import import build_trf, four_players

    event_import_trf(build_trf(four_players()), file_name="four.trf", user=None)
    stored = list(Player.objects.all())
    assert stored
    assert all(player.search_key == name_search_key(player.name) for player in stored)
