"""The common shape of the seeded exercises: draw, show, check by kind, name the mistake, solve.

A subclass draws its parameters from the seed (:meth:`Seeded.draw`), states
the problem (:meth:`Seeded.text`), computes the truth and the working
(:meth:`Seeded.truth`, :meth:`Seeded.working`) and, for a wrong answer, names
the mistake it most likely is (:meth:`Seeded.mistake`).  How an answer is
compared depends on the question's kind (:class:`Number`, :class:`Sign`,
:class:`Flag`, :class:`Choice`), declared beside the question.

Every exercise also carries what the index and the notebook header print:
``level``, ``minutes``, ``thread`` and ``topic``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from .base import Exercise, Verdict

LEVELS = ("beginner", "intermediate", "advanced")

SIGN_WORDS = {
    "+": "+", "up": "+", "more": "+", "higher": "+", "increase": "+", "increases": "+", "positive": "+",
    "rises": "+", "grows": "+", "faster": "+", "better": "+", "gain": "+",
    "-": "-", "down": "-", "less": "-", "lower": "-", "decrease": "-", "decreases": "-", "negative": "-",
    "falls": "-", "drops": "-", "shrinks": "-", "slower": "-", "worse": "-", "loss": "-",
    "0": "0", "same": "0", "none": "0", "unchanged": "0", "zero": "0", "no change": "0", "flat": "0",
}
YES = {"true", "yes", "y", "t", "1", "right", "correct"}
NO = {"false", "no", "n", "f", "0", "wrong", "incorrect"}

# units a number may be written in, by dimension: (unit, factor to the dimension's first unit)
UNITS = {
    "time": {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "secs": 1.0,
             "second": 1.0, "seconds": 1.0, "min": 60.0, "minutes": 60.0},
    "size": {"b": 1.0, "bytes": 1.0, "kb": 1e3, "kib": 1024.0, "k": 1024.0, "mb": 1e6, "mib": 1024.0 ** 2,
             "m": 1024.0 ** 2, "gb": 1e9, "gib": 1024.0 ** 3, "g": 1024.0 ** 3},
    "rate": {"b/s": 1.0, "kb/s": 1e3, "kib/s": 1024.0, "mb/s": 1e6, "mib/s": 1024.0 ** 2, "mb/sec": 1e6,
             "gb/s": 1e9, "gib/s": 1024.0 ** 3},
    "percent": {"%": 1.0, "percent": 1.0, "pct": 1.0, "pts": 1.0, "points": 1.0, "pp": 1.0},
}
_NUMBER = re.compile(r"^\s*([+\-\u2212]?)\s*((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:e([+-]?\d+))?\s*(.*?)\s*\.?$",
                     re.I)


def _dimension(unit: str) -> tuple[str, float] | None:
    u = unit.strip().lower()
    for dim, table in UNITS.items():
        if u in table:
            return dim, table[u]
    return None


def read_number(given, unit: str = "") -> float:
    """A number as a person writes it: ``-11.29``, ``"-11.29%"``, ``"−11.29 %"``, ``"1,234"``, ``"12 ms"``,
    ``"0.5 s"`` for a question in ms (converted), ``"2.5e3"``.  A unit of another kind than ``unit`` (or one
    that is not known) is refused with what was expected."""
    if isinstance(given, bool):
        raise ValueError(f"a number{f' in {unit}' if unit else ''}, not True/False")
    if isinstance(given, (int, float, np.integer, np.floating)):
        return float(given)
    m = _NUMBER.match(str(given))
    expect = f"a number{f' in {unit}' if unit else ''} (e.g. 12.5{f' or {chr(34)}12.5 {unit}{chr(34)}' if unit else ''})"
    if not m:
        raise ValueError(expect)
    sign, digits, exp, written = m.groups()
    v = float(digits.replace(",", "")) * (10 ** int(exp) if exp else 1)
    v = -v if sign in ("-", "\u2212") else v
    if not written or written.lower() == unit.lower():
        return v
    have, want = _dimension(written), _dimension(unit) if unit else None
    if have and want and have[0] == want[0]:
        return v * have[1] / want[1]
    if have and have[0] == "percent" and not unit:
        return v
    raise ValueError(f"{expect}; {written!r} is not {'a unit of ' + unit if unit else 'a unit this question uses'}")


@dataclass(frozen=True)
class Number:
    """A number, right within ``tol`` (absolute) or ``rel`` (a fraction of the truth), whichever is larger."""

    tol: float = 0.0
    rel: float = 0.0
    unit: str = ""
    digits: int = 2

    def parse(self, given):
        return read_number(given, self.unit)

    def close(self, a: float, b: float) -> bool:
        return abs(a - b) <= max(self.tol, abs(self.rel * b)) + 1e-9

    def fmt(self, v) -> str:
        s = f"{float(v):.{self.digits}f}"
        return f"{s} {self.unit}".rstrip() if self.unit != "%" else s + "%"

    def hint(self, g, truth) -> str:
        """Which way a wrong number is off (never by how much: that would be the answer)."""
        return f"{self.fmt(g)} is too {'high' if g > truth else 'low'}"


def _word(given) -> str:
    return re.sub(r"[\s.!]+$", "", str(given).strip().lower())


@dataclass(frozen=True)
class Sign:
    """'+', '-' or '0' (also 'up', 'down', 'same', ..., or a number -- ``+3.2%`` -- whose sign is taken)."""

    def parse(self, given):
        if isinstance(given, (int, float, np.integer, np.floating)) and not isinstance(given, bool):
            return "+" if given > 0 else "-" if given < 0 else "0"
        s = _word(given)
        if s in SIGN_WORDS:
            return SIGN_WORDS[s]
        try:
            v = read_number(s)
        except ValueError:
            raise ValueError("'+', '-' or '0' (or up, down, same)") from None
        return "+" if v > 0 else "-" if v < 0 else "0"

    def close(self, a, b) -> bool:
        return a == b

    def fmt(self, v) -> str:
        return {"+": "'+' (up)", "-": "'-' (down)", "0": "'0' (no change)"}[v]

    def hint(self, g, truth) -> str:
        return f"not {self.fmt(g)}"


@dataclass(frozen=True)
class Flag:
    """True or False (also yes/no, y/n, 1/0)."""

    def parse(self, given):
        if isinstance(given, (bool, np.bool_)):
            return bool(given)
        s = _word(given)
        if s in YES:
            return True
        if s in NO:
            return False
        raise ValueError("True or False (or yes/no)")

    def close(self, a, b) -> bool:
        return a == b

    def fmt(self, v) -> str:
        return str(bool(v))

    def hint(self, g, truth) -> str:
        return f"not {g}: re-read what the question asks and check it against the problem's numbers"


@dataclass(frozen=True)
class Choice:
    """One of ``options`` (a dict: letter -> text); the letter (``b``, ``(b)``, ``B)``) or the full text."""

    options: tuple  # ((letter, text), ...)

    def parse(self, given):
        s = str(given).strip()
        bare = s.strip("()[]. ").rstrip(")")
        for k, text in self.options:
            if bare.lower() == k.lower() or s.lower() == text.lower() or _word(s) == text.lower():
                return k
        raise ValueError("one of " + ", ".join(repr(k) for k, _ in self.options))

    def close(self, a, b) -> bool:
        return a == b

    def fmt(self, v) -> str:
        return f"'{v}' ({dict(self.options)[v]})"

    def hint(self, g, truth) -> str:
        return f"not {self.fmt(g)}"


def sign_of(change: float, band: float = 0.0) -> str:
    """'+', '-' or '0' when ``|change| <= band``."""
    if change != change:
        return "0"
    return "0" if abs(change) <= band else ("+" if change > 0 else "-")


def c_div(a: int, b: int) -> int:
    """C's integer division (truncates toward zero), as the kernel divides."""
    q = abs(int(a)) // abs(int(b))
    return q if (a >= 0) == (b > 0) else -q


