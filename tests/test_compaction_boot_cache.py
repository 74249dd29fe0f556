"""simulate() keeps booted zones (models/compaction/boot_cache.py): a run started from a kept zone is the run that
boots, to the bit, and boot reads none of the parameter slots the cache leaves out of its key."""

from __future__ import annotations

import numpy as np
import pytest

from kernel_workbook.models.compaction import KERNELS, params_for, simulate
from kernel_workbook.models.compaction import boot_cache
from kernel_workbook.models.compaction.layout import RUN, F, I
from kernel_workbook.heuristics.compaction import stress_highalloc as sh

S = __import__("kernel_workbook.models.compaction.simulate", fromlist=["arrays"])


def _boot(a: dict) -> dict:
    b = {k: v.copy() for k, v in a.items()}
    KERNELS.function("jit")(*(b[k] for k in S.ARG_ORDER), RUN.BOOT)
    return b


def _differs(x: dict, y: dict) -> list[str]:
    return [k for k in x if not np.array_equal(x[k], y[k])]


@pytest.fixture(scope="module")
def small_arrays():
    return S.arrays(params_for("contended-v5"), sh.small(), seed=3)


def test_boot_reads_none_of_the_ignored_slots(small_arrays):
    a = small_arrays
    want = _boot(a)
    g = np.random.default_rng(0)
    b = {k: v.copy() for k, v in a.items()}
    for n in boot_cache.IGNORED_INT:
        b["pi"][getattr(I, n)] = g.integers(0, 1 << 20)
    for n in boot_cache.IGNORED_FLOAT:
        b["pf"][getattr(F, n)] = g.random() * 1000.0
    got = _boot(b)
    assert _differs({k: got[k] for k in boot_cache.STATE + boot_cache.UNTOUCHED},
                    {k: want[k] for k in boot_cache.STATE + boot_cache.UNTOUCHED}) == []
    assert boot_cache.key(b, 3, "jit") == boot_cache.key(a, 3, "jit")


def test_the_boot_comparison_sees_a_slot_boot_reads(small_arrays):
    """The check above can fail: a watermark boot fills the zone up to changes the booted zone and the key."""
    a = small_arrays
    b = {k: v.copy() for k, v in a.items()}
    b["pi"][I.wmark_high] += 64
    assert "pg" in _differs(_boot(b), _boot(a))
    assert boot_cache.key(b, 3, "jit") != boot_cache.key(a, 3, "jit")
    assert boot_cache.key(a, 4, "jit") != boot_cache.key(a, 3, "jit")


@pytest.mark.parametrize("variant", ["revert-v5", "capture-v5", "3.3.6"])
def test_a_run_from_a_kept_zone_is_the_run_that_boots(variant):
    w = sh.small()
    boot_cache.BOOTED.clear()
    simulate(params_for("contended-v5"), w, seed=3, verbose=False)  # boots, keeps the zone
    hits = boot_cache.BOOTED.hits
    kept = simulate(params_for(variant), w.with_(build_procs=5, dirty_pages_s=900.0), seed=3, verbose=False)
    assert boot_cache.BOOTED.hits == hits + 1
    boot_cache.BOOTED.clear()
    booted = simulate(params_for(variant), w.with_(build_procs=5, dirty_pages_s=900.0), seed=3, verbose=False)
    assert boot_cache.BOOTED.hits == hits + 1
    assert kept.ticks == booted.ticks
    assert _differs(kept.arrays, booted.arrays) == []


def test_a_seed_given_as_a_generator_is_not_kept():
    assert boot_cache.key(S.arrays(params_for("revert-v5"), sh.small(), seed=1), np.random.default_rng(1),
                          "jit") is None


def test_a_run_whose_thread_is_asked_to_stop_stops_and_a_run_after_it_is_whole():
    """An explorer's run ahead that the person no longer needs stops at the next tick (engine.stop_flag); the
    zone kept from its boot is untouched, so the next run is the run it would have been."""
    from kernel_workbook.models.compaction import simulate
    from kernel_workbook.models.engine import RunStopped, stopping

    w = sh.small()
    p = params_for("contended-v5")
    boot_cache.BOOTED.clear()
    with pytest.raises(RunStopped):
        with stopping(np.ones(1, np.int64)):
            simulate(p, w, seed=5, verbose=False)
    after = simulate(p, w, seed=5, verbose=False)
    boot_cache.BOOTED.clear()
    fresh = simulate(p, w, seed=5, verbose=False)
    assert after.ticks == fresh.ticks > 0
    assert _differs({k: after.arrays[k] for k in S.ARG_ORDER}, {k: fresh.arrays[k] for k in S.ARG_ORDER}) == []
