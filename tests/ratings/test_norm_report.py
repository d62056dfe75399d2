"""An event's norm report (B.01 1.4) from its own data, through the service, the API, the calculator and the command."""

from __future__ import annotations

import datetime
import json
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.utils import timezone

from events.models import ArbiterTitle, EventStatus, EventSystem, NormExemption, Result
from players.models import Player
from ratings.engine.norms import EXEMPTIONS
from ratings.services.norms import event_norm_report
from tests.factories import make_event, make_federation, make_game, make_participants, make_player
from tests.ratings.scenarios import starting_list

pytestmark = pytest.mark.django_db

START = datetime.date(2026, 3, 10)


def round_robin_pairs(n: int) -> list[list[tuple[int, int]]]:
    """Berger tables by the circle method: rounds of (white, black) indices for ``n`` (even) players."""
    rounds = []
    seats = list(range(n))
    for r in range(n - 1):
        rounds.append(
            [(seats[i], seats[n - 1 - i]) if r % 2 == 0 else (seats[n - 1 - i], seats[i]) for i in range(n // 2)]
        )
        seats = [seats[0], seats[-1], *seats[1:-1]]
    return rounds


@pytest.fixture
def round_robin():
    """A 10-player, 9-round round robin: the hero (ESP, 2450) scores 7/9 against opponents averaging 2400 from
    three federations, five GMs and four IMs — a GM norm (78 % -> dp 220 -> 2620); an unrated ESP player who
    scores nothing against the rated does not count for anyone (1.4.1)."""
    feds = {code: make_federation(code, code) for code in ("ESP", "FRA", "GER")}
    hero = make_player(
        surname="Hero", given_names="Ana", sex="F", federation=feds["ESP"], title="IM", women_title="WGM"
    )
    specs = [
        ("GM", "FRA"),
        ("GM", "FRA"),
        ("GM", "GER"),
        ("GM", "GER"),
        ("GM", "ESP"),
        ("IM", "FRA"),
        ("IM", "GER"),
        ("IM", "ESP"),
    ]
    opponents = [
        make_player(surname=f"Opp{i}", title=title, federation=feds[fed]) for i, (title, fed) in enumerate(specs)
    ]
    unrated = make_player(surname="Newcomer", federation=feds["ESP"])
    players = [hero, *opponents, unrated]
    starting_list(datetime.date(2026, 3, 1), {hero: 2450, **dict.fromkeys(opponents, 2400), unrated: None})
    event = make_event(
        name="Spring Round Robin",
        start_date=START,
        end_date=START + datetime.timedelta(days=8),
        rounds=9,
        system=EventSystem.ROUND_ROBIN,
        status=EventStatus.SUBMITTED,
        chief_arbiter_name="IA Jane Roe",  # B.01 1.1: an IA or FA; read from the name as TRF record 102 gives it
    )
    participants = make_participants(event, players)
    hero_losses_to = {opponents[0].id, opponents[1].id}  # 7 of 9: the hero beats all but two GMs
    for number, pairs in enumerate(round_robin_pairs(10), 1):
        for w, b in pairs:
            white, black = participants[w], participants[b]
            if hero.id in (white.player_id, black.player_id):
                other = black if white.player_id == hero.id else white
                hero_wins = other.player_id not in hero_losses_to
                hero_white = white.player_id == hero.id
                result = Result.WHITE_WIN if hero_wins == hero_white else Result.BLACK_WIN
            elif unrated.id in (white.player_id, black.player_id):
                result = Result.BLACK_WIN if white.player_id == unrated.id else Result.WHITE_WIN
            else:
                result = Result.DRAW
            make_game(event, number, white, black, result, date=START + datetime.timedelta(days=number - 1))
    return event, hero


def hero_norms(event, hero):
    (line,) = event_norm_report(event, hero.id_number)
    return {n.title: n for n in line.norms}


def test_the_event_report_finds_the_gm_norm_from_the_list_in_force_and_the_titles(round_robin):
    event, hero = round_robin
    norms = hero_norms(event, hero)
    assert list(norms) == ["GM", "IM", "WGM", "WIM"]  # a woman: the women's titles too
    gm = norms["GM"]
    # the unrated player scored 0 against the rated: the hero's win against her does not count (1.4.1)
    assert len(gm.games_used) == 8
    assert (gm.score, gm.percentage, gm.average_rating) == (6.0, 75, 2400)
    assert gm.performance == 2400 + 193
    assert not gm.norm  # 8 games in a round robin (no subsets), and 6/8 = 75 % gives 2593
    assert [c.rule for c in gm.checks if not c.ok] == ["1.4.1a", "1.4.8"]


def test_a_rated_newcomer_counts_and_the_norm_is_made(round_robin):
    event, hero = round_robin
    newcomer = event.participants.get(player__surname="Newcomer").player
    starting_list(datetime.date(2026, 3, 5), {p.player: 2400 for p in event.participants.select_related("player")})
    norms = hero_norms(event, hero)
    assert newcomer.surname == "Newcomer"
    gm = norms["GM"]
    assert gm.norm, [c for c in gm.checks if not c.ok]
    assert (gm.games, gm.score, gm.percentage, gm.average_rating, gm.performance) == (9, 7.0, 78, 2400, 2620)
    titled = [c for c in gm.checks if c.rule == "1.4.5"]
    assert [(c.actual, c.ok) for c in titled] == [("8", True), ("5", True)]


def test_the_report_reads_a_fixed_number_of_queries(round_robin, django_assert_max_num_queries):
    event, _ = round_robin
    with django_assert_max_num_queries(5):  # participants, games, the list in force, its entries, title awards
        report = event_norm_report(event)
    assert len(report) == 10


def test_the_api_reports_every_player(client, round_robin):
    event, hero = round_robin
    body = client.get(f"/api/v1/events/{event.pk}/norms/").json()
    assert body["players"][0]["id_number"] == hero.id_number
    gm = body["players"][0]["norms"][0]
    assert set(gm) >= {
        "title",
        "norm",
        "games",
        "score",
        "percentage",
        "average_rating",
        "performance",
        "raised_opponent",
        "required_score",
        "games_used",
        "checks",
    }
    assert gm["checks"][0] == {
        "rule": "1.4.1a",
        "required": "at least 9 games",
        "actual": "8",
        "ok": False,
        "key": "games",
        "params": {"amount": "9"},
    }


def test_the_norm_calculator_answers_as_the_engine(client):
    games = [
        {
            "round": i + 1,
            "opponent_rating": 2380,
            "opponent_title": "GM" if i < 5 else "IM",
            "opponent_federation": ("FRA", "GER", "ESP")[i % 3],
            "result": "1" if i < 7 else "0",
        }
        for i in range(9)
    ]
    payload = {"player": {"federation": "ESP", "sex": "M"}, "event": {"rounds": 9, "system": "swiss"}, "games": games}
    response = client.post("/api/v1/norms/check/", payload, content_type="application/json")
    assert response.status_code == 200, response.content
    norms = response.json()["norms"]
    assert [n["title"] for n in norms] == ["GM", "IM"]
    assert (norms[0]["norm"], norms[0]["performance"], norms[0]["required_score"]) == (True, 2600, 7.0)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"result": "2"}, "games"),
        ({"round": 0}, "games"),
        ({"opponent_title": "XX"}, "games"),
    ],
)
def test_the_norm_calculator_refuses_bad_games_naming_the_field(client, change, field):
    game = {"round": 1, "opponent_rating": 2400, "result": "1", **change}
    payload = {"player": {"federation": "ESP", "sex": "M"}, "event": {"rounds": 9}, "games": [game]}
    response = client.post("/api/v1/norms/check/", payload, content_type="application/json")
    assert response.status_code == 400
    assert field in response.json()


