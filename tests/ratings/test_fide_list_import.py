"""ratings.services.fide_list_import.fide_list_import and the import_fide_list command, on small generated lists
in every layout FIDE publishes (combined TXT with/without FOA, single-type TXT, XML combined/single)."""

import dataclasses
import datetime as dt
import io
import re
import zipfile

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection

from audit.models import AuditEvent
from players.models import Federation, Player
from ratings.engine import get_preset
from ratings.fide_list import (
    COMBINED_LEGACY_HEADER,
    FideListRating,
    FideListReader,
    FideListRow,
    write_fide_list_txt,
    write_fide_list_xml,
)
from ratings.models import PlayerRating, RatingList, RatingListEntry
from ratings.services import fide_list_import as fide_list_services
from ratings.services.fide_list_import import fide_list_import
from tests.factories import make_player

pytestmark = pytest.mark.django_db

LIST_DATE = dt.date(2026, 10, 1)


def row(fide_id, name, federation="NOR", standard=None, rapid=None, blitz=None, **fields) -> FideListRow:
    surname, _, given = name.partition(", ")
    return FideListRow(
        fide_id=fide_id,
        name=name,
        surname=surname,
        given_names=given,
        federation=federation,
        standard=standard,
        rapid=rapid,
        blitz=blitz,
        **fields,
    )


ROWS = [
    row(
        1503014,
        "Carlsen, Magnus",
        "NOR",
        FideListRating(2833, 3, 10),
        FideListRating(2800, 0, 10),
        FideListRating(2880, 9, 10),
        sex="M",
        title="GM",
        birth_year=1990,
    ),
    row(
        2000001,
        "Novak, Olga",
        "CZE",
        FideListRating(2150, 5, 20),
        FideListRating(None, 0, None),
        FideListRating(2000, 0, 20),
        sex="F",
        title="WIM",
        women_title="WIM",
        other_titles=("IA", "FA"),
        foa_title="AGM",
        birth_year=1985,
        flag="wi",
    ),
    row(
        2000002,
        "Junior, Jon",
        "ZZZ",
        FideListRating(1500, 7, 40),
        FideListRating(1600, 2, 40),
        FideListRating(None, 0, None),
        sex="M",
        birth_year=2014,
    ),
    row(
        2000003,
        "Ababil",
        "ESP",
        FideListRating(None, 0, None),
        FideListRating(None, 0, None),
        FideListRating(None, 0, None),
        sex="M",
    ),  # registered, rated in nothing
]


def txt(lines) -> bytes:
    return "".join(lines).encode("ascii")


def legacy_txt(rows) -> bytes:
    """The combined list without FOA (formats.md §4.3), written at the header's token positions."""
    starts = {m.group(): m.start() for m in re.finditer(r"\S+", COMBINED_LEGACY_HEADER)}
    lines = [COMBINED_LEGACY_HEADER + "\r\n"]
    for r in rows:
        values = {
            "ID": str(r.fide_id),
            "Name": r.name,
            "Fed": r.federation,
            "Sex": r.sex,
            "Tit": r.title,
            "WTit": r.women_title,
            "OTit": ",".join(r.other_titles),
            "B-day": str(r.birth_year or 0),
            "Flag": r.flag,
        }
        for prefix, k_label, rating in (("S", "SK", r.standard), ("R", "Rk", r.rapid), ("B", "BK", r.blitz)):
            values[f"{prefix}Rtng"] = str(rating.rating or 0)
            values[f"{prefix}Gm"] = str(rating.games)
            values[k_label] = str(rating.k_factor or 0)
        line = [" "] * len(COMBINED_LEGACY_HEADER)
        for token, value in values.items():
            if token in starts and value:
                line[starts[token] : starts[token] + len(value)] = value
        lines.append("".join(line) + "\r\n")
    return txt(lines)


def row_counts() -> dict[str, int]:
    return {
        model._meta.label: model.objects.count()
        for model in apps.get_models()
        if model._meta.app_label in ("players", "ratings", "audit") and model._meta.managed and not model._meta.proxy
    }


