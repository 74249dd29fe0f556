"""One declaration per knob: name, unit, kernel source, conversion, valid range, widget range.

A model's parameter set is a frozen dataclass whose fields are declared with
:func:`knob`::

    @dataclass(frozen=True)
    class CFQParams(Knobs):
        cfq_slice_idle: float = knob(8.0, unit="ms", kernel="cfq_slice_idle",
                                     source="block/cfq-iosched.c cfq_arm_slice_timer()",
                                     range=(0, 1000), widget=(0, 20, 1), to_kernel=ms_to_jiffies)

Everything else is derived from that one line and never written again:
validation (:meth:`Knobs.validate`, raising :class:`WorkbookParameterError`
naming the knob), packing into the kernel's arrays (:mod:`.layout`), the
echo of a run (:meth:`Knobs.echo`, after OSTEP's ``ARG`` lines), the knob
table a notebook prints (:meth:`Knobs.df_knobs`), widgets
(:func:`kernel_workbook.ui.explorer.knob_widget`) and the options of
``kwb sweep``.

A parameter set may hold other parameter sets (``IOParams.cfq``,
``IOParams.disk``): their knobs are reached by their own names
(``io.with_(cfq_slice_idle=0)``), so every knob name is unique in a model.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass, fields, replace
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..errors import WorkbookParameterError

_META = "kwb_knob"


@dataclass(frozen=True)
class Knob:
    """What the workbook knows about one knob (the field's metadata)."""

    name: str
    default: Any
    unit: str  # "ms", "jiffies", "KiB", "pages", "MB", "%", "" (a count), "flag" (bool), "choice"
    source: str  # kernel file and function: "block/cfq-iosched.c cfq_arm_slice_timer()"
    kernel: str  # the kernel's own name of the variable ("cfq_slice[1]", "sysctl_numa_balancing_...")
    doc: str
    kind: str  # "bool" | "int" | "float" | "choice" | "object"
    range: tuple | None  # valid values, inclusive (lo, hi); hi may be None
    choices: tuple | None
    widget: tuple | None  # (lo, hi, step) of a slider; None: derived from range
    to_kernel: Callable | None  # value, params -> number in the kernel's units
    packed: str | None  # "int" / "float": a slot of the kernel's int / float parameter array; None: not packed
    optional: bool  # None is a valid value (e.g. min_free_kbytes=None: computed by the kernel)
    # where a running kernel lets its administrator read and set it ("/sys/block/<dev>/queue/iosched/quantum");
    # None: a constant, a variant's switch or the machine's, not a tunable
    tunable: str | None = None

    # ------------------------------------------------------------------ checks
    def expected(self) -> str:
        """The valid values in words, with the unit and where the knob comes from."""
        if self.kind == "bool":
            what = "True or False"
        elif self.kind == "choice":
            what = "one of " + ", ".join(repr(c) for c in self.choices)
        elif self.kind == "object":
            what = f"a {type(self.default).__name__}"
        else:
            noun = "an integer" if self.kind == "int" else "a number"
            lo, hi = self.range if self.range else (None, None)
            if lo is not None and hi is not None:
                what = f"{noun} in {_fmt(lo)}..{_fmt(hi)}"
            elif lo is not None:
                what = f"{noun} >= {_fmt(lo)}"
            elif hi is not None:
                what = f"{noun} <= {_fmt(hi)}"
            else:
                what = f"a finite {noun[2:] if noun.startswith('a ') else noun[3:]}"
        if self.unit and self.unit not in ("flag", "choice"):
            what += f" ({self.unit})"
        if self.optional:
            what += " or None"
        return f"{what}; {self.kernel}, {self.source}"

    def check(self, value) -> None:
        """Raise :class:`WorkbookParameterError` naming this knob unless ``value`` is valid."""
        if value is None and self.optional:
            return
        ok = True
        if self.kind == "bool":
            ok = isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral) and value in (0, 1))
        elif self.kind == "choice":
            ok = value in self.choices
        elif self.kind == "object":
            ok = isinstance(value, type(self.default))
        else:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                ok = False
            elif self.kind == "int" and not float(value).is_integer():
                ok = False
            elif self.range:
                lo, hi = self.range
                ok = (lo is None or value >= lo) and (hi is None or value <= hi)
        if not ok:
            raise WorkbookParameterError(self.name, value, self.expected())

    def kernel_value(self, value, params) -> int | float:
        """The value as the kernel keeps it (what is packed into the kernel's array)."""
        if self.to_kernel is not None:
            return self.to_kernel(value, params)
        if self.kind == "bool":
            return int(bool(value))
        if self.kind == "choice":  # numbers are their own kernel value; names pack as their index
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return int(value) if self.packed == "int" else float(value)
            return self.choices.index(value)
        if value is None:
            return -1
        return int(value) if self.packed == "int" else float(value)

    def slider(self) -> tuple | None:
        """(lo, hi, step) for a widget, or None for a checkbox / dropdown."""
        if self.kind not in ("int", "float"):
            return None
        if self.widget:
            return self.widget
        lo, hi = self.range if self.range else (None, None)
        d = self.default if self.default is not None else 0
        lo = lo if lo is not None else min(0, d)
        hi = hi if hi is not None else max(2 * abs(d), lo + 1)
        step = 1 if self.kind == "int" else (hi - lo) / 100
        return (lo, hi, step)

    @property
    def label(self) -> str:
        """The label a widget shows: the knob's own (kernel) name, in full, with its unit."""
        u = "" if self.unit in ("", "flag", "choice") else f" ({self.unit})"
        return self.name + u

    @property
    def tooltip(self) -> str:
        k = "" if self.kernel == self.name else f"kernel: {self.kernel}; "
        return (f"{k}{self.source}" + (f" — {self.doc}" if self.doc else "")
                + (f" (on a running kernel: {self.tunable})" if self.tunable else ""))


