"""Public event pages, on par with chess-results: the events index (search and filters), an event's standings
and crosstable (after any round), its pairings per round, starting list, player cards, and the crosstable as
CSV and PDF."""

from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from events.models import Event
from public.crosstable_export import crosstable_csv, crosstable_pdf
from public.event_query import EventSearchForm, round_asked
from public.selectors.events import (
    EventFilters,
    event_crosstable,
    player_card,
    public_event_list,
    public_event_search,
    round_pairings,
)
from public.views.base import public_page

EVENTS_PER_PAGE = 50


@public_page
def event_list(request):
    form = EventSearchForm(request.GET or None)
    filters = EventFilters(**form.cleaned_data) if form.is_valid() else EventFilters()
    # A field the form refuses is named beside it on the page and nothing is filtered by it (400: not cached).
    events = public_event_search(filters) if form.is_bound and form.is_valid() else public_event_list()
    page = Paginator(events, EVENTS_PER_PAGE).get_page(request.GET.get("page"))
    status = 400 if form.is_bound and not form.is_valid() else 200
    return render(request, "events/list.html", {"page": page, "form": form, "filtered": form.is_bound}, status=status)


def _event(pk: int) -> Event:
    return get_object_or_404(public_event_list(), pk=pk)


@public_page
def event_detail(request, pk: int):
    event = _event(pk)
    after_round, error = round_asked(request, event)
    crosstable = event_crosstable(event, after_round)
    context = {
        "crosstable": crosstable,
        "event": event,
        "error": error,
        "caption": _standings_caption(crosstable),
        "section": "standings",
    }
    return render(request, "events/detail.html", context, status=400 if error else 200)


@public_page
def event_round(request, pk: int, round_: int):
    event = _event(pk)
    if not 1 <= round_ <= event.rounds:
        raise Http404("no such round")
    crosstable = event_crosstable(event)
    context = {
        "crosstable": crosstable,
        "event": event,
        "round": round_,
        "pairings": round_pairings(crosstable, round_),
        "section": "pairings",
    }
    return render(request, "events/round.html", context)


@public_page
def event_start_list(request, pk: int):
    event = _event(pk)
    crosstable = event_crosstable(event)
    return render(request, "events/start_list.html", {"crosstable": crosstable, "event": event, "section": "start"})


@public_page
def event_player(request, pk: int, start_rank: int):
    event = _event(pk)
    crosstable = event_crosstable(event)
    card = player_card(crosstable, start_rank)
    if card is None:
        raise Http404("no player with that starting number")
    row, games = card
    context = {"crosstable": crosstable, "event": event, "row": row, "games": games, "section": "player"}
    return render(request, "events/player.html", context)


def _filename(event: Event, extension: str) -> str:
    return f"event-{event.pk}-crosstable.{extension}"


@public_page
def event_crosstable_csv(request, pk: int):
    event = _event(pk)
    response = HttpResponse(crosstable_csv(event_crosstable(event)), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_filename(event, "csv")}"'
    return response


@public_page
def event_crosstable_pdf(request, pk: int):
    event = _event(pk)
    crosstable = event_crosstable(event)
    dates = f"{event.start_date:%Y-%m-%d} – {event.end_date:%Y-%m-%d}" if event.start_date and event.end_date else ""
    place = f"{event.city} ({event.federation_id})" if event.federation_id else event.city
    subtitle = " · ".join(part for part in (place, dates, _standings_caption(crosstable)) if part)
    response = HttpResponse(crosstable_pdf(crosstable, event.name, subtitle), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{_filename(event, "pdf")}"'
    return response


def _standings_caption(crosstable) -> str:
    """ "Final standings" only when every declared round is paired and played; otherwise how far it is."""
    if crosstable.is_complete and (crosstable.after_round is None or crosstable.after_round >= crosstable.event.rounds):
        return _("Final standings")
    return _("Standings after round %(round)s of %(rounds)s") % {
        "round": crosstable.standings_round,
        "rounds": crosstable.event.rounds,
    }