@dataclass(frozen=True)
class Page:
    """How an exercise's notebook reads (``exercises/scripts.py`` writes the notebook from it)."""

    heading: str  # after "Exercise N — "
    about: str  # one paragraph (one line in the script: the notebook wraps it)
    demo: int  # the seed of the problem the checker is shown on: one whose typical mistake reads well
    example: tuple  # (question key, the mistaken answer the demo gives to it)
    answers: str = "default"  # how to write an answer: a key of scripts.ANSWER_FORMS


class Seeded(Exercise):
    """An exercise whose problem is drawn from ``seed``; subclasses fill in the hooks below."""

    level = "beginner"
    minutes = 10
    thread = ""
    topic = ""
    title = ""
    kinds: dict = {}  # question key -> Number | Sign | Flag | Choice

    def __init__(self, seed: int = 0):
        super().__init__(seed)
        self.params = dict(self.draw(np.random.default_rng([int(seed), _name_key(self.name)])))
        self._cache = None

    # ---- hooks ----------------------------------------------------------
    def draw(self, rng: np.random.Generator) -> dict:
        """The problem's parameters (echoed by :meth:`echo`)."""
        raise NotImplementedError

    def text(self) -> str:
        """The problem as the student reads it."""
        raise NotImplementedError

    def truth(self) -> dict:
        """The answers (one per question key) and whatever the working needs."""
        raise NotImplementedError

    def working(self, t: dict) -> list[str]:
        """How the answers follow, one line per step."""
        return []

    def mistake(self, key: str, given, t: dict) -> str | None:
        """The mistake a wrong ``given`` most likely is, or None."""
        return None

    def typical_mistake(self) -> tuple[dict, str] | None:
        """A wrong answer that :meth:`mistake` names, and the key it is wrong on (None if this seed has none)."""
        return None

    # ---- the common part --------------------------------------------------
    def echo(self) -> str:
        args = " ".join(f"{k}={_fmt_param(v)}" for k, v in self.params.items())
        return f"{self.name}: seed={self.seed} {args}".rstrip()

    def header(self) -> str:
        return (f"{self.title or self.name} -- level: {self.level}, expected time: {self.minutes} min"
                + (f", thread: {self.thread}" if self.thread else "") + (f", topic: {self.topic}" if self.topic else ""))

    def shown(self) -> list:
        """The problem as a notebook shows it: the header and the echo, the problem, the questions."""
        from ..frames import Preformatted, Prose

        questions = "\n".join(f"* `{k}`: {q}" for k, q in self.questions.items())
        return [Prose(f"**{self.header()}**\n\n`{self.echo()}`"), Preformatted(self.text(), wrap=True), Prose(questions)]

    def show(self) -> None:
        from IPython.display import display

        display(*self.shown())

    def _truth(self) -> dict:
        if self._cache is None:
            self._cache = self.truth()
        return self._cache

    def answer(self) -> dict:
        """The solver's answer dict (what :meth:`check` marks fully right)."""
        t = self._truth()
        return {k: _plain(t[k]) for k in self.questions}

    def hint(self, key: str, g, t: dict) -> str | None:
        """A pointer for a first wrong ``g`` that :meth:`mistake` does not name (default: ``hints[key]``)."""
        return self.hints.get(key)

    def _verdict(self, key, given, t) -> Verdict:
        kind = self.kinds[key]
        try:
            g = kind.parse(given)
        except (TypeError, ValueError) as e:
            return Verdict(False, f"expected {e if str(e) else 'a ' + type(kind).__name__.lower()}, got {given!r}",
                           counts=False)
        if kind.close(g, t[key]):
            return Verdict(True, kind.fmt(t[key]))
        why = self.mistake(key, g, t)
        if why:
            return Verdict(False, f"likely mistake: {why}", kind.fmt(t[key]))
        pointer = self.hint(key, g, t)
        return Verdict(False, kind.hint(g, t[key]) + (f"; hint: {pointer}" if pointer else ""),
                       f"{kind.fmt(t[key])} (solve() shows the working)")

    def solve(self) -> str:
        """The answers with their working, every parameter echoed first (a ``frames.Text``: printed as
        text, shown as Markdown)."""
        from ..frames import Text

        t = self._truth()
        work = ["  " + ln for ln in self.working(t)]
        answers = [f"{k}: {self.kinds[k].fmt(t[k])}" for k in self.questions]
        md = ([f"`{self.echo()}`", ""] + [f"* {ln.strip()}" for ln in work] + [""]
              + [f"* **{a.split(': ', 1)[0]}**: {a.split(': ', 1)[1]}" for a in answers])
        return Text("\n".join([self.echo(), *work, *answers]), "\n".join(md))


def _name_key(name: str) -> int:
    # a stable number per exercise, so that seed 1 of two exercises are not the same draw
    return sum((i + 1) * ord(c) for i, c in enumerate(name))


def _fmt_param(v) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_fmt_param(x) for x in v) + "]"
    return str(v)


def _plain(v):
    if isinstance(v, (np.bool_,)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, float) and math.isfinite(v):
        return v
    return v


__all__ = ["Seeded", "Number", "Sign", "Flag", "Choice", "sign_of", "c_div", "read_number", "LEVELS"]