def entries(rating_type: str) -> dict[int, tuple]:
    return {
        e.player.id_number: (e.rating, e.games, e.k_factor, e.inactive)
        for e in RatingListEntry.objects.filter(rating_list__rating_type=rating_type).select_related("player")
    }


# --------------------------------------------------------------------------------------------- layouts


LAYOUTS = {
    "combined with FOA": (lambda: txt(write_fide_list_txt(ROWS)), {}),
    "combined legacy": (lambda: legacy_txt(ROWS), {}),
    "xml combined": (lambda: txt(write_fide_list_xml(ROWS)), {}),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_combined_layouts_give_three_published_imported_lists(layout):
    make_data, options = LAYOUTS[layout]

    outcome = fide_list_import(io.BytesIO(make_data()), list_date=LIST_DATE, **options)

    lists = {rl.rating_type: rl for rl in RatingList.objects.all()}
    assert set(lists) == set(outcome.rating_lists) == {"standard", "rapid", "blitz"}
    preset = get_preset("fide-2024").to_json()
    for rating_list in lists.values():
        assert (rating_list.status, rating_list.is_imported, rating_list.version) == ("published", True, 1)
        assert rating_list.list_date == LIST_DATE
        assert rating_list.rules == preset
        assert rating_list.rules_preset == "fide-2024"
        assert rating_list.published_at is not None
    assert entries("standard") == {
        1503014: (2833, 3, 10, False),
        2000001: (2150, 5, 20, True),
        2000002: (1500, 7, 40, False),
    }
    assert entries("rapid") == {1503014: (2800, 0, 10, False), 2000002: (1600, 2, 40, False)}
    assert entries("blitz") == {1503014: (2880, 9, 10, False), 2000001: (2000, 0, 20, True)}
    assert (lists["standard"].entry_count, lists["standard"].game_count) == (3, 15)
    assert (outcome.rows, outcome.players_created, outcome.players_updated) == (4, 4, 0)
    assert Player.objects.filter(id_number=2000003).exists()  # registered though rated in nothing


@pytest.mark.parametrize(
    ("make_data", "options", "expected_type"),
    [
        (lambda: txt(write_fide_list_txt(ROWS, "rapid", list_date=LIST_DATE)), {"rating_types": ["rapid"]}, "rapid"),
        (
            lambda: txt(write_fide_list_txt(ROWS, "blitz", list_date=LIST_DATE)),
            {"source_name": "blitz_rating_list.txt"},
            "blitz",
        ),
        (lambda: txt(write_fide_list_txt(ROWS, "standard", list_date=LIST_DATE)), {}, "standard"),
        (lambda: txt(write_fide_list_txt(ROWS, "rapid")), {}, "rapid"),  # header RRtng names the type
        (lambda: txt(write_fide_list_xml(ROWS, "blitz")), {"rating_types": ["blitz"]}, "blitz"),
        (lambda: txt(write_fide_list_xml(ROWS, "rapid")), {"source_name": "rapid_oct26frl_xml.xml"}, "rapid"),
    ],
    ids=[
        "txt month header + type",
        "txt month header + file name",
        "txt month header default standard",
        "txt typed header",
        "xml single + type",
        "xml single + file name",
    ],
)
def test_single_type_layouts_give_one_list_of_their_type(make_data, options, expected_type):
    outcome = fide_list_import(io.BytesIO(make_data()), list_date=LIST_DATE, **options)

    assert list(outcome.rating_lists) == [expected_type]
    assert list(RatingList.objects.values_list("rating_type", flat=True)) == [expected_type]
    expected = {r.fide_id: r.rating(expected_type).rating for r in ROWS if r.rating(expected_type).rating}
    assert {k: v[0] for k, v in entries(expected_type).items()} == expected


def test_rating_types_option_imports_only_those_types_of_a_combined_list():
    outcome = fide_list_import(
        io.BytesIO(txt(write_fide_list_txt(ROWS))), list_date=LIST_DATE, rating_types=["standard", "blitz"]
    )

    assert set(outcome.rating_lists) == {"standard", "blitz"}
    assert not entries("rapid")


# --------------------------------------------------------------------------------------- what is stored


def test_entry_state_follows_the_documented_rules_for_k_and_2400():
    rows = [
        row(1, "K20, Low", standard=FideListRating(1900, 3, 20)),  # K 20: at least 30 games
        row(2, "K40, New", standard=FideListRating(1700, 7, 40)),  # K 40: the period's games
        row(3, "K10, Fallen", standard=FideListRating(2390, 31, 10)),  # K 10: once reached 2400
        row(4, "High, K20", standard=FideListRating(2450, 0, 20)),
        row(5, "Mid, Junior", standard=FideListRating(2350, 4, 40)),
    ]

    fide_list_import(io.BytesIO(txt(write_fide_list_txt(rows, "standard"))), list_date=LIST_DATE)

    state = {
        e.player.id_number: (e.rated_games_total, e.ever_2400, e.ever_2300)
        for e in RatingListEntry.objects.select_related("player")
    }
    assert state == {
        1: (30, False, False),
        2: (7, False, False),
        3: (31, True, True),
        4: (30, True, True),
        5: (4, False, True),
    }


def test_entries_keep_title_federation_sex_and_birth_year_as_published():
    fide_list_import(io.BytesIO(txt(write_fide_list_txt(ROWS))), list_date=LIST_DATE)

    olga = RatingListEntry.objects.get(player__id_number=2000001, rating_list__rating_type="standard")
    assert (olga.title, olga.women_title, olga.other_titles, olga.federation, olga.sex, olga.birth_year) == (
        "WIM",
        "WIM",
        "IA,FA",
        "CZE",
        "F",
        1985,
    )


def test_players_are_created_or_updated_by_fide_id_and_federations_created():
    existing = make_player(id_number=1503014, surname="Carlsen", given_names="M.", title="", birth_year=None)

    outcome = fide_list_import(io.BytesIO(txt(write_fide_list_txt(ROWS))), list_date=LIST_DATE)

    assert (outcome.players_created, outcome.players_updated) == (3, 1)
    carlsen = Player.objects.get(pk=existing.pk)
    assert (carlsen.given_names, carlsen.title, carlsen.birth_year, carlsen.federation_id) == (
        "Magnus",
        "GM",
        1990,
        "NOR",
    )
    assert carlsen.search_name == "CARLSEN, MAGNUS"
    assert Player.objects.count() == 4
    olga = Player.objects.get(id_number=2000001)
    assert (olga.sex, olga.title, olga.women_title, olga.other_titles) == ("F", "WIM", "WIM", "IA,FA")
    assert Federation.objects.filter(code="ZZZ").exists()
    assert "ZZZ" in outcome.federations_created


def test_current_ratings_follow_the_newest_list_only():
    fide_list_import(io.BytesIO(txt(write_fide_list_txt(ROWS))), list_date=LIST_DATE)
    newer = [row(1503014, "Carlsen, Magnus", standard=FideListRating(2840, 5, 10))]
    fide_list_import(io.BytesIO(txt(write_fide_list_txt(newer, "standard"))), list_date=dt.date(2026, 11, 1))
    older = [row(1503014, "Carlsen, Magnus", standard=FideListRating(2700, 1, 10))]

    outcome = fide_list_import(io.BytesIO(txt(write_fide_list_txt(older, "standard"))), list_date=dt.date(2026, 9, 1))

    assert outcome.current_ratings_skipped == ["standard"]
    current = PlayerRating.objects.get(player__id_number=1503014, rating_type="standard")
    assert (current.rating, current.games, current.rating_list.list_date) == (2840, 5, dt.date(2026, 11, 1))
    rapid = PlayerRating.objects.get(player__id_number=1503014, rating_type="rapid")
    assert (rapid.rating, rapid.k_factor, rapid.rated_games_total) == (2800, 10, 30)
    assert not PlayerRating.objects.filter(player__id_number=2000003).exists()


def test_a_merged_record_s_line_goes_to_the_kept_player():
    kept = make_player(id_number=7_000_001, surname="Kept")
    make_player(id_number=2000002, surname="Junior", given_names="Jon", merged_into=kept)

    fide_list_import(io.BytesIO(txt(write_fide_list_txt(ROWS))), list_date=LIST_DATE)

    line = RatingListEntry.objects.get(rating_list__rating_type="standard", rating=1500)
    assert line.player == kept


def test_rows_are_written_in_batches_with_progress(monkeypatch):
    monkeypatch.setattr(fide_list_services, "BATCH_ROWS", 2)
    monkeypatch.setattr(fide_list_services, "PROGRESS_EVERY", 2)
    rows = [row(3_000_000 + i, f"Batch, {i}", standard=FideListRating(1500 + i, 1, 40)) for i in range(7)]
    seen = []

    outcome = fide_list_import(
        io.BytesIO(txt(write_fide_list_txt(rows, "standard"))), list_date=LIST_DATE, progress=seen.append
    )

    assert seen == [2, 4, 6, 7]
    assert outcome.entries == {"standard": 7}
    assert RatingListEntry.objects.count() == 7
    assert PlayerRating.objects.count() == 7


def test_each_imported_list_is_audited():
    fide_list_import(io.BytesIO(txt(write_fide_list_txt(ROWS))), list_date=LIST_DATE)

    records = AuditEvent.objects.filter(action="fide_list.import")
    assert records.count() == 3
    by_type = {r.after["rating_type"]: r.after["entries"] for r in records}
    assert by_type == {"standard": 3, "rapid": 2, "blitz": 2}


# ------------------------------------------------------------------------------------------------ refusals


def test_a_second_list_of_the_same_date_and_type_is_refused_and_changes_nothing():
    fide_list_import(io.BytesIO(txt(write_fide_list_txt(ROWS))), list_date=LIST_DATE)
    before = row_counts()

    with pytest.raises(ValidationError, match=r"list of 2026-10-01 already exists for .*rapid"):
        fide_list_import(io.BytesIO(txt(write_fide_list_txt(ROWS, "rapid"))), list_date=LIST_DATE)

    assert row_counts() == before


def test_a_database_refusal_saves_nothing_and_says_so(monkeypatch):
    monkeypatch.setattr(fide_list_services, "BATCH_ROWS", 1)
    rows = [ROWS[0], ROWS[1], ROWS[2]]
    before = row_counts()
    stage = fide_list_services.StagedUpsert.add_columns

    def refused_when_staging_the_third_row(self, columns):
        if len(columns[0]) and columns[0][0] == ROWS[2].fide_id:
            raise IntegrityError("duplicate key value violates unique constraint")
        return stage(self, columns)

    monkeypatch.setattr(fide_list_services.StagedUpsert, "add_columns", refused_when_staging_the_third_row)

    with pytest.raises(ValidationError, match="the database refused the import, nothing was saved"):
        fide_list_import(io.BytesIO(txt(write_fide_list_txt(rows))), list_date=LIST_DATE)

    assert row_counts() == before


def test_control_characters_in_names_are_removed():
    rows = [row(4_000_001, "Nul\x00l, Ann\x1b", standard=FideListRating(1800, 0, 20))]

    fide_list_import(io.BytesIO(txt(write_fide_list_txt(rows, "standard"))), list_date=LIST_DATE)

    player = Player.objects.get(id_number=4_000_001)
    assert (player.surname, player.given_names, player.search_name) == ("Null", "Ann", "NULL, ANN")


def test_a_file_that_is_not_a_fide_list_is_refused():
    with pytest.raises(ValidationError, match="not a FIDE rating-list header"):
        fide_list_import(io.BytesIO(b"012 Some TRF file\r\n001    1 m\r\n"), list_date=LIST_DATE, source_name="x.trf")
    with pytest.raises(ValidationError, match="no player rows"):
        fide_list_import(io.BytesIO(txt(write_fide_list_txt([]))), list_date=LIST_DATE)
    assert not RatingList.objects.exists()


def test_bad_rows_are_reported_and_skipped():
    lines = list(write_fide_list_txt(ROWS[:2]))
    lines.insert(2, "12x45          Broken, Line" + " " * 60 + "\r\n")

    outcome = fide_list_import(io.BytesIO(txt(lines)), list_date=LIST_DATE)

    assert outcome.rows == 2
    assert outcome.problem_count == 1
    assert outcome.problems[0].line == 3
    assert "is not a number" in outcome.problems[0].message


# ------------------------------------------------------------------------------------------------ command


def test_command_reads_the_zip_as_downloaded_and_shows_progress(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(fide_list_services, "PROGRESS_EVERY", 2)
    monkeypatch.setattr(fide_list_services, "BATCH_ROWS", 2)
    archive = tmp_path / "players_list.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("players_list_foa.txt", txt(write_fide_list_txt(ROWS)))

    call_command("import_fide_list", str(archive), "--list-date", "2026-10-01")

    captured = capsys.readouterr()
    assert "FIDE list of 2026-10-01: 4 players read (4 created, 0 updated)" in captured.out
    assert re.search(r"\[#+\.*\] +\d+% +2 rows", captured.err)
    assert "100%" in captured.err
    assert RatingList.objects.count() == 3

    with pytest.raises(CommandError, match="already exists"):
        call_command("import_fide_list", str(archive), "--list-date", "2026-10-01", "--quiet")
    with pytest.raises(CommandError, match="is not a date"):
        call_command("import_fide_list", str(archive), "--list-date", "1 Oct 2026")


def test_command_draws_one_bar_in_place_on_a_terminal(tmp_path, capsys, monkeypatch):
    from django.core.management.base import OutputWrapper

    monkeypatch.setattr(fide_list_services, "PROGRESS_EVERY", 2)
    monkeypatch.setattr(fide_list_services, "BATCH_ROWS", 2)
    monkeypatch.setattr(OutputWrapper, "isatty", lambda self: True)
    path = tmp_path / "players_list_foa.txt"
    path.write_bytes(txt(write_fide_list_txt(ROWS)))

    call_command("import_fide_list", str(path), "--list-date", "2026-10-01")

    err = capsys.readouterr().err
    bars = err.split("\r")[1:]
    assert len(bars) == 2, err
    assert all(re.match(r"\[[#.]{30}\] +\d+% +[24] rows .* left", bar) for bar in bars), err
    assert err.endswith("\n")
    assert err.count("\n") == 1  # redrawn in place, ended once before the summary
    assert "100%" in bars[-1]


def test_command_single_type_list_with_its_rating_type(tmp_path, capsys):
    path = tmp_path / "list.txt"
    path.write_bytes(txt(write_fide_list_txt(ROWS, "blitz", list_date=LIST_DATE)))

    call_command("import_fide_list", str(path), "--list-date", "2026-10-01", "--rating-type", "blitz", "--quiet")

    assert list(RatingList.objects.values_list("rating_type", flat=True)) == ["blitz"]
    assert capsys.readouterr().err == ""


# ------------------------------------------------------------------------------------- repeated FIDE IDs
# One rule, whatever the write batches (issue 20): the first row of a FIDE ID is imported, each repeat is a
# warning naming its line and the first row's line. FIDE's list has one row per player; a repeat is a
# transfer or editing accident, and a rating officer expects the list loaded with the repeat pointed out,
# as the same ID twice within one batch always was.


@pytest.mark.parametrize("batch_rows", [1, 2, 3, 5_000])
def test_a_repeated_fide_id_keeps_the_first_row_and_warns_naming_both_lines(monkeypatch, batch_rows):
    monkeypatch.setattr(fide_list_services, "BATCH_ROWS", batch_rows)
    changed = dataclasses.replace(ROWS[0], name="Someone, Else", surname="Someone", given_names="Else")
    changed.standard = FideListRating(1000, 0, 40)
    rows = [ROWS[0], ROWS[1], ROWS[2], changed, ROWS[1], ROWS[0]]

    outcome = fide_list_import(io.BytesIO(txt(write_fide_list_txt(rows))), list_date=LIST_DATE)

    assert [(p.line, p.severity, p.message) for p in outcome.problems] == [
        (5, "warning", f"FIDE ID {ROWS[0].fide_id} repeated (first on line 2); the first row is used"),
        (6, "warning", f"FIDE ID {ROWS[1].fide_id} repeated (first on line 3); the first row is used"),
        (7, "warning", f"FIDE ID {ROWS[0].fide_id} repeated (first on line 2); the first row is used"),
    ]
    assert outcome.rows == 6
    assert outcome.players_created == 3  # rows read; the repeats are not written
    player = Player.objects.get(id_number=ROWS[0].fide_id)
    assert player.surname == "Carlsen"
    assert entries("standard")[ROWS[0].fide_id][0] == ROWS[0].standard.rating


# ----------------------------------------------------------------------------- rows read by columns or not


def test_rows_read_by_columns_and_line_by_line_are_stored_alike(monkeypatch):
    # The reader cuts regular lines into columns and reads the others one by one (a name beyond ASCII, an
    # OTit overflowing into FOA, control characters); both kinds in one batch are stored by the same rules.
    monkeypatch.setattr(fide_list_services, "BATCH_ROWS", 4)
    rows = [
        row(5_000_001, "Plain, Ann", "ESP", FideListRating(1800, 4, 20), sex="F", title="WFM", birth_year=1999),
        row(5_000_002, "Müller, Jörg", "GER", FideListRating(2410, 0, 10), sex="M", title="IM"),
        row(5_000_003, "Tab\tName, Bo", "XYZ", FideListRating(1500, 9, 40), blitz=FideListRating(1600, 1, 40)),
        row(5_000_004, "Over, Flow", "NOR", FideListRating(2300, 2, 20), other_titles=("SI", "FI", "LSI", "SLI", "NA")),
        row(5_000_005, "Mono", "FRA", FideListRating(2000, 0, 20), flag="wi", title="g", women_title="WGM"),
        row(5_000_006, "Second, Plain", "ESP", rapid=FideListRating(1700, 3, 20), birth_year=2001),
    ]
    rows[3].foa_title = "AGM"
    data = "".join(write_fide_list_txt(rows)).encode("utf-8")
    batches = list(FideListReader(io.BytesIO(data)).column_batches(4))
    assert sorted({bool(p) for b in batches for p in b.plain}) == [False, True]  # both kinds in the batches

    fide_list_import(io.BytesIO(data), list_date=LIST_DATE)

    federations = set(Federation.objects.values_list("code", flat=True))
    read = [b.row(i) for b in batches for i in range(len(b))]
    for each in read:
        expected = fide_list_services._player_row(each, federations)
        player = Player.objects.get(id_number=each.fide_id)
        stored = tuple(
            getattr(player, f if f != "federation" else "federation_id") for f in fide_list_services._PLAYER_FIELDS
        )
        assert stored == expected, each
        for rating_type in ("standard", "rapid", "blitz"):
            rating = each.rating(rating_type)
            entry = RatingListEntry.objects.filter(player=player, rating_list__rating_type=rating_type).first()
            if rating is None or rating.rating is None:
                assert entry is None
                continue
            title, women_title, other_titles, federation, sex = fide_list_services._entry_text(each)
            assert (entry.rating, entry.games, entry.k_factor, entry.inactive, entry.birth_year) == (
                rating.rating,
                rating.games,
                rating.k_factor,
                each.inactive,
                each.birth_year,
            )
            assert (entry.title, entry.women_title, entry.other_titles, entry.federation, entry.sex) == (
                title,
                women_title,
                other_titles,
                federation,
                sex,
            )
    assert Player.objects.get(id_number=5_000_002).surname == "Müller"
    assert Player.objects.get(id_number=5_000_005).title == "GM"  # the pre-2012 one-letter title


def test_next_month_s_list_updates_only_the_players_it_changes_and_finds_the_others():
    fide_list_import(io.BytesIO(txt(write_fide_list_txt(ROWS))), list_date=LIST_DATE)
    before = {p.id_number: (p.pk, p.updated_at) for p in Player.objects.all()}
    changed = [dataclasses.replace(ROWS[0], title="IM"), *ROWS[1:]]

    outcome = fide_list_import(io.BytesIO(txt(write_fide_list_txt(changed))), list_date=dt.date(2026, 11, 1))

    assert (outcome.players_created, outcome.players_updated) == (0, 4)
    after = {p.id_number: (p.pk, p.updated_at) for p in Player.objects.all()}
    assert {k: pk for k, (pk, _) in after.items()} == {k: pk for k, (pk, _) in before.items()}
    assert [k for k in after if after[k][1] != before[k][1]] == [ROWS[0].fide_id]  # only the changed record
    assert Player.objects.get(id_number=ROWS[0].fide_id).title == "IM"
    november = RatingListEntry.objects.filter(rating_list__list_date=dt.date(2026, 11, 1))
    assert {(e.player.id_number, e.rating_list.rating_type) for e in november} == {
        (e.player.id_number, e.rating_list.rating_type)
        for e in RatingListEntry.objects.filter(rating_list__list_date=LIST_DATE)
    }


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's page cache (PRAGMA cache_size) only")
def test_sqlite_s_page_cache_is_enlarged_for_the_import_only():
    def cache_size() -> int:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA cache_size")
            return cursor.fetchone()[0]

    before = cache_size()
    seen = []

    fide_list_import(
        io.BytesIO(txt(write_fide_list_txt(ROWS))), list_date=LIST_DATE, progress=lambda rows: seen.append(cache_size())
    )

    assert seen == [-fide_list_services._SQLITE_CACHE_KIB]
    assert cache_size() == before


# ------------------------------------------------------------------------------- what is stored, exactly


def generated_rows(count: int, seed: int = 17) -> list[FideListRow]:
    """``count`` varied rows (every title kind, unrated types, inactive flags, unknown federations)."""
    import random

    rng = random.Random(seed)

    def rating(share: float) -> FideListRating:
        if rng.random() >= share:
            return FideListRating(None, 0, None)
        value = rng.randint(1400, 2700)
        return FideListRating(value, rng.choice([0, 3, 9]), 10 if value >= 2400 else rng.choice([20, 40]))

    return [
        row(
            6_000_000 + i * 3,
            f"Surname{i % 37}, Given{i}",
            rng.choice(["ESP", "GER", "NOR", "QQQ"]),
            rating(0.6),
            rating(0.3),
            rating(0.3),
            sex=rng.choice(["M", "F", ""]),
            title=rng.choice(["", "", "GM", "WIM", "FM"]),
            women_title=rng.choice(["", "", "WGM"]),
            other_titles=rng.choice([(), ("IA",), ("FA", "NI")]),
            birth_year=rng.choice([0, 1950, 1999, 2012]) or None,
            flag=rng.choice(["", "i", "w", "wi"]),
        )
        for i in range(count)
    ]


def stored_rows() -> tuple[list[tuple], list[tuple]]:
    """The players and list entries as stored, without keys and times (which differ from one run to another)."""
    players = sorted(
        Player.objects.values_list(
            "id_number",
            *(
                f if f != "federation" else "federation_id"
                for f in fide_list_services._PLAYER_FIELDS[1:]
                if f != "search_key"  # added after the digests were taken; tests/players/test_name_search.py
            ),
        )
    )
    skipped = {"id", "player", "rating_list"}
    names = [f.attname for f in RatingListEntry._meta.concrete_fields if f.name not in skipped]
    entry_rows = sorted(
        RatingListEntry.objects.values_list(
            "rating_list__rating_type", "rating_list__list_date", "player__id_number", *names
        ),
        key=repr,
    )
    return players, entry_rows


def digest(rows) -> str:
    import hashlib

    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


# The rows two imports of generated_rows(300) (created, then next month's list changing a fifth of them) store,
# measured with the import as it was before players were staged and written at the end (commit 7c0adb7):
# what is stored must not change with how it is written.
STORED_DIGESTS = ("17433f91d9a0e86e", "03406921f7dc765c")


def test_two_imports_store_the_same_rows_as_before(monkeypatch):
    monkeypatch.setattr(fide_list_services, "BATCH_ROWS", 64)
    rows = generated_rows(300)
    fide_list_import(io.BytesIO(txt(write_fide_list_txt(rows))), list_date=LIST_DATE)
    first = digest(stored_rows())
    changed = [
        dataclasses.replace(r, federation="FRA", title="IM") if i % 5 == 0 else r for i, r in enumerate(rows[:280])
    ]
    fide_list_import(io.BytesIO(txt(write_fide_list_txt(changed))), list_date=dt.date(2026, 11, 1))

    assert (first, digest(stored_rows())) == STORED_DIGESTS


def table_definitions() -> list[str]:
    """The players table's indexes and constraints as the catalog defines them."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'players_player' ORDER BY 2")
            return [repr(row) for row in cursor.fetchall()]
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'players_player' UNION ALL "
            "SELECT conname || ' ' || pg_get_constraintdef(oid) || ' ' || condeferred FROM pg_constraint "
            "WHERE conrelid = 'players_player'::regclass ORDER BY 1"
        )
        return [definition for (definition,) in cursor.fetchall()]


def test_a_first_load_rebuilds_the_players_indexes_and_stores_the_same_rows(monkeypatch):
    from django.db import transaction

    class Undone(Exception):
        pass

    rows = generated_rows(300)
    make_player(id_number=rows[7].fide_id)  # one registered already: updated, not inserted
    definitions = table_definitions()
    stored = {}
    rebuilt = []
    finish = fide_list_services.StagedUpsert.finish

    def watched(self):
        answer = finish(self)
        rebuilt.append(self.rebuilt)
        return answer

    monkeypatch.setattr(fide_list_services.StagedUpsert, "finish", watched)
    for rebuild_at in (None, 1):
        monkeypatch.setattr(fide_list_services, "_REBUILD_INDEXES_AT", rebuild_at)
        # PT012: the checks run inside the import's transaction, which Undone then rolls back
        with pytest.raises(Undone), transaction.atomic():  # noqa: PT012
            outcome = fide_list_import(io.BytesIO(txt(write_fide_list_txt(rows))), list_date=LIST_DATE)
            assert (outcome.players_created, outcome.players_updated) == (299, 1)
            assert table_definitions() == definitions
            stored[rebuild_at] = stored_rows()
            raise Undone
    assert rebuilt == [False, True]
    assert stored[1] == stored[None]


def test_a_first_load_refused_after_the_rebuild_leaves_the_table_as_it_was(monkeypatch):
    monkeypatch.setattr(fide_list_services, "_REBUILD_INDEXES_AT", 1)
    definitions, before = table_definitions(), row_counts()

    def refused(*args):
        raise IntegrityError("refused after the players were written")

    monkeypatch.setattr(fide_list_services, "_entries_write", refused)
    with pytest.raises(ValidationError, match="nothing was saved"):
        fide_list_import(io.BytesIO(txt(write_fide_list_txt(generated_rows(50)))), list_date=LIST_DATE)

    assert (table_definitions(), row_counts()) == (definitions, before)
