"""Every knob of every model reaches its own slot of the kernel's arrays, in the kernel's units.

For each model (its ``MODEL`` spec) and each knob it packs, the knob is
changed to another valid value and the model's own ``pack`` -- the function
``simulate`` uses -- must put the declared conversion of the new value in the
knob's slot, and every other knob's slot must still hold the conversion of
that knob's value.  A packing line written by hand that sends a value to a
wrong slot, forgets a conversion or overwrites a slot fails here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.heuristic import model as get_model
from kernel_workbook.heuristic import names as available_models


def _candidates(k, v):
    if k.kind == "bool":
        return [not v]
    if k.kind == "choice":
        return [c for c in k.choices if c != v]
    if k.kind in ("int", "float"):
        lo, hi, step = k.slider()
        base = v if v is not None else lo
        out = [hi, lo, base + step, base - step, base * 2, base / 2, (lo + hi) / 2]
        if k.range:
            out += [x for x in k.range if x is not None]
        if k.kind == "int":
            out = [int(round(x)) for x in out]
        return [x for x in out if x != v]
    return []


def _expected(spec, params):
    lay = spec.layout
    decl = spec.knobs()
    vals = params.values()
    exp_i = {n: decl[n].kernel_value(vals[n], params) for n in lay.int_knobs}
    exp_f = {n: decl[n].kernel_value(vals[n], params) for n in lay.float_knobs}
    return exp_i, exp_f


def _check_all_slots(spec, params, arrays):
    pi, pf = arrays
    exp_i, exp_f = _expected(spec, params)
    for n, e in exp_i.items():
        assert pi[getattr(spec.layout.I, n)] == e, f"{spec.name}: int slot of {n} holds {pi[getattr(spec.layout.I, n)]}, expected {e}"
    for n, e in exp_f.items():
        got = pf[getattr(spec.layout.F, n)]
        assert got == e or (math.isnan(got) and math.isnan(e)), f"{spec.name}: float slot of {n} holds {got}, expected {e}"


@pytest.mark.parametrize("name", available_models())
def test_every_knob_reaches_its_slot_in_kernel_units(name):
    spec = get_model(name)
    assert spec.layout is not None and spec.pack is not None, f"{name}: its MODEL has no layout/pack"
    p0 = spec.params_for(spec.default_variant)
    w = spec.workload(spec.default_workload)
    a0 = spec.pack(p0, w)
    _check_all_slots(spec, p0, a0)
    packed = [n for n, k in spec.knobs().items() if k.packed]
    assert packed, f"{name}: no knob is packed"
    moved = []
    for n in packed:
        k = spec.knobs()[n]
        arr = 0 if k.packed == "int" else 1
        slot = getattr(spec.layout.I if arr == 0 else spec.layout.F, n)
        for v1 in _candidates(k, p0.value(n)):
            try:
                p1 = p0.with_(**{n: v1})
            except WorkbookParameterError:
                continue
            a1 = spec.pack(p1, w)
            if a1[arr][slot] == a0[arr][slot]:
                continue  # this value has the same kernel value (e.g. under one jiffy): try another
            _check_all_slots(spec, p1, a1)
            moved.append(n)
            break
    never = sorted(set(packed) - set(moved))
    assert not never, f"{name}: no valid change of these knobs changed their slot: {never}"


@pytest.mark.parametrize("name", available_models())
def test_model_spec_is_complete(name):
    spec = get_model(name)
    assert spec.default_variant is None or spec.default_variant in spec.variants
    assert spec.default_workload in spec.workloads
    for v in spec.variants:
        spec.params_for(v)  # every named kernel is a valid parameter set
    for kname, k in spec.knobs().items():
        assert k.source and k.source.strip(), f"{name}.{kname}: no kernel source declared"
        if k.kind in ("int", "float") and k.unit == "":
            pass  # a plain count is allowed; its doc or name says what it counts
    assert isinstance(spec.pack(spec.params_for(), spec.workload())[0], np.ndarray)


@pytest.mark.parametrize("name", available_models())
def test_a_tunable_names_the_file_a_running_kernel_sets_it_in(name):
    """Every model has knobs an administrator sets; each says where, as a sysctl or sysfs path ending in the
    file's own name (a typo'd directory or a C variable given instead of the file shows here)."""
    import re

    decl = get_model(name).knobs()
    tunables = {n: k.tunable for n, k in decl.items() if k.tunable}
    assert tunables, f"{name}: no knob says where a running kernel sets it"
    for kname, path in tunables.items():
        assert re.fullmatch(r"/proc/sys/(vm|kernel)/[a-z_]+|/sys/block/<dev>/(queue|queue/iosched|device)/[a-z_]+",
                            path), f"{name}.{kname}: tunable {path!r}"
