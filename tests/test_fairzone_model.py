"""The fair-zone allocator model: the python engine equals the compiled one, invariants, the kernel's arithmetic, bad knobs."""

import math

import numpy as np
import pandas as pd
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.models.fairzone import check_conservation, simulate, variant_params, zone_setup
from kernel_workbook.models.fairzone import (
    VARIANTS, AllocatorCosts, FairZoneParams, Machine, allocator_cost_ns, int_sqrt,
)
from kernel_workbook.heuristics.fairzone.pagecache import stream_read, stream_write, tiobench

TINY = Machine(name="tiny", ram_mb=32, dma_mb=0.5, dma32_mb=12.0, normal_mb=19.5, hole_mb=0.0, other_mb=1.0,
               writeback_mb_s=60.0)


def tiny_tiobench(size_fraction=2.0, **kw):
    return tiobench(ram_mb=32, size_fraction=size_fraction, threads=(1, 2), random_ops=20, **kw)


# --------------------------------------------------------------------------- python engine == jit

CASES = [(v, {}) for v in VARIANTS] + [
    ("3.0", {"kswapd_stays_awake": True}),
    ("fairzone", {"kswapd_stays_awake": True, "fair_depleted_test": "<=0"}),
    ("3.16-rc1", {"NR_ALLOC_BATCH": "custom", "nr_alloc_batch_pages": 7, "kswapd_balance_gap": False}),
] + [(v, {"pages_per_unit": 32}) for v in VARIANTS] + [  # the unit resolution: every path, in units
    ("3.16-rc1", {"pages_per_unit": 32, "vm_dirty_bytes": 1 << 20, "kswapd_pages_per_ms": 20.0}),
    ("3.0", {"pages_per_unit": 8, "kswapd_stays_awake": True}),
]


@pytest.mark.parametrize("variant,kw", CASES, ids=[f"{v}-{i}" for i, (v, _) in enumerate(CASES)])
def test_python_engine_equals_compiled(variant, kw):
    p = variant_params(variant, TINY, **kw)
    w = tiny_tiobench(other_jitter_mb=0.5)
    a = simulate(p, w, seed=3, trace=500, trace_start=100, sample_ms=50.0, verbose=False)
    b = simulate(p, w, seed=3, trace=500, trace_start=100, sample_ms=50.0, engine="python")
    for f in a.arrays.__dataclass_fields__:
        assert np.array_equal(getattr(a.arrays, f), getattr(b.arrays, f)), f
    assert a.counters["pgalloc"] > 0 and a.counters["pgscan_kswapd"] > 0  # the case reclaims


def test_deterministic_per_seed():
    p = variant_params("3.16-rc1", TINY)
    w = tiny_tiobench()
    a = simulate(p, w, seed=5, trace=300, verbose=False)
    b = simulate(p, w, seed=5, trace=300, verbose=False)
    c = simulate(p, w, seed=6, trace=300, verbose=False)
    assert np.array_equal(a.arrays.S, b.arrays.S) and np.array_equal(a.arrays.TR, b.arrays.TR)
    # another interleaving of the two threads (the first run has one thread: its trace is the same)
    assert not np.array_equal(a.arrays.PT, c.arrays.PT)


# --------------------------------------------------------------------------- invariants

UNITS = (1, 32)  # pages_per_unit: the page model, and the reproduction's resolution


@pytest.mark.parametrize("upp", UNITS)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_pages_are_conserved_at_every_step(variant, upp):
    """free + file LRU + other = managed in every zone, sampled every simulated microsecond (the clock
    moves at least a microsecond per page), and at the end."""
    r = simulate(variant_params(variant, TINY, pages_per_unit=upp), tiny_tiobench(), seed=1, sample_ms=0.001,
                 sample_cap=300_000, verbose=False)
    s = check_conservation(r)
    assert len(s) > 3 * 1000 and s["ok"].all()
    z = r.df_zones()
    assert ((z["free"] + z["nr_inactive_file"] + z["nr_active_file"]) + r.setup.other == z["managed"]).all()
    # and every cached page is on exactly one list of its zone (the arrays hold units of upp pages)
    a = r.arrays
    resident = a.PZ >= 0
    assert int(resident.sum()) * upp == int(z["nr_inactive_file"].sum() + z["nr_active_file"].sum())


