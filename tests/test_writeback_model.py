"""The writeback model: one source compiled or as Python, its invariants, the throttles, bad knobs."""

from __future__ import annotations

import numpy as np
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.models.writeback import KERNELS, VARIANTS, WritebackLoad, params_for, simulate
from kernel_workbook.models.writeback.layout import AC, ACTOR, S
from kernel_workbook.models.cfq.layout import S_ as BS_
from kernel_workbook.models.writeback.simulate import arrays, congestion_thresholds
from kernel_workbook.traces.derived import df_reclaim_2007
from kernel_workbook.heuristics.writeback.workloads_2007 import akpm_test, desktop_light


def _small(**kw):
    """akpm's test on a 64 MB i386 machine for 2 s: every mechanism, fast enough for the Python engine."""
    return akpm_test(machine_mb=64.0, duration_s=2.0, **kw)


# --------------------------------------------------------------------------- one engine, the state audited

@pytest.mark.parametrize("variant", ["before c4e2d7dd", "2.6.23"])
def test_jit_equals_python_and_the_state_stays_sound_after_every_event(variant):
    w = _small(write_pct=20.0)  # a writer too, so balance_dirty_pages() runs
    runs = [simulate(params_for(variant, nr_requests=16), w, seed=3, engine=e, audit=True, verbose=False)
            for e in ("jit", "python")]
    for r in runs:
        assert r.audit() == "ok", r.audit()  # pages conserved, queue <= nr_requests, no page written twice at once
        assert r.events > 100
    for k in runs[0].arrays:
        assert np.array_equal(runs[0].arrays[k], runs[1].arrays[k]), k
    s = runs[0].summary()
    assert s["pgpgout"] > 0 and s["pageoutrun"] > 0  # the disk wrote, kswapd ran


def test_the_kernels_compile_without_reference_counting():
    """engine.kernel_no_nrt: three quarters of a compiled run were NRT_incref/NRT_decref calls (up to 17 arrays
    handed on at every call); the plain decorators would bring them back without changing a result, so only
    this test would notice."""
    assert KERNELS.function("jit").targetoptions.get("_nrt") is False
    assert KERNELS.module("loop_kernel", "jit").run_actor.targetoptions.get("_nrt") is False
    # the leaves are inlined; the functions that run the block layer's (end_request, write_pages,
    # shrink_inactive_list) are compiled once and called, still without reference counting
    for mod, fn, inline in (("page_alloc_kernel", "lru_add", True), ("blk_kernel", "chain_add", True),
                            ("vmscan_kernel", "pageout", True), ("blk_kernel", "end_request", False),
                            ("page_writeback_kernel", "write_pages", False),
                            ("vmscan_kernel", "shrink_inactive_list", False)):
        opts = getattr(KERNELS.module(mod, "jit"), fn).targetoptions
        assert opts.get("_nrt") is False and (opts.get("inline") == "always") == inline, (mod, fn)


def test_the_audit_can_fail():
    """The audit is not a test that cannot fail: break each invariant by hand and it says which."""
    L = KERNELS.module("loop_kernel", "python")
    a = arrays(params_for("2.6.23"), _small(), seed=1, audit=True)
    L.setup(a["pg"], a["lh"], a["zs"], a["fstk"], a["fpfn"], a["s"])

    def audit():
        return L.audit(a["pg"], a["zs"], a["rqw"], a["ac"], a["s"], a["pi"], a["P"], a["BS"], a["R"])

    assert audit() == 0
    a["BS"][BS_.rl_count_async] = 3 * 128 // 2 + 1  # past what batching allows (3/2 of nr_requests)
    assert audit() == 40
    a["BS"][BS_.rl_count_async] = 0
    a["s"][S.nr_writeback] = 1
    assert audit() == 50
    a["s"][S.nr_writeback] = 0
    a["zs"][1, 2] += 1  # a free page counted twice
    assert 10 <= audit() <= 12


def test_queue_never_exceeds_nr_requests_and_pages_are_conserved_in_every_sample():
    r = simulate(params_for("after c4e2d7dd", nr_requests=8), _small(), seed=2, verbose=False, audit=True)
    assert r.audit() == "ok"
    q = r.queue()
    # get_request(): the process that filled the list may take up to 3/2 of nr_requests while it batches
    assert q.groupby("elapsed")["slots"].sum().max() <= 3 * 8 // 2
    assert q.groupby("elapsed")["slots"].sum().max() >= 8  # and kswapd does fill it (it may block on it)
    z = r.zones()
    free = z[z["state"] == "free"].groupby("elapsed")["pages"].sum()
    assert (free >= 0).all()


