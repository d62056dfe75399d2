"""Hostile input is refused with a message, never a server error and never a partial import.

Property-based (hypothesis): real TRF files and FIDE lists mutated byte by byte and line by line, the
calculator fed mutated JSON, public URLs fed hostile query strings — a few thousand inputs in all, tuned to
keep this folder well under two minutes.
"""

from __future__ import annotations

import datetime
import io
import itertools
import json

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.utils.html import escape
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.mutations import SMALL_TRF, SMALL_TRF_SEEDS, TRF_SEEDS, fide_list_seed, mutated


def fuzz(examples: int) -> settings:
    # No example database: each run draws afresh (the suite stays deterministic in length, not in inputs).
    return settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))


# The seed files and their mutations are defined once, in tests/mutations.py (the trust command,
# bench/trust.py, uses them too).


# -------------------------------------------------------------------------------------------- TRF parser


def test_trf_parser_exists_with_its_documented_api():
    from events.trf import TrfParseResult, TrfProblem, parse_trf, write_trf

    result = parse_trf(SMALL_TRF.encode(), source_name="small.trf")
    assert isinstance(result, TrfParseResult), [str(p) for p in result.problems]
    assert result.ok, [str(p) for p in result.problems]
    assert len(result.players) == 4
    assert len(result.games()) == 6
    assert all(isinstance(p, TrfProblem) for p in result.problems)
    assert callable(write_trf)