# the block device in a tunable's path (``/sys/block/<dev>/queue/nr_requests``), named when the machine is read
# (models.tunables: ``dev="sda"``)
TUNABLE_DEV = "<dev>"


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def knob(default, *, unit: str = "", source: str, kernel: str | None = None, doc: str = "",
         range: tuple | None = None, choices: tuple | None = None, widget: tuple | None = None,
         to_kernel: Callable | None = None, packed: str | None | bool = True, optional: bool = False,
         kind: str | None = None, tunable: str | None = None):
    """Declare a knob as a dataclass field (see the module docstring).

    ``packed``: ``True`` (default) packs the knob into the kernel's parameter
    array matching its kind (bool, int, choice -> "int"; float -> "float",
    or "int" when ``to_kernel`` turns it into whole kernel units, which must
    then be said: ``packed="int"``); ``False`` keeps it out of the kernel
    (a knob the Python side uses, e.g. to build the workload).  ``kind`` is
    taken from the default's type unless given (a knob whose default is
    ``None`` says whether it is an ``"int"`` or a ``"float"``).  ``tunable``:
    the file a running kernel exposes it in, for a knob an administrator can
    set (sysfs, ``/proc/sys``); sweeps over "the tunables" read it.
    """
    if kind is not None:
        if kind not in ("bool", "int", "float", "choice", "object"):
            raise ValueError(f"kind={kind!r}: expected bool, int, float, choice or object")
    elif choices is not None:
        kind = "choice"
    elif isinstance(default, bool):
        kind = "bool"
    elif isinstance(default, int):
        kind = "int"
    elif isinstance(default, float):
        kind = "float"
    elif default is None and range is not None:
        kind = "int"
    else:
        kind = "object"
    if packed is True:
        packed = None if kind == "object" else ("float" if kind == "float" else "int")
    elif packed is False:
        packed = None
    if packed not in (None, "int", "float"):
        raise ValueError(f"packed={packed!r}: expected True, False, 'int' or 'float'")
    if kind == "bool":
        unit = unit or "flag"
    if kind == "choice":
        unit = unit or "choice"
        choices = tuple(choices)
    meta = {"default": default, "unit": unit, "source": source, "kernel": kernel, "doc": doc, "kind": kind,
            "range": tuple(range) if range else None, "choices": choices, "widget": widget, "to_kernel": to_kernel,
            "packed": packed, "optional": optional, "tunable": tunable}
    if isinstance(default, (list, dict, set)) or (kind == "object" and dataclasses.is_dataclass(default)):
        return dataclasses.field(default_factory=lambda d=default: d, metadata={_META: meta})
    return dataclasses.field(default=default, metadata={_META: meta})


def _knob_of(cls_field) -> Knob | None:
    meta = cls_field.metadata.get(_META)
    if meta is None:
        return None
    return Knob(name=cls_field.name, kernel=meta["kernel"] or cls_field.name,
                **{k: v for k, v in meta.items() if k != "kernel"})


_DECLARED: dict[type, dict[str, Knob]] = {}
_FIELDS: dict[type, tuple] = {}


def _knob_fields(cls) -> tuple:
    """``(name, knob, nested class or None)`` of each knob field of ``cls``, computed once per class:
    validation and ``values()`` run for every simulation, so they must not re-read the dataclass."""
    out = _FIELDS.get(cls)
    if out is None:
        out = _FIELDS[cls] = tuple((f.name, k, _nested_class(f)) for f in fields(cls)
                                   if (k := _knob_of(f)) is not None)
    return out


