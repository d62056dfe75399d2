"""An event's title norms (B.01 1.4) for the public: the report page, IT1 certificates and the IT3 report as PDF."""

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render

from public.documents import it1_pdf, it3_pdf
from public.selectors.events import public_event_list
from public.views.base import public_page
from ratings.engine.norms import NORM_TITLES
from ratings.services.norms import event_norm_report, norm_certificate


@public_page
def event_norms(request, pk: int):
    event = get_object_or_404(public_event_list(), pk=pk)
    report = event_norm_report(event)
    made = [(line, norm) for line in report for norm in line.norms if norm.norm]
    return render(request, "events/norms.html", {"event": event, "report": report, "made": made})


def _pdf(data: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(data, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


@public_page
def norm_it1(request, pk: int, id_number: int):
    """IT1, the certificate of title result, of a norm made in the event (?title= one of GM IM WGM WIM)."""
    event = get_object_or_404(public_event_list(), pk=pk)
    title = request.GET.get("title") or None
    if title is not None and title not in NORM_TITLES:
        raise Http404("no such norm title")
    certificate = norm_certificate(event, id_number, title)
    if certificate is None:
        raise Http404("no norm for this player in this event")
    return _pdf(it1_pdf(certificate), f"IT1-{event.pk}-{id_number}-{certificate.result.title}.pdf")


@public_page
def event_it3(request, pk: int):
    """IT3, the tournament report of an event with norms."""
    event = get_object_or_404(public_event_list(), pk=pk)
    return _pdf(it3_pdf(event, event_norm_report(event)), f"IT3-{event.pk}.pdf")