@fuzz(400)
@given(data=mutated(TRF_SEEDS))
def test_mutated_trf_files_never_crash_the_parser_and_every_problem_names_its_line(data):
    from events.trf import ERROR, WARNING, parse_trf, write_trf

    result = parse_trf(data, source_name="upload.trf")
    line_count = len(data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"))
    for problem in result.problems:
        assert problem.severity in (ERROR, WARNING)
        assert 0 <= problem.line <= line_count + 1, str(problem)
        assert problem.message.strip(), problem
        assert str(problem)  # printable for the upload's refusal message
    assert result.ok == (not result.errors)
    games = result.games()
    ranks = {p.start_rank for p in result.players}
    assert all(g.white in ranks and (g.black is None or g.black in ranks) for g in games)
    if result.ok:
        # Accepted files can be written back as TRF-2026 and read again without errors.
        again = parse_trf(write_trf(result.tournament))
        assert again.ok, [str(p) for p in again.errors][:5]
        assert len(again.players) == len(result.players)


# -------------------------------------------------------------------------------------------- FIDE lists


def test_fide_list_reader_exists_with_its_documented_api():
    from ratings.fide_list import FideListRow, iter_fide_list

    rows = list(iter_fide_list(io.BytesIO(fide_list_seed())))
    assert len(rows) == 6
    assert all(isinstance(r, FideListRow) for r in rows)
    assert rows[1].title == "FM"
    assert rows[3].inactive


@fuzz(600)
@given(data=mutated([fide_list_seed()]), as_xml=st.booleans())
def test_mutated_fide_lists_never_crash_the_reader(data, as_xml):
    from ratings.fide_list import FideListFormatError, FideListReader, FideListRow, write_fide_list_xml

    if as_xml:
        # The same rows as XML, mutated at the byte level.
        from ratings.fide_list import iter_fide_list

        rows = list(iter_fide_list(io.BytesIO(fide_list_seed())))
        xml = "".join(write_fide_list_xml(rows)).encode()
        cut = len(data) % max(len(xml), 1)
        data = xml[:cut] + data[:64] + xml[cut:]
    reader = FideListReader(io.BytesIO(data))
    try:
        rows = list(reader)
    except FideListFormatError as refusal:  # a refusal is one of the two allowed outcomes, not required
        assert str(refusal).strip()  # noqa: PT017
        return
    for row in rows:
        assert isinstance(row, FideListRow)
        assert 0 < row.fide_id < 2**63, row  # fits the database's bigint
        for rating_type in ("standard", "rapid", "blitz"):
            rating = row.rating(rating_type)
            if rating is not None and rating.rating is not None:
                assert 0 < rating.rating < 2**15, row  # fits the entry's smallint
    for problem in reader.problems:
        assert problem.message.strip()


def database_state() -> dict[str, int]:
    from players.models import Federation, Player
    from ratings.models import PlayerRating, RatingList, RatingListEntry

    return {
        model.__name__: model.objects.count()
        for model in (Federation, Player, RatingList, RatingListEntry, PlayerRating)
    }


_list_dates = itertools.count()


@fuzz(80)
@given(data=mutated([fide_list_seed(12)]))
def test_fide_list_import_of_a_mutated_file_is_all_or_nothing(db, data):
    from ratings.services.fide_list_import import fide_list_import

    list_date = datetime.date(2000, 1, 1) + datetime.timedelta(days=next(_list_dates))
    before = database_state()
    try:
        outcome = fide_list_import(io.BytesIO(data), list_date=list_date, source_name="players_list_foa.txt")
    except ValidationError as refusal:  # a refusal is one of the two allowed outcomes, not required
        assert "".join(refusal.messages).strip()  # noqa: PT017
        assert database_state() == before, "a refused import left rows behind"
        return
    after = database_state()
    written = sum(outcome.entries.values())
    assert after["RatingListEntry"] - before["RatingListEntry"] == written
    assert after["RatingList"] - before["RatingList"] == len(outcome.rating_lists)


# -------------------------------------------------------------------------------------------- the API

CALCULATOR = "/api/v1/calculator/"
VALID_CALCULATION = {
    "rules": "fide-2024",
    "rating": 2000,
    "k_factor": 20,
    "games": [{"opponent_rating": 2100, "score": 1}, {"opponent_rating": 1900, "score": 0.5}],
}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.sampled_from(["1e309", "NaN", "-Infinity", "½", "\u0000", "2000", ""]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)


@st.composite
def mutated_calculation(draw):
    payload = json.loads(json.dumps(VALID_CALCULATION))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["replace", "drop", "add", "game", "games", "whole"]))
        key = draw(
            st.sampled_from(["rules", "rating", "k_factor", "games", "rating_type", "rated_games_total", "birth_year"])
        )
        if kind == "replace" and isinstance(payload, dict):
            payload[key] = draw(json_values)
        elif kind == "drop" and isinstance(payload, dict):
            payload.pop(key, None)
        elif kind == "add" and isinstance(payload, dict):
            payload[draw(st.text(max_size=10))] = draw(json_values)
        elif kind == "game" and isinstance(payload, dict) and isinstance(payload.get("games"), list):
            games = payload["games"]
            if games and isinstance(games[0], dict):
                games[0][draw(st.sampled_from(["opponent_rating", "score", "extra"]))] = draw(json_values)
        elif kind == "games" and isinstance(payload, dict):
            payload["games"] = [
                {
                    "opponent_rating": draw(st.integers(-5000, 5000)),
                    "score": draw(st.sampled_from([0, 0.5, 1, 2, -1, 0.25])),
                }
            ] * draw(st.integers(0, 300))
        elif kind == "whole":
            payload = draw(json_values)
    return payload


def post_json(client, body: bytes | str):
    cache.clear()  # the anonymous API throttle counts in the cache
    return client.post(CALCULATOR, data=body, content_type="application/json")


def test_calculator_endpoint_exists_and_answers_a_valid_request(client, db):
    response = post_json(client, json.dumps(VALID_CALCULATION))
    assert response.status_code == 200, response.content
    assert response.json()["mode"] == "change"


@fuzz(300)
@given(payload=mutated_calculation())
def test_calculator_answers_mutated_json_with_200_or_400_naming_the_fields(client, db, payload):
    response = post_json(client, json.dumps(payload))
    assert response.status_code in (200, 400), (response.status_code, payload)
    body = response.json()
    if response.status_code == 400:
        assert isinstance(body, (dict, list)), payload
        assert body, payload
        if isinstance(body, dict):
            assert all(isinstance(k, str) and k for k in body), body


