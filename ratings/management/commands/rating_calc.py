"""rating_calc: the rating officer's calculator (a thin wrapper over ratings.engine.calculator).

    manage.py rating_calc --rules fide-2024 --rating 2813 --k 10 \\
        --game 1787:1 --game 2025:1 --game 2310:1 --game 2400:1 --game 2505:0.5
    manage.py rating_calc --unrated --game 1902:1 --game 1877:1 --game 1884:1 --game 2012:0 --game 1832:0
    manage.py rating_calc --rules glicko2 --rating 1500 --deviation 200 --volatility 0.06 \\
        --game 1400:1:30 --game 1550:0:100 --game 1700:0:300
"""

import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from core.cli import DATE_FORM, iso_date
from ratings.engine.calculator import Calculation, InitialRating, calculate_change, calculate_initial_rating
from ratings.engine.glicko2 import Glicko2Calculation, calculate_glicko2
from ratings.engine.presets import PRESETS, RulesPreset, get_preset
from ratings.engine.rating_types import RATING_TYPES

SCORES = {"1": 1.0, "1.0": 1.0, "0.5": 0.5, ".5": 0.5, "1/2": 0.5, "½": 0.5, "=": 0.5, "0": 0.0, "0.0": 0.0}
UNRATED_OPPONENT = {"unrated", "nr", "-"}  # "-" only as --game=-:1 (argparse)


def parse_game(text: str) -> tuple[float | None, float, int]:
    """'OPP:SCORE[:EVENT]' -> (opponent rating or None, score, event number starting at 1)."""
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise CommandError(f"--game {text}: expected OPP:SCORE or OPP:SCORE:EVENT (e.g. 1850:0.5)")
    opponent_text, score_text = parts[0].strip(), parts[1].strip()
    if opponent_text.lower() in UNRATED_OPPONENT:
        opponent = None
    else:
        try:
            opponent = float(opponent_text)
        except ValueError:
            raise CommandError(
                f"--game {text}: opponent rating {opponent_text!r} is not a number "
                f"(use 'unrated' for an unrated opponent)"
            ) from None
        if not 0 < opponent < 4000:
            raise CommandError(f"--game {text}: opponent rating {opponent_text} is out of range")
    if score_text not in SCORES:
        raise CommandError(f"--game {text}: score {score_text!r} must be 1, 0.5 (or 1/2, ½, =) or 0")
    event = 1
    if len(parts) == 3:
        try:
            event = int(parts[2])
        except ValueError:
            event = 0
        if event < 1:
            raise CommandError(f"--game {text}: event {parts[2]!r} must be a number from 1")
    return opponent, SCORES[score_text], event


def parse_glicko2_game(text: str) -> tuple[tuple[float, float], float]:
    """'OPP:SCORE:OPP_DEVIATION' -> ((opponent rating, opponent deviation), score) for a Glicko-2 preset."""
    parts = text.split(":")
    if len(parts) != 3:
        raise CommandError(f"--game {text}: a Glicko-2 game is OPP:SCORE:OPP_DEVIATION (e.g. 1400:1:30)")
    opponent, score, _ = parse_game(":".join(parts[:2]))
    if opponent is None:
        raise CommandError(f"--game {text}: Glicko-2 needs the opponent's rating (unrated: 1500 with deviation 350)")
    try:
        deviation = float(parts[2])
    except ValueError:
        deviation = float("nan")
    if not 0 < deviation <= 1000:
        raise CommandError(f"--game {text}: opponent deviation {parts[2]!r} must be a number above 0 and up to 1000")
    return (opponent, deviation), score


def _fmt(value: float | None, places: int = 2) -> str:
    if value is None:
        return "-"
    return f"{value:.{places}f}"


def _rating(value: float | None) -> str:
    if value is None:
        return "unrated"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


