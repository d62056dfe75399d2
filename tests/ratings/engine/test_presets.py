"""Rules presets: stable slugs, dates, exact JSON round trip, clear errors."""

import datetime
import json

import pytest

from ratings.engine import PRESETS, DifferenceCapSpec, RulesPreset, get_preset, preset_in_force

REQUIRED_SLUGS = {"fide-2024", "fide-2014", "fide-2009", "elo-normal", "uscf-classic"}


def test_required_presets_exist_under_their_slugs():
    assert set(PRESETS) >= REQUIRED_SLUGS
    for slug, preset in PRESETS.items():
        assert preset.slug == slug


@pytest.mark.parametrize("slug", sorted(PRESETS))
def test_preset_json_round_trip_is_exact(slug):
    preset = PRESETS[slug]
    text = json.dumps(preset.to_json(), sort_keys=True)
    again = RulesPreset.from_json(json.loads(text))
    assert again == preset
    assert json.dumps(again.to_json(), sort_keys=True) == text


def test_fide_2024_is_the_1_oct_2025_amendment_with_the_2650_exemption():
    preset = get_preset("fide-2024")
    assert preset.effective_from == datetime.date(2025, 10, 1)
    assert preset.difference_cap.label == "400-below-2650"
    assert preset.difference_cap.exemption_rating_types == ("standard",)
    assert preset.expected_score.kind == "fide-table"
    assert (preset.k_times_n_cap, preset.rounding, preset.rating_floor, preset.inactivity_months) == (
        700,
        "per-period",
        1400,
        12,
    )
    initial = preset.initial_rating
    assert (
        initial.kind,
        initial.min_games,
        initial.window_months,
        initial.hypothetical_opponents,
        initial.hypothetical_rating,
        initial.rating_cap,
        initial.publish_threshold,
    ) == ("fide-2024", 5, 26, 2, 1800, 2200, 1400)


def test_every_fide_preset_defaults_to_the_table():
    for preset in PRESETS.values():
        if preset.family == "fide":
            assert preset.expected_score.kind == "fide-table"


@pytest.mark.parametrize(
    ("slug", "label"),
    [
        ("fide-2024", "400-below-2650"),
        ("fide-2024-03", "400"),
        ("fide-2014", "400"),
        ("fide-2009", "400"),
        ("elo-logistic", "none"),
    ],
)
def test_difference_caps(slug, label):
    assert get_preset(slug).difference_cap.label == label


def test_350_point_rule_is_expressible():
    assert DifferenceCapSpec.fixed(350).label == "350"


@pytest.mark.parametrize(
    ("day", "slug"),
    [
        (datetime.date(2010, 5, 1), "fide-2009"),
        (datetime.date(2014, 7, 1), "fide-2014"),
        (datetime.date(2024, 3, 1), "fide-2024-03"),
        (datetime.date(2025, 9, 30), "fide-2024-03"),
        (datetime.date(2025, 10, 1), "fide-2024"),
        (datetime.date(2026, 5, 1), "fide-2024"),
    ],
)
def test_preset_in_force_by_date(day, slug):
    assert preset_in_force(day).slug == slug


def test_unknown_slug_lists_the_known_ones():
    with pytest.raises(KeyError, match=r"unknown rules preset 'fide-1999'; known presets: .*fide-2024"):
        get_preset("fide-1999")


def test_unknown_json_keys_are_refused():
    data = get_preset("fide-2024").to_json()
    data["k_factor"]["k_turbo"] = 99
    with pytest.raises(ValueError, match=r"k_factor: unknown keys \['k_turbo'\]"):
        RulesPreset.from_json(data)


def test_bad_values_are_refused_at_construction():
    with pytest.raises(ValueError, match="rounding 'weekly' is unknown"):
        get_preset("fide-2024").replace(rounding="weekly")
    with pytest.raises(ValueError, match="expected_score kind 'cauchy' is unknown"):
        RulesPreset.from_json({**get_preset("fide-2024").to_json(), "expected_score": {"kind": "cauchy"}})


def test_a_federation_variant_keeps_its_own_slug():
    variant = get_preset("fide-2024").replace(slug="fed-2026", rounding="per-event")
    assert RulesPreset.from_json(variant.to_json()) == variant
    assert get_preset("fide-2024").rounding == "per-period"
