"""How this model's kernels are compiled: ``engine.kernel`` and ``engine.leaf`` with ``nrt=False``.

Every array a kernel of this model touches is allocated by ``simulate()`` and held by it for the whole
call, and no kernel allocates one, so reference counts protect nothing here; on the hottest paths (the
allocator's merging loop, the LRU lists) Numba's reference counting was a fifth of a run
(``engine._njit`` says what ``nrt=False`` does).
"""

from __future__ import annotations

import functools

from .. import engine

kernel = functools.partial(engine.kernel, nrt=False)
leaf = functools.partial(engine.leaf, nrt=False)

__all__ = ["kernel", "leaf"]