class Command(BaseCommand):
    help = (
        "Rating calculator: per-game D, PD (expected score), dR = score - PD and the total change of a rated "
        "player under a rules preset, or the initial rating of an unrated player (--unrated)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--rules",
            default=None,
            metavar="PRESET",
            help="rules preset slug (default: settings.RATING_RULES_PRESET); one of: " + ", ".join(sorted(PRESETS)),
        )
        parser.add_argument(
            "--rating",
            type=float,
            metavar="R",
            help="the player's rating on the previous list (required unless --unrated)",
        )
        parser.add_argument(
            "--k",
            type=float,
            metavar="K",
            dest="k_factor",
            help="the K factor published on the previous list; reduced to K x n <= 700 where "
            "the preset has that rule (default: derived from the preset's K scheme and "
            "--rated-games / --birth-year)",
        )
        parser.add_argument(
            "--game",
            action="append",
            default=[],
            metavar="OPP:SCORE[:EVENT]",
            help="one game, repeatable: opponent rating ('unrated' if unrated) and score 1, 0.5 "
            "(1/2, ½, =) or 0; EVENT numbers events from 1 (for the first-event rule of "
            "initial ratings and per-event rounding); Glicko-2 presets: OPP:SCORE:OPP_DEVIATION",
        )
        parser.add_argument(
            "--unrated",
            action="store_true",
            help="compute the initial rating of an unrated player instead of a change",
        )
        parser.add_argument(
            "--rating-type",
            choices=list(RATING_TYPES),
            default="standard",
            help="rating type: decides per-type rules such as the 2650 exemption (default: standard)",
        )
        parser.add_argument(
            "--rated-games",
            type=int,
            default=30,
            metavar="N",
            help="rated games before this period, for deriving K without --k (default: 30)",
        )
        parser.add_argument(
            "--birth-year",
            type=int,
            default=None,
            metavar="YYYY",
            help="birth year, for the junior K rule when deriving K without --k",
        )
        parser.add_argument(
            "--list-date",
            type=iso_date,
            default=None,
            metavar=DATE_FORM,
            help="date of the list being calculated, for the junior K rule (default: today)",
        )
        parser.add_argument(
            "--deviation",
            type=float,
            metavar="RD",
            help="Glicko-2 presets: the player's rating deviation (default: the unrated 350)",
        )
        parser.add_argument(
            "--volatility",
            type=float,
            metavar="V",
            help="Glicko-2 presets: the player's volatility (default: the unrated 0.06)",
        )
        parser.add_argument("--json", action="store_true", help="print the calculation as JSON")

    def handle(self, *args, **options):
        slug = options["rules"] or getattr(settings, "RATING_RULES_PRESET", "fide-2024")
        try:
            rules = get_preset(slug)
        except KeyError as error:
            raise CommandError(error.args[0]) from None
        if rules.glicko2 is not None:
            self._glicko2(rules, options)
            return
        if options["deviation"] is not None or options["volatility"] is not None:
            raise CommandError(f"--deviation and --volatility belong to Glicko-2 presets, not {rules.slug}")
        games = [parse_game(text) for text in options["game"]]
        if not games:
            raise CommandError("give at least one --game OPP:SCORE")
        opponents = [g[0] for g in games]
        scores = [g[1] for g in games]
        events = [g[2] - 1 for g in games]
        list_date = options["list_date"] or timezone.localdate()
        try:
            if options["unrated"]:
                if options["rating"] is not None or options["k_factor"] is not None:
                    raise CommandError("--unrated computes an initial rating: leave out --rating and --k")
                result = calculate_initial_rating(opponents, scores, rules, events=events, list_date=list_date)
            else:
                if options["rating"] is None:
                    raise CommandError("--rating is required (or use --unrated for an initial rating)")
                result = calculate_change(
                    options["rating"],
                    options["k_factor"],
                    opponents,
                    scores,
                    rules,
                    events=events,
                    rating_type=options["rating_type"],
                    rated_games_total=options["rated_games"],
                    birth_year=options["birth_year"],
                    list_date=list_date,
                )
        except ValueError as error:
            raise CommandError(str(error)) from None
        if options["json"]:
            self.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        elif isinstance(result, InitialRating):
            self._print_initial(result, rules)
        else:
            self._print_change(result, rules)

    def _glicko2(self, rules: RulesPreset, options: dict) -> None:
        assert rules.glicko2 is not None
        games = [parse_glicko2_game(text) for text in options["game"]]
        if options["rating"] is None and not options["unrated"]:
            raise CommandError("--rating is required (or --unrated: 1500 / 350 / 0.06)")
        if options["unrated"] and options["rating"] is not None:
            raise CommandError("--unrated starts from the preset's initial rating: leave out --rating")
        if options["k_factor"] is not None:
            raise CommandError("Glicko-2 has no K factor: leave out --k")
        try:
            calc = calculate_glicko2(
                options["rating"],
                options["deviation"],
                options["volatility"],
                [g[0] for g in games],
                [g[1] for g in games],
                rules.glicko2,
                rules=rules.slug,
            )
        except (ValueError, ArithmeticError) as error:
            raise CommandError(str(error)) from None
        if options["json"]:
            self.stdout.write(json.dumps(calc.to_dict(), ensure_ascii=False, indent=2))
        else:
            self._print_glicko2(calc, rules)

    def _print_glicko2(self, calc: Glicko2Calculation, rules: RulesPreset) -> None:
        write = self.stdout.write
        write(f"Rules: {rules.slug} ({rules.name}), tau {calc.tau:g}")
        write(
            f"Rating {calc.rating:.2f}, RD {calc.deviation:.2f}, volatility {calc.volatility:.6f}; {calc.games} game(s)"
        )
        write(f"{'#':>3} {'Opp':>8} {'Opp RD':>7} {'g':>7} {'E':>6} {'Score':>5} {'S-E':>6}")
        for number, line in enumerate(calc.lines, start=1):
            write(
                f"{number:>3} {line.opponent_rating:>8.2f} {line.opponent_deviation:>7.2f} {line.g:>7.4f} "
                f"{line.expected_score:>6.3f} {line.score:>5g} {line.rating_change:>6.3f}"
            )
        write(f"Expected {calc.expected:.3f}, score {calc.score:g}")
        write(f"New rating {calc.new_rating:.2f}, RD {calc.new_deviation:.2f}, volatility {calc.new_volatility:.6f}")

    def _print_change(self, calc: Calculation, rules) -> None:
        write = self.stdout.write
        write(f"Rules: {rules.slug} ({rules.name}), {calc.rating_type}")
        k_note = "" if calc.k_factor_used == calc.k_factor else f", used {_fmt(calc.k_factor_used, 0)} (K x n)"
        write(
            f"Rating {_rating(calc.rating)}, K {_fmt(calc.k_factor, 2).rstrip('0').rstrip('.')}{k_note}; "
            f"{calc.games} rated game(s)"
        )
        write(f"{'#':>3} {'Opp':>7} {'Used':>8} {'D':>6} {'PD':>6} {'Score':>5} {'dR':>6} {'K*dR':>7}")
        for number, line in enumerate(calc.lines, start=1):
            used = _rating(line.opponent_rating_used) + ("*" if line.capped else "")
            if not line.rated:
                write(
                    f"{number:>3} {_rating(line.opponent_rating):>7} {'':>8} {'':>6} {'':>6} "
                    f"{line.score:>5g}   not rated (opponent unrated)"
                )
                continue
            write(
                f"{number:>3} {_rating(line.opponent_rating):>7} {used:>8} {line.difference:>6.0f} "
                f"{line.expected_score:>6.2f} {line.score:>5g} {line.rating_change:>6.2f} "
                f"{line.weighted_change:>7.2f}"
            )
        if any(line.capped for line in calc.lines):
            write(f"  * difference capped at {rules.difference_cap.limit} points")
        write(f"Expected {calc.expected:.2f}, score {calc.score:g}")
        write(
            f"Change {calc.change:+.2f} -> {calc.rounded_change:+.0f} ({rules.rounding} rounding)"
            if rules.rounding != "none"
            else f"Change {calc.change:+.2f}"
        )
        write(f"New rating {_rating(calc.new_rating)}")

    def _print_initial(self, initial: InitialRating, rules) -> None:
        write = self.stdout.write
        write(f"Rules: {rules.slug} ({rules.name}) - initial rating")
        for number, line in enumerate(initial.lines, start=1):
            note = "" if line.counted else "   not counted"
            write(f"{number:>3} {_rating(line.opponent_rating):>7} {line.score:>5g}{note}")
        extra = ""
        if initial.hypothetical_opponents:
            spec = rules.initial_rating
            extra = f" + {initial.hypothetical_opponents} x {spec.hypothetical_rating:.0f} (draws)"
        write(f"{initial.games} game(s) against rated opponents{extra}, score {initial.score:g}")
        if initial.games and initial.percent is not None:
            write(f"Ra {initial.average:.2f}, p {initial.percent}% -> dp {_fmt(initial.dp, 0)}")
        elif initial.games:
            write(f"Ra {initial.average:.2f}, + {_fmt(initial.dp)}")
        if initial.initial_rating is None:
            write(f"No initial rating: {initial.reason}")
            return
        capped = f" (capped at {rules.initial_rating.rating_cap})" if initial.capped else ""
        write(f"Ru {initial.unrounded:.2f} -> {initial.initial_rating:.0f}{capped}")
        write("Published" if initial.published else f"Not published: {initial.reason}")