@fuzz(200)
@given(body=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_calculator_answers_malformed_bodies_with_400(client, db, body):
    response = post_json(client, body)
    assert response.status_code == 400 or (response.status_code == 200 and json.loads(body)), body
    assert response.json()


@pytest.mark.parametrize(
    "body",
    [
        "[" * 5000 + "]" * 5000,  # nesting deeper than the JSON parser's recursion limit
        '{"rating": 1' + "0" * 5000 + "}",  # a number too long to convert
        json.dumps({**VALID_CALCULATION, "games": [{"opponent_rating": 2000, "score": 1}] * 100_000}),
    ],
)
def test_calculator_refuses_pathological_json_with_400(client, db, body):
    assert post_json(client, body).status_code == 400


# ---------------------------------------------------------------------------------------- public URLs

PUBLIC_QUERIES = {
    "/players/": ["q", "federation", "page"],
    "/api/v1/players/": ["q", "federation", "page", "page_size"],
    "/api/v1/rating-lists/": ["rating_type", "page"],
    "/lists/": ["page"],
    "/events/": ["page"],
    "/api/v1/events/": ["page", "page_size"],
}
hostile_text = st.text(max_size=30) | st.sampled_from(
    [
        "\u0000",
        "a\u0000b",
        "x" * 5000,
        "-1",
        "0",
        "99999999999999999999999",
        "1e9",
        "' OR 1=1 --",
        "%",
        "_",
        "\\",
        "../../etc/passwd",
        "<script>alert(1)</script>",
        "\ud7ff\ue000",
        "NaN",
    ]
)


@fuzz(300)
@given(url=st.sampled_from(sorted(PUBLIC_QUERIES)), data=st.data())
def test_public_pages_and_api_never_answer_500_to_hostile_query_strings(client, db, url, data):
    params = {name: data.draw(hostile_text) for name in PUBLIC_QUERIES[url] if data.draw(st.booleans())}
    assume(params)
    cache.clear()
    response = client.get(url, params)
    assert response.status_code < 500, (url, params)


def test_nul_character_in_a_query_string_is_refused_with_400_naming_the_parameter(client, db):
    response = client.get("/players/", {"q": "Carl\u0000sen"})
    assert response.status_code == 400
    assert "The query parameter 'q' contains a NUL character" in response.content.decode()


# --------------------------------------------------------------------------------------- request sizes


def test_request_body_above_the_ceiling_is_refused_with_413_before_it_is_read(client, db, settings):
    settings.REQUEST_MAX_BYTES = 64 * 1024
    body = "x" * (64 * 1024 + 1)
    for url in (CALCULATOR, "/admin/login/"):
        response = client.post(url, data=body, content_type="application/json")
        assert response.status_code == 413, url
        assert f"Request too large: {len(body)} bytes; the limit is 65536 bytes." in response.content.decode()


def test_file_upload_above_the_ceiling_is_refused_with_413(client, db, settings):
    settings.REQUEST_MAX_BYTES = 64 * 1024
    upload = io.BytesIO(SMALL_TRF.encode() * 1000)
    upload.name = "huge.trf"
    response = client.post("/admin/login/", {"file": upload, "username": "x", "password": "y"})
    assert response.status_code == 413


def test_form_body_above_data_upload_max_memory_size_is_refused_with_400_not_500(client, db, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    response = client.post("/admin/login/", {"username": "u" * 5000, "password": "p"})
    assert response.status_code == 400


def test_oversized_json_to_the_api_is_refused(client, db, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    body = json.dumps({**VALID_CALCULATION, "padding": "x" * 10_000})
    assert post_json(client, body).status_code in (400, 413)


@pytest.mark.parametrize("length", ["abc", "-5", "1e3"])
def test_malformed_content_length_is_refused_with_400(client, db, length):
    response = client.generic("POST", CALCULATOR, b"{}", content_type="application/json", CONTENT_LENGTH=length)
    assert response.status_code == 400
    assert "Malformed Content-Length" in response.content.decode()


def test_settings_keep_the_trf_upload_limit_within_the_request_ceiling():
    from django.conf import settings as project

    assert project.TRF_UPLOAD_MAX_BYTES < project.REQUEST_MAX_BYTES
    assert project.DATA_UPLOAD_MAX_MEMORY_SIZE < project.REQUEST_MAX_BYTES


# ------------------------------------------------------------------------------------------ TRF uploads

TRF_UPLOAD = "/admin/events/event/upload-trf/"


def event_state() -> dict[str, int]:
    from events.models import Event, Game, Participant
    from players.models import Federation, Player

    return {model.__name__: model.objects.count() for model in (Event, Participant, Game, Player, Federation)}


@pytest.fixture
def arbiter_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("uploader", "uploader@example.org", "pw")
    client.force_login(user)
    return client


def upload_trf(client, data: bytes, name: str = "upload.trf", **fields):
    upload = io.BytesIO(data)
    upload.name = name
    return client.post(TRF_UPLOAD, {"file": upload, "rating_type": "", **fields})


def test_trf_upload_endpoint_imports_a_valid_file(arbiter_client):
    before = event_state()
    response = upload_trf(arbiter_client, SMALL_TRF.encode())
    assert response.status_code == 200
    outcome = response.context["outcome"]
    assert outcome is not None, [str(p) for p in outcome.problems]
    assert outcome.event is not None, [str(p) for p in outcome.problems]
    after = event_state()
    assert after["Event"] == before["Event"] + 1
    assert after["Game"] == before["Game"] + 6


@fuzz(60)
@given(data=mutated(SMALL_TRF_SEEDS))
def test_mutated_trf_uploads_are_imported_whole_or_refused_with_nothing_saved(arbiter_client, data):
    before = event_state()
    response = upload_trf(arbiter_client, data)
    assert response.status_code == 200
    outcome = response.context["outcome"]
    if outcome is None:  # the form refused the file itself (empty upload)
        assert response.context["form"].errors
        assert event_state() == before
        return
    if outcome.event is None:
        assert outcome.errors
        assert outcome.refusal_message().startswith("refused, nothing imported")
        assert event_state() == before, "a refused TRF left rows behind"
        page = response.content.decode()
        assert 'id="trf-refused"' in page
        assert escape(outcome.errors[0].message) in page
    else:
        from events.models import Game

        after = event_state()
        assert after["Event"] == before["Event"] + 1
        assert Game.objects.filter(event=outcome.event).count() == outcome.games


def test_trf_upload_above_the_trf_limit_is_refused_with_its_size(arbiter_client, settings):
    settings.TRF_UPLOAD_MAX_BYTES = 2048
    before = event_state()
    data = SMALL_TRF.encode() * 3
    response = upload_trf(arbiter_client, data, name="big.trf")
    assert response.status_code == 200
    message = f"big.trf is {len(data):,} bytes; a TRF file may have at most 2,048 bytes"
    assert message in response.content.decode()
    assert event_state() == before


def test_trf_upload_above_the_request_ceiling_is_refused_with_413(arbiter_client, settings):
    settings.REQUEST_MAX_BYTES = 8192
    before = event_state()
    response = upload_trf(arbiter_client, SMALL_TRF.encode() * 20, name="huge.trf")
    assert response.status_code == 413
    assert event_state() == before


@pytest.mark.parametrize(
    ("old", "new"),
    [(b"012 Hostile", b"012 \x00ostile"), (b"Alpha, Ana", b"Al\x00ha, Ana"), (b"Valencia", b"Val\x1bencia")],
    ids=["nul-in-event-name", "nul-in-player-name", "escape-in-city"],
)
def test_control_characters_in_a_trf_never_cause_a_server_error(arbiter_client, old, new):
    # PostgreSQL refuses NUL in text: the import must refuse the file (naming the line) or clean the text.
    before = event_state()
    response = upload_trf(arbiter_client, SMALL_TRF.encode().replace(old, new))
    assert response.status_code == 200
    outcome = response.context["outcome"]
    if outcome.event is None:
        assert event_state() == before
        assert outcome.errors
    else:
        from events.models import Event

        stored = Event.objects.get(pk=outcome.event.pk)
        assert "\x00" not in stored.name + stored.city


def test_nul_in_a_fide_list_name_is_refused_or_cleaned_never_a_crash(db):
    from players.models import Player
    from ratings.services.fide_list_import import fide_list_import

    data = fide_list_seed(3).replace(b"Player1, Test", b"Play\x00r1, Test")
    before = database_state()
    try:
        fide_list_import(io.BytesIO(data), list_date=datetime.date(1999, 1, 1), source_name="players_list_foa.txt")
    except ValidationError:
        assert database_state() == before
        return
    # (compared in Python: PostgreSQL refuses a NUL even as a query parameter)
    assert all("\x00" not in name for name in Player.objects.values_list("surname", flat=True))
