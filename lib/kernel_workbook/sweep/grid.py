"""Which runs a sweep makes: knobs (by their declared names) x kernels x workloads x seeds.

A :class:`Grid` is an explicit, ordered list of :class:`Run` s.  Every run
names a value for *every* knob of the grid, so a run is fully identified by
its row (``variant, workload, knobs..., seed``) whatever design produced it:

* :func:`product` -- every combination of the listed values (a full factorial);
* :func:`one_at_a_time` -- the kernel's own setting, then each knob through
  its values with the others left at the kernel's setting (a tornado chart's
  design: ``1 + sum(len(values))`` points instead of their product);
* :func:`sample` -- ``n`` random points drawn with ``numpy.random.default_rng``
  from ranges or value lists.

Each is repeated for every kernel (variant), workload and seed, seeds
innermost.  Knob names and values go through the model's knob declaration
(:mod:`kernel_workbook.models.knobs`), and every point is built into the
model's parameters once before anything runs, so a bad value or a forbidden
combination is reported here, naming the knob, not by a worker half-way
through a sweep.
"""

from __future__ import annotations

import inspect
import itertools
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np
import pandas as pd

from ..errors import WorkbookParameterError
from ..models.knobs import Knob
from .. import heuristic
from ..models.spec import ModelSpec

# columns of a sweep's table that are not knobs or outputs
KEY_COLUMNS = ("variant", "workload", "seed")


@dataclass(frozen=True)
class Run:
    """One run of a sweep: where it sits in the grid and what it runs."""

    index: int
    variant: str | None
    workload: str | None
    seed: int
    knobs: tuple  # ((name, value), ...) in the grid's knob order

    def key(self) -> tuple:
        """What identifies the run in a sweep file (its row without the outputs)."""
        return (self.variant, self.workload, *(v for _, v in self.knobs), self.seed)

    def knob_dict(self) -> dict:
        return dict(self.knobs)


@dataclass(frozen=True)
class Grid:
    """The runs of a sweep, in order, and what they share."""

    model: ModelSpec
    knobs: tuple  # knob names, in the model's declaration order
    runs: tuple  # Run, index == position
    workload_kw: dict = field(default_factory=dict)
    design: str = "product"
    home: dict = field(default_factory=dict)  # variant -> {knob: the kernel's own value (or the fixed one)}

    def __len__(self) -> int:
        return len(self.runs)

    def __iter__(self):
        return iter(self.runs)

    def declared(self) -> dict[str, Knob]:
        """The declaration of each knob of the grid (name -> Knob)."""
        d = self.model.knobs()
        return {n: d[n] for n in self.knobs}

    def df(self) -> pd.DataFrame:
        """The grid as a table, one row per run in grid order.

        Columns: ``variant, workload``, one per knob of the grid (the value it
        runs with), ``seed``; the index is the run's position in the grid.
        """
        rows = [{"variant": r.variant, "workload": r.workload, **r.knob_dict(), "seed": r.seed} for r in self.runs]
        return pd.DataFrame(rows, columns=["variant", "workload", *self.knobs, "seed"])

    def describe(self) -> str:
        """How many runs and what they are made of (one line)."""
        vs = sorted({r.variant for r in self.runs}, key=str)
        ws = sorted({r.workload for r in self.runs}, key=str)
        ss = sorted({r.seed for r in self.runs})
        return (f"{len(self)} runs of {self.model.name} ({self.design}: {', '.join(self.knobs) or 'no knobs'}; "
                f"{len(vs)} kernel(s), {len(ws)} workload(s), {len(ss)} seed(s))")


# --------------------------------------------------------------------------- the designs

def product(model, knobs: dict | None = None, variants=None, workloads=None, seeds: Iterable[int] = (0,),
            workload_kw: dict | None = None, fixed: dict | None = None) -> Grid:
    """Every combination of the knobs' values, for every kernel, workload and seed.

    ``model``: a :class:`ModelSpec` or its name (``"cfq"``); ``knobs``:
    ``{declared name: [values]}``; ``variants``/``workloads``: names, ``"all"``,
    or None for the model's default; ``workload_kw``: keyword arguments every
    workload builder gets (a smaller problem, say); ``fixed``: ``{name:
    value}`` set in every run (a calibrated machine, say), a column of the
    table like the other knobs.
    """
    spec, names, values = _knob_values(model, knobs or {})
    points = [dict(zip(names, combo)) for combo in itertools.product(*(values[n] for n in names))]
    return _build(spec, names, lambda variant: points, variants, workloads, seeds, workload_kw, "product", fixed)


