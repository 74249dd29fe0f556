"""Numbers on the command line, each checked against its range before anything runs.

``type=whole(1, 1000)`` for argparse: the text must be a whole number in the
range, else argparse's one-line error says what was expected and what was
given (never an ``OverflowError`` or a ``MemoryError`` from deep inside a run,
as a 20-digit ``--seeds`` gave before).  :func:`seconds` is the same for a
duration.  :func:`one_line_errors` makes a parser's errors a single line (the
option and what it expects), without argparse's usage block.
"""

from __future__ import annotations

import argparse
import math

MAX_DIGITS = 30  # longer text is refused before int() reads it


def whole(lo: int, hi: int, what: str = "a whole number"):
    """An argparse type: a whole number from ``lo`` to ``hi``."""
    def parse(text: str) -> int:
        t = str(text).strip()
        try:
            if len(t) > MAX_DIGITS:
                raise ValueError
            v = int(t)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what} from {lo} to {hi}, got {_short(text)!r}") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"expected {what} from {lo} to {hi}, got {v}")
        return v

    parse.__name__ = f"whole number {lo}..{hi}"
    return parse


def seconds(lo: float, hi: float):
    """An argparse type: a finite number of seconds from ``lo`` to ``hi``."""
    def parse(text: str) -> float:
        try:
            if len(str(text)) > MAX_DIGITS:
                raise ValueError
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected seconds from {lo:g} to {hi:g}, got {_short(text)!r}") \
                from None
        if not (math.isfinite(v) and lo <= v <= hi):
            raise argparse.ArgumentTypeError(f"expected seconds from {lo:g} to {hi:g}, got {_short(text)}")
        return v

    parse.__name__ = f"seconds {lo:g}..{hi:g}"
    return parse


def _short(text) -> str:
    t = str(text)
    return t if len(t) <= 40 else t[:37] + "..."


def one_line_errors(p: argparse.ArgumentParser, prog: str) -> None:
    """Errors of ``p`` as one line: ``kwb NAME: <what is wrong> (see kwb NAME --help)``, exit status 2."""
    def error(message: str):
        p.exit(2, f"{prog}: {message} (see {prog} --help)\n")

    p.error = error


__all__ = ["whole", "seconds", "one_line_errors", "MAX_DIGITS"]
