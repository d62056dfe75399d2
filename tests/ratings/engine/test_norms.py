"""Title norms (B.01 1.4): titles-norms.md §3's worked examples, each requirement failing alone, and §6's traps."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.engine.norms import NormEvent, NormGame, NormPlayer, NormResult, NormRules, check_norms

PLAYER = NormPlayer(federation="ESP", sex="M")
SWISS9 = NormEvent(rounds=9, system="swiss")


def games_against(
    ratings: list[int | None],
    results: list[str],
    titles: list[str] | None = None,
    federations: list[str] | None = None,
    opponents: list[str] | None = None,
) -> list[NormGame]:
    n = len(ratings)
    titles = titles or ["GM"] * 5 + ["IM"] * (n - 5)
    federations = federations or (["ESP", "FRA", "GER"] * n)[:n]
    opponents = opponents or [f"p{i}" for i in range(n)]
    return [
        NormGame(
            round=i + 1,
            result=results[i],
            opponent=opponents[i],
            opponent_rating=ratings[i],
            opponent_title=titles[i],
            opponent_federation=federations[i],
        )
        for i in range(n)
    ]


def score_results(n: int, score: float) -> list[str]:
    """n results adding up to ``score``: wins first, then a draw, then losses."""
    wins = int(score)
    return ["1"] * wins + (["0.5"] if score != wins else []) + ["0"] * (n - wins - (score != wins))


def gm(player: NormPlayer, event: NormEvent, games: list[NormGame], rules: NormRules | None = None) -> NormResult:
    return check_norms(player, event, games, "GM", rules)[0]


def failing(result: NormResult) -> list[tuple[str, str]]:
    return [(c.rule, c.required) for c in result.checks if not c.ok]


def base_gm_norm() -> list[NormGame]:
    # 9 games against 2450 (5 GM, 4 IM; ESP, FRA, GER three each), 6½ points: 72 % -> dp 166 -> Rp 2616.
    return games_against([2450] * 9, ["1", "0.5", "1", "0.5", "1", "1", "0.5", "0.5", "0.5"])


def test_a_plain_gm_norm_reports_every_requirement_met():
    result = gm(PLAYER, SWISS9, base_gm_norm())
    assert result.norm, failing(result)
    assert (result.games, result.score, result.percentage, result.average_rating, result.performance) == (
        9,
        6.5,
        72,
        2450,
        2616,
    )
    assert result.games_used == tuple(range(1, 10))
    assert result.raised_opponent is None
    assert {c.rule for c in result.checks} == {"1.4.1a", "1.4.3", "1.4.4", "1.4.5", "1.4.7", "1.4.8"}


def test_fides_example_seven_of_nine_against_2380_is_a_gm_performance():
    # titles-norms.md §3.7: 7/9 = 77.8 % -> 78 % -> dp 220 -> 2600 against an average of 2380.
    result = gm(PLAYER, SWISS9, games_against([2380] * 9, score_results(9, 7)))
    assert (result.percentage, result.average_rating, result.performance) == (78, 2380, 2600)
    assert result.norm, failing(result)


@pytest.mark.parametrize(
    ("average", "score", "performance", "norm", "required"),
    [(2460, 6.5, 2626, True, 6.5), (2460, 6, 2585, False, 6.5), (2680, 3.5, 2600, True, 3.5)],
)
def test_the_published_nine_round_summary(average, score, performance, norm, required):
    # §3.7: against 2460, 6½/9 is needed (72 % -> 2626; 6/9 gives 2585); against 2680, 3½/9 (39 % -> -80 -> 2600).
    result = gm(PLAYER, SWISS9, games_against([average] * 9, score_results(9, score)))
    assert result.performance == performance
    assert result.norm is norm
    assert result.required_score == required
    if not norm:
        assert failing(result) == [("1.4.8", "Rp at least 2600")]


def test_the_open_calculators_vectors_ra_and_rp():
    # §3.7: plain performance, no floor applied (all opponents above the WIM floor).
    first = games_against(
        [2441, 2381, 2409, 2313, 2357, 2314, 2410, 2515], ["0", "0", "1", "0.5", "0.5", "1", "1", "0.5"]
    )
    second = games_against([2277, 2180, 2322, 2185, 2308, 1864, 2388], ["1", "0.5", "1", "0.5", "0", "1", "0.5"])
    woman = NormPlayer("ESP", "F")
    for games, ra, rp in ((first, 2393, 2436), (second, 2218, 2320)):
        result = check_norms(woman, NormEvent(rounds=len(games)), games, "WIM")[0]
        assert (result.average_rating, result.performance) == (ra, rp)
        assert result.raised_opponent is None


def _mutated(**changes: object) -> list[NormGame]:
    games = base_gm_norm()
    for index, fields in changes.items():
        games[int(index[1:])] = dataclasses.replace(games[int(index[1:])], **fields)  # type: ignore[arg-type]
    return games


@pytest.mark.parametrize(
    ("games", "rule"),
    [
        # 1.4.1a: one game forfeited leaves 8 played games in a 10-round event (no 1.4.1c).
        ([*base_gm_norm()[:8], NormGame(round=9, result="-", opponent_rating=2450)], "1.4.1a"),
        # 1.4.3: only one federation other than the player's (FRA five, ESP four).
        (games_against([2450] * 9, score_results(9, 6.5), federations=["ESP"] * 4 + ["FRA"] * 5), "1.4.3"),
        # 1.4.4: six from the player's own federation (at most 5 of 9).
        (games_against([2450] * 9, score_results(9, 6.5), federations=["ESP"] * 6 + ["FRA", "GER", "ITA"]), "1.4.4"),
        # 1.4.4: seven from one other federation (at most 6 of 9).
        (games_against([2450] * 9, score_results(9, 6.5), federations=["FRA"] * 7 + ["GER", "ITA"]), "1.4.4"),
        # 1.4.5: four titled (CM does not count) of nine.
        (games_against([2450] * 9, score_results(9, 6.5), titles=["GM"] * 3 + ["IM"] + ["CM"] * 5), "1.4.5"),
        # 1.4.5: two GMs only (at least 3 of the target title).
        (games_against([2450] * 9, score_results(9, 6.5), titles=["GM"] * 2 + ["IM"] * 7), "1.4.5"),
        # 1.4.7: Ra 2370 < 2380 though the performance is 2621 (score 8/9).
        (games_against([2370] * 9, score_results(9, 7.5)), "1.4.7"),
        # 1.4.8: Rp 2585.
        (games_against([2460] * 9, score_results(9, 6)), "1.4.8"),
    ],
)
def test_each_requirement_failing_alone(games, rule):
    result = gm(PLAYER, NormEvent(rounds=10 if rule == "1.4.1a" else 9, system="round-robin"), games)
    assert not result.norm
    assert [r for r, _ in failing(result)] == [rule]


def test_the_minimum_score_alone_and_both_readings_of_35_percent():
    # 4½/13 = 34.6 %: fails on the raw score (default), passes on the rounded percentage (titles-norms.md §9).
    games = games_against(
        [2900] * 13, score_results(13, 4.5), titles=["GM"] * 13, federations=["FRA", "GER"] * 6 + ["ITA"]
    )
    event = NormEvent(rounds=13, system="round-robin")
    strict = gm(PLAYER, event, games)
    assert failing(strict) == [("1.4.8", "score at least 35 %")]
    assert gm(PLAYER, event, games, NormRules(min_score_rounded=True)).norm


def test_the_floor_raises_the_lowest_opponent_only():
    ratings: list[int | None] = [2100, 2150, 2450, 2500, 2550, 2600, 2600, 2650, 2650]
    result = gm(PLAYER, NormEvent(rounds=9, system="round-robin"), games_against(ratings, score_results(9, 6.5)))
    # 2100 -> 2200 only; 2150 stays: (sum + 100) / 9 = 22350 / 9 = 2483.3 -> 2483.
    assert result.raised_opponent is not None
    assert (result.raised_opponent.round, result.raised_opponent.rating, result.raised_opponent.raised_to) == (
        1,
        2100,
        2200,
    )
    assert result.average_rating == 2483


def test_an_unrated_lowest_opponent_counts_1400_then_is_raised_to_the_floor():
    ratings: list[int | None] = [None, 2450, 2450, 2450, 2450, 2450, 2450, 2450, 2450]
    im = check_norms(PLAYER, NormEvent(rounds=9, system="round-robin"), games_against(ratings, ["1"] * 9), "IM")[0]
    assert im.raised_opponent is not None
    assert (im.raised_opponent.rating, im.raised_opponent.raised_to) == (1400, 2050)
    assert im.average_rating == (2050 + 8 * 2450 + 4) // 9


def test_forfeits_and_byes_never_count_and_fid_is_never_a_federation():
    games = base_gm_norm()
    games[1] = dataclasses.replace(games[1], opponent_federation="FID")  # was FRA
    games[2] = dataclasses.replace(games[2], opponent_federation="FID")  # was GER
    # FRA x2 and GER x2 left: still 2 foreign; make the GER ones FID as well -> 1 foreign federation.
    only_fra = [
        dataclasses.replace(g, opponent_federation="FID") if g.opponent_federation == "GER" else g for g in games
    ]
    assert gm(PLAYER, SWISS9, games).norm
    assert [r for r, _ in failing(gm(PLAYER, SWISS9, only_fra))] == ["1.4.3"]
    with_forfeit = [*base_gm_norm(), NormGame(round=10, result="+", opponent_rating=2700, opponent_title="GM")]
    result = gm(PLAYER, NormEvent(rounds=10), with_forfeit)
    assert result.games_used == tuple(range(1, 10))


def test_one_four_one_c_eight_games_and_a_forfeit_win_in_nine_rounds_are_a_nine_game_norm():
    eight = games_against([2450] * 8, ["1", "0.5", "1", "0.5", "1", "1", "0.5", "0.5"])
    bye = NormGame(round=9, result="bye")
    result = gm(PLAYER, SWISS9, [*eight, bye])
    assert result.norm, failing(result)
    assert result.one_four_one_c
    assert result.games == 9
    assert result.checks[0].rule == "1.4.1c"
    # A loss by forfeit is not a forfeit win: 8 games are too few.
    lost = gm(PLAYER, SWISS9, [*eight, NormGame(round=9, result="-")])
    assert not lost.norm
    assert failing(lost)[0][0] == "1.4.1a"


def test_more_than_thirteen_rounds_are_worth_thirteen_games():
    games = games_against([2450] * 15, score_results(15, 11), titles=["GM"] * 15, federations=["FRA", "GER", "ITA"] * 5)
    result = gm(PLAYER, NormEvent(rounds=15, system="round-robin"), games)
    assert result.norm, failing(result)
    assert result.games == 13
    assert len(result.games_used) == 15


def test_exemptions_waive_the_federation_mix_and_the_setting_keeps_the_limits():
    games = games_against([2450] * 9, score_results(9, 6.5), federations=["ESP"] * 9)
    national = NormEvent(rounds=9, system="swiss", exemption="national-championship")
    assert not gm(PLAYER, SWISS9, games).norm
    assert gm(PLAYER, national, games).norm
    kept = gm(PLAYER, national, games, NormRules(exemption_waives_limits=False))
    assert [r for r, _ in failing(kept)] == ["1.4.4"]


def test_double_round_robin_counts_distinct_players_with_the_numbers_halved():
    # Five opponents met twice (10 games): 3 distinct GMs of 5 distinct players; required halved: titled
    # ceil(5/2)=3, GMs ceil(4/2)=2.
    names = ["a", "b", "c", "d", "e"] * 2
    titles = ["GM", "GM", "GM", "FM", "CM"] * 2
    games = games_against(
        [2550] * 10, score_results(10, 6.5), titles=titles, federations=["FRA", "GER"] * 5, opponents=names
    )
    result = gm(PLAYER, NormEvent(rounds=10, system="double-round-robin"), games)
    titled = [c for c in result.checks if c.rule == "1.4.5"]
    assert [(c.required, c.actual, c.ok) for c in titled] == [
        ("at least 3 titled opponents", "4", True),
        ("at least 2 opponents GM", "3", True),
    ]
    # Counted per game (a plain round robin of 10) the same games would need 5 titled and 4 GMs.
    per_game = gm(PLAYER, NormEvent(rounds=10, system="round-robin"), games)
    assert [(c.required, c.actual) for c in per_game.checks if c.rule == "1.4.5"] == [
        ("at least 5 titled opponents", "8"),
        ("at least 4 opponents GM", "6"),
    ]


def test_a_swiss_ignores_a_won_game_against_a_weak_opponent_when_that_rescues_the_norm():
    # 11 rounds: wins against 1900 and 2000 drag the result below 2600 (the floor raises the 1900 only):
    # (2200 + 2000 + 9 x 2450) / 11 = 2386, 8½/11 = 77 % -> 2386 + 211 = 2597.
    ratings: list[int | None] = [1900, 2000] + [2450] * 9
    results = ["1", "1", "1", "0.5", "1", "0.5", "1", "1", "0.5", "0.5", "0.5"]
    titles = ["", "", "GM", "GM", "GM", "GM", "IM", "IM", "IM", "IM", "IM"]
    games = games_against(ratings, results, titles=titles)
    all_games = gm(PLAYER, NormEvent(rounds=11, system="round-robin"), games)
    assert (all_games.average_rating, all_games.performance) == (2386, 2597)
    assert failing(all_games) == [("1.4.8", "Rp at least 2600")]
    swiss = gm(PLAYER, NormEvent(rounds=11, system="swiss"), games)
    assert swiss.norm, failing(swiss)
    # The first norm-giving subset with the most games: ten (dropping the last round's draw, 1.4.1e, gives 8/10
    # = 80 %, Ra 2380, Rp 2620); a greedy trim from the end of the list would not look at 1.4.1f's subsets.
    assert (swiss.games, swiss.performance) == (10, 2620)
    # Only ignoring the won game against 1900 helps here: every set of rounds that keeps it averages below 2380.
    ratings = [1900] + [2380] * 10
    results = ["1"] * 7 + ["0.5"] * 4
    titles = ["", "GM", "GM", "GM", "GM"] + ["IM"] * 6
    only_subset = gm(PLAYER, NormEvent(rounds=11, system="swiss"), games_against(ratings, results, titles=titles))
    assert only_subset.norm, failing(only_subset)
    assert only_subset.games_used == tuple(range(2, 12))  # the win against 1900 ignored (1.4.1f)
    assert (only_subset.average_rating, only_subset.performance) == (2380, 2620)  # 8/10 = 80 % -> dp 240


def test_a_swiss_drops_the_last_rounds_after_a_title_result():
    games = base_gm_norm() + games_against([2450, 2450], ["0", "0"], titles=["GM", "GM"], federations=["FRA", "GER"])
    games[-2:] = [dataclasses.replace(g, round=10 + i) for i, g in enumerate(games[-2:])]
    result = gm(PLAYER, NormEvent(rounds=11, system="swiss"), games)
    assert result.norm
    assert result.games_used == tuple(range(1, 10))
    assert not gm(PLAYER, NormEvent(rounds=11, system="round-robin"), games).norm


def test_womens_titles_are_for_women():
    assert [r.title for r in check_norms(PLAYER, SWISS9, base_gm_norm())] == ["GM", "IM"]
    woman = NormPlayer("ESP", "F")
    assert [r.title for r in check_norms(woman, SWISS9, base_gm_norm())] == ["GM", "IM", "WGM", "WIM"]
    man_wgm = check_norms(PLAYER, SWISS9, base_gm_norm(), "WGM")[0]
    assert not man_wgm.norm
    assert man_wgm.checks[0].rule == "1.3"


def test_a_game_beyond_the_declared_rounds_makes_the_event_longer():
    # 1.4.1c reads a 9-round event: a tenth round given means ten rounds, and 8 games are then too few.
    eight = games_against([2450] * 8, ["1", "0.5", "1", "0.5", "1", "1", "0.5", "0.5"])
    assert gm(PLAYER, SWISS9, [*eight, NormGame(round=9, result="bye")]).norm
    assert not gm(PLAYER, SWISS9, [*eight, NormGame(round=10, result="bye")]).norm


@pytest.mark.parametrize(
    ("games", "message"),
    [
        ([NormGame(round=1, result="2")], "games[0].result"),
        ([NormGame(round=0, result="1")], "games[0].round must be at least 1"),
    ],
)
def test_bad_input_is_refused_naming_the_place(games, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        check_norms(PLAYER, SWISS9, games)


game_strategy = st.tuples(
    st.sampled_from(["1", "0.5", "0"]),
    st.integers(2000, 2750),
    st.sampled_from(["GM", "IM", "FM", "CM", ""]),
    st.sampled_from(["ESP", "FRA", "GER", "ITA", "FID"]),
)


def _games(rows: list[tuple[str, int, str, str]]) -> list[NormGame]:
    return [
        NormGame(round=i + 1, result=r, opponent=f"p{i}", opponent_rating=rt, opponent_title=t, opponent_federation=f)
        for i, (r, rt, t, f) in enumerate(rows)
    ]


@settings(max_examples=60, deadline=None)
@given(st.lists(game_strategy, min_size=9, max_size=11), game_strategy)
def test_in_a_swiss_adding_a_won_game_never_loses_a_norm(rows, extra):
    games = _games(rows)
    won = NormGame(round=len(rows) + 1, result="1", opponent="new", opponent_rating=extra[1], opponent_title=extra[2])
    before = check_norms(PLAYER, NormEvent(rounds=len(rows) + 1), games)
    after = check_norms(PLAYER, NormEvent(rounds=len(rows) + 1), [*games, won])
    for b, a in zip(before, after, strict=True):
        assert a.norm or not b.norm


@settings(max_examples=60, deadline=None)
@given(st.lists(game_strategy, min_size=9, max_size=11), st.randoms(use_true_random=False), st.booleans())
def test_the_verdict_does_not_depend_on_the_order_the_games_are_given(rows, random, round_robin):
    games = _games(rows)
    shuffled = list(games)
    random.shuffle(shuffled)
    event = NormEvent(rounds=len(rows), system="round-robin" if round_robin else "swiss")
    assert check_norms(PLAYER, event, games) == check_norms(PLAYER, event, shuffled)


any_game = st.tuples(
    st.sampled_from(["1", "0.5", "0", "+", "-", "bye"]),
    st.one_of(st.none(), st.integers(1, 3000)),
    st.sampled_from(["GM", "IM", "WGM", "WIM", "FM", "WFM", "CM", "WCM", ""]),
    st.sampled_from(["ESP", "FRA", "FID", ""]),
    st.sampled_from(["a", "b", "c", ""]),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(any_game, max_size=16),
    st.sampled_from(["swiss", "round-robin", "double-round-robin", "knockout"]),
    st.sampled_from(["", "zonal"]),
    st.sampled_from(["M", "F", ""]),
)
def test_any_well_formed_input_gets_a_report_for_every_title_asked(rows, system, exemption, sex):
    games = [
        NormGame(round=i + 1, result=r, opponent=o, opponent_rating=rt, opponent_title=t, opponent_federation=f)
        for i, (r, rt, t, f, o) in enumerate(rows)
    ]
    results = check_norms(
        NormPlayer("ESP", sex), NormEvent(rounds=max(len(rows), 1), system=system, exemption=exemption), games
    )
    for result in results:
        assert result.norm == all(c.ok for c in result.checks)
        assert len(result.games_used) <= len(rows)


def test_an_opponents_title_is_the_one_held_at_the_start():
    from datetime import date

    from ratings.engine.norms import title_held_on

    start = date(2026, 3, 10)
    awards = [(date(2020, 1, 1), "IM"), (date(2026, 5, 1), "GM")]
    assert title_held_on("GM", awards, start) == "IM"  # GM awarded after the event: an IM at its start
    assert title_held_on("GM", awards, date(2026, 6, 1)) == "GM"
    assert title_held_on("GM", [(date(2026, 5, 1), "GM")], start) == ""  # nothing recorded before: no title
    assert title_held_on("GM", [], start) == "GM"  # no award recorded at all: the registry's title
    assert title_held_on("WGM", awards, start) == "WGM"  # the women's track has no later award
    assert title_held_on("", awards, start) == ""


def _on_record(**fields):
    from datetime import date

    from ratings.engine.norms import NormOnRecord

    fields.setdefault("title", "GM")
    fields.setdefault("games", 9)
    fields.setdefault("end_date", date(2024, 5, 1))
    return NormOnRecord(**fields)


def test_an_application_gathers_27_games_the_rating_and_the_rules_of_b01_1_5():
    from ratings.engine.norms import application_checks

    norms = [
        _on_record(one_round_a_day=True, qualifying=True),
        _on_record(exempt=True),
        _on_record(title="IM", games=13),  # an IM norm does not count for GM
        _on_record(),
    ]
    checks = {c.rule: (c.actual, c.ok) for c in application_checks("GM", norms, 2512)}
    assert checks == {
        "1.5": ("27", True),
        "1.5.3": ("2512", True),
        "1.4.3e": ("2", True),
        "1.4.1c": ("0", True),
        "1.1.3a": ("1", True),
        "1.5.6": ("1", True),
    }
    # for IM the GM norms count too (a GM norm is an IM norm): 40 games
    assert application_checks("IM", norms, 2450)[0].actual == "40"


@pytest.mark.parametrize(
    ("norms", "rating", "failing"),
    [
        ([_on_record(one_round_a_day=True, qualifying=True)] * 2, 2510, "1.5"),  # 18 games
        ([_on_record(one_round_a_day=True, qualifying=True)] * 3, 2499, "1.5.3"),  # 2500 never reached
        ([_on_record(exempt=True, one_round_a_day=True, qualifying=True)] * 3, 2510, "1.4.3e"),
        ([_on_record(one_four_one_c=True, one_round_a_day=True, qualifying=True)] * 3, 2510, "1.4.1c"),
        ([_on_record(qualifying=True)] * 3, 2510, "1.1.3a"),
        ([_on_record(one_round_a_day=True)] * 3, 2510, "1.5.6"),
    ],
)
def test_each_application_rule_failing_alone(norms, rating, failing):
    from ratings.engine.norms import application_checks

    assert [c.rule for c in application_checks("GM", norms, rating) if not c.ok] == [failing]


def test_norms_before_july_2022_need_no_qualifying_event_and_wim_needs_no_daily_rounds():
    from datetime import date

    from ratings.engine.norms import application_checks

    old = [_on_record(title="WIM", end_date=date(2021, 1, 1))] * 3
    assert [c.rule for c in application_checks("WIM", old, 2200)] == ["1.5", "1.5.3", "1.4.3e", "1.4.1c"]