def one_at_a_time(model, knobs: dict, variants=None, workloads=None, seeds: Iterable[int] = (0,),
                  workload_kw: dict | None = None, fixed: dict | None = None) -> Grid:
    """The kernel's own setting, then each knob through its values with the others at that setting.

    The first point of each kernel is its setting of every listed knob (the
    variant's value, else the declared default); a listed value equal to it is
    not run twice.  This is the design of a tornado chart.
    """
    spec, names, values = _knob_values(model, knobs)

    def points(variant):
        base = spec.params_for(variant)
        home = {n: _normal(spec.params.knob(n), base.value(n)) for n in names}
        out, seen = [dict(home)], {tuple(home.values())}
        for n in names:
            for v in values[n]:
                p = {**home, n: v}
                if tuple(p.values()) not in seen:
                    seen.add(tuple(p.values()))
                    out.append(p)
        return out

    return _build(spec, names, points, variants, workloads, seeds, workload_kw, "one-at-a-time", fixed)


def sample(model, knobs, n: int, variants=None, workloads=None, seeds: Iterable[int] = (0,),
           workload_kw: dict | None = None, sample_seed: int = 0, fixed: dict | None = None) -> Grid:
    """``n`` random points, the same for every kernel, workload and seed.

    ``knobs``: a list of declared names (each drawn over its widget range) or
    ``{name: (lo, hi)}`` (uniform; integers for an integer knob) or
    ``{name: [values]}`` (one of them, each equally likely).  Points are drawn
    with ``numpy.random.default_rng(sample_seed)``, so the same call gives the
    same grid.
    """
    spec = _spec(model)
    if isinstance(knobs, (list, tuple)):
        knobs = {k: None for k in knobs}
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
        raise WorkbookParameterError("n", n, "a whole number of sample points >= 1")
    declared = spec.knobs()
    names = _check_names(spec, knobs)
    rng = np.random.default_rng(sample_seed)
    columns = {}
    for name in names:
        k, how = declared[name], knobs[name]
        columns[name] = [_normal(k, v) for v in _draw(k, how, int(n), rng)]
    points = [{name: columns[name][i] for name in names} for i in range(int(n))]
    return _build(spec, names, lambda variant: points, variants, workloads, seeds, workload_kw, "sample", fixed)


def around(model, names, variant: str | None = None, factor: float = 2.0, with_home: bool = False,
           steps: int = 1) -> dict:
    """Values to move each knob to from the kernel's own setting, by one rule for every knob.

    A number: its setting divided and multiplied by ``factor`` (``steps``
    times: factor, factor**2...; rounded for an integer knob, kept inside its
    declared range; a setting of 0 or None goes to the ends of its widget
    range); a flag: the other setting; a choice: the other choices.
    ``with_home`` adds the setting itself (numbers in order).  A rule fixed in
    advance, so which values a sensitivity sweep tries is never picked by
    looking at what the model predicts.
    """
    spec = _spec(model)
    if isinstance(names, str):
        names = [names]
    _check_names(spec, {n: None for n in names})
    if not (isinstance(factor, (int, float)) and factor > 1):
        raise WorkbookParameterError("factor", factor, "a number > 1")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise WorkbookParameterError("steps", steps, "a whole number >= 1")
    base = spec.params_for(variant)
    out = {}
    for n in names:
        k = spec.params.knob(n)
        home = _normal(k, base.value(n))
        if k.kind == "bool":
            vals = [not home]
        elif k.kind == "choice":
            vals = [c for c in k.choices if c != home]
        else:
            if home in (0, None):
                lo, hi, _ = k.slider()
                vals = [lo, hi]
            else:
                vals = [home / factor ** i for i in range(steps, 0, -1)] + [home * factor ** i
                                                                          for i in range(1, steps + 1)]
            lo, hi = k.range if k.range else (None, None)
            vals = [min(max(v, lo if lo is not None else v), hi if hi is not None else v) for v in vals]
            vals = [int(round(v)) if k.kind == "int" else float(v) for v in vals]
        vals = [v for i, v in enumerate(vals) if v != home and v not in vals[:i]]
        if with_home:
            vals = sorted(vals + [home]) if k.kind in ("int", "float") and home is not None else [home] + vals
        out[n] = vals
    return out


