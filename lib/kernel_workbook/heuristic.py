"""What one heuristic brings to the workbook, declared once, and the one list of them.

A heuristic is a folder of :mod:`kernel_workbook.heuristics` holding
everything about it above its kernel mirror (``models/<name>/``): its
workloads, the reproductions of its threads, its charts and explorers, its
exercises and its benchmarks.  The folder's ``__init__.py`` ends with one
declaration, ``HEURISTIC = Heuristic(...)``, and every list the workbook
keeps of models, workloads, threads, explorers, exercises and benchmark
suites is read from those declarations (:func:`heuristics`).

The list is every folder of :mod:`kernel_workbook.heuristics` (a new folder
is a new heuristic: nothing else names it), then the entry points of the
group ``kernel_workbook.heuristics`` that installed plug-in packages declare
(``name = "package.module:HEURISTIC"`` in their ``pyproject.toml``).  This
module sits at the bottom of the layers, so the sweep engine, the
reproduction engine, the exercises' index and the benchmarks reach the
heuristics above them through it at run time, not by importing them; it is
the one place a heuristic's name is resolved to code, and a heuristic is
loaded only when asked for, so ``kwb tables`` imports none.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from .errors import WorkbookParameterError

ENTRY_POINT_GROUP = "kernel_workbook.heuristics"


@dataclass(frozen=True)
class ThreadReproduction:
    """How one thread's tables are reproduced (``kwb reproduce THREAD``).

    ``reproduce(small=None, seed_base=0)`` returns the thread's
    ``Reproduction``; ``calibrate(small=None)`` runs every fit it uses, so that
    ``kwb reproduce --all`` fits a thread once and hands the fits to every
    seed base.  ``start_order``: where its calibration starts among the
    threads' in ``kwb reproduce --all`` (lowest first): the order measured to
    leave neither of two cores with a long fit at the end.
    """

    thread: str
    reproduce: Callable
    calibrate: Callable | None = None
    start_order: int = 0


@dataclass(frozen=True)
class Heuristic:
    """One heuristic: its kernel mirror and what the workbook builds on it.

    * ``model`` -- the kernel mirror's ``ModelSpec`` (``models/<name>``), whose
      ``workloads`` this declaration fills (:attr:`spec`);
    * ``workloads`` -- named workload builders, ``name -> builder(**kw)``;
    * ``default_workload`` -- the one a bare run uses;
    * ``threads`` -- the threads this heuristic reproduces;
    * ``explorers`` -- the explorers of its notebooks, ``label -> builder()``
      (each is timed by ``kwb bench --suites explorers``);
    * ``exercises`` -- its exercise notebooks, ``stem -> Exercise class``;
    * ``bench`` -- the module of its benchmarks (``benchmarks() -> [Bench]``,
      and ``RUNNER_ARGS`` if it needs pyperf settings of its own): the suite
      ``kwb bench --suites <name>`` runs.
    """

    name: str
    model: Any
    workloads: dict = field(default_factory=dict)
    default_workload: str | None = None
    threads: tuple = ()
    explorers: dict = field(default_factory=dict)
    exercises: dict = field(default_factory=dict)
    bench: Any = None

    @property
    def spec(self):
        """The model's ``ModelSpec`` with this heuristic's workloads: what a sweep runs."""
        return dataclasses.replace(self.model, workloads=dict(self.workloads), default_workload=self.default_workload)


BUILTIN = __name__.rsplit(".", 1)[0] + ".heuristics"  # the package whose folders are the heuristics


def deferred(module: Callable, name: str) -> Callable:
    """The function ``name`` of the module ``module()`` returns, imported only when it is first called.

    A declaration names its explorers through this, so that loading a heuristic (a reproduction's worker does,
    for every thread) never imports its charts, Altair or the widgets (2-4 s a process)."""

    def call(*args, **kw):
        return getattr(module(), name)(*args, **kw)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``{name}`` of the heuristic's charts, imported when first called."
    return call


def _entry_points() -> dict:
    """name -> entry point of every heuristic: the folders of :data:`BUILTIN`, then the installed plug-ins'."""
    return dict(_found())


@lru_cache(maxsize=1)
def _found() -> tuple:
    """What :func:`_entry_points` returns, looked up once a process (reading every installed distribution's
    entry points costs tens of milliseconds, and the index of exercises asks for the list per exercise)."""
    import importlib.util
    import pkgutil
    from importlib.metadata import EntryPoint, entry_points

    where = importlib.util.find_spec(BUILTIN).submodule_search_locations
    out = {m.name: EntryPoint(m.name, f"{BUILTIN}.{m.name}:HEURISTIC", ENTRY_POINT_GROUP)
           for m in pkgutil.iter_modules(where) if m.ispkg}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in out and out[ep.name].value != ep.value:
            raise WorkbookParameterError("heuristic", ep.name, f"one heuristic of that name ({ep.value} and "
                                         f"{out[ep.name].value} both claim it)")
        out[ep.name] = ep
    return tuple(out.items())


def names() -> list[str]:
    """The heuristics' names, sorted (``cfq``, ``compaction``, ``fairzone``, ``numa``, ``writeback``)."""
    return sorted(_entry_points())


def get(name: str, what: str = "heuristic") -> Heuristic:
    """The :class:`Heuristic` declared as ``name``; a clear error for an unknown one (``what`` names the parameter
    the error speaks of: a heuristic, or a model, as ``kwb sweep MODEL`` calls it)."""
    eps = _entry_points()
    if name not in eps:
        raise WorkbookParameterError(what, name, "one of " + ", ".join(sorted(eps)) if eps else
                                     f"a heuristic; none was found (no folder in {BUILTIN}, no plug-in)")
    return _load(eps[name])


@lru_cache(maxsize=None)
def _load(ep) -> Heuristic:
    h = ep.load()
    if not isinstance(h, Heuristic) or h.name != ep.name:
        raise WorkbookParameterError("heuristic", ep.name, f"an entry point naming a Heuristic called {ep.name!r} "
                                     f"({ep.value} is not)")
    return h


def heuristics() -> list[Heuristic]:
    """Every heuristic, loaded, in the order of :func:`names`."""
    return [get(n) for n in names()]


def model(name: str):
    """The ``ModelSpec`` of heuristic ``name`` with its workloads (``cfq``, ``fairzone``, ``numa`` ...)."""
    return get(name, what="model").spec


def thread_reproduction(thread: str) -> ThreadReproduction | None:
    """The reproduction of ``thread`` some heuristic declares (None: no model of the thread yet)."""
    found = [t for h in heuristics() for t in h.threads if t.thread == thread]
    if len(found) > 1:
        raise WorkbookParameterError("thread", thread, "a thread one heuristic reproduces (several declare it)")
    return found[0] if found else None


__all__ = ["Heuristic", "ThreadReproduction", "ENTRY_POINT_GROUP", "deferred", "names", "get", "heuristics", "model",
           "thread_reproduction"]
