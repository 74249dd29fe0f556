"""Named slots of the kernels' arrays, generated, never numbered by hand.

Numba compiles plain arrays best, so a kernel keeps its parameters and
state in a few int64/float64 arrays.  Their columns are named here:

* :func:`slots` -- consecutive indices for a list of names (state vectors,
  per-request columns, counters).  ``S = slots("S", "now next_rid busy_queues")``
  gives ``S.now == 0``, ``S.busy_queues == 2`` and ``len(S) == 3``.
* :func:`enum` -- a kernel ``enum`` (``enum zone_type``): the same, with the
  kernel's names.
* :func:`flags` -- bit flags (``PG_referenced``...): powers of two.
* :class:`ParamLayout` -- the slots of a parameter set, generated from its
  knob declaration (:mod:`.knobs`), plus the run-time sizes the Python side
  computes (``derived``).  :meth:`ParamLayout.pack` fills the arrays in the
  kernel's units; nothing else writes a knob into an array.

The slot objects are named tuples: a jitted function that reads ``S.now``
from a module global compiles it to the constant, exactly as it would a
global ``S_NOW = 0``; the plain-Python engine reads the same attribute.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..errors import WorkbookParameterError


def slots(typename: str, names, start: int = 0):
    """A named tuple of consecutive indices ``start, start+1, ...`` for ``names``.

    ``names`` is a list or a whitespace-separated string.  ``"free:3"``
    reserves three consecutive slots (one per zone, say) and names the first:
    ``free + z`` indexes zone ``z``.  The width of the array is
    :func:`width` of the result (``len()`` when no name reserves more than one).
    """
    if isinstance(names, str):
        names = names.split()
    fields, index, at = [], [], start
    for n in names:
        name, _, w = str(n).partition(":")
        fields.append(name)
        index.append(at)
        at += int(w) if w else 1
    if len(set(fields)) != len(fields):
        dup = sorted({n for n in fields if fields.count(n) > 1})
        raise ValueError(f"{typename}: slot names repeated: {dup}")
    cls = namedtuple(typename, fields)
    cls._width = at - start
    return cls(*index)


def width(slot_tuple) -> int:
    """The number of array columns a :func:`slots` tuple spans (reserved groups included)."""
    return getattr(type(slot_tuple), "_width", len(slot_tuple))


def enum(typename: str, names):
    """A kernel enum (``ZONE_DMA, ZONE_DMA32, ZONE_NORMAL``): consecutive values from 0."""
    return slots(typename, names)


def flags(typename: str, names):
    """Bit flags: ``1, 2, 4, ...`` for ``names``."""
    if isinstance(names, str):
        names = names.split()
    names = list(names)
    return namedtuple(typename, names)(*(1 << i for i in range(len(names))))


class ParamLayout:
    """The kernel's parameter arrays of a :class:`~.knobs.Knobs` class, generated from its declaration.

    Every knob declared ``packed="int"`` gets a slot of the int64 array and
    every ``packed="float"`` knob one of the float64 array, in declaration
    order and under the knob's own name; ``derived_int`` / ``derived_float``
    add the slots the Python side computes per run (sizes of the workload,
    ns per jiffy...).  ``I`` and ``F`` are the slot tuples the kernel reads
    (``p[I.cfq_slice_idle]``); ``NI`` and ``NF`` their widths.
    """

    def __init__(self, params_cls, derived_int=(), derived_float=(), int_name: str = "I", float_name: str = "F"):
        self.params_cls = params_cls
        decl = params_cls.declared()
        self.int_knobs = [n for n, k in decl.items() if k.packed == "int"]
        self.float_knobs = [n for n, k in decl.items() if k.packed == "float"]
        self.derived_int = list(derived_int.split() if isinstance(derived_int, str) else derived_int)
        self.derived_float = list(derived_float.split() if isinstance(derived_float, str) else derived_float)
        self.I = slots(int_name, self.int_knobs + self.derived_int)
        self.F = slots(float_name, self.float_knobs + self.derived_float) if (self.float_knobs or self.derived_float) \
            else slots(float_name, ["unused"])
        self.NI = len(self.I)
        self.NF = len(self.F)

    def pack(self, params, **derived) -> tuple[np.ndarray, np.ndarray]:
        """The int64 and float64 parameter arrays of ``params`` in the kernel's units.

        Every ``derived`` slot must be given (by name) and nothing else.
        """
        if not isinstance(params, self.params_cls):
            raise WorkbookParameterError("params", type(params).__name__, f"a {self.params_cls.__name__}")
        want = set(self.derived_int) | set(self.derived_float)
        missing = want - set(derived)
        extra = set(derived) - want
        if missing or extra:
            raise TypeError(f"pack({self.params_cls.__name__}): derived slots missing {sorted(missing)}, "
                            f"unknown {sorted(extra)}")
        decl = self.params_cls.declared()
        vals = params.values()
        pi = np.zeros(self.NI, dtype=np.int64)
        pf = np.zeros(self.NF, dtype=np.float64)
        for n in self.int_knobs:
            pi[getattr(self.I, n)] = decl[n].kernel_value(vals[n], params)
        for n in self.float_knobs:
            pf[getattr(self.F, n)] = decl[n].kernel_value(vals[n], params)
        for n in self.derived_int:
            pi[getattr(self.I, n)] = derived[n]
        for n in self.derived_float:
            pf[getattr(self.F, n)] = derived[n]
        return pi, pf

    def describe(self) -> str:
        """The generated layout, one slot a line (for the stale-cache hash and for readers)."""
        return "\n".join([f"I.{n}={i}" for n, i in self.I._asdict().items()]
                         + [f"F.{n}={i}" for n, i in self.F._asdict().items()])


__all__ = ["slots", "width", "enum", "flags", "ParamLayout"]
