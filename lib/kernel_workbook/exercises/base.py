"""What every exercise has: a seed, a problem to show, a checker, a hidden solver.

After OSTEP's homework simulators: the same seed always gives the same problem,
the student predicts, :meth:`Exercise.check` says what is right and, for what
is wrong, *why* (the mistake it most likely is), and :meth:`Exercise.solve` is
the ``-c`` flag that prints the answer with its working.  Every problem echoes
its parameters, so an answer can be discussed without re-running anything.

A checker is a tutor, not an answer key: a first wrong answer to a question
gets the mistake it most likely is, or a hint (too high, too low, what to
re-read), and the question stays open; the next wrong try gets the answer
too (``reveal`` changes that).  An answer that cannot be read as the
question's kind -- a word where a number is asked -- is not counted as a try.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

NO_ANSWER = "no answer yet"
TRY_AGAIN = "try again: a second wrong try shows the answer, solve() the working"


@dataclass
class Feedback:
    question: str
    correct: bool
    message: str
    key: str = ""  # the answer dict's key (the grader's CSV column); optional, so old callers still work

    @property
    def mark(self) -> str:
        return "right" if self.correct else "not quite"

    def __str__(self) -> str:
        return f"[{self.mark}] {self.question}: {self.message}"


@dataclass
class Report:
    items: list[Feedback] = field(default_factory=list)

    @property
    def score(self) -> tuple[int, int]:
        return sum(f.correct for f in self.items), len(self.items)

    def __str__(self) -> str:
        ok, n = self.score
        return "\n".join(str(f) for f in self.items) + f"\n{ok}/{n} right"

    def _repr_pretty_(self, p, cycle):  # IPython's plain text (nbval compares it)
        p.text(str(self))

    def _repr_html_(self) -> str:
        ok, n = self.score
        def mark(f):
            if f.correct:
                return "<span style='color:#1a7f37;font-weight:bold'>&#10004; right</span>"
            if f.message == NO_ANSWER:
                return "<span style='color:#777;font-weight:bold'>&#8211; to answer</span>"
            return "<span style='color:#c62828;font-weight:bold'>&#10008; not quite</span>"

        rows = "".join(f"<li>{mark(f)} <b>{html.escape(f.question)}</b>: {html.escape(f.message)}</li>"
                       for f in self.items)
        return f"<ul style='list-style:none;padding-left:0'>{rows}</ul><b>{ok}/{n} right</b>"


@dataclass
class Verdict:
    """How one answer to one question was judged: ``message`` is said at every try (a right answer, a named
    mistake, a hint); ``answer`` (the right one, with a word of why) only once a hint has been given."""

    ok: bool
    message: str
    answer: str = ""
    counts: bool = True  # False: the answer could not be read (no try spent)


class Exercise:
    """Base class: subclasses set ``questions`` and implement ``text``, ``_truth`` and ``_verdict``."""

    name = "exercise"
    page = None  # its notebook's page (a seeded.Page), from which exercises/scripts.py writes it; None: by hand
    questions: dict[str, str] = {}
    hints: dict[str, str] = {}  # question key -> a pointer given with a first wrong answer
    # what the index and the notebook header print (defaults keep older subclasses valid)
    level = "beginner"
    minutes = 10
    thread = ""
    topic = ""

    def __init__(self, seed: int = 0):
        self.seed = int(seed)
        self._tries: dict[str, list] = {}

    def echo(self) -> str:
        return f"{self.name}: seed={self.seed}"

    def template(self) -> dict:
        """The answer dict to fill in (every value None)."""
        return {k: None for k in self.questions}

    def check(self, answer: dict, reveal: bool | None = None) -> Report:
        """Each question right, or what is wrong with it: a first wrong answer gets the named mistake or a
        hint, the next wrong try the answer too (``reveal=True``: at once, ``False``: never)."""
        truth = self._truth()
        rep = Report()
        for key, q in self.questions.items():
            given = (answer or {}).get(key)
            if given is None:
                rep.items.append(Feedback(q, False, NO_ANSWER, key=key))
                continue
            v = self._verdict(key, given, truth)
            if v.ok or not v.counts:
                rep.items.append(Feedback(q, v.ok, v.message, key=key))
                continue
            tries = self._tries.setdefault(key, [])
            tries.append(repr(given))
            show = (len(tries) >= 2) if reveal is None else reveal
            msg = v.message
            if show and v.answer:
                msg += f"; the answer is {v.answer}"
            elif not show:
                msg += f" ({TRY_AGAIN})"
            rep.items.append(Feedback(q, False, msg, key=key))
        return rep

    def solve(self) -> str:
        raise NotImplementedError

    def answer(self) -> dict:
        """The solver's answer, one value per question: what :meth:`check` marks fully right."""
        truth = self._truth()
        return {k: truth[k] for k in self.questions}

    def _truth(self) -> dict:
        raise NotImplementedError

    def _verdict(self, key: str, given, truth: dict) -> Verdict:
        raise NotImplementedError


__all__ = ["Exercise", "Feedback", "Report", "Verdict", "TRY_AGAIN"]
