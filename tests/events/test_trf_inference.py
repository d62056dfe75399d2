"""events.trf.inference: the rating type and the system a parsed TRF file names, without a database."""

import pytest

from events.models import EventSystem, RatingType
from events.trf import WARNING, TrfGame, TrfPlayer, TrfTeam, TrfTournament, infer_rating_type, infer_system, inference


def test_the_pure_packages_values_are_the_models_choices():
    # events.trf may not import events.models (.importlinter): its copies of the values are pinned here.
    assert (inference.STANDARD, inference.RAPID, inference.BLITZ) == (
        RatingType.STANDARD,
        RatingType.RAPID,
        RatingType.BLITZ,
    )
    assert {inference.SWISS, inference.ROUND_ROBIN, inference.MATCH, inference.TEAM} == set(EventSystem.values)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ({"tournament_type": "Swiss (blitz)"}, "blitz"),
        ({"name": "Torneo Rápido de Bilbao"}, "rapid"),
        ({"time_control": "Schnellschach 15 min"}, "rapid"),
        ({"tournament_type": "Swiss (standard)"}, "standard"),
        ({"name": "Bullet night", "tournament_type": "classical"}, "blitz"),  # blitz words are looked for first
    ],
)
def test_the_rating_type_is_read_from_092_012_or_122(header, expected):
    rating_type, _ = infer_rating_type(TrfTournament(**header))

    assert rating_type == expected


def test_a_rapid_or_blitz_reading_warns_naming_the_records_line_standard_does_not():
    rapid = TrfTournament(name="City Open", tournament_type="Swiss rapid", record_lines={"012": 1, "092": 4})
    standard = TrfTournament(tournament_type="Swiss (standard)", record_lines={"092": 4})

    _, warning = infer_rating_type(rapid)

    assert warning is not None
    assert (warning.line, warning.column, warning.severity) == (4, 5, WARNING)
    assert warning.message == "rating type not given: read as rapid from record 092 'Swiss rapid'"
    assert infer_rating_type(standard) == ("standard", None)


def test_no_rating_type_named_is_empty_with_a_warning_for_the_whole_file():
    rating_type, warning = infer_rating_type(TrfTournament(name="City Open", tournament_type="Swiss"))

    assert rating_type == ""
    assert warning is not None
    assert (warning.line, warning.column) == (0, None)
    assert warning.message.startswith("rating type not given and not named in the file (record 092)")


def players(n):
    return [TrfPlayer(start_rank=rank) for rank in range(1, n + 1)]


def everyone_once(n):
    return [TrfGame(1, a, b, "1-0") for a in range(1, n + 1) for b in range(a + 1, n + 1)]


@pytest.mark.parametrize(
    ("tournament_type", "encoded_type", "expected"),
    [
        ("Team Swiss", "", "team"),
        ("Berger", "", "round_robin"),
        ("", "FIDE_RR", "swiss"),  # "rr" only as a word
        ("Individual: Swiss-System", "FIDE_DUTCH_2025", "swiss"),
        ("Match", "", "match"),
        ("Swiss match", "", "swiss"),
        ("Scheveningen", "", "round_robin"),
    ],
)
def test_the_system_is_read_from_092_and_192(tournament_type, encoded_type, expected):
    t = TrfTournament(tournament_type=tournament_type, encoded_type=encoded_type, players=players(6))

    assert infer_system(t, []) == expected


def test_teams_two_players_and_unnamed_systems():
    assert infer_system(TrfTournament(teams=[TrfTeam(1, "A")], players=players(6)), []) == "team"
    assert infer_system(TrfTournament(players=players(2)), []) == "match"
    # Nothing said: everyone met everyone once is a round robin, anything else a Swiss.
    assert infer_system(TrfTournament(players=players(4)), everyone_once(4)) == "round_robin"
    assert infer_system(TrfTournament(players=players(4)), everyone_once(4)[:-1]) == "swiss"
    assert infer_system(TrfTournament(players=players(4)), everyone_once(4) * 2) == "swiss"
