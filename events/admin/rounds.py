"""The round entry screen: one round of an event, board by board, one keystroke per result.

Registered by ``EventAdmin.get_urls`` (``round_admin_urls``): ``<event>/round/<n>/`` shows the round; a POST
with ``_save`` saves the boards (events.services_rounds.event_round_save: one transaction, the optimistic
lock), a POST with ``_paste`` reads pasted pairings into the boards without saving them. Access follows the
event admin: whoever may view the event sees the round; whoever may edit its results saves it.
"""

from django.contrib import messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseRedirect, JsonResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.admin import admin_user
from core.pagination import whole_number
from events.admin.urls import admin_view_urls
from events.models import BYE_RESULTS, Result
from events.roles import event_results_editable_by
from events.selectors_rounds import RoundSheet, SheetBoard, event_projection, projection_available, round_sheet
from events.services_rounds import (
    BoardEntry,
    RoundProblem,
    event_round_save,
    pairings_parse,
    player_resolve,
    round_boards_check,
)

MAX_BOARDS = 1000
# The round entry's one keyboard model (legend in templates/admin/events/event/round.html, handler in
# static/events/round_entry.js): on a board's result, one of these keys sets that result and moves to the next board
# without a result; Tab and the arrows move; Enter saves the round. "=" and "5" are both the draw (a "5" sits where
# "½" is on a score sheet's keypad); the unplayed results are the shifted 1, 5 and 0 of a US keyboard, named by the
# character typed.
RESULT_KEYS: list[tuple[tuple[str, ...], Result]] = [
    (("1",), Result.WHITE_WIN),
    (("=", "5"), Result.DRAW),
    (("0",), Result.BLACK_WIN),
    (("+",), Result.WHITE_FORFEIT_WIN),
    (("-",), Result.BLACK_FORFEIT_WIN),
    (("x",), Result.DOUBLE_FORFEIT),
    (("!",), Result.WHITE_WIN_UNPLAYED),
    (("%",), Result.DRAW_UNPLAYED),
    ((")",), Result.BLACK_WIN_UNPLAYED),
    (("h",), Result.HALF_POINT_BYE),
    (("f",), Result.FULL_POINT_BYE),
    (("u",), Result.PAIRING_BYE),
    (("z",), Result.ZERO_POINT_BYE),
    (("*",), Result.PENDING),
]
# The tap buttons beside each board's result (a phone at the venue): the three results of a game played.
TAP_RESULTS = [Result.WHITE_WIN, Result.DRAW, Result.BLACK_WIN]
SHORT = {
    Result.WHITE_WIN: "1-0",
    Result.DRAW: "½-½",
    Result.BLACK_WIN: "0-1",
    Result.WHITE_FORFEIT_WIN: "+/−",
    Result.BLACK_FORFEIT_WIN: "−/+",
    Result.DOUBLE_FORFEIT: "−/−",
    Result.WHITE_WIN_UNPLAYED: "1-0 u",
    Result.DRAW_UNPLAYED: "½-½ u",
    Result.BLACK_WIN_UNPLAYED: "0-1 u",
    # the byes in the page's language (issue 32); the results themselves are the same in every language
    Result.HALF_POINT_BYE: gettext_lazy("bye ½ (H)"),
    Result.FULL_POINT_BYE: gettext_lazy("bye 1 (F)"),
    Result.PAIRING_BYE: gettext_lazy("bye 1 (U)"),
    Result.ZERO_POINT_BYE: gettext_lazy("bye 0 (Z)"),
    Result.PENDING: "—",
}


def round_admin_urls(model_admin):
    return admin_view_urls(
        model_admin,
        [
            ("<path:object_id>/round/<int:round_>/", round_view, "round"),
            ("<path:object_id>/round/<int:round_>/projection/", projection_view, "round_projection"),
        ],
    )


