"""One engine for every model: the same kernel source, compiled or run as Python.

A model's kernel is a few modules of plain-array functions decorated with
:func:`kernel` (and :func:`leaf` for small hot helpers inlined into their
callers).  :class:`KernelGroup` names those modules and runs their entry
function in one of three engines:

``"jit"``
    ``numba.njit(cache=True)``, compiled lazily on the first call (never at
    import), announced once per process (:func:`run_announced`), cached on
    disk; a hash of the model package's sources (and of this framework)
    drops a stale cache (Numba keys its cache on one file, but the entry
    function inlines its siblings and reads generated layouts).
``"python"``
    The same source files loaded a second time under ``<module>_pure`` with
    the decorators as the identity: plain Python running *the same loop*.
    The exact-agreement tests compare it with ``"jit"`` (they catch every
    place where Numba's semantics differ from Python's: integer overflow,
    integer/float promotion, division), and benchmarks report the speed-up.
``"reference"``
    An independent implementation written from the kernel source without the
    arrays (NUMA has one); a model without one refuses this engine by name.

Kernel modules find their siblings in the same mode with :func:`sibling`.
Random numbers are never drawn inside a kernel: :func:`rng` turns a seed
(an int or a ``numpy.random.Generator``) into the generator the Python side
draws from before calling it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import numpy as np

from .. import progress
from ..errors import WorkbookParameterError

ENGINES = ("jit", "python", "reference")
_PURE = "_pure"
_FRAMEWORK = [Path(__file__).resolve().parent / n for n in ("engine.py", "layout.py", "knobs.py")]


# --------------------------------------------------------------------------- decorators of kernel functions

def _is_pure(module_name: str) -> bool:
    mod = sys.modules.get(module_name)
    return module_name.endswith(_PURE) or bool(getattr(mod, "__kwb_pure__", False))


def kernel(fn, nrt: bool = True):
    """A kernel function: ``numba.njit(cache=True, nogil=True)``, or itself in the Python copy.

    Compiled kernels release the GIL (they touch no Python object), so a thread
    can run one model while Python draws the last run's picture (the deep-idle explorer).
    ``nrt=False`` compiles without Numba's reference counting (see :func:`_njit`).
    """
    return _njit(fn, nrt, nogil=True)


def leaf(fn, nrt: bool = True):
    """A small hot helper, inlined into its callers at Numba-IR level (itself in the Python copy).

    A call that passes arrays costs reference-count updates; leaves run on
    every event, so inlining them is where the compiled loop gains most.
    """
    return _njit(fn, nrt, inline="always")


def kernel_no_nrt(fn):
    """:func:`kernel` with ``nrt=False``, for a model whose kernels never allocate an array (see :func:`_njit`):
    compaction, CFQ, writeback, fairzone.  Their entry functions pass a dozen arrays to each callee on every
    event, and the reference counts of those arrays were 1/5 (compaction) to 3/4 (writeback) of a compiled run."""
    return kernel(fn, nrt=False)


def leaf_no_nrt(fn):
    """:func:`leaf` with ``nrt=False`` (see :func:`kernel_no_nrt`)."""
    return leaf(fn, nrt=False)


def _njit(fn, nrt: bool, **options):
    """``fn`` compiled with the engine's options (or itself in the Python copy).

    ``nrt=False`` (a model whose kernels never allocate: every array comes
    from ``simulate()`` and lives for the whole call) drops the
    ``NRT_incref``/``NRT_decref`` pair Numba emits for every array handed to a
    compiled function or an inlined leaf; views without a count
    (:func:`borrowed`) make each pair do nothing but not disappear.  A kernel
    that allocated would then fail to compile, not misbehave.
    """
    if _is_pure(fn.__module__):
        return fn
    import numba

    if not nrt:
        options["_nrt"] = False
    return numba.njit(cache=True, error_model="numpy", **options)(fn)


def borrowed(caller: str):
    """A function returning a view of an array without reference counting (compiled mode).

    Arrays that come from Python carry a Numba meminfo, and every call that
    passes them costs an atomic increment and decrement.  An entry function
    takes views with a null meminfo of the arrays it was given (the caller
    holds the arrays for the whole call, so the views stay valid).  In the
    Python copy this is the identity.
    """
    if _is_pure(caller):
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
    """The kernel module ``name`` of ``caller``'s package, in the same mode (compiled or Python)."""
    pkg = caller[: -len(_PURE)] if caller.endswith(_PURE) else caller
    pkg = pkg.rsplit(".", 1)[0]
    return kernel_module(caller, f"{pkg}.{name}")


def kernel_module(caller: str, full: str):
    """The kernel module ``full`` (of any model's package) in ``caller``'s mode: how one model's kernels call
    another's (the writeback model runs its I/O through the disk/CFQ model's block layer).  The caller's
    :class:`KernelGroup` names that package in ``shares``, so that a change there drops its compiled cache."""
    if _is_pure(caller):
        return _load_pure(full)
    return importlib.import_module(full)


def _load_pure(full: str):
    pure_name = full + _PURE
    if pure_name in sys.modules:
        return sys.modules[pure_name]
    spec0 = importlib.util.find_spec(full)
    if spec0 is None or spec0.origin is None:
        raise ImportError(f"no kernel module {full}")
    spec = importlib.util.spec_from_file_location(pure_name, spec0.origin)
    mod = importlib.util.module_from_spec(spec)
    mod.__kwb_pure__ = True
    sys.modules[pure_name] = mod
    spec.loader.exec_module(mod)
    return mod


# --------------------------------------------------------------------------- the engine