@pytest.mark.parametrize("upp", UNITS)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_no_zone_below_min_on_the_fast_path(variant, upp):
    r = simulate(variant_params(variant, TINY, pages_per_unit=upp), tiny_tiobench(), seed=2, verbose=False)
    z = r.df_zones()
    assert (z["fastpath_below_min"] == 0).all()
    # the slow path allocates down to min (+ lowmem_reserve), never below; nothing needed ALLOC_NO_WATERMARKS
    used = z[z["pgalloc"] > 0]
    assert (used["free_min_slack"] >= 0).all()
    assert r.counters["oom"] == 0


def test_a_one_zone_node_allocates_everything_there():
    one = Machine(name="one", ram_mb=32, dma_mb=0.0, dma32_mb=0.0, normal_mb=31.0, hole_mb=1.0, other_mb=1.0)
    for v in ("3.16-rc1", "fairzone", "3.0"):
        r = simulate(variant_params(v, one), tiny_tiobench(), seed=1, verbose=False)
        vm = r.vmstat
        assert vm["pgalloc_normal"] == r.counters["pgalloc"] > 0
        assert vm["pgalloc_dma"] == vm["pgalloc_dma32"] == 0
    # patch 3/4: a node with one fair-eligible zone does not use the fair policy at all
    zs = zone_setup(variant_params("fairzone", one))
    assert zs.fair_enabled.sum() == 0
    r = simulate(variant_params("fairzone", one), stream_read(4000), seed=1, verbose=False)
    assert r.counters["batch_updates"] == 0 and r.counters["depleted_flag_reads"] == 0