def test_the_command_prints_each_norm_and_what_failed(round_robin):
    event, hero = round_robin
    out = StringIO()
    call_command("norm_report", str(event.pk), "--player", str(hero.id_number), stdout=out)
    text = out.getvalue()
    assert f"{hero.id_number} Hero, Ana: GM no norm — 6/8, Ra 2400, Rp 2593" in text
    assert "1.4.1a: at least 9 games; has 8" in text
    out = StringIO()
    call_command("norm_report", str(event.pk), "--json", stdout=out)
    assert len(json.loads(out.getvalue())["players"]) == 10


def test_the_command_refuses_an_unknown_event_or_player(round_robin):
    event, _ = round_robin
    with pytest.raises(CommandError, match="no such event"):
        call_command("norm_report", "999999")
    with pytest.raises(CommandError, match="not a participant"):
        call_command("norm_report", str(event.pk), "--player", "1")


def pdf_text_of(content: bytes) -> str:
    from io import BytesIO

    from pypdf import PdfReader

    return "\n".join(page.extract_text() for page in PdfReader(BytesIO(content)).pages)


@pytest.fixture
def norm_made(round_robin):
    event, hero = round_robin
    starting_list(datetime.date(2026, 3, 5), {p.player: 2400 for p in event.participants.select_related("player")})
    return event, hero


