"""Calibrations: fitted once, on seed base 0's runs, and shared by every seed base and every process.

A reproduction fits its machine on the baseline column, then predicts the
other columns.  Each seed base is a fresh set of runs of the *predictions*
(and of the baseline they are measured against); the machine is measured
once, as an experimenter measures a machine once and then repeats the
experiment: a calibration is always run under seed base
:data:`CALIBRATION_BASE`, whatever base asks for it.  So the spread over seed
bases is the spread of the predicted changes, not of refitting the machine
each time, and a worker running seed base 5 needs the calibration, not the
runs that made it.

:func:`calibration` memoises a calibration function in one store per process,
keyed by the function, its bound arguments and the mode, and on disk across
processes for the same code, data and mode (:mod:`.fit_cache`;
``KWB_FIT_CACHE=off`` turns that off).  :func:`export` takes the store's
entries (small: fitted values, workloads, logs; never model arrays) so that
``reproduce_many`` can fit each thread once in one worker and hand the result
to every worker that runs a seed base of it (:func:`load`).
"""

from __future__ import annotations

import functools
import inspect

from .. import config
from . import fit_cache

CALIBRATION_BASE = 0
"""The seed base every calibration runs under."""

CALIBRATION_BASES = tuple(range(8))
"""The seed bases whose runs a calibration pools when one run of its figure is a poor measure of the machine.

A figure whose runs scatter by more than the thread's noise (2011's RAID: one pristine-CFQ run of the CI size
has a standard deviation of 8-15 MB/s around 57-84 MB/s, whatever the fitted value) is fitted on its mean over
the runs of these bases -- the machine's expected figure, not one draw of it.  These are the bases the stored
fidelity reports (``--seeds 8``), so over them the model's baseline has the published mean.  Fixed: the fit never
depends on how many seed bases a user asks for."""

_STORE: dict[tuple, object] = {}


def mean_over_bases(run):
    """The mean of ``run(b)`` over the seed bases of :data:`CALIBRATION_BASES`: a number, or a dict of numbers
    averaged key by key.  ``run(b)`` is the baseline run (or runs) seed base ``b`` predicts against."""
    import numpy as np

    values = [run(b) for b in CALIBRATION_BASES]
    if isinstance(values[0], dict):
        return {k: float(np.mean([v[k] for v in values])) for k in values[0]}
    return float(np.mean(values))


def bisect_nearest(f, lo: float, hi: float, target: float, increasing: bool, steps: int, geometric: bool = False):
    """Bisection of a model output that is monotone up to noise: ``steps`` midpoints (geometric ones on a log
    scale), each evaluated once; returns the evaluated ``(x, f(x))`` nearest ``target``."""
    seen = []
    for _ in range(steps):
        x = (lo * hi) ** 0.5 if geometric else 0.5 * (lo + hi)
        fx = f(x)
        seen.append((abs(fx - target), x, fx))
        if (fx < target) == increasing:
            lo = x
        else:
            hi = x
    _, x, fx = min(seen)
    return x, fx


def calibration(fn):
    """Memoise ``fn`` (a calibration) in the process's store; ``fn.cache_clear()`` forgets its entries.

    An entry's key is ``(name, bound arguments, mode)``.

    The arguments are bound to ``fn``'s signature with its defaults applied, so ``f(x)`` and ``f(x, small=None)``
    share an entry; they must be hashable and picklable (they travel between processes with the value).
    """
    name = f"{fn.__module__}:{fn.__qualname__}"
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        b = sig.bind(*args, **kw)
        b.apply_defaults()
        # the mode too: ``small=None`` reads it, and a long-lived worker serves clients of any mode
        key = (name, tuple(b.arguments.items()), config.mode().name)
        try:
            return _STORE[key]
        except KeyError:
            pass
        value = fit_cache.get(key)  # fitted by an earlier process on the same code and data
        if value is fit_cache.MISSING:
            value = fn(*args, **kw)
            fit_cache.put(key, value)
        _STORE[key] = value
        return value

    def cache_clear():
        for k in [k for k in _STORE if k[0] == name]:
            del _STORE[k]

    wrapper.cache_clear = cache_clear
    wrapper.__kwb_calibration__ = name
    return wrapper


def is_calibration(f) -> bool:
    return hasattr(f, "__kwb_calibration__")


def export(modules: tuple[str, ...] | None = None) -> dict:
    """The store's entries (of functions in ``modules``, by module name prefix; all when None)."""
    return {k: v for k, v in _STORE.items() if modules is None or k[0].split(":")[0].startswith(modules)}


def load(entries: dict) -> None:
    """Add ``entries`` (from :func:`export` in another process) to this process's store."""
    _STORE.update(entries)


def clear() -> None:
    _STORE.clear()


__all__ = ["CALIBRATION_BASE", "CALIBRATION_BASES", "mean_over_bases", "bisect_nearest", "calibration", "is_calibration", "export", "load", "clear"]