def test_fair_spread_approaches_the_zone_size_ratio():
    m = Machine(name="roomy", ram_mb=64, dma_mb=0.0, dma32_mb=24.0, normal_mb=40.0, hole_mb=0.0, other_mb=0.0)
    ratio = 24.0 / 64.0
    # ample memory: a quarter of RAM read, no reclaim at all
    r = simulate(variant_params("3.16-rc1", m), stream_read(64 * 256 // 4), seed=1, verbose=False)
    assert r.counters["pgscan_kswapd"] == 0
    assert abs(r.spread()["DMA32 allocs %"] / 100 - ratio) < 0.01
    # without the fair policy the same read fills Normal first: far from the ratio
    r0 = simulate(variant_params("3.0", m), stream_read(64 * 256 // 4), seed=1, verbose=False)
    assert r0.spread()["DMA32 allocs %"] < 1.0
    # with reclaim going on (streaming twice the node), still the ratio under ALLOC_FAIR
    r2 = simulate(variant_params("3.16-rc1", m), stream_read(2 * 64 * 256), seed=1, verbose=False)
    assert r2.counters["pgscan_kswapd"] > 0
    assert abs(r2.spread()["DMA32 allocs %"] / 100 - ratio) < 0.015
    # and the pages of both zones age alike
    z = r2.df_zones().set_index("zone")
    assert z.loc["DMA32", "age_at_eviction_s"] == pytest.approx(z.loc["Normal", "age_at_eviction_s"], rel=0.1)


# --------------------------------------------------------------------------- the kernel's arithmetic

def test_watermarks_reserves_and_batches_as_the_kernel_computes_them():
    m = Machine(name="eight", ram_mb=8192, dma_mb=15.5, dma32_mb=3000.0, hole_mb=200.0)
    p = variant_params("3.16-rc1", m)
    zs = zone_setup(p)
    managed = [int(round(mb * 256)) for mb in m.managed_mb]
    formula = int_sqrt(sum(managed) * 4 * 16)  # init_per_zone_wmark_min()
    assert 11000 < formula < 12000
    assert zone_setup(variant_params("3.16-rc1", m, transparent_hugepage="never")).min_free_kbytes == formula
    # with THP built (the default), set_recommended_min_free_kbytes() raises it: three populated zones, 512-page
    # pageblocks, 2 + MIGRATE_PCPTYPES^2 of them a zone
    mfk = (512 * 3 * 2 + 512 * 3 * 3 * 3) * 4
    assert zs.min_free_kbytes == mfk == 67584
    assert zone_setup(variant_params("3.16-rc1", m, transparent_hugepage="madvise")).min_free_kbytes == mfk
    # capped at 5% of lowmem: a 512 MB node keeps the formula's larger share out of reach
    small = Machine(name="small", ram_mb=512, dma_mb=15.5, dma32_mb=480.0, normal_mb=0.0, hole_mb=16.5, other_mb=50)
    assert zone_setup(variant_params("3.16-rc1", small)).min_free_kbytes == (int(495.5 * 256) // 20) * 4
    pages_min = mfk >> 2
    for z in range(3):
        tmp = pages_min * managed[z] // sum(managed)
        assert zs.wmark_min[z] == tmp
        assert zs.wmark_low[z] == tmp + tmp // 4
        assert zs.wmark_high[z] == tmp + tmp // 2
        assert zs.balance_gap[z] == min(zs.wmark_low[z], math.ceil(managed[z] / 100))
    # lowmem_reserve: DMA32 keeps Normal/256 from Normal allocations, DMA keeps (DMA32 + Normal)/256
    assert zs.lowmem_reserve[1, 2] == managed[2] // 256
    assert zs.lowmem_reserve[0, 2] == (managed[2] + managed[1]) // 256
    assert zs.lowmem_reserve[0, 1] == managed[1] // 256
    assert zs.lowmem_reserve[2, 2] == zs.lowmem_reserve[1, 1] == 0
    # NR_ALLOC_BATCH: high - low in 3.16-rc1, managed_pages >> 2 in patch 3/4
    assert list(zs.batch) == [zs.wmark_high[z] - zs.wmark_low[z] for z in range(3)]
    zf = zone_setup(variant_params("fairzone", m))
    assert list(zf.batch) == [managed[z] >> 2 for z in range(3)]
    # patch 3/4's zoneref rule: a DMA zone under node_present_pages >> 4 is not fair-eligible
    assert list(zf.fair_enabled) == [0, 1, 1]
    assert list(zone_setup(variant_params("fairzone", m, fair_enabled_dma_shift=12)).fair_enabled) == [1, 1, 1]
    # min_free_kbytes as a knob moves every watermark
    z2 = zone_setup(variant_params("3.16-rc1", m, min_free_kbytes=2 * mfk))
    assert (z2.wmark_min >= 2 * zs.wmark_min - 1).all()
    # the zonelist is node order, highest zone first
    assert list(zs.zonelist) == [2, 1, 0]


def test_the_variants_are_flag_sets():
    v = {k: variant_params(k) for k in VARIANTS}
    assert not v["3.0"].ALLOC_FAIR and v["3.0"].zone_dirty_ok == "off" and v["3.0"].kswapd_wake_at == "low"
    assert v["3.16-rc1"].ALLOC_FAIR and v["3.16-rc1"].NR_ALLOC_BATCH == "high-low"
    assert v["fairzone"].ZONE_FAIR_DEPLETED and v["fairzone"].NR_ALLOC_BATCH == "managed>>shift"
    assert v["fairzone"].nr_alloc_batch_shift == 2 and v["fairzone"].fair_depleted_test == "==0"
    assert v["lessdirty"].zone_dirty_ok == "cached" and v["lessdirty"].ZONE_FAIR_DEPLETED
    assert not v["bigbatches"].ZONE_FAIR_DEPLETED and v["bigbatches"].NR_ALLOC_BATCH == "managed>>shift"
    assert v["bigbatches1node"].remote_spill_pass is False and v["bigbatches"].remote_spill_pass is True


def test_batches_reset_as_each_version_resets_them():
    """3.16-rc1 resets every time the small batches run out; patch 3/4 rarely, and flags depleted zones."""
    m = Machine(name="roomy", ram_mb=256, dma_mb=0.0, dma32_mb=96.0, normal_mb=160.0, hole_mb=0.0, other_mb=0.0)
    n = 256 * 100  # 100 MB: no reclaim
    van = simulate(variant_params("3.16-rc1", m), stream_read(n), seed=1, trace=n, verbose=False)
    fz = simulate(variant_params("fairzone", m), stream_read(n), seed=1, trace=n, verbose=False)
    zs = van.setup
    per_cycle = int(zs.batch[1] + zs.batch[2])  # one fair round: both batches spent
    assert van.counters["batch_resets"] == pytest.approx(n / per_cycle, rel=0.05)
    assert fz.counters["batch_resets"] <= 2
    # the fast path's work: vanilla rescans the zonelist after every failed fair pass
    wv = van.df_work().set_index("counter")["per_allocation"]
    wf = fz.df_work().set_index("counter")["per_allocation"]
    assert wv["zonelist_scanned"] > wf["zonelist_scanned"]
    assert wv["batch_reads"] > 0 and wf["batch_reads"] == 0 and wf["depleted_flag_reads"] > 0
    # the trace: the batch counts fall one page at a time and jump back at a reset
    t = van.df_trace()
    d = np.diff(t["nr_alloc_batch_normal"].to_numpy())
    assert set(np.unique(d[~t["reset"].to_numpy()[1:]])) <= {-1, 0}
    assert t["reset"].sum() == pytest.approx(van.counters["batch_resets"], abs=1)
    # patch 3/4 sets ZONE_FAIR_DEPLETED when a batch reaches 0
    tf = fz.df_trace()
    assert tf["depleted_dma32"].any() or tf["depleted_normal"].any()


def test_writes_spread_dirty_pages_and_writeback_cleans_them():
    m = Machine(name="w", ram_mb=64, dma_mb=0.0, dma32_mb=24.0, normal_mb=40.0, hole_mb=0.0, other_mb=0.0,
                writeback_mb_s=50.0)
    w = stream_write(64 * 256)
    each = simulate(variant_params("3.16-rc1", m), w, seed=1, verbose=False)
    cached = simulate(variant_params("lessdirty", m), w, seed=1, verbose=False)
    off = simulate(variant_params("3.0", m), w, seed=1, verbose=False)
    for r in (each, cached, off):
        c = r.counters
        assert c["nr_dirtied"] == 64 * 256 and c["nr_written"] > 0
        assert c["write_throttles"] > 0 and c["dirty_throttle_ns"] > 0  # balance_dirty_pages() paused the writer
    assert off.counters["dirty_checks"] == 0
    assert each.counters["dirty_limit_calcs"] == each.counters["dirty_checks"] > 0
    # patch 4/4: the limit is recomputed only when a zone fails the cached one
    assert 0 < cached.counters["dirty_limit_calcs"] < cached.counters["dirty_checks"]


def test_vm_dirty_bytes_replaces_the_ratio_as_the_kernel_does():
    """global_dirty_limits(): with vm_dirty_bytes set, writers are held to that many pages, whatever the ratio;
    zone_dirty_limit() shares it out by each zone's dirtyable memory."""
    m = Machine(name="w", ram_mb=64, dma_mb=0.0, dma32_mb=24.0, normal_mb=40.0, hole_mb=0.0, other_mb=0.0,
                writeback_mb_s=50.0)
    w = stream_write(64 * 256)
    ratio = simulate(variant_params("3.16-rc1", m), w, seed=1, verbose=False)
    same = simulate(variant_params("3.16-rc1", m, vm_dirty_bytes=0), w, seed=1, verbose=False)
    assert np.array_equal(ratio.arrays.S, same.arrays.S)  # 0 leaves the ratio in charge
    small = simulate(variant_params("3.16-rc1", m, vm_dirty_bytes=1 << 20), w, seed=1, verbose=False)  # 256 pages
    assert small.counters["dirty_throttle_ns"] > 2 * ratio.counters["dirty_throttle_ns"]
    assert small.df_samples()["nr_dirty"].max() <= 256 + 32  # the limit, plus one ratelimit's worth of pages
    big = simulate(variant_params("3.16-rc1", m, vm_dirty_bytes=1 << 40, vm_dirty_ratio=1), w, seed=1, verbose=False)
    assert big.counters["write_throttles"] == 0  # the bytes override the 1% ratio


def test_the_kswapd_assumption_decides_the_unfairness():
    """With kswapd napping every kernel is fair once memory is full; if kswapd stays awake, 3.0 leaves DMA32 alone."""
    m = Machine(name="m", ram_mb=128, dma_mb=0.0, dma32_mb=48.0, normal_mb=80.0, hole_mb=0.0, other_mb=4.0)
    w = stream_read(4 * 128 * 256)
    nap = simulate(variant_params("3.0", m), w, seed=1, verbose=False).spread()["DMA32 allocs %"]
    awake = simulate(variant_params("3.0", m, kswapd_stays_awake=True), w, seed=1, verbose=False).spread()
    fair = simulate(variant_params("3.16-rc1", m, kswapd_stays_awake=True), w, seed=1, verbose=False).spread()
    assert abs(nap - 37.5) < 3.0
    assert awake["DMA32 allocs %"] < 20.0
    assert abs(fair["DMA32 allocs %"] - 37.5) < 1.5


def test_allocator_cost_is_counted_work_times_price():
    r = simulate(variant_params("3.16-rc1", TINY), stream_read(3000), seed=1, verbose=False)
    c = r.counters
    costs = AllocatorCosts()
    ns = allocator_cost_ns(c, costs)
    manual = (c["get_page_from_freelist"] * costs.get_page_from_freelist_ns
              + c["zonelist_scanned"] * costs.zonelist_entry_ns + c["watermark_checks"] * costs.watermark_check_ns
              + c["batch_reads"] * costs.batch_read_ns + c["batch_updates"] * costs.batch_update_ns
              + c["batch_reset_zones"] * costs.batch_reset_zone_ns + c["slowpath"] * costs.slowpath_ns
              + c["kswapd_wakeups"] * costs.kswapd_wakeup_ns) / c["pgalloc"]
    assert ns == pytest.approx(manual)
    more = allocator_cost_ns(c, AllocatorCosts(zone_switch_ns=1000.0))
    assert more == pytest.approx(ns + 1000.0 * c["zone_switches"] / c["pgalloc"])


# --------------------------------------------------------------------------- bad knobs

@pytest.mark.parametrize("kw,name", [
    ({"dma32_mb": 9000.0}, "dma32_mb"),  # a zone bigger than the 8 GB node
    ({"normal_mb": 9000.0}, "normal_mb"),
    ({"dma_mb": -1.0}, "dma_mb"),
    ({"normal_mb": -5.0}, "normal_mb"),
    ({"dma32_mb": 8100.0, "normal_mb": 1000.0}, "dma32_mb"),  # zones summing to more than the node
    ({"other_mb": 9000.0}, "other_mb"),
    ({"ram_mb": 0}, "ram_mb"),
    ({"kswapd_pages_per_ms": 0.0}, "kswapd_pages_per_ms"),
    ({"NR_ALLOC_BATCH": "half"}, "NR_ALLOC_BATCH"),
    ({"nr_alloc_batch_shift": -1}, "nr_alloc_batch_shift"),
    ({"min_free_kbytes": 10}, "min_free_kbytes"),
    ({"zone_dirty_ok": "sometimes"}, "zone_dirty_ok"),
    ({"lowmem_reserve_ratio": (256, 0, 32)}, "lowmem_reserve_ratio"),
    ({"vm_dirty_ratio": 0}, "vm_dirty_ratio"),
])
def test_bad_parameters_are_named(kw, name):
    with pytest.raises(WorkbookParameterError) as e:
        simulate(variant_params("3.16-rc1", "desktop-2014", **kw), stream_read(10), verbose=False)
    assert e.value.name == name


def test_unknown_variant_machine_and_workload_knobs_are_named():
    for call, name in [
        (lambda: variant_params("3.17"), "variant"),
        (lambda: variant_params("3.0", "cray"), "machine"),
        (lambda: tiobench(threads=(0,)), "threads"),
        (lambda: tiobench(size_fraction=0), "size_fraction"),
        (lambda: tiobench(read_mb_s={1: 100.0}, threads=(1, 2)), "read_mb_s"),
        (lambda: stream_read(0), "pages"),
        (lambda: simulate(variant_params(), stream_read(10), engine="fast"), "engine"),
        (lambda: simulate(FairZoneParams(machine="big"), stream_read(10)), "machine"),
        (lambda: simulate(variant_params(), "tiobench"), "workload"),
    ]:
        with pytest.raises(WorkbookParameterError) as e:
            call()
        assert e.value.name == name, name


def test_lean_result_reports_the_same_and_holds_no_page_arrays():
    """lean() drops what grows with memory (the reproduction caches lean results) and changes no figure."""
    from kernel_workbook.models.fairzone import simulate, variant_params
    from kernel_workbook.heuristics.fairzone.pagecache import tiobench

    p = variant_params("fairzone", "small-2g")
    r = simulate(p, tiobench(size_fraction=0.5, threads=(2,)), seed=3)
    lean = r.lean()
    assert lean.counters == r.counters
    assert lean.vmstat == r.vmstat
    pd.testing.assert_frame_equal(lean.df_zones(), r.df_zones())
    big = sum(getattr(r.arrays, k).nbytes for k in r.PER_PAGE)
    assert big > 0 and sum(getattr(lean.arrays, k).nbytes for k in r.PER_PAGE) == 0
    assert all(getattr(lean.arrays, k).base is None for k in r.PER_PAGE)  # no view keeps the old buffer alive


# --------------------------------------------------------------------------- get_scan_count(): per-list scan sizes

def test_kswapd_scans_the_inactive_list_by_its_own_size_not_the_whole_lru():
    """mm/vmscan.c get_scan_count() (3.0 - 3.16): each LRU list is scanned ``its size >> priority``; the active
    file list is only deactivated while inactive_file_is_low() and reclaims nothing itself (shrink_list()).
    A zone holding 4096 active and 1024 inactive clean pages, at priority 2, scans 1024 >> 2 = 256 inactive
    pages (the model used to scan (4096 + 1024) >> 2 = 1280, after deactivating as many)."""
    from kernel_workbook.models.fairzone import allocator_kernel as K
    from kernel_workbook.models.fairzone.layout import LRU, PG, ZF, ZONE
    from kernel_workbook.models.fairzone.simulate import build_arrays

    a, _ = build_arrays(variant_params("3.0", TINY), tiny_tiobench(), seed=1)
    z = ZONE.DMA32
    n_act, n_in = 4096, 1024
    assert a.PZ.shape[0] >= n_act + n_in
    for pid in range(n_act + n_in):
        a.PZ[pid] = z
        if pid < n_act:
            a.PFL[pid] = PG.active
            K.lru_add(a.Z, a.PPREV, a.PNEXT, z, LRU.active, pid)
        else:
            a.PFL[pid] = PG.referenced
            K.lru_add(a.Z, a.PPREV, a.PNEXT, z, LRU.inactive, pid)
    scanned, reclaimed, waits = K.shrink_zone_prio(a.Z, a.S, a.P, a.PZ, a.PFL, a.PPREV, a.PNEXT, a.PT, a.KQ, z, 2,
                                                   True, K.BIG, 0)
    assert scanned == n_in >> 2 and reclaimed == n_in >> 2 and waits == 0
    # active > inactive throughout: every active chunk of (4096 >> 2) pages was deactivated
    assert int(a.Z[z, ZF.pgdeactivate]) == n_act >> 2
    assert int(a.Z[z, ZF.nr_active]) == n_act - (n_act >> 2)
    assert int(a.Z[z, ZF.pgscan_kswapd]) == n_in >> 2


def _tail_of_dirty_pages(variant, n, referenced):
    """A TINY node whose DMA32 inactive list holds ``n`` dirty pages (PG_referenced or not)."""
    from kernel_workbook.models.fairzone import allocator_kernel as K
    from kernel_workbook.models.fairzone.layout import LRU, PG, ZONE
    from kernel_workbook.models.fairzone.simulate import build_arrays

    a, _ = build_arrays(variant_params(variant, TINY), tiny_tiobench(), seed=1)
    z = ZONE.DMA32
    for pid in range(n):
        a.PZ[pid] = z
        a.PFL[pid] = PG.referenced if referenced else 0
        K.lru_add(a.Z, a.PPREV, a.PNEXT, z, LRU.inactive, pid)
        K.set_page_dirty(a.Z, a.S, a.PFL, a.DQ, a.DQT, z, pid, 0)
    return a, z


@pytest.mark.parametrize("variant", ["3.0", "3.16-rc1"])
def test_dirty_pages_at_the_inactive_tail_as_each_kernels_shrink_page_list_treats_them(variant):
    """mm/vmscan.c shrink_page_list(): 3.0 reclaim writes an unreferenced dirty page itself (pageout(): PG_reclaim,
    under writeback at once) and keeps a referenced one after clearing PG_referenced; 3.16 marks it PG_reclaim
    (NR_VMSCAN_IMMEDIATE) and leaves it to the flusher, unless kswapd finds the zone's tail all dirty and
    unqueued (ZONE_TAIL_LRU_DIRTY), and then writes the unreferenced ones."""
    from kernel_workbook.models.fairzone import allocator_kernel as K
    from kernel_workbook.models.fairzone.layout import PG, ST, ZF

    n = 64
    a, z = _tail_of_dirty_pages(variant, n, referenced=False)
    sc, rc, imm = K.shrink_inactive(a.Z, a.S, a.P, a.PZ, a.PFL, a.PPREV, a.PNEXT, a.PT, a.KQ, z, n, True, 0)
    assert sc == n and rc == 0 and imm == 0 and int(a.Z[z, ZF.nr_inactive]) == n  # all back on the list
    flags = a.PFL[:n]
    if variant == "3.0":
        assert int(a.S[ST.nr_vmscan_write]) == n and int(a.S[ST.nr_writeback]) == n
        assert ((flags & PG.writeback) != 0).all() and ((flags & PG.reclaim) != 0).all()
        assert int(a.S[ST.kq_tail]) == n
    else:
        assert int(a.S[ST.nr_vmscan_write]) == 0 and int(a.S[ST.nr_vmscan_immediate_reclaim]) == n
        assert ((flags & PG.dirty) != 0).all() and ((flags & PG.reclaim) != 0).all()
        assert int(a.Z[z, ZF.zone_tail_dirty]) == 1  # a batch of nothing but unqueued dirty pages
        K.shrink_inactive(a.Z, a.S, a.P, a.PZ, a.PFL, a.PPREV, a.PNEXT, a.PT, a.KQ, z, n, True, 0)
        assert int(a.S[ST.nr_vmscan_write]) == n  # now kswapd writes them
    # a referenced dirty page is kept, its reference cleared, in both
    a, z = _tail_of_dirty_pages(variant, n, referenced=True)
    a.Z[z, ZF.zone_tail_dirty] = 1
    K.shrink_inactive(a.Z, a.S, a.P, a.PZ, a.PFL, a.PPREV, a.PNEXT, a.PT, a.KQ, z, n, True, 0)
    assert int(a.S[ST.nr_vmscan_write]) == 0 and ((a.PFL[:n] & PG.referenced) == 0).all()
    # the device completes reclaim's writes and rotates them to the tail, reclaimable next
    a, z = _tail_of_dirty_pages("3.0", n, referenced=False)
    K.shrink_inactive(a.Z, a.S, a.P, a.PZ, a.PFL, a.PPREV, a.PNEXT, a.PT, a.KQ, z, n, True, 0)
    K.writeback_advance(a.Z, a.S, a.P, a.F, a.PZ, a.PFL, a.PPREV, a.PNEXT, a.DQ, a.DQT, a.KQ, 10 ** 10)
    assert int(a.S[ST.nr_writeback]) == 0 and int(a.S[ST.nr_written]) == n
    assert ((a.PFL[:n] & (PG.writeback | PG.reclaim | PG.pageout | PG.dirty)) == 0).all()
    sc, rc, _ = K.shrink_inactive(a.Z, a.S, a.P, a.PZ, a.PFL, a.PPREV, a.PNEXT, a.PT, a.KQ, z, n, True, 0)
    assert rc == n


def test_kswapd_shrink_zone_reclaims_up_to_the_high_watermark_in_3_16_and_everything_in_3_0():
    """3.16 kswapd_shrink_zone(): sc->nr_to_reclaim = max(SWAP_CLUSTER_MAX, high); shrink_lruvec() stops after the
    round of chunks that reaches it.  3.0 balance_pgdat(): .nr_to_reclaim = ULONG_MAX, the whole lru >> priority."""
    from kernel_workbook.models.fairzone import allocator_kernel as K
    from kernel_workbook.models.fairzone.layout import LRU, ZONE
    from kernel_workbook.models.fairzone.simulate import build_arrays

    a, _ = build_arrays(variant_params("3.16-rc1", TINY), tiny_tiobench(), seed=1)
    z = ZONE.DMA32
    for pid in range(4096):
        a.PZ[pid] = z
        K.lru_add(a.Z, a.PPREV, a.PNEXT, z, LRU.inactive, pid)
    sc, rc, _ = K.shrink_zone_prio(a.Z, a.S, a.P, a.PZ, a.PFL, a.PPREV, a.PNEXT, a.PT, a.KQ, z, 0, True, 100, 0)
    assert rc == 128  # four 32-page chunks: the first round to reach 100
    sc, rc, _ = K.shrink_zone_prio(a.Z, a.S, a.P, a.PZ, a.PFL, a.PPREV, a.PNEXT, a.PT, a.KQ, z, 4, True, K.BIG, 0)
    assert rc == (4096 - 128) >> 4


def test_kswapd_naps_or_stays_awake_by_the_nodes_state_when_balance_pgdat_returns():
    """kswapd_try_to_sleep() looks at the node when balance_pgdat() returns, each zone against its high watermark
    with no lowmem reserve (3.0 sleeping_prematurely(), 3.16 prepare_kswapd_sleep()): a nap, or
    KSWAPD_HIGH_WMARK_HIT_QUICKLY and balancing again at once.  3.0's balance_pgdat() itself stops only when
    DMA32 is above high + lowmem_reserve[Normal]; its nap check does not ask that."""
    from kernel_workbook.models.fairzone import allocator_kernel as K
    from kernel_workbook.models.fairzone.layout import KS, LRU, ST, ZF, ZONE
    from kernel_workbook.models.fairzone.simulate import build_arrays

    for variant in ("3.0", "3.16-rc1"):
        a, _ = build_arrays(variant_params(variant, TINY), tiny_tiobench(), seed=1)
        d, n = ZONE.DMA32, ZONE.Normal
        for pid, z in enumerate([d] * 64 + [n] * 64):  # a few pages on each LRU: every zone reclaimable
            a.PZ[pid] = z
            K.lru_add(a.Z, a.PPREV, a.PNEXT, z, LRU.inactive, pid)
        a.Z[d, ZF.free] = a.Z[d, ZF.whigh] + 1  # above high, below high + lowmem_reserve[Normal]
        a.Z[n, ZF.free] = a.Z[n, ZF.whigh] + 1
        a.S[ST.ks_state] = KS.run
        a.S[ST.ks_end_zone] = n
        a.S[ST.ks_done] = 1
        a.S[ST.ks_busy] = 0
        K.kswapd_advance(a.Z, a.LR, a.S, a.P, a.F, a.PZ, a.PFL, a.PPREV, a.PNEXT, a.PT, a.KQ, 0)
        assert int(a.S[ST.ks_state]) == KS.nap, variant  # no reserve in the nap check
        a.Z[n, ZF.free] = a.Z[n, ZF.whigh]  # an allocation took Normal to high meanwhile
        a.S[ST.ks_state] = KS.run
        a.S[ST.ks_done] = 1
        a.S[ST.ks_busy] = 0
        runs = int(a.S[ST.pageoutrun])
        hq = int(a.S[ST.kswapd_high_wmark_hit_quickly])
        K.kswapd_advance(a.Z, a.LR, a.S, a.P, a.F, a.PZ, a.PFL, a.PPREV, a.PNEXT, a.PT, a.KQ, 0)
        assert int(a.S[ST.kswapd_high_wmark_hit_quickly]) == hq + 1 and int(a.S[ST.pageoutrun]) == runs + 1


def test_the_kernels_compile_without_reference_counting():
    """engine.kernel_no_nrt: nothing in the allocator loop allocates an array, and the reference counts of the
    twenty arrays handed to every call were a third of the 2014 reproduction's run at 32 pages per unit (the
    borrowed() views it used before made them no-ops but kept the calls).  The plain decorators would bring
    them back without changing a result, so only this test would notice."""
    from numba.core.registry import CPUDispatcher

    from kernel_workbook.models.fairzone import KERNEL

    assert KERNEL.function("jit").targetoptions.get("_nrt") is False
    mod = KERNEL.module("allocator_kernel", "jit")
    fns = [f for f in vars(mod).values() if isinstance(f, CPUDispatcher)]
    assert len(fns) > 20
    for f in fns:
        assert f.targetoptions.get("_nrt") is False, f.__name__
    for name in ("access_page", "alloc_page", "background"):
        assert getattr(mod, name).targetoptions.get("inline") == "always", name
