"""The workbook's exceptions.

Every parser in the workbook raises :class:`WorkbookParseError` and nothing
else for bad input, so a caller (a notebook, the CLI, a fuzzer) has exactly one
thing to catch.  The message always names the file, the line and what was
expected, because a user staring at a 10 MB log needs all three.
"""

from __future__ import annotations

import warnings


class WorkbookError(Exception):
    """Base class of every error the workbook raises on purpose."""


class WorkbookParseError(WorkbookError, ValueError):
    """Input that does not have the shape a parser expects.

    Attributes
    ----------
    source : str
        The file name (or ``"<text>"`` for a string).
    line : int or None
        1-based line number of the offending line, when there is one.
    expected : str
        What the parser expected to find, in plain words.
    text : str
        The offending text, shortened to 120 characters.
    """

    def __init__(self, source: str | None, line: int | None, expected: str, text: str = ""):
        self.source = source or "<text>"
        self.line = line
        self.expected = expected
        self.text = text if len(text) <= 120 else text[:117] + "..."
        where = self.source if line is None else f"{self.source}:{line}"
        msg = f"{where}: expected {expected}"
        if text:
            msg += f"; found {self.text!r}"
        super().__init__(msg)

    def __reduce__(self):  # pickled whole (a Dask worker's error reaches the client as this same error)
        return (type(self), (self.source, self.line, self.expected, self.text), self.__dict__)


class WorkbookParameterError(WorkbookError, ValueError):
    """A model or function parameter outside its valid range.

    The message names the parameter, its value and the valid range, so that a
    slider or a typo in a notebook points straight at the knob to fix.
    """

    def __init__(self, name: str, value: object, expected: str):
        self.name = name
        self.value = value
        self.expected = expected
        super().__init__(f"parameter {name}={value!r}: expected {expected}")

    def __reduce__(self):  # pickled whole (a Dask worker's error reaches the client as this same error)
        return (type(self), (self.name, self.value, self.expected), self.__dict__)


class FitCacheWarning(UserWarning):
    """A calibration stored on disk (``reproduce.fit_cache``) could not be read or written: it is fitted again,
    or kept in memory only.  The results are the same either way; only the time differs."""


class WorkbookInputWarning(UserWarning):
    """Base class of every warning about input the workbook read only in part (the complete records were
    kept, what was left out is named by file and line): ``warnings.simplefilter("error",
    WorkbookInputWarning)`` makes every one of them an error."""


class TruncatedTraceWarning(WorkbookInputWarning):
    """Input that ended in the middle of a record (a trace, or a table pasted from mail); the complete
    records were kept.  ``kernel_workbook.traces.TruncatedTraceWarning`` is this class."""


class UndecodableBytesWarning(WorkbookInputWarning):
    """Input with bytes that are not UTF-8 (a Latin-1 name, a damaged copy): they were read as U+FFFD; the message
    names the file and the line of the first."""


class SkippedLinesWarning(WorkbookInputWarning):
    """Lines a parser left out because they are not the tool's output (a workload's own messages written to the
    same stream, as ``perf stat -I ... cmd 2> log`` interleaves ``dd``'s ``records in``); the message names the
    file, the lines and what was expected there."""


class UnnamedColumnsWarning(WorkbookInputWarning):
    """A table was read but some of its columns have no kernel name (no header, or one that does not line up
    with the columns): those cells have ``kernel == ""``.  The message names the table's first line."""


class SeriesBreakWarning(WorkbookInputWarning):
    """A time series that starts again inside one file: a counter that only grows went down (the machine
    rebooted, or a 32-bit counter wrapped), or the clock went back (set by hand, or by NTP).  No delta, rate or
    elapsed time is computed across the break: the series is cut there into segments (``attrs["segments"]``),
    and the message names the file, the line and what went backwards."""


class UnreadTunableWarning(WorkbookInputWarning):
    """A model's tunable knob whose file a machine does not have (a tunable of another kernel, or a block device
    not named) or does not let us read: the knob keeps the model's value; the message names each one and why."""


def warn_skipped(source: str, lines: list[int], texts: list[str], expected: str, stacklevel: int = 3) -> None:
    """One warning for every line left out (1-based *lines*), quoting the first."""
    if not lines:
        return
    where = ", ".join(str(n) for n in lines[:10]) + (f" and {len(lines) - 10} more" if len(lines) > 10 else "")
    warnings.warn(SkippedLinesWarning(f"{source}: skipped {len(lines)} line(s) that are not {expected} "
                                      f"(lines {where}; the first: {texts[0][:80]!r})"), stacklevel=stacklevel)


def warn_truncated(source: str, line: int, what: str) -> None:
    """A record cut at *line* (the input ended inside it): the records before it were kept."""
    warnings.warn(TruncatedTraceWarning(f"{source}:{line}: truncated {what}; the records before it were kept"),
                  stacklevel=3)
