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
from dataclasses import dataclass

import numpy as np

from ..textfit import fit
from .base import Exercise, Feedback, Report

LEVELS = ("beginner", "intermediate", "advanced")

SIGN_WORDS = {
    "+": "+", "up": "+", "more": "+", "higher": "+", "increase": "+", "positive": "+",
    "-": "-", "down": "-", "less": "-", "lower": "-", "decrease": "-", "negative": "-",
    "0": "0", "same": "0", "none": "0", "unchanged": "0", "zero": "0",
}


@dataclass(frozen=True)
class Number:
    """A number, right within ``tol`` (absolute) or ``rel`` (a fraction of the truth), whichever is larger."""

    tol: float = 0.0
    rel: float = 0.0
    unit: str = ""
    digits: int = 2

    def parse(self, given):
        if isinstance(given, bool):
            raise ValueError("a number, not True/False")
        return float(given)

    def close(self, a: float, b: float) -> bool:
        return abs(a - b) <= max(self.tol, abs(self.rel * b)) + 1e-9

    def fmt(self, v) -> str:
        s = f"{float(v):.{self.digits}f}"
        return f"{s} {self.unit}".rstrip()


@dataclass(frozen=True)
class Sign:
    """'+', '-' or '0' (also 'up', 'down', 'same', or a number whose sign is taken)."""

    def parse(self, given):
        if isinstance(given, (int, float)) and not isinstance(given, bool):
            return "+" if given > 0 else "-" if given < 0 else "0"
        s = str(given).strip().lower()
        if s not in SIGN_WORDS:
            raise ValueError("'+', '-' or '0'")
        return SIGN_WORDS[s]

    def close(self, a, b) -> bool:
        return a == b

    def fmt(self, v) -> str:
        return {"+": "'+' (up)", "-": "'-' (down)", "0": "'0' (no change)"}[v]


@dataclass(frozen=True)
class Flag:
    """True or False."""

    def parse(self, given):
        if isinstance(given, (bool, np.bool_)):
            return bool(given)
        s = str(given).strip().lower()
        if s in ("true", "yes", "y", "1"):
            return True
        if s in ("false", "no", "n", "0"):
            return False
        raise ValueError("True or False")

    def close(self, a, b) -> bool:
        return a == b

    def fmt(self, v) -> str:
        return str(bool(v))


@dataclass(frozen=True)
class Choice:
    """One of ``options`` (a dict: letter -> text); the letter or the full text is accepted."""

    options: tuple  # ((letter, text), ...)

    def parse(self, given):
        s = str(given).strip()
        for k, text in self.options:
            if s.lower() == k.lower() or s.lower() == text.lower():
                return k
        raise ValueError("one of " + ", ".join(repr(k) for k, _ in self.options))

    def close(self, a, b) -> bool:
        return a == b

    def fmt(self, v) -> str:
        return f"'{v}' ({dict(self.options)[v]})"


def sign_of(change: float, band: float = 0.0) -> str:
    """'+', '-' or '0' when ``|change| <= band``."""
    if change != change:
        return "0"
    return "0" if abs(change) <= band else ("+" if change > 0 else "-")


def c_div(a: int, b: int) -> int:
    """C's integer division (truncates toward zero), as the kernel divides."""
    q = abs(int(a)) // abs(int(b))
    return q if (a >= 0) == (b > 0) else -q


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
        return fit(f"{self.name}: seed={self.seed} {args}".rstrip(), hang=4)

    def header(self) -> str:
        return (f"{self.title or self.name} -- level: {self.level}, expected time: {self.minutes} min"
                + (f", thread: {self.thread}" if self.thread else "") + (f", topic: {self.topic}" if self.topic else ""))

    def show(self) -> None:
        print(fit(self.header(), hang=4))
        print(self.echo())
        print()
        print(fit(self.text()))
        print()
        for k, q in self.questions.items():
            print(fit(f"  {k}: {q}", hang=4))

    def _truth(self) -> dict:
        if self._cache is None:
            self._cache = self.truth()
        return self._cache

    def answer(self) -> dict:
        """The solver's answer dict (what :meth:`check` marks fully right)."""
        t = self._truth()
        return {k: _plain(t[k]) for k in self.questions}

    def check(self, answer: dict) -> Report:
        rep = Report()
        t = self._truth()
        for key, q in self.questions.items():
            given = (answer or {}).get(key)
            if given is None:
                rep.items.append(Feedback(q, False, "no answer yet", key=key))
                continue
            ok, why = self._explain(key, given, t)
            rep.items.append(Feedback(q, ok, why, key=key))
        return rep

    def _explain(self, key, given, t):
        kind = self.kinds[key]
        try:
            g = kind.parse(given)
        except (TypeError, ValueError) as e:
            return False, f"expected {e if str(e) else 'a ' + type(kind).__name__.lower()}, got {given!r}"
        if kind.close(g, t[key]):
            return True, kind.fmt(t[key])
        why = self.mistake(key, g, t)
        if why:
            return False, f"likely mistake: {why}; the answer is {kind.fmt(t[key])}"
        return False, f"the answer is {kind.fmt(t[key])} (solve() shows the working)"

    def solve(self) -> str:
        t = self._truth()
        lines = [self.echo()]
        lines += [fit("  " + ln, hang=4) for ln in self.working(t)]
        lines += [fit(f"{k}: {self.kinds[k].fmt(t[k])}", hang=4) for k in self.questions]
        return "\n".join(lines)


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


__all__ = ["Seeded", "Number", "Sign", "Flag", "Choice", "sign_of", "c_div", "LEVELS"]
