"""One source, two ways to run it: Numba-compiled, or as plain Python.

The older flat models (fair-zone, NUMA) use this module until they move to
``models/engine.py`` (the disk/CFQ model has; issue 10): each kernel module
decorates its functions with
:func:`kernel` and finds its siblings with :func:`sibling`.  Imported
normally, the decorator is ``numba.njit(cache=True)`` (compiled lazily, on
the first call, never at import).  :func:`pure` loads the same three files a
second time under the names ``<module>_pure`` where the decorator is the
identity: that copy is the pure-Python reference of *the same loop*
(``_simulate_reference``), used by the exact-agreement tests and as the
baseline of the benchmark.  No code is duplicated, so the two cannot drift
apart; what the comparison catches is every place where Numba's semantics
differ from Python's (integer overflow, integer/float promotion, division).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

_PURE_SUFFIX = "_pure"
_HERE = Path(__file__).resolve().parent
_PKG = __name__.rsplit(".", 1)[0]


def kernel(fn):
    """Decorator of the kernel functions: njit(cache=True) or, in a pure copy, nothing."""
    mod = sys.modules.get(fn.__module__)
    if fn.__module__.endswith(_PURE_SUFFIX) or getattr(mod, "__kwb_pure__", False):
        return fn
    import numba

    return numba.njit(cache=True, error_model="numpy")(fn)


def leaf(fn):
    """Decorator of small hot helpers: inlined into their callers at Numba-IR level.

    A call that passes arrays costs reference-count updates; the leaves are
    called on every event, so inlining them is where the compiled loop gains
    over the plain-Python copy (for which this is the identity too).
    """
    mod = sys.modules.get(fn.__module__)
    if fn.__module__.endswith(_PURE_SUFFIX) or getattr(mod, "__kwb_pure__", False):
        return fn
    import numba

    return numba.njit(cache=True, error_model="numpy", inline="always")(fn)


def borrowed(caller: str):
    """A function returning a view of an array without reference counting (compiled mode).

    Arrays that come from Python carry a Numba meminfo, and every function
    call that passes them costs an atomic increment and decrement -- a third
    of the event loop's time.  ``run`` takes views with a null meminfo of
    the arrays it was given (NRT_incref/decref return at once on null); the
    caller holds the arrays for the whole call, so the views stay valid.  In
    the pure copy this is the identity.
    """
    if caller.endswith(_PURE_SUFFIX):
        return lambda a: a
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def _borrow(typingctx, arr):
        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, value=args[0])
            ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
            return ary._getvalue()

        return arr(arr), codegen

    return _borrow


def sibling(caller: str, name: str):
    """The sibling kernel module ``name`` in the same mode (compiled or pure) as ``caller``."""
    if caller.endswith(_PURE_SUFFIX):
        return _load_pure(name)
    return importlib.import_module(f"{_PKG}.{name}")


def _load_pure(name: str):
    full = f"{_PKG}.{name}{_PURE_SUFFIX}"
    if full in sys.modules:
        return sys.modules[full]
    spec = importlib.util.spec_from_file_location(full, _HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    mod.__kwb_pure__ = True
    sys.modules[full] = mod
    spec.loader.exec_module(mod)
    return mod


def pure(name: str):
    """The pure-Python copy of kernel module ``name`` (``_sim_kernel``...)."""
    return _load_pure(name)


_checked: set = set()


def drop_stale_cache(sources: tuple, stamp_name: str = "kwb_kernels.sha256") -> None:
    """Remove Numba cache files of the kernel modules when any of their sources changed.

    Numba's on-disk cache of ``run`` is keyed on ``_sim_kernel.py`` alone, yet
    ``run`` inlines the functions of its sibling modules: after an edit of
    ``_disk_kernel.py`` it would load stale machine code.  A hash of all the
    kernel sources, kept beside the cache, decides.  Each group of kernel
    modules passes its own ``sources`` and ``stamp_name``.
    """
    if stamp_name in _checked:
        return
    _checked.add(stamp_name)
    import hashlib

    h = hashlib.sha256()
    for name in sources:
        h.update((_HERE / name).read_bytes())
    digest = h.hexdigest()
    cache = _HERE / "__pycache__"
    stamp = cache / stamp_name
    try:
        if stamp.exists() and stamp.read_text().strip() == digest:
            return
        if cache.is_dir():
            stems = tuple(n[:-3] + "." for n in sources)
            for f in cache.iterdir():
                if f.name.startswith(stems) and f.suffix in (".nbi", ".nbc"):
                    f.unlink()
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest + "\n")
    except OSError:  # read-only install: Numba then caches elsewhere or not at all
        pass


def run_announced(run, args: tuple, what: str, verbose: bool = True) -> None:
    """Call a jitted ``run(*args)``; before its first compile in this process, say so.

    Compiling a model's loop takes up to a minute, so a notebook cell that
    seems to hang tells the reader why (``what`` names the model and loop).
    """
    if run.signatures or not verbose:
        run(*args)
        return
    import time

    print(f"{what}: compiling with Numba (first call in this process; later processes load it from the cache)...",
          file=sys.stdout, flush=True)
    t0 = time.perf_counter()
    run(*args)
    print(f"{what}: ready ({time.perf_counter() - t0:.1f} s including the first run).", flush=True)
