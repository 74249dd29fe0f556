"""What every exercise has: a seed, a problem to show, a checker, a hidden solver.

After OSTEP's homework simulators: the same seed always gives the same problem,
the student predicts, :meth:`Exercise.check` says what is right and, for what
is wrong, *why* (the mistake it most likely is), and :meth:`Exercise.solve` is
the ``-c`` flag that prints the answer with its working.  Every problem echoes
its parameters, so an answer can be discussed without re-running anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..textfit import fit


@dataclass
class Feedback:
    question: str
    correct: bool
    message: str
    key: str = ""  # the answer dict's key (the grader's CSV column); optional, so old callers still work

    def __str__(self) -> str:
        mark = "right" if self.correct else "not quite"
        return fit(f"[{mark}] {self.question}: {self.message}", hang=4)


@dataclass
class Report:
    items: list[Feedback] = field(default_factory=list)

    @property
    def score(self) -> tuple[int, int]:
        return sum(f.correct for f in self.items), len(self.items)

    def __str__(self) -> str:
        ok, n = self.score
        return "\n".join(str(f) for f in self.items) + f"\n{ok}/{n} right"

    def _repr_pretty_(self, p, cycle):  # IPython shows the report as text
        p.text(str(self))


class Exercise:
    """Base class: subclasses set ``questions`` and implement ``text``, ``_truth`` and ``_explain``."""

    name = "exercise"
    questions: dict[str, str] = {}
    # what the index and the notebook header print (defaults keep older subclasses valid)
    level = "beginner"
    minutes = 10
    thread = ""
    topic = ""

    def __init__(self, seed: int = 0):
        self.seed = int(seed)

    def echo(self) -> str:
        return f"{self.name}: seed={self.seed}"

    def template(self) -> dict:
        """The answer dict to fill in (every value None)."""
        return {k: None for k in self.questions}

    def check(self, answer: dict) -> Report:
        truth = self._truth()
        rep = Report()
        for key, q in self.questions.items():
            given = (answer or {}).get(key)
            if given is None:
                rep.items.append(Feedback(q, False, "no answer yet", key=key))
                continue
            ok, why = self._explain(key, given, truth)
            rep.items.append(Feedback(q, ok, why, key=key))
        return rep

    def solve(self) -> str:
        raise NotImplementedError

    def answer(self) -> dict:
        """The solver's answer, one value per question: what :meth:`check` marks fully right."""
        truth = self._truth()
        return {k: truth[k] for k in self.questions}

    def _truth(self) -> dict:
        raise NotImplementedError

    def _explain(self, key: str, given, truth: dict) -> tuple[bool, str]:
        raise NotImplementedError
