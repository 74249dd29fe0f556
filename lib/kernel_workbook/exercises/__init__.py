"""exercises of the Kernel Heuristics Workbook: seeded problems, checkers, solvers, and the grader's index.

The exercises on reading what the kernel and mmtests print (01-06) live
here; each heuristic's (07-24) live in its folder
(``kernel_workbook.heuristics.<name>``, ``Heuristic.exercises``).
:func:`exercises` lists every notebook of ``exercises/`` with the class it
builds its problem from, in the order of ``exercises/README.md``;
:func:`exercise_class` finds the class a submission names among those alone:
a name read from a notebook is never imported.
"""

from __future__ import annotations


def exercises() -> dict:
    """Notebook stem -> the :class:`~.base.Exercise` class it draws its problem from, in the stems' order."""
    from .. import heuristic
    from .mmtests_reading import ReadingMmtests
    from .statistics import CiAndWelch, HmeanAmean
    from .trace_reading import FlameGraphs, IostatAwait, ReclaimEfficiency

    out = {
        "01-reading-mmtests-tables": ReadingMmtests,
        "02-stats-hmean-amean": HmeanAmean,
        "03-stats-significance": CiAndWelch,
        "04-trace-reclaim-efficiency": ReclaimEfficiency,
        "05-trace-iostat-await": IostatAwait,
        "06-trace-flamegraph": FlameGraphs,
    }
    for h in heuristic.heuristics():
        out.update(h.exercises)
    return dict(sorted(out.items()))


def exercise_name(cls) -> str:
    """How a submission names its exercise: ``"module:Class"`` of the class it drew from."""
    return f"{cls.__module__}:{cls.__qualname__}"


def exercise_class(target: str):
    """The exercise class named ``"module:Class"`` (:func:`exercise_name`), looked up among :func:`exercises`."""
    from ..errors import WorkbookParameterError

    for cls in exercises().values():
        if target == exercise_name(cls):
            return cls
    raise WorkbookParameterError("exercise", target, "'module:Class' of an exercise of this workbook")


__all__ = ["exercises", "exercise_class", "exercise_name"]
