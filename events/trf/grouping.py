"""The same problem on many lines, said once (``group_problems``): "lines 12, 14, 16 … (34 lines): …".

A file from one pairing program repeats its oddities on every player line (a birth date one column off, a
club code in the federation column, new players without sex). A report that prints 34 identical warnings
hides the one that matters, so problems whose messages differ only in the player they name are one group,
with every line kept (and every original message, for whoever needs them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from events.trf.records import Severity, TrfProblem

# The player a message is about: "player 12" or "player 12 (García, Ana)" (a name may hold one level of
# parentheses); "jugador" where the importer's own messages are translated. Replaced by "player …" to compare.
_SUBJECT = re.compile(r"\b(player|jugador) \d+(?: \((?:[^()]|\([^()]*\))*\))?")
SUBJECT_PLACEHOLDER = r"\1 …"


def problem_subject() -> re.Pattern[str]:
    """The pattern of the player a message is about (for a translated message, events.trf_text)."""
    return _SUBJECT


@dataclass
class TrfProblemGroup:
    """Problems of one severity whose messages are the same but for the player named.

    ``message``: the single problem's message, or the shared message with the player replaced by "player …";
    ``lines``: the lines in file order (0: the file as a whole); ``problems``: the members as they were.
    """

    severity: Severity
    message: str
    problems: list[TrfProblem] = field(default_factory=list)

    @property
    def lines(self) -> list[int]:
        return [p.line for p in self.problems]

    @property
    def count(self) -> int:
        return len(self.problems)

    @property
    def first(self) -> TrfProblem:
        return self.problems[0]

    @property
    def columns(self) -> list[int]:
        return sorted({p.column for p in self.problems if p.column})

    def __str__(self) -> str:
        if self.count == 1:
            return str(self.first)
        shown = ", ".join(str(line) for line in self.lines[:8]) + (" …" if self.count > 8 else "")
        return f"lines {shown} ({self.count} lines): {self.severity}: {self.message}"


def problem_kind(problem: TrfProblem) -> tuple[str, str]:
    """What makes two problems "the same": the severity and the message with its player replaced."""
    return problem.severity, _SUBJECT.sub(SUBJECT_PLACEHOLDER, problem.message)


def group_problems(problems: list[TrfProblem]) -> list[TrfProblemGroup]:
    """``problems`` grouped by ``problem_kind``, errors first, then in the order of each group's first line."""
    groups: dict[tuple[str, str], TrfProblemGroup] = {}
    for problem in problems:
        kind = problem_kind(problem)
        group = groups.get(kind)
        if group is None:
            groups[kind] = TrfProblemGroup(problem.severity, kind[1], [problem])
        else:
            group.problems.append(problem)
    for group in groups.values():
        if group.count == 1:
            group.message = group.first.message
        group.problems.sort(key=lambda p: (p.line, p.column or 0))
    return sorted(groups.values(), key=lambda g: (g.severity != "error", g.first.line, g.first.column or 0))