def _draw(k: Knob, how, n: int, rng: np.random.Generator) -> list:
    if how is None:
        if k.kind in ("bool", "choice"):
            how = [False, True] if k.kind == "bool" else list(k.choices)
        else:
            lo, hi, _ = k.slider()
            how = (lo, hi)
    if isinstance(how, tuple) and len(how) == 2 and k.kind in ("int", "float"):
        lo, hi = how
        for v in (lo, hi):
            k.check(v)
        if not lo < hi:
            raise WorkbookParameterError(k.name, how, "a range (lo, hi) with lo < hi")
        if k.kind == "int":
            return [int(v) for v in rng.integers(int(lo), int(hi), endpoint=True, size=n)]
        return [float(v) for v in rng.uniform(lo, hi, size=n)]
    vals = list(how) if isinstance(how, (list, tuple)) else None
    if not vals:
        raise WorkbookParameterError(k.name, how, "a list of values, or (lo, hi) for a number knob")
    picks = rng.integers(0, len(vals), size=n)
    return [vals[i] for i in picks]


# --------------------------------------------------------------------------- checks shared by the designs

def _spec(model) -> ModelSpec:
    if isinstance(model, ModelSpec):
        return model
    if isinstance(model, str):
        return heuristic.model(model)
    raise WorkbookParameterError("model", model, "a model name or a ModelSpec")


def _check_names(spec: ModelSpec, knobs: dict) -> list[str]:
    declared = spec.knobs()
    for name in knobs:
        if name not in declared:
            raise WorkbookParameterError("knob", name, f"a knob of {spec.name}: " + ", ".join(declared))
        if declared[name].kind == "object":
            raise WorkbookParameterError("knob", name, "a knob with a value to sweep (a number, flag or choice); "
                                         f"{name} is a set of knobs: sweep its own knobs by name")
    return [n for n in declared if n in knobs]  # declaration order: the same table whatever order they came in


def _knob_values(model, knobs: dict) -> tuple[ModelSpec, list[str], dict[str, list]]:
    spec = _spec(model)
    names = _check_names(spec, knobs)
    values = {}
    for n in names:
        vs = knobs[n]
        if isinstance(vs, (str, bytes)) or not isinstance(vs, Iterable):
            vs = [vs]
        vs = [_normal(spec.params.knob(n), v) for v in vs]
        if not vs:
            raise WorkbookParameterError(n, [], "at least one value")
        dup = [v for i, v in enumerate(vs) if v in vs[:i]]
        if dup:
            raise WorkbookParameterError(n, dup[0], "each value once (it is listed twice)")
        values[n] = vs
    return spec, names, values


def _normal(k: Knob, v):
    """The value in the knob's own type (8 -> 8.0 for a float knob), after the declaration's check."""
    if isinstance(v, np.generic):
        v = v.item()
    k.check(v)
    if v is None:
        return None
    if k.kind == "bool":
        return bool(v)
    if k.kind == "int":
        return int(v)
    if k.kind == "float":
        return float(v)
    if k.kind == "choice":
        return next(c for c in k.choices if c == v)
    return v


def _names(kind: str, given, known: dict, default) -> list:
    """Variant / workload names: None -> the default; "all" -> every one; else each must be known."""
    if given is None:
        return [default] if default is not None or not known else [next(iter(known))]
    if isinstance(given, str):
        given = list(known) if given == "all" else [given]
    given = list(given)
    if not given:
        raise WorkbookParameterError(kind, given, "at least one name")
    for g in given:
        if g not in known:
            raise WorkbookParameterError(kind, g, "one of " + ", ".join(map(str, known)))
    dup = [g for i, g in enumerate(given) if g in given[:i]]
    if dup:
        raise WorkbookParameterError(kind, dup[0], "each name once (it is listed twice)")
    return given


