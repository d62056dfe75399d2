"""The TRF reader's problems in the reader's language (issue 32). The reader (events.trf) is pure and writes each
problem in English with its template and values (``TrfText``); this module, on the Django side, translates the
template (and any TrfText among the values) with the catalogue and fills the values in."""

from django.utils.translation import gettext

from events.trf.grouping import SUBJECT_PLACEHOLDER, TrfProblemGroup, problem_subject
from events.trf.records import TrfProblem, TrfText


def trf_text(text: TrfText) -> str:
    template = gettext(text.template)
    if not text.values:
        return template
    return template % {name: trf_text(v) if isinstance(v, TrfText) else v for name, v in text.values}


def trf_problem_text(problem: TrfProblem) -> str:
    """A problem's message: translated when the reader gave its template, else as written (the importer's own)."""
    return trf_text(problem.text) if problem.text is not None else problem.message


def trf_group_text(group: TrfProblemGroup) -> str:
    """A group's message, its player replaced by "player …" ("jugador …") when it stands for several lines."""
    if group.count == 1:
        return trf_problem_text(group.first)
    return problem_subject().sub(SUBJECT_PLACEHOLDER, trf_problem_text(group.first))
