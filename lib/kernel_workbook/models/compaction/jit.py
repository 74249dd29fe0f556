"""How this model's kernels are compiled: ``engine.kernel`` and ``engine.leaf``, without reference counting.

Every array a kernel of this model touches is allocated by ``simulate()`` and held by it for the whole
call, and no kernel allocates one (nor a list, nor anything else Numba's runtime would own), so reference
counts protect nothing here.  Numba still emits an ``NRT_incref``/``NRT_decref`` call pair for every
array handed to a compiled function or to an inlined leaf -- views without a count (``engine.borrowed``)
make each call do nothing, not disappear -- and on the hottest paths (the allocator's merging loop, the
LRU lists) they were a fifth of a run.  ``_nrt=False`` compiles without them; a kernel that allocated
would fail to compile, not misbehave.

Everything else is the engine's: the same options (read from the engine's own dispatcher, so an option
added there carries over), the same on-disk cache, and in the Python copy the function itself.
"""

from __future__ import annotations

from .. import engine


def _without_nrt(compiled, fn):
    if compiled is fn:  # the Python copy (engine="python"): the function itself
        return fn
    import numba

    options = {k: v for k, v in compiled.targetoptions.items() if k != "nopython"}  # njit implies nopython
    return numba.njit(cache=True, _nrt=False, **options)(fn)


def kernel(fn):
    """:func:`kernel_workbook.models.engine.kernel` without Numba's reference counting."""
    return _without_nrt(engine.kernel(fn), fn)


def leaf(fn):
    """:func:`kernel_workbook.models.engine.leaf` (inlined into its callers) without reference counting."""
    return _without_nrt(engine.leaf(fn), fn)


__all__ = ["kernel", "leaf"]