def projection_view(model_admin, request, object_id, round_=None):  # round_: the URL's; the projection is the event's
    """The projected rating changes of the event's participants as JSON, fetched by the round page once it is
    shown (the projection reads the published list: the boards never wait for it)."""
    event = model_admin.get_object(request, unquote(object_id))
    if event is None:
        return JsonResponse({"error": _("No such event.")}, status=404)
    projection = event_projection(event)
    if projection is None:
        return JsonResponse({"projection": None})
    return JsonResponse(
        {"projection": {str(pk): None if change is None else round(change, 1) for pk, change in projection.items()}}
    )


def round_url(event_pk: int, round_: int) -> str:
    return reverse("admin:events_event_round", args=[event_pk, round_])


def round_view(model_admin, request, object_id, round_: int):
    event, redirect = model_admin.event_or_redirect(request, object_id)
    if redirect:  # unknown, or not this user's: the same answer as the change page
        return redirect
    if round_ < 1 or round_ > event.rounds:
        messages.error(request, _("%(event)s has %(rounds)s rounds.") % {"event": event.name, "rounds": event.rounds})
        return HttpResponseRedirect(reverse("admin:events_event_change", args=[event.pk]))
    editable = event_results_editable_by(event, request.user)
    sheet = round_sheet(event, round_, extra_rows=editable)
    problems: list[RoundProblem] = []
    paste_text = ""
    if request.method == "POST":
        if not editable:
            raise PermissionDenied
        boards, known, problems = _posted_boards(request.POST, sheet)
        unresolved = {problem.board for problem in problems}
        checked = [board for board in boards if board.board not in unresolved]
        problems = problems + round_boards_check(checked, sheet.roster, round_)
        if "_paste" in request.POST:
            paste_text = request.POST.get("pairings", "")
            boards, problems = _pasted(paste_text, sheet)
            if not problems:
                messages.info(
                    request,
                    _("%(count)s board(s) read from the pasted pairings; nothing is saved until you save the round.")
                    % {"count": len(boards)},
                )
                paste_text = ""
        elif not problems:
            try:
                update = event_round_save(event, round_, boards, known=known, user=admin_user(request))
            except ValidationError as exc:
                problems = [RoundProblem(None, message) for message in exc.messages]
            else:
                written = len(update.created) + len(update.changed) + len(update.deleted)
                model_admin.log_change(request, event, f"Round {round_}: {written} game(s) saved")
                messages.success(
                    request,
                    _("Round %(round)s saved (%(count)s game(s) written).") % {"round": round_, "count": written},
                )
                target = round_ + 1 if "_next" in request.POST and round_ < event.rounds else round_
                return HttpResponseRedirect(round_url(event.pk, target))
        sheet.boards = [SheetBoard(b.board, b.white, b.black, b.result, b.game_id, b.version) for b in boards]
    return TemplateResponse(
        request, "admin/events/event/round.html", _context(model_admin, request, sheet, editable, problems, paste_text)
    )


def _pasted(text: str, sheet: RoundSheet) -> tuple[list[BoardEntry], list[RoundProblem]]:
    """The pasted boards; a pairing already stored keeps its game (and result), the others are new."""
    pasted = pairings_parse(text, sheet.roster)
    if not pasted.boards and not pasted.problems:
        pasted.problems.append(RoundProblem(None, _("Nothing to read: paste one board per line.")))
    stored = {(b.white, b.black): b for b in sheet.boards if b.game_id is not None}
    boards = []
    for entry in pasted.boards:
        game = stored.get((entry.white, entry.black))
        if game is not None:
            result = game.result if entry.result == Result.PENDING else entry.result
            entry = BoardEntry(entry.board, entry.white, entry.black, result, game.game_id, game.version)
        boards.append(entry)
    problems = pasted.problems or round_boards_check(boards, sheet.roster, sheet.round)
    return boards, problems