def test_the_shared_queue_holds_highmem_pages_of_pdflush_before_the_fix():
    """akpm's changelog: pdflush fills the queue with highmem pages; kswapd (before) writes little."""
    before = simulate(params_for("before c4e2d7dd"), _small(), seed=1, verbose=False)
    after = simulate(params_for("after c4e2d7dd"), _small(), seed=1, verbose=False)
    qb = before.queue()
    pd_high = qb[(qb["holder"] == "pdflush") & (qb["zone"] == "high")]["slots"].sum()
    assert pd_high > qb[qb["holder"] == "kswapd"]["slots"].sum()
    assert after.summary()["kswapd_writes"] > before.summary()["kswapd_writes"]
    assert before.summary()["kswapd_request_wait_s"] == 0  # before c4e2d7dd kswapd never blocks on the queue


def test_no_dirty_pages_keeps_efficiency_near_100():
    w = _small(dirty_pct=0.0)
    r = simulate(params_for("2.6.23"), w, seed=1, verbose=False)
    e = df_reclaim_2007(r.vmstat())
    assert int(e["scan"].iloc[-1]) > 1000
    assert e["ratio"].iloc[-1] >= 95
    assert r.summary()["pgpgout"] == 0


def test_efficiency_of_the_summary_is_fengguangs_loop():
    r = simulate(params_for("before c4e2d7dd"), _small(), seed=1, verbose=False)
    e = df_reclaim_2007(r.vmstat())
    s = r.summary()
    assert abs(s["reclaim_efficiency_pct"] - 100 * e["steal"].iloc[-1] / e["scan"].iloc[-1]) < 1.0
    assert set(["pgscan_kswapd_normal", "pgscan_direct_high", "pgsteal_dma", "kswapd_steal", "pgrotated",
                "nr_dirty", "nr_writeback"]) <= set(r.counters())


def test_x86_64_zones_are_named_as_the_kernel_names_them():
    w = desktop_light(machine_mb=64.0, duration_s=1.0)
    assert w.zone_names == ("dma", "dma32", "normal")
    r = simulate(params_for("2.6.23"), w, seed=1, verbose=False)
    assert "pgscan_kswapd_dma32" in r.vmstat().columns


def test_throttle_vm_writeout_only_waits_when_writeback_exceeds_the_limit():
    # a dirty limit below what the queue holds: reclaim must wait in throttle_vm_writeout()
    w = _small()
    lo = simulate(params_for("2.6.23", vm_dirty_ratio=5, nr_requests=512, max_sectors_kb=512), w, seed=1,
                  verbose=False)
    off = simulate(params_for("2.6.23", vm_dirty_ratio=5, nr_requests=512, max_sectors_kb=512,
                              throttle_vm_writeout=False), w, seed=1, verbose=False)
    assert lo.arrays["ac"][ACTOR.KSWAPD, AC.cw_count] > off.arrays["ac"][ACTOR.KSWAPD, AC.cw_count]


def test_thresholds_follow_blk_queue_congestion_threshold():
    assert congestion_thresholds(params_for("2.6.23")) == (113, 103)
    on, off = congestion_thresholds(params_for("2.6.23", nr_requests=4))
    assert on == 4 and off >= 1


def test_same_seed_same_run_and_variants_are_flag_sets():
    a = simulate(params_for("2.6.23"), _small(write_pct=20.0), seed=7, verbose=False)
    b = simulate(params_for("2.6.23"), _small(write_pct=20.0), seed=7, verbose=False)
    assert a.summary()["pgpgout"] > 0
    for k in a.arrays:
        assert np.array_equal(a.arrays[k], b.arrays[k]), k
    assert set(VARIANTS) >= {"before c4e2d7dd", "after c4e2d7dd", "2.6.23", "2.6.23 + nonblocking"}


@pytest.mark.parametrize("knob,value", [("nr_requests", 0), ("vm_dirty_ratio", 101), ("scan_page_ns", -1.0),
                                        ("kswapd_swapwrite", "yes"), ("max_sectors_kb", 1)])
def test_bad_knobs_raise_naming_the_knob(knob, value):
    with pytest.raises(WorkbookParameterError, match=knob):
        params_for("2.6.23", **{knob: value})


@pytest.mark.parametrize("knob,value", [("lowmem_mb", 1.0), ("arch", "sparc"), ("dirty_pct", 120.0)])
def test_bad_workload_knobs_raise_naming_the_knob(knob, value):
    with pytest.raises(WorkbookParameterError, match=knob):
        WritebackLoad(**{knob: value})


def test_bad_engine_and_variant_raise_by_name():
    with pytest.raises(WorkbookParameterError, match="engine"):
        simulate(params_for("2.6.23"), _small(), engine="reference", verbose=False)
    with pytest.raises(WorkbookParameterError, match="variant"):
        params_for("2.6.24")


def test_a_run_whose_thread_is_asked_to_stop_stops():
    """An explorer's run ahead that the person no longer needs stops at the next event (engine.stop_flag)."""
    from kernel_workbook.models.engine import RunStopped, stopping

    p, w = params_for("2.6.23"), _small()
    with pytest.raises(RunStopped):
        with stopping(np.ones(1, np.int64)):
            simulate(p, w, seed=1, verbose=False)
    assert simulate(p, w, seed=1, verbose=False).events > 0