def test_the_event_norms_page_lists_the_norm_with_its_certificate(client, norm_made):
    event, hero = norm_made
    page = client.get(f"/events/{event.pk}/norms/").content.decode()
    assert "Hero, Ana" in page
    assert f"/events/{event.pk}/norms/{hero.id_number}/it1.pdf?title=GM" in page
    assert "1.4.5" in page
    spanish = client.get(f"/events/{event.pk}/norms/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Normas" in spanish


def test_the_it1_certificate_holds_the_numbers(client, norm_made):
    event, hero = norm_made
    response = client.get(f"/events/{event.pk}/norms/{hero.id_number}/it1.pdf?title=GM")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    text = pdf_text_of(response.content)
    for expected in (
        "IT1 - Certificate of GM title result",
        "Hero, Ana",
        str(hero.id_number),
        "Spring Round Robin",
        "Average of opponents (Ra)",
        "2400",
        "Performance (Rp)",
        "2620",
        "7 (78 %)",
        "Opp0",
        "Chief Arbiter",
    ):
        assert expected in text, expected


def test_no_certificate_without_a_norm_and_the_it3_lists_the_norms(client, round_robin, norm_made):
    event, hero = norm_made
    other = event.participants.get(player__surname="Newcomer").player  # lost every game
    assert client.get(f"/events/{event.pk}/norms/{other.id_number}/it1.pdf").status_code == 404
    assert client.get(f"/events/{event.pk}/norms/{hero.id_number}/it1.pdf?title=XX").status_code == 404
    text = pdf_text_of(client.get(f"/events/{event.pk}/it3.pdf").content)
    assert "IT3 - Tournament report" in text
    assert "Hero, Ana" in text


def test_the_event_conditions_of_b01_1_1_are_checked(norm_made):
    event, hero = norm_made
    gm = hero_norms(event, hero)["GM"]
    assert [(c.required, c.actual, c.ok) for c in gm.checks if c.rule == "1.1"] == [
        ("at most 2 rounds a day", "1", True),
        ("Chief Arbiter IA or FA", "IA", True),
    ]
    # three rounds on the first day, and no arbiter's title recorded: both named, the norm withheld
    event.games.filter(round__in=(2, 3)).update(date=START)
    event.chief_arbiter_name = "Jane Roe"
    event.save()
    gm = hero_norms(event, hero)["GM"]
    assert not gm.norm
    assert [(c.actual, c.ok) for c in gm.checks if c.rule == "1.1"] == [("3", False), ("not recorded", False)]
    event.chief_arbiter_title = ArbiterTitle.FA
    event.save()
    assert [c.actual for c in hero_norms(event, hero)["GM"].checks if c.rule == "1.1"] == ["3", "FA"]


def test_an_exempt_event_waives_the_federation_mix(norm_made):
    event, hero = norm_made
    Player.objects.filter(participations__event=event).update(federation="ESP")
    assert [c.rule for c in hero_norms(event, hero)["GM"].checks if not c.ok] == ["1.4.3", "1.4.4"]
    event.norm_exemption = NormExemption.NATIONAL_CHAMPIONSHIP
    event.save()
    assert hero_norms(event, hero)["GM"].norm


def test_the_exemptions_are_one_vocabulary():
    assert ("", *NormExemption.values) == EXEMPTIONS


def test_the_admin_shows_an_arbiter_the_norm_report_of_their_own_events_only(norm_made):
    from tests.events.test_admin_roles import client_for, make_arbiter

    event, _ = norm_made
    own, other = make_arbiter("own"), make_arbiter("other")
    event.chief_arbiter = own
    event.status = EventStatus.DRAFT  # a draft: not public yet, the arbiter sees it here
    event.save()
    page = client_for(own).get(f"/admin/ratings/eventnorms/{event.pk}/change/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Hero, Ana" in text
    assert "1.4.5" in text
    listing = client_for(other).get("/admin/ratings/eventnorms/").content.decode()
    assert "Spring Round Robin" not in listing
    assert client_for(other).get(f"/admin/ratings/eventnorms/{event.pk}/change/").status_code == 302


def test_the_admin_norm_calculator_checks_pasted_games_and_names_a_bad_line():
    from tests.events.test_admin_roles import client_for, make_arbiter

    client = client_for(make_arbiter())
    lines = "\n".join(
        f"{i + 1} 2380 {'GM' if i < 5 else 'IM'} {('FRA', 'GER', 'ESP')[i % 3]} {'1' if i < 7 else '0'}"
        for i in range(9)
    )
    data = {"federation": "ESP", "sex": "M", "rounds": 9, "system": "swiss", "exemption": "", "title": "GM"}
    page = client.post("/admin/ratings/eventnorms/calculator/", {**data, "games": lines}).content.decode()
    assert "GM: norm" in page
    assert "Rp 2600" in page
    refused = client.post(
        "/admin/ratings/eventnorms/calculator/", {**data, "games": "1 2380 GM FRA 2"}
    ).content.decode()
    assert "Line 1: the result must be one of 1, 0.5, 0, +, -, bye" in refused


@pytest.mark.parametrize("argument", ["abc", "4" * 5000, "-3"])
def test_the_commands_refuse_a_bad_event_number_without_a_traceback(argument):
    for command in ("norm_report", "export_trf"):
        with pytest.raises(CommandError, match="expected a number such as 42"):
            call_command(command, argument)


def test_submission_keeps_the_norms_made_and_the_profile_shows_them(client, norm_made):
    from events.services import event_submit
    from ratings.models import NormRecord
    from tests.events.test_admin_roles import make_officer

    event, hero = norm_made
    event.status = EventStatus.DRAFT
    event.save()
    event_submit(event, user=make_officer())
    record = NormRecord.objects.get(event=event, player=hero, title="GM")
    assert (record.games, record.score, record.average_rating, record.performance) == (9, 7.0, 2400, 2620)
    profile = client.get(f"/players/{hero.id_number}/").content.decode()
    assert "GM: norms covering 9 of the 27 games an application needs" in profile
    assert "Toward a GM application (B.01 1.5)" in profile
    assert "1.5: norms covering at least 27 games — 9" in profile
    assert record.one_round_a_day  # one round a day for nine days (1.1.3a)
    assert not record.qualifying  # a 10-player round robin is none of 1.5.6's events
    assert f"/events/{event.pk}/norms/{hero.id_number}/it1.pdf?title=GM" in profile


def test_the_rating_officer_countersigns_and_a_correction_that_changes_the_figures_voids_it(client, norm_made):
    from audit.models import AuditEvent
    from events.services import GameEdit, event_correct
    from ratings.models import NormRecord
    from ratings.services.norms import event_norms_store, norms_countersign
    from tests.events.test_admin_roles import make_arbiter, make_officer

    event, hero = norm_made
    event_norms_store(event)
    officer = make_officer("officer")
    with pytest.raises(ValidationError):
        norms_countersign(list(NormRecord.objects.filter(event=event)), user=make_arbiter())
    assert norms_countersign(list(NormRecord.objects.filter(event=event, player=hero)), user=officer) >= 1
    assert AuditEvent.objects.filter(action="norm.countersign").exists()
    text = pdf_text_of(client.get(f"/events/{event.pk}/norms/{hero.id_number}/it1.pdf?title=GM").content)
    assert "Countersigned by the rating officer: officer" in text
    event_norms_store(event)  # recomputed with the same figures: the signature stays
    assert NormRecord.objects.get(event=event, player=hero, title="GM").countersigned_at is not None
    # a correction: the hero's win against Opp2 becomes a draw (6.5/9 = 72 % -> 2566: no GM norm any more)
    event.status = EventStatus.RATED
    event.save()
    game = event.games.filter(white__player=hero, black__player__surname="Opp2").first() or event.games.get(
        black__player=hero, white__player__surname="Opp2"
    )
    event_correct(
        event,
        user=officer,
        reason="score sheet",
        edits=[
            GameEdit(
                game_id=game.pk,
                round=game.round,
                board=game.board,
                white_id=game.white_id,
                black_id=game.black_id,
                result=Result.DRAW,
                date=game.date,
            )
        ],
    )
    assert not NormRecord.objects.filter(event=event, player=hero, title="GM").exists()


def test_a_title_awarded_after_the_start_does_not_count(norm_made):
    from players.models import TitleAward

    event, hero = norm_made
    # Opp4 was made GM after the event: at its start she had no title recorded, so 4 GMs, 7 titled remain.
    opp4 = Player.objects.get(surname="Opp4")
    TitleAward.objects.create(player=opp4, title="GM", date=START + datetime.timedelta(days=60), method="norms")
    titled = [(c.actual, c.ok) for c in hero_norms(event, hero)["GM"].checks if c.rule == "1.4.5"]
    assert titled == [("7", True), ("4", True)]


def test_the_dashboard_names_a_player_whose_norms_and_rating_complete_an_application(norm_made):
    from ratings.models import NormRecord
    from tests.events.test_admin_roles import client_for, make_officer

    _, hero = norm_made
    starting_list(datetime.date(2026, 5, 1), {hero: 2510})
    common = {"title": "GM", "games": 9, "score": 7, "average_rating": 2400, "performance": 2620}
    facts = {"one_round_a_day": True, "qualifying": True, "computed_at": timezone.now()}
    for number in range(3):
        other = make_event(name=f"Norm event {number}", status=EventStatus.RATED, start_date=START)
        NormRecord.objects.create(event=other, player=hero, **common, **facts)
    page = client_for(make_officer()).get("/admin/").content.decode()
    assert "Title applications complete" in page
    assert f"?player={hero.pk}&amp;title=GM&amp;method=norms" in page
    # the GM norms complete IM, WGM and WIM applications too, but the hero holds IM and WGM (and so WIM)
    assert f"?player={hero.pk}&amp;title=IM" not in page
    assert f"?player={hero.pk}&amp;title=WIM" not in page


def test_followers_hear_of_a_norm_once(norm_made):
    from outbox.models import WebhookDelivery, WebhookEndpoint
    from ratings.services.norms import event_norms_store

    event, hero = norm_made
    WebhookEndpoint.objects.create(url="https://example.org/hook", secret="s", events=["norm.made"])
    event_norms_store(event)
    deliveries = [json.loads(d.body)["data"] for d in WebhookDelivery.objects.filter(event_type="norm.made")]
    heroes = [d for d in deliveries if d["player"]["id_number"] == hero.id_number]
    assert [d["norm"]["title"] for d in heroes] == ["GM"]
    assert heroes[0]["norm"]["performance"] == 2620
    event_norms_store(event)  # the same norms again (a correction elsewhere): nothing new to tell
    assert WebhookDelivery.objects.filter(event_type="norm.made").count() == len(deliveries)


def test_the_norm_pages_speak_spanish_every_requirement_included(client, norm_made):
    from django.utils import translation

    from ratings.engine.norms import NOT_RECORDED, REQUIREMENTS

    event, _ = norm_made
    page = client.get(f"/events/{event.pk}/norms/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "al menos 9 partidas" in page
    assert "Ra de al menos 2380" in page
    assert "at least" not in page
    with translation.override("es"):
        untranslated = [text for text in [*REQUIREMENTS.values(), NOT_RECORDED] if translation.gettext(text) == text]
    assert untranslated == []