def _seeds(seeds) -> list[int]:
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        seeds = [seeds]
    out = []
    for s in seeds:
        if isinstance(s, np.integer):
            s = int(s)
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise WorkbookParameterError("seed", s, "an integer >= 0")
        if s in out:
            raise WorkbookParameterError("seed", s, "each seed once (it is listed twice)")
        out.append(s)
    if not out:
        raise WorkbookParameterError("seeds", list(seeds), "at least one seed")
    return out


def _check_workload_kw(spec: ModelSpec, workload: str | None, kw: dict) -> None:
    if workload is None or workload not in spec.workloads:
        return
    builder = spec.workloads[workload]
    try:
        sig = inspect.signature(builder)
    except (TypeError, ValueError):  # a builtin or C callable: let the call say
        return
    if any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        return
    for k in kw:
        if k not in sig.parameters:
            raise WorkbookParameterError("workload_kw", k, f"a parameter of workload {workload}: "
                                         + ", ".join(sig.parameters))


def _build(spec: ModelSpec, varied: list[str], points_of, variants, workloads, seeds, workload_kw,
           design: str, fixed: dict | None = None) -> Grid:
    vs = _names("variant", variants, spec.variants, spec.default_variant)
    ws = _names("workload", workloads, spec.workloads, spec.default_workload)
    ss = _seeds(seeds)
    kw = dict(workload_kw or {})
    for w in ws:
        _check_workload_kw(spec, w, kw)
    fixed = dict(fixed or {})
    both = set(fixed) & set(varied)
    if both:
        raise WorkbookParameterError("fixed", sorted(both)[0], "a knob that is not also swept")
    _check_names(spec, fixed)
    fixed = {n: _normal(spec.params.knob(n), v) for n, v in fixed.items()}
    names = [n for n in spec.knobs() if n in fixed or n in varied]
    clash = set(names) & set(KEY_COLUMNS)
    if clash:  # a knob named "seed" would make the table ambiguous
        raise WorkbookParameterError("knob", sorted(clash)[0], "a knob whose name is not a column of the sweep "
                                     "table (" + ", ".join(KEY_COLUMNS) + ")")
    runs, home = [], {}
    for v in vs:
        own = spec.params_for(v)
        home[v] = {n: fixed[n] if n in fixed else _normal(spec.params.knob(n), own.value(n)) for n in names}
        points = [{**fixed, **p} for p in points_of(v)]
        for point in points:
            try:
                spec.params_for(v, **point)  # every combination checked before anything runs
            except WorkbookParameterError as e:
                where = ", ".join(f"{k}={x!r}" for k, x in point.items())
                raise WorkbookParameterError(e.name, e.value, f"{e.expected} (in the grid point variant={v!r}"
                                             + (f", {where}" if where else "") + ")") from None
        for w in ws:
            for point in points:
                frozen = tuple((n, point[n]) for n in names)
                for s in ss:
                    runs.append(Run(len(runs), v, w, s, frozen))
    return Grid(spec, tuple(names), tuple(runs), kw, design, home)


def parse_seeds(text: str) -> list[int]:
    """``"0-7"``, ``"0,3,5"``, ``"0-3,10-11"`` -> the seeds, in order (each once)."""
    out: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        lo, sep, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            raise WorkbookParameterError("seeds", text, "seeds as 0-7, 0,3,5 or 0-3,10-11 (integers >= 0)") from None
        if a < 0 or b < a:
            raise WorkbookParameterError("seeds", text, f"ranges lo-hi with 0 <= lo <= hi (got {part!r})")
        out.extend(range(a, b + 1))
    return _seeds(out)


def parse_value(k: Knob, text: str) -> Any:
    """A knob value from text, by the knob's declaration (for the command line)."""
    t = text.strip()
    if k.optional and t.lower() == "none":
        return None
    if k.kind == "bool":
        low = t.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise WorkbookParameterError(k.name, t, k.expected())
    if k.kind == "choice":
        for c in k.choices:
            if str(c) == t:
                return c
        raise WorkbookParameterError(k.name, t, k.expected())
    try:
        v = int(t) if k.kind == "int" else float(t)
    except ValueError:
        raise WorkbookParameterError(k.name, t, k.expected()) from None
    return _normal(k, v)


__all__ = ["Run", "Grid", "product", "one_at_a_time", "sample", "around", "parse_seeds", "parse_value",
           "KEY_COLUMNS"]