class Knobs:
    """Mixin of a frozen dataclass of knobs: validation, copies, echo and the knob table.

    A subclass may define ``check(self)`` for what no single knob can say
    (zones larger than their node, a minimum above a maximum); it runs after
    every knob has passed its own check.
    """

    # ---------------------------------------------------------------- the declaration
    @classmethod
    def declared(cls) -> dict[str, Knob]:
        """Every knob of this class, nested sets included, by name (declaration order)."""
        # computed once per class: values() and pack() ask for it for every knob of every run
        cached = _DECLARED.get(cls)
        if cached is None:
            cached = _DECLARED[cls] = cls._declare()
        return dict(cached)

    @classmethod
    def _declare(cls) -> dict[str, Knob]:
        out: dict[str, Knob] = {}
        for fname, k, sub in _knob_fields(cls):
            for name, kk in (sub.declared().items() if sub is not None else [(fname, k)]):
                if name in out:
                    raise TypeError(f"knob {name!r} is declared twice in {cls.__name__}")
                out[name] = kk
        return out

    @classmethod
    def tunables(cls) -> tuple[str, ...]:
        """The knobs a running kernel lets its administrator set (those declared with a ``tunable``), in
        declaration order: what a study of "every tunable" sweeps."""
        return tuple(n for n, k in cls.declared().items() if k.tunable)

    @classmethod
    def knob(cls, name: str) -> Knob:
        d = cls.declared()
        if name not in d:
            raise WorkbookParameterError(name, "?", f"a knob of {cls.__name__}: " + ", ".join(d))
        return d[name]

    # ---------------------------------------------------------------- values
    def __post_init__(self):
        self.validate()

    def validate(self):
        for name, k, sub in _knob_fields(type(self)):
            v = getattr(self, name)
            if sub is not None:
                if not isinstance(v, sub):
                    raise WorkbookParameterError(name, type(v).__name__, f"a {sub.__name__}")
                v.validate()
                continue
            k.check(v)
        check = getattr(self, "check", None)
        if check is not None:
            check()
        return self

    def value(self, name: str):
        """The value of knob ``name``, wherever it is nested."""
        vals = self.values()
        if name not in vals:
            raise WorkbookParameterError(name, "?", f"a knob of {type(self).__name__}")
        return vals[name]

    def values(self) -> dict:
        """Every knob's value, flat, by name (declaration order, as ``declared()``)."""
        out = {}
        for name, _k, sub in _knob_fields(type(self)):
            if sub is not None:
                out.update(getattr(self, name).values())
            else:
                out[name] = getattr(self, name)
        return out

    def with_(self, **kw):
        """A copy with knobs changed (nested knobs by their own name), validated."""
        own = {f.name for f in fields(self)}
        top, nested = {}, {}
        for name, v in kw.items():
            if name in own:
                top[name] = v
                continue
            for fname, _k, sub in _knob_fields(type(self)):
                if sub is not None and name in sub.declared():
                    nested.setdefault(fname, {})[name] = v
                    break
            else:
                raise WorkbookParameterError(name, v, f"a knob of {type(self).__name__}: "
                                             + ", ".join(self.declared()))
        # build without validating the intermediate copies (a change may need two knobs at once)
        out = _replace_unchecked(self, top)
        for fname, sub_kw in nested.items():
            out = _replace_unchecked(out, {fname: getattr(out, fname).with_(**sub_kw)})
        return out.validate()

    def changed(self, base=None) -> dict:
        """Knobs whose value differs from ``base`` (default: the declared defaults)."""
        base = base if base is not None else type(self)()
        a, b = self.values(), base.values()
        return {k: v for k, v in a.items() if v != b.get(k)}

    def echo(self, base=None, seed=None) -> str:
        """The run's ARG line: every knob that differs from the defaults (and the seed)."""
        ch = self.changed(base)
        bits = [f"{k}={v!r}" for k, v in ch.items()] or ["defaults"]
        if seed is not None:
            bits.append(f"seed={seed}")
        return ", ".join(bits)

    def df_knobs(self) -> pd.DataFrame:
        """The knob table: one row per knob.

        Columns: ``knob, value, default, unit, kernel, source, doc, tunable`` (``tunable``: where a running
        kernel sets it, None for a knob no administrator sets).
        """
        vals = self.values()
        cols = ["knob", "value", "default", "unit", "kernel", "source", "doc", "tunable"]
        rows = [{"knob": n, "value": vals[n], "default": k.default, "unit": k.unit, "kernel": k.kernel,
                 "source": k.source, "doc": k.doc, "tunable": k.tunable} for n, k in self.declared().items()]
        return pd.DataFrame(rows, columns=cols)


def _nested_class(f) -> type | None:
    meta = f.metadata.get(_META)
    if meta is None or meta["kind"] != "object":
        return None
    t = type(meta["default"])
    return t if isinstance(t, type) and issubclass(t, Knobs) else None


def _replace_unchecked(obj, changes: dict):
    """``dataclasses.replace`` without running ``__post_init__``'s validation."""
    if not changes:
        return obj
    new = object.__new__(type(obj))
    for f in fields(obj):
        object.__setattr__(new, f.name, changes.get(f.name, getattr(obj, f.name)))
    return new


def nested(default, *, source: str, doc: str = ""):
    """A field holding another parameter set (its knobs are reached by their own names)."""
    return knob(default, unit="", source=source, doc=doc, packed=False)


__all__ = ["Knob", "Knobs", "knob", "nested", "replace"]