class KernelGroup:
    """The kernel modules of one model and the entry function that runs them.

    ``KernelGroup("kernel_workbook.models.cfq", modules=("disk_kernel", "sched_kernel", "loop_kernel"),
    entry="loop_kernel:run", what="disk/CFQ event loop")``.  ``reference`` is
    an independent implementation of the entry function, if the model has
    one; ``shares`` names other models' kernel packages its kernels call
    (:func:`kernel_module`).
    """

    def __init__(self, package: str, modules: tuple, entry: str, what: str, reference: Callable | None = None,
                 shares: tuple = ()):
        self.package = package
        self.shares = tuple(shares)  # other models' kernel packages this one calls (their sources key its cache)
        self.modules = tuple(modules)
        self.entry_module, self.entry_name = entry.split(":")
        self.what = what
        self.reference = reference
        self._checked = False

    # ---- choosing a function
    def function(self, engine: str = "jit"):
        check_engine(engine)
        if engine == "jit":
            self._drop_stale_cache()
            return getattr(importlib.import_module(f"{self.package}.{self.entry_module}"), self.entry_name)
        if engine == "python":
            return getattr(_load_pure(f"{self.package}.{self.entry_module}"), self.entry_name)
        if self.reference is None:
            raise WorkbookParameterError("engine", engine, f"'jit' or 'python' ({self.what} has no independent "
                                                           "reference implementation)")
        return self.reference

    def module(self, name: str, engine: str = "jit"):
        """A kernel module of the group in the engine's mode (for its helper functions)."""
        if engine == "python":
            return _load_pure(f"{self.package}.{name}")
        self._drop_stale_cache()
        return importlib.import_module(f"{self.package}.{name}")

    def run(self, *args, engine: str = "jit", verbose: bool = True):
        """Call the entry function; the first compiled call of a process says it is compiling."""
        fn = self.function(engine)
        if engine == "jit":
            return run_announced(fn, args, self.what, verbose)
        return fn(*args)

    def is_compiled(self) -> bool:
        """Has this process compiled (or loaded from the cache) the entry function yet?"""
        fn = self.function("jit")
        return bool(getattr(fn, "signatures", None))

    # ---- the on-disk cache
    def sources(self) -> list[Path]:
        out = []
        for pkg in (self.package,) + self.shares:
            out += sorted(Path(importlib.util.find_spec(pkg).origin).parent.glob("*.py"))
        return out + _FRAMEWORK

    def _drop_stale_cache(self) -> None:
        """Remove Numba's cache files of this package when any of its sources changed."""
        if self._checked:
            return
        self._checked = True
        drop_stale_cache(self.sources(), Path(importlib.util.find_spec(self.package).origin).parent / "__pycache__")


def drop_stale_cache(sources: list[Path], cache: Path) -> None:
    """Delete ``*.nbi``/``*.nbc`` in ``cache`` unless the hash of ``sources`` matches its stamp."""
    h = hashlib.sha256()
    for p in sources:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    digest = h.hexdigest()
    stamp = cache / "kwb_kernels.sha256"
    try:
        if stamp.exists() and stamp.read_text().strip() == digest:
            return
        if cache.is_dir():
            for f in cache.iterdir():
                if f.suffix in (".nbi", ".nbc"):
                    f.unlink()
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest + "\n")
    except OSError:  # a read-only install: Numba then caches elsewhere or not at all
        pass


def run_announced(fn, args: tuple, what: str, verbose: bool = True):
    """Call a jitted ``fn(*args)``; before its first compile in this process, say so.

    Compiling a model's loop takes up to a minute, so a notebook cell that
    seems to hang tells the reader why.
    """
    progress.tick(what)  # a long cell in the lab shows its runs (progress.py)
    if getattr(fn, "signatures", None):
        return fn(*args)
    with progress.compiling(what) as shown:
        if shown or not verbose:
            return fn(*args)
        print(f"{what}: compiling with Numba...\n  (the first call in this process; later processes load it "
              "from the cache)", flush=True)
        t0 = time.perf_counter()
        out = fn(*args)
        print(f"{what}: ready ({time.perf_counter() - t0:.1f} s including the first run).", flush=True)
        return out


def check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise WorkbookParameterError("engine", engine, "one of " + ", ".join(repr(e) for e in ENGINES))


def rng(seed) -> np.random.Generator:
    """The generator a run draws its random numbers from: ``seed`` is an int >= 0 or a Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise WorkbookParameterError("seed", seed, "an integer >= 0 or a numpy.random.Generator")
    return np.random.default_rng(int(seed))


class RunStopped(Exception):
    """A run stopped part-way through because its thread was asked to (:func:`stop_flag`): nothing of it is kept."""


_THREAD = threading.local()


def stop_flag() -> np.ndarray:
    """The calling thread's stop flag, one int64 a model's kernel reads once a step and stops at when set (the
    compaction and writeback models: an explorer's run made ahead that the person no longer needs gives the CPU
    and the cache back to the run they asked for, ``ui.explorer.Runs``); outside :func:`stopping` a fresh flag
    nobody sets."""
    flag = getattr(_THREAD, "flag", None)
    return flag if flag is not None else np.zeros(1, np.int64)


@contextmanager
def stopping(flag: np.ndarray):
    """Runs started on this thread inside the block read ``flag`` (:func:`stop_flag`)."""
    _THREAD.flag = flag
    try:
        yield flag
    finally:
        _THREAD.flag = None


__all__ = ["ENGINES", "KernelGroup", "kernel", "leaf", "borrowed", "sibling", "kernel_module", "run_announced",
           "check_engine", "rng", "drop_stale_cache", "RunStopped", "stop_flag", "stopping"]
