"""The shared model framework: knob declarations, generated layouts, the engine."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.models.engine import KernelGroup, drop_stale_cache, rng
from kernel_workbook.models.knobs import Knobs, knob, nested
from kernel_workbook.models.layout import ParamLayout, enum, flags, slots, width


def ms_to_jiffies(ms, params):
    return int(-(-ms * params.HZ // 1000))


@dataclass(frozen=True)
class Inner(Knobs):
    depth: int = knob(4, unit="requests", source="block/blk-core.c nr_requests", range=(1, 1024),
                      tunable="/sys/block/<dev>/queue/nr_requests")
    write_cache: bool = knob(True, source="drive firmware")


@dataclass(frozen=True)
class Outer(Knobs):
    HZ: int = knob(1000, unit="Hz", source="CONFIG_HZ", choices=(100, 250, 300, 1000))
    slice_idle: float = knob(8.0, unit="ms", source="block/cfq-iosched.c cfq_arm_slice_timer()", range=(0, 1000),
                             to_kernel=ms_to_jiffies, packed="int", kernel="cfq_slice_idle",
                             tunable="/sys/block/<dev>/queue/iosched/slice_idle")
    ratio: float = knob(0.5, unit="", source="mm/x.c f()", range=(0.0, 1.0))
    mode: str = knob("each", source="mm/page_alloc.c zone_dirty_ok()", choices=("off", "each", "cached"))
    reserve: int | None = knob(None, unit="KiB", source="mm/page_alloc.c", range=(128, 65536), optional=True)
    inner: Inner = nested(Inner(), source="the device")
    label: str = "not a knob"

    def check(self):
        if self.ratio > 0.9 and not self.inner.write_cache:
            raise WorkbookParameterError("ratio", self.ratio, "<= 0.9 without a write cache")


def test_declaration_flattens_nested_knobs_in_order():
    assert list(Outer.declared()) == ["HZ", "slice_idle", "ratio", "mode", "reserve", "depth", "write_cache"]
    k = Outer.knob("slice_idle")
    assert (k.unit, k.kernel, k.packed, k.kind) == ("ms", "cfq_slice_idle", "int", "float")
    assert Outer.knob("write_cache").unit == "flag"


def test_tunables_are_the_knobs_declared_with_their_file_nested_ones_included():
    assert Outer.tunables() == ("slice_idle", "depth")
    assert Outer.knob("depth").tunable == "/sys/block/<dev>/queue/nr_requests" and Outer.knob("ratio").tunable is None


@pytest.mark.parametrize("name,value,words", [
    ("slice_idle", -1.0, "slice_idle=-1.0: expected a number in 0..1000 (ms); cfq_slice_idle, block/cfq-iosched.c"),
    ("slice_idle", float("nan"), "slice_idle=nan"),
    ("depth", 2.5, "depth=2.5: expected an integer in 1..1024 (requests)"),
    ("depth", True, "depth=True"),
    ("mode", "sometimes", "one of 'off', 'each', 'cached'"),
    ("HZ", 200, "one of 100, 250, 300, 1000"),
    ("write_cache", "yes", "True or False"),
    ("reserve", 64, "reserve=64"),
])
def test_bad_knob_names_the_knob_its_range_and_source(name, value, words):
    with pytest.raises(WorkbookParameterError, match=None) as e:
        Outer().with_(**{name: value})
    assert words in str(e.value)
    assert e.value.name == name


def test_with_routes_nested_knobs_and_runs_cross_checks():
    p = Outer().with_(depth=32, slice_idle=0.0, reserve=1024)
    assert p.inner.depth == 32 and p.slice_idle == 0.0 and p.reserve == 1024
    assert p.changed() == {"slice_idle": 0.0, "reserve": 1024, "depth": 32}
    assert p.echo(seed=3) == "slice_idle=0.0, reserve=1024, depth=32, seed=3"
    # two knobs changed together pass even if one alone would not
    q = Outer().with_(ratio=0.95, write_cache=True)
    assert q.ratio == 0.95
    with pytest.raises(WorkbookParameterError, match="ratio"):
        Outer().with_(ratio=0.95, write_cache=False)
    with pytest.raises(WorkbookParameterError, match="a knob of Outer"):
        Outer().with_(slice_idel=1.0)


def test_knob_table_lists_every_knob():
    df = Outer().with_(depth=8).df_knobs()
    assert list(df.columns) == ["knob", "value", "default", "unit", "kernel", "source", "doc", "tunable"]
    assert df.set_index("knob").loc["depth", "value"] == 8
    assert df.set_index("knob").loc["depth", "tunable"] == "/sys/block/<dev>/queue/nr_requests"
    assert len(df) == 7


def test_layout_is_generated_from_the_declaration_and_packs_kernel_units():
    lay = ParamLayout(Outer, derived_int="nproc jiffy_ns", derived_float="scale")
    assert lay.I._fields == ("HZ", "slice_idle", "mode", "reserve", "depth", "write_cache", "nproc", "jiffy_ns")
    assert lay.F._fields == ("ratio", "scale")
    p = Outer().with_(HZ=250, slice_idle=10.0, mode="cached", depth=7, write_cache=False)
    pi, pf = lay.pack(p, nproc=3, jiffy_ns=4_000_000, scale=0.25)
    assert pi[lay.I.HZ] == 250  # a choice of numbers packs as the number
    assert pi[lay.I.slice_idle] == 3  # 10 ms at HZ=250: msecs_to_jiffies rounds up
    assert pi[lay.I.mode] == 2  # a choice of names packs as its index
    assert pi[lay.I.depth] == 7 and pi[lay.I.write_cache] == 0
    assert pi[lay.I.reserve] == -1  # None
    assert pi[lay.I.nproc] == 3 and pi[lay.I.jiffy_ns] == 4_000_000
    assert pf[lay.F.ratio] == 0.5 and pf[lay.F.scale] == 0.25
    with pytest.raises(TypeError, match="missing"):
        lay.pack(p, nproc=3)


def test_slots_enum_flags():
    S = slots("S", "now next busy")
    assert (S.now, S.busy, len(S)) == (0, 2, 3)
    Z = enum("Zone", ["ZONE_DMA", "ZONE_DMA32", "ZONE_NORMAL"])
    assert Z.ZONE_NORMAL == 2
    PG = flags("PG", "referenced active dirty")
    assert (PG.referenced, PG.active, PG.dirty) == (1, 2, 4)
    with pytest.raises(ValueError, match="repeated"):
        slots("S", "a b a")
    G = slots("G", "ns free:3 batch:3 state")
    assert (G.ns, G.free, G.batch, G.state, width(G), len(G)) == (0, 1, 4, 7, 8, 4)


def test_rng_takes_an_int_or_a_generator():
    assert rng(5).random() == np.random.default_rng(5).random()
    g = np.random.default_rng(9)
    assert rng(g) is g
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(WorkbookParameterError, match="seed"):
            rng(bad)


# --------------------------------------------------------------------------- the engine on a toy kernel package

TOY_LAYOUT = '''
from kernel_workbook.models.layout import slots
S = slots("S", "total steps")
'''
TOY_HELPER = '''
from kernel_workbook.models.engine import leaf
@leaf
def add(s, i, x):
    s[i] += x
'''
TOY_LOOP = '''
import numpy as np
from kernel_workbook.models.engine import kernel, sibling
from .layout import S
h = sibling(__name__, "helper_kernel")
@kernel
def run(s, u):
    for k in range(u.shape[0]):
        # integer arithmetic that overflows int64 in Numba, never in Python: the engines must agree here
        h.add(s, S.total, np.int64(u[k] * 1000) // 7)
        h.add(s, S.steps, 1)
    return s[S.total]
'''


@pytest.fixture()
def toy_package(tmp_path, monkeypatch):
    pkg = tmp_path / "kwb_toy_model"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "layout.py").write_text(textwrap.dedent(TOY_LAYOUT))
    (pkg / "helper_kernel.py").write_text(textwrap.dedent(TOY_HELPER))
    (pkg / "loop_kernel.py").write_text(textwrap.dedent(TOY_LOOP))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield pkg
    import sys
    for m in [m for m in sys.modules if m.startswith("kwb_toy_model")]:
        del sys.modules[m]


def test_engine_runs_one_source_compiled_and_as_python(toy_package, capsys):
    g = KernelGroup("kwb_toy_model", ("helper_kernel", "loop_kernel"), "loop_kernel:run", what="toy loop")
    u = np.random.default_rng(1).random(50)
    s_py, s_jit = np.zeros(2, np.int64), np.zeros(2, np.int64)
    assert g.run(s_py, u, engine="python") == g.run(s_jit, u, engine="jit")
    assert (s_py == s_jit).all() and s_py[1] == 50
    assert "toy loop: compiling with Numba" in capsys.readouterr().out
    assert g.is_compiled()
    assert not hasattr(g.function("python"), "signatures")  # the Python copy is plain Python
    with pytest.raises(WorkbookParameterError, match="no independent reference"):
        g.function("reference")
    with pytest.raises(WorkbookParameterError, match="engine"):
        g.function("fast")


def test_stale_cache_is_dropped_when_any_source_changes(tmp_path):
    src = tmp_path / "a.py"
    src.write_text("x = 1\n")
    cache = tmp_path / "__pycache__"
    drop_stale_cache([src], cache)
    (cache / "a.run-1.py311.nbi").write_text("index")
    drop_stale_cache([src], cache)
    assert (cache / "a.run-1.py311.nbi").exists()  # unchanged sources keep the cache
    src.write_text("x = 2\n")
    drop_stale_cache([src], cache)
    assert not (cache / "a.run-1.py311.nbi").exists()
