"""The seed base that the parts of one reproduction share while it runs (the 2014 thread's two halves).

Under seed base ``b`` a part moves every seed it draws by its own stride
times ``b``, so each base is a fresh set of mmtests iterations.  The
calibrations are not moved: they run under ``CALIBRATION_BASE`` whatever the
current base (:func:`at_seed_base`), once (:mod:`.calibration`).  A run that
a calibration and a prediction may share is cached with the base in its key;
every other cache of runs is declared with :func:`seed_cached` and emptied
when the base changes.  The base is this process's state: a worker of
``kwb reproduce --all`` sets it per task and goes back to 0 after each.
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache

from ..errors import WorkbookParameterError

_BASE = 0
_CACHES: list = []  # the functions seed_cached() wrapped, emptied when the base changes


def seed_base() -> int:
    """The seed base this process runs under (0 unless :func:`use_seed_base` moved it)."""
    return _BASE


def use_seed_base(base: int) -> None:
    """Run under seed base ``base`` from now on (in this process); the caches of :func:`seed_cached` are emptied
    when it changes."""
    global _BASE
    base = int(base)
    if base < 0:
        raise WorkbookParameterError("seed_base", base, "an integer >= 0")
    if base == _BASE:
        return
    _BASE = base
    for f in _CACHES:
        f.cache_clear()


@contextmanager
def at_seed_base(base: int):
    """Run under seed base ``base`` for a while (a calibration under CALIBRATION_BASE), caches kept."""
    global _BASE
    old, _BASE = _BASE, int(base)
    try:
        yield
    finally:
        _BASE = old


def seed_cached(maxsize: int | None = 128):
    """``functools.lru_cache(maxsize)`` whose cache :func:`use_seed_base` empties when the base changes."""

    def wrap(fn):
        cached = lru_cache(maxsize=maxsize)(fn)
        _CACHES.append(cached)
        return cached

    return wrap


__all__ = ["seed_base", "use_seed_base", "at_seed_base", "seed_cached"]