def _posted_boards(data, sheet: RoundSheet) -> tuple[list[BoardEntry], dict[int, int], list[RoundProblem]]:
    """The boards as the form posted them (``rows`` rows of ``b<i>-*`` fields); players by start rank, ID
    number or name as typed."""
    problems: list[RoundProblem] = []
    known: dict[int, int] = {}
    for pair in data.get("known", "").split(","):
        game, _sep, version = (whole_number(part) for part in pair.partition(":"))
        if game is not None and version is not None:
            known[game] = version
    # never int() on posted digits: thousands of them raise (issue 32); core.pagination.whole_number reads them
    count = min(whole_number(data.get("rows", "0")) or 0, MAX_BOARDS)
    boards = []
    for index in range(count):
        entry = _posted_board(data, index, sheet, problems)
        if entry is not None:
            boards.append(entry)
    return boards, known, problems


def _number(value: str) -> int | None:
    return whole_number(value)


def _posted_board(data, index: int, sheet: RoundSheet, problems: list[RoundProblem]) -> BoardEntry:
    field = f"b{index}-"
    # board;game;version;white|black|result as shown (SheetBoard.meta): one field, so that a 250-board round
    # stays under Django's DATA_UPLOAD_MAX_NUMBER_FIELDS with its players and result.
    meta = ([*data.get(field + "meta", "").split(";"), "", "", "", ""])[:4]
    board = _number(meta[0].strip()) or index + 1
    game_id, version = _number(meta[1]), _number(meta[2])
    original = None
    if meta[3].count("|") == 2:
        white, black, shown_result = meta[3].split("|")
        original = (_number(white), _number(black), shown_result)
    ranks: list[int | None] = []
    for side in ("white", "black"):
        token = data.get(field + side, "").strip()
        if not token:
            ranks.append(None)
            continue
        found = player_resolve(token, sheet.roster)
        if isinstance(found, str):
            problems.append(
                RoundProblem(board, _("Board %(board)s: %(problem)s.") % {"board": board, "problem": found})
            )
            ranks.append(None)
        else:
            ranks.append(found)
    result = data.get(field + "result", Result.PENDING) or Result.PENDING
    return BoardEntry(board, ranks[0], ranks[1], result, game_id, version, original)


def _context(model_admin, request, sheet: RoundSheet, editable: bool, problems, paste_text: str) -> dict:
    event = sheet.event
    players = sheet.players
    by_board = {p.board for p in problems if p.board is not None}
    rows = []
    for index, board in enumerate(sheet.boards):
        rows.append(
            {
                "index": index,
                "board": board,
                "white": players.get(board.white) if board.white else None,
                "black": players.get(board.black) if board.black else None,
                "problem": board.board in by_board,
            }
        )
    return {
        **model_admin.admin_site.each_context(request),
        "title": _("%(event)s — round %(round)s") % {"event": event.name, "round": sheet.round},
        "opts": model_admin.opts,
        "original": event,
        "event": event,
        "sheet": sheet,
        "rows": rows,
        "standings": sheet.standings.rows,
        "has_projection": projection_available(),
        "problems": problems,
        "paste_text": paste_text,
        "editable": editable,
        "rounds": [
            {
                "number": n,
                "games": sheet.round_counts.get(n, (0, 0))[0],
                "pending": sheet.round_counts.get(n, (0, 0))[1],
            }
            for n in range(1, event.rounds + 1)
        ],
        "result_keys": [(keys, code, SHORT[code]) for keys, code in RESULT_KEYS],
        "key_codes": {key: code for keys, code in RESULT_KEYS for key in keys},
        "taps": [(code, SHORT[code]) for code in TAP_RESULTS],
        "bye_codes": [r.value for r in BYE_RESULTS],
        "roster": {str(rank): [p.name, p.id_number, p.rating, p.points_before] for rank, p in players.items()},
        "pending": sum(1 for b in sheet.boards if b.white is not None and b.result == Result.PENDING),
    }
