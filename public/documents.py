"""FIDE's title documents filled from the database, ready to sign (titles-norms.md §5), drawn with core.pdf.

IT1 (certificate of title result): one per norm, prepared by the Chief Arbiter and countersigned by the organising
federation's rating officer or president. IT3 (tournament report): one per event. The forms are FIDE's, in English.
"""

from __future__ import annotations

from core.pdf import PdfDocument
from events.models import Event
from ratings.services.norms import NormCertificate, PlayerNorms

_SYSTEM = {"swiss": "Swiss", "round_robin": "Round robin", "match": "Match", "team": "Team"}


def _event_facts(event: Event) -> list[tuple[str, object]]:
    return [
        ("Event", event.name),
        ("Place", ", ".join(x for x in (event.city, event.federation_id or "") if x)),
        ("Dates", f"{event.start_date or '-'} to {event.end_date or '-'}"),
        ("Rate of play", event.time_control),
        ("Rounds", event.rounds),
        ("System", _SYSTEM.get(event.system, event.system)),
        ("Organiser", event.organiser),
        ("Chief Arbiter", event.chief_arbiter_name),
    ]


def it1_pdf(certificate: NormCertificate) -> bytes:
    """FIDE form IT1 for one norm: player, event, the norm's figures and the table of rounds."""
    result = certificate.result
    document = PdfDocument(f"IT1 - Certificate of {result.title} title result")
    document.heading("Player")
    document.facts(
        [("Name", certificate.name), ("FIDE ID", certificate.id_number), ("Federation", certificate.federation)]
    )
    document.heading("Event")
    document.facts(_event_facts(certificate.event))
    raised = result.raised_opponent
    floor = f" (round {raised.round} raised from {raised.rating} to {raised.raised_to}, 1.4.7)" if raised else ""
    document.heading("Result")
    document.facts(
        [
            ("Norm title", result.title),
            ("Games counted", f"{len(result.games_used)} (worth {result.games} toward 27)"),
            ("Rounds counted", ", ".join(str(r) for r in result.games_used)),
            ("Average of opponents (Ra)", f"{result.average_rating}{floor}"),
            ("Score achieved", f"{result.score:g} ({result.percentage} %)"),
            ("Score required", "-" if result.required_score is None else f"{result.required_score:g}"),
            ("Performance (Rp)", result.performance),
            ("Federations of opponents", certificate.federations),
        ]
    )
    document.heading("Requirements (B.01 1.4)")
    document.table(
        ["Rule", "Required", "Actual", "Met"],
        [(c.rule, c.required, c.actual, "yes" if c.ok else "no") for c in result.checks],
        [18, 95, 35, 15],
    )
    document.heading("Rounds")
    document.table(
        ["Rd", "Opponent", "FIDE ID", "Fed", "Rating", "Title", "Result", "Counted"],
        [
            (r.round, r.opponent, r.id_number, r.federation, r.rating, r.title, r.result, "yes" if r.counted else "no")
            for r in certificate.rounds
        ],
        [9, 50, 22, 12, 40, 12, 13, 15],
    )
    if certificate.countersigned:
        document.paragraph(f"Countersigned by the rating officer: {certificate.countersigned}")
    document.signatures(["Chief Arbiter", "Rating officer / President"])
    return document.bytes()


def it3_pdf(event: Event, report: list[PlayerNorms]) -> bytes:
    """FIDE form IT3, the tournament report, with the norms the event gave."""
    document = PdfDocument("IT3 - Tournament report")
    document.facts([("Federation", event.federation_id or "-"), *_event_facts(event)])
    made = [(line, norm) for line in report for norm in line.norms if norm.norm]
    document.heading("Norms achieved")
    if made:
        document.table(
            ["Player", "FIDE ID", "Title", "Games", "Score", "Ra", "Rp"],
            [
                (line.name, line.id_number, n.title, len(n.games_used), f"{n.score:g}", n.average_rating, n.performance)
                for line, n in made
            ],
            [60, 25, 15, 15, 15, 15, 15],
        )
    else:
        document.paragraph("No title norm was achieved in this event.")
    document.signatures(["Chief Arbiter", "Organiser"])
    return document.bytes()
