"""FIDE's rating-fee schedule as a preset: the default of a new installation, so that every rated event has its
FIDE fee statement from the start (issue 35; reference/leagues-membership.md §6)."""

import datetime
from decimal import Decimal

from django.db import migrations

from membership import rules

CODE = "fide"


def fide_schedule_load(apps, schema_editor):
    FeeSchedule = apps.get_model("membership", "FeeSchedule")
    FeeScheduleLine = apps.get_model("membership", "FeeScheduleLine")
    schedule, created = FeeSchedule.objects.get_or_create(
        code=CODE,
        effective_from=datetime.date(2020, 1, 1),
        defaults={"name": "FIDE tournament rating fees", "currency": "EUR"},
    )
    if not created:
        return
    waived_from, waived_to = rules.FIDE_RAPID_BLITZ_WAIVER
    lines = [
        FeeScheduleLine(
            kind=rules.WAIVER,
            description="Rapid and blitz rating fees waived by the FIDE Council (2021 to 2026)",
            rule=f"{rules.FIDE_RULE} art. 1.2",
            rating_types="rapid,blitz",
            valid_from=waived_from,
            valid_to=waived_to,
        ),
        FeeScheduleLine(
            kind=rules.PER_PLAYER,
            description="Swiss and team events: per player",
            rule=f"{rules.FIDE_RULE}: EUR 1 per player",
            amount=Decimal("1.00"),
            event_kinds="swiss,team",
        ),
    ]
    for low, high, amount in rules.FIDE_ROUND_ROBIN_BANDS:
        band = (
            f"average below {high}" if low is None else f"average {low} and above" if high is None
            else f"average {low} to {high - 1}"
        )
        lines.append(
            FeeScheduleLine(
                kind=rules.PER_PLAYER_BAND,
                description=f"Round robins and matches, {band}: per player",
                rule=f"{rules.FIDE_RULE}: EUR {amount} per player, {band}",
                amount=Decimal(amount),
                band_min=low,
                band_max=high,
                event_kinds="round_robin,match",
            )
        )
    for order, line in enumerate(lines):
        line.schedule, line.order = schedule, order
    FeeScheduleLine.objects.bulk_create(lines)


def fide_schedule_unload(apps, schema_editor):
    apps.get_model("membership", "FeeSchedule").objects.filter(code=CODE).delete()


class Migration(migrations.Migration):
    dependencies = [("membership", "0001_membership_initial")]

    operations = [migrations.RunPython(fide_schedule_load, fide_schedule_unload)]
