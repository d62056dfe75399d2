"""rating_backtest --rating-type T --rules PRESET [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--set KEY=VALUE ...]
[--json]: replay the federation's rated games under any rules and score the predictions
(ratings.services.backtest)."""

import json as _json

from django.core.management.base import BaseCommand, CommandError

from core.cli import DATE_FORM, iso_date
from events.models import RatingType
from ratings.engine import PRESETS
from ratings.services.backtest import OVERRIDES, BacktestError, backtest_rules, rating_backtest_run


def _fmt(value, places: int = 4) -> str:
    return "-" if value is None else f"{value:.{places}f}"


class Command(BaseCommand):
    help = (
        "Replay the published lists of a rating type, list by list from the ratings in force at --from, under "
        "a rules preset (with --set overrides) and report per list and in summary: players, games, log_loss, "
        "brier, rmse, differences from the published list, and a calibration table. Writes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--rating-type", choices=RatingType.values, required=True)
        parser.add_argument(
            "--rules", required=True, metavar="PRESET", help="rules preset slug: " + ", ".join(sorted(PRESETS))
        )
        parser.add_argument(
            "--from",
            dest="start",
            type=iso_date,
            metavar=DATE_FORM,
            help="start from the ratings in force on this date (default: the first list)",
        )
        parser.add_argument("--to", dest="end", type=iso_date, metavar=DATE_FORM, help="last list date replayed")
        parser.add_argument(
            "--set",
            dest="overrides",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="override a rule of the preset, repeatable; KEY one of " + ", ".join(sorted(OVERRIDES)),
        )
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args, rating_type, rules, start, end, overrides, json: bool = False, **options):
        try:
            preset = backtest_rules(rules, overrides)
            report = rating_backtest_run(rating_type, preset, start=start, end=end)
        except BacktestError as error:
            raise CommandError(str(error)) from None
        if json:
            self.stdout.write(_json.dumps(report.to_json(), indent=2))
            return
        write = self.stdout.write
        write(f"Backtest of {rating_type} lists under {preset.slug}, from the list of {report.start}")
        write(f"{'list':<10} {'players':>7} {'games':>7} {'log_loss':>8} {'brier':>7} {'rmse':>7} {'diff':>6}")
        for item in report.lists:
            write(
                f"{item.list_date.isoformat():<10} {item.players:>7} {item.games:>7} {_fmt(item.log_loss):>8} "
                f"{_fmt(item.brier):>7} {_fmt(item.rmse, 3):>7} {item.differences:>6}"
            )
        s = report.summary
        write(
            f"{'summary':<10} {'':>7} {'':>7} {_fmt(s['log_loss']):>8} {_fmt(s['brier']):>7} "
            f"{_fmt(s['rmse'], 3):>7} {s['differences']:>6}"
        )
        write("Calibration (favourite's advantage: games, expected, actual)")
        for row in report.calibration:
            write(f"  {row['from']:>4}-{row['to']:<4} {row['games']:>7} {row['expected']:.3f} {row['actual']:.3f}")
