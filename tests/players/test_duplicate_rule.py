"""The one rule for likely duplicate players (players.selectors.duplicate_reason), used by the player admin's
review and by the TRF import's new players: the same surname start and either the same name or the same
birth year."""

from dataclasses import dataclass

import pytest

from players.models import Player
from players.selectors import duplicate_reason, fold_name, likely_duplicates_among
from tests.factories import make_player


@dataclass
class Named:
    surname: str
    given_names: str = ""
    birth_year: int | None = None


def test_names_are_folded_without_case_accents_or_punctuation():
    assert fold_name("Mícheál") == fold_name("MICHEAL") == "micheal"
    assert fold_name("O'Brien-Smith") == "obriensmith"


@pytest.mark.parametrize(
    ("candidate", "reason"),
    [
        (Named("FERNÁNDEZ", "luís", 1970), "same name"),
        (Named("Fernandez", "Juan", 1988), "same surname and birth year 1988"),
        (Named("Fernandes", "L.", 1988), "similar surname and birth year 1988"),  # a misspelt ending
        (Named("Fernandes", "Luis", 1970), None),  # another surname, another year
        (Named("Fernandez", "Juan", 1970), None),  # same surname only
        (Named("Ferrer", "Luis", 1988), None),  # another surname start
    ],
)
def test_a_likely_duplicate_shares_the_surname_start_and_the_name_or_the_birth_year(candidate, reason):
    assert duplicate_reason(Named("Fernández", "Luis", 1988), candidate) == reason


def test_a_player_without_given_names_or_surname_is_not_matched_by_name_alone():
    assert duplicate_reason(Named("Ding"), Named("Ding")) is None
    assert duplicate_reason(Named("Ding", birth_year=1992), Named("Ding", "Liren", 1992)) is not None
    assert duplicate_reason(Named("", "Anna", 1990), Named("", "Anna", 1990)) is None


def test_a_short_surname_is_compared_whole_as_its_start():
    assert (
        duplicate_reason(Named("Wu", "", 2001), Named("Wuttke", "Ann", 2001)) == "similar surname and birth year 2001"
    )
    assert duplicate_reason(Named("Wu", "", 2001), Named("Wang", "", 2001)) is None


NEW = [("Gamma", "Gus", 1991), ("Li", "", 1999), ("Zeta", "Zoe", None)]


@pytest.mark.django_db
def test_likely_duplicates_among_gives_each_player_its_candidates_with_the_reason():
    same_name = make_player(surname="Gamma", given_names="Gus", birth_year=1970)
    similar = make_player(surname="Gammas", given_names="Gail", birth_year=1991)
    make_player(surname="Gamma", given_names="Other", birth_year=1950)
    new = [Player(surname=surname, given_names=given, birth_year=year) for surname, given, year in NEW]

    found = likely_duplicates_among(new)  # unsaved players: none is excluded as itself

    assert found == [[(same_name, "same name"), (similar, "similar surname and birth year 1991")], [], []]
    assert likely_duplicates_among([same_name]) == [[]]  # a registered player is not its own duplicate
