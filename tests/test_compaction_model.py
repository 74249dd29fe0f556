"""The compaction model: one source compiled or as Python, the zone's invariants, compaction, bad knobs."""

from __future__ import annotations

import numpy as np
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.models.compaction import (CACHE_CHOICES, KERNELS, VARIANTS, CompactionParams, StressHighalloc,
                                               df_fragmentation, fragmentation_index, params_for, simulate,
                                               unusable_free_index)
from kernel_workbook.models.compaction.layout import (AC, ACTOR, AUDIT, COMPACT, KIND, MAX_ORDER, MT,
                                                      PAGEBLOCK_NR_PAGES, PG, Z)
from kernel_workbook.models.compaction.simulate import arrays
from kernel_workbook.traces import load, parse_pagetypeinfo
from kernel_workbook.heuristics.compaction.stress_highalloc import small

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _py(name):
    return KERNELS.module(name, "python")


# --------------------------------------------------------------------------- one engine, the zone audited


@pytest.mark.parametrize("variant", ["revert-v5", "capture-v5", "3.3.6"])
def test_jit_equals_python_and_the_zone_stays_sound_after_every_tick(variant):
    w = small(zone_mb=16, machine_mb=128, warmup_s=3, highalloc_percentage=60)
    runs = [simulate(params_for(variant), w, seed=5, engine=e, audit=True, verbose=False) for e in ("jit", "python")]
    for r in runs:
        assert r.audit() == ("AUDIT_OK", 0), r.audit()
        assert r.ticks > 100 and len(r.attempts()) == 3 * r.derived["test_count"]
    for k in runs[0].arrays:
        assert np.array_equal(runs[0].arrays[k], runs[1].arrays[k]), k
    assert runs[0].counters(False)["compact_stall"] > 0  # compaction ran in this case


def test_the_audit_catches_a_broken_zone():
    """The audit can fail: a free block the index misses, an unmerged pair of buddies, a page counted twice."""
    H, Zk = _py("highalloc_kernel"), _py("zone_kernel")
    w = small(zone_mb=8, machine_mb=64)
    a = arrays(params_for("contended-v5"), w, seed=1, audit=True)
    H.init_zone(a["pg"], a["fl"], a["nf"], a["pb"], a["z"], a["pi"])

    def audit():
        return H.audit_zone(a["pg"], a["fl"], a["nf"], a["pb"], a["lh"], a["z"], a["pi"], a["ac"], a["cm"])

    assert audit() == AUDIT.AUDIT_OK
    # the index of free block heads (what the free scanner reads) loses a head the page table has
    from kernel_workbook.models.compaction.layout import HEAD_BITS, NF_HEADS

    head = a["fl"][Zk.fl_idx(MT.MIGRATE_MOVABLE, MAX_ORDER - 1)]
    a["nf"][NF_HEADS + head // HEAD_BITS] ^= 1 << (head % HEAD_BITS)
    assert audit() == AUDIT.AUDIT_HEADS
    a["nf"][NF_HEADS + head // HEAD_BITS] ^= 1 << (head % HEAD_BITS)
    assert audit() == AUDIT.AUDIT_OK
    # split an order-10 block into two order-9 buddies, both listed: they should have merged
    top = a["fl"][Zk.fl_idx(MT.MIGRATE_MOVABLE, MAX_ORDER - 1)]
    Zk.fl_del(a["pg"], a["fl"], a["nf"], top)
    Zk.fl_add(a["pg"], a["fl"], a["nf"], top, MAX_ORDER - 2, MT.MIGRATE_MOVABLE, False)
    Zk.fl_add(a["pg"], a["fl"], a["nf"], top + PAGEBLOCK_NR_PAGES, MAX_ORDER - 2, MT.MIGRATE_MOVABLE, False)
    assert audit() == AUDIT.AUDIT_UNMERGED
    a["z"][Z.nr_free] += 1
    assert audit() == AUDIT.AUDIT_CONSERVATION


# --------------------------------------------------------------------------- the buddy allocator


def _zone(zone_mb=8, variant="contended-v5"):
    H = _py("highalloc_kernel")
    a = arrays(params_for(variant), small(zone_mb=zone_mb, machine_mb=max(64, 4 * zone_mb)), seed=1, audit=True)
    H.init_zone(a["pg"], a["fl"], a["nf"], a["pb"], a["z"], a["pi"])
    return a


def _alloc(a, order, mt, kind=KIND.FILE):
    Zk, Pk = _py("zone_kernel"), _py("pages_kernel")
    pfn = Zk.get_page_from_freelist(a["pg"], a["fl"], a["nf"], a["pb"], a["z"], a["vm"], a["pi"], order, mt, 0)
    if pfn >= 0:
        Pk.page_new(a["pg"], a["lh"], a["oh"], a["z"], pfn, order, kind, -1, 0, 0)
    return pfn


def _release(a, pfn):
    _py("pages_kernel").page_release(a["pg"], a["fl"], a["nf"], a["pb"], a["lh"], a["oh"], a["z"], a["vm"], a["pi"],
                                     pfn)


def test_free_one_page_merges_buddies_back_into_the_block():
    a = _zone()
    Zk = _py("zone_kernel")
    before = [Zk.nr_free_order(a["nf"], o) for o in range(MAX_ORDER)]
    pfns = [_alloc(a, 0, MT.MIGRATE_MOVABLE) for _ in range(8)]
    assert pfns == sorted(pfns) and all(p % 1 == 0 for p in pfns)
    for p in pfns:
        _release(a, p)
    assert [Zk.nr_free_order(a["nf"], o) for o in range(MAX_ORDER)] == before
    assert a["z"][Z.nr_free] == sum(n << o for o, n in enumerate(before))


def test_fallback_steals_the_largest_block_and_claims_its_pageblock():
    a = _zone(16)
    pfn = _alloc(a, 0, MT.MIGRATE_UNMOVABLE, KIND.UNMOVABLE)
    block = pfn // PAGEBLOCK_NR_PAGES
    # an order-10 block was split: the whole pageblock (more than half free) became UNMOVABLE
    assert a["pb"][block] == MT.MIGRATE_UNMOVABLE
    assert a["vm"][_py("zone_kernel").VM.extfrag_fallbacks] == 1
    # the next unmovable page comes from the same pageblock, no new fallback
    pfn2 = _alloc(a, 0, MT.MIGRATE_UNMOVABLE, KIND.UNMOVABLE)
    assert pfn2 // PAGEBLOCK_NR_PAGES == block and a["vm"][_py("zone_kernel").VM.extfrag_fallbacks] == 1


def test_watermark_check_takes_away_the_pages_of_lower_orders():
    a = _zone()
    Zk = _py("zone_kernel")
    nf, z = a["nf"], a["z"]
    assert Zk.zone_watermark_ok(nf, z, 9, 100)
    # leave only order-0 pages free: plenty of free memory, no order-9 block
    while Zk.nr_free_order(nf, 9) + Zk.nr_free_order(nf, 10) > 0:
        _alloc(a, 0, MT.MIGRATE_MOVABLE)
    assert z[Z.nr_free] > 0 and not Zk.zone_watermark_ok(nf, z, 9, 0)


def test_fragmentation_indices_are_the_kernel_formulas():
    counts = [10, 4, 0, 2, 0, 0, 0, 0, 0, 0, 0]  # 10 + 8 + 16 = 34 free pages, no order-9 block
    assert unusable_free_index(counts, 9) == 1.0
    assert unusable_free_index(counts, 0) == 0.0
    assert fragmentation_index(counts, 9) == (1000 - (1000 + 34 * 1000 // 512) // 16) / 1000
    nf = np.zeros(4 * MAX_ORDER, np.int64)
    for o, c in enumerate(counts):
        nf[MT.MIGRATE_MOVABLE * MAX_ORDER + o] = c
    assert _py("zone_kernel").fragmentation_index(nf, 9) / 1000 == fragmentation_index(counts, 9)
    assert fragmentation_index([0] * 9 + [1, 0], 9) == -1.0


# --------------------------------------------------------------------------- compaction


def _scattered_movable_zone(zone_mb=16):
    """Every page page cache, then every other one freed: half the zone free, no free block above order 0."""
    a = _zone(zone_mb)
    n = a["pi"][_py("zone_kernel").I.nr_pages]
    while _alloc(a, 0, MT.MIGRATE_MOVABLE) >= 0:
        pass
    for p in range(0, n, 2):
        if a["pg"][p, PG.kind] == KIND.FILE:
            _release(a, p)
    return a


def _compact(a, order, sync, cache="fixed"):
    C = _py("compaction_kernel")
    t = ACTOR.TEST
    a["pi"][_py("zone_kernel").I.compact_cached_free_pfn] = CACHE_CHOICES.index(cache)
    ret = C.compact_zone_begin(a["nf"], a["z"], a["pi"], a["ac"], t, order, MT.MIGRATE_MOVABLE, sync)
    steps = 0
    while ret == COMPACT.COMPACT_CONTINUE:
        a["ac"][AC.budget_ns, t] = 1 << 40
        ret = C.compact_zone_step(a["pg"], a["fl"], a["nf"], a["pb"], a["lh"], a["oh"], a["z"], a["vm"], a["pi"],
                                  a["pf"], a["ac"], a["cm"], a["cf"], t, True)
        # the scanners never cross: the migrate scanner stops within a pageblock of the free scanner
        assert a["ac"][AC.migrate_pfn, t] <= a["ac"][AC.free_pfn, t] + PAGEBLOCK_NR_PAGES
        steps += 1
        assert steps < 100000
    C.compact_zone_end(a["pg"], a["fl"], a["nf"], a["pb"], a["lh"], a["z"], a["vm"], a["pi"], a["ac"], a["cm"],
                       a["cf"], t)
    return ret


def test_a_fully_movable_zone_compacts_to_a_free_huge_page_when_asked():
    a = _scattered_movable_zone()
    Zk, H = _py("zone_kernel"), _py("highalloc_kernel")
    assert Zk.nr_free_order(a["nf"], 9) + Zk.nr_free_order(a["nf"], 10) == 0
    ret = _compact(a, 9, sync=1)
    assert ret == COMPACT.COMPACT_PARTIAL  # compact_finished(): a suitable page is free
    assert Zk.nr_free_order(a["nf"], 9) + Zk.nr_free_order(a["nf"], 10) >= 1
    assert a["vm"][Zk.VM.compact_pages_moved] > 0
    assert H.audit_zone(a["pg"], a["fl"], a["nf"], a["pb"], a["lh"], a["z"], a["pi"], a["ac"], a["cm"]) == 0


def test_a_full_compaction_gathers_the_free_pages_at_the_bottom():
    a = _scattered_movable_zone()
    # order -1 (/proc/sys/vm/compact_memory) runs until the scanners meet, or the free scanner finds no more
    # free pages just before they do (-ENOMEM from migrate_pages: COMPACT_PARTIAL)
    assert _compact(a, -1, sync=1) in (COMPACT.COMPACT_COMPLETE, COMPACT.COMPACT_PARTIAL)
    n = a["pi"][_py("zone_kernel").I.nr_pages]
    kinds = a["pg"][:n, PG.kind]
    file_at = np.nonzero(kinds == KIND.FILE)[0]
    free_at = np.nonzero(kinds == KIND.FREE)[0]
    assert file_at.mean() > free_at.mean()  # used pages moved up towards the free scanner's end


def test_deferral_skips_two_to_the_shift_attempts():
    C = _py("compaction_kernel")
    a = _zone()
    z, pi = a["z"], a["pi"]
    for shift in range(1, 4):
        C.defer_compaction(z, pi, 9)
        skipped = 0
        while C.compaction_deferred(z, pi, 9):
            skipped += 1
        assert skipped == (1 << shift) - 1
    assert not C.compaction_deferred(z, pi, 8)  # a lower order than the one that failed is not deferred
    C.compaction_defer_reset(z, 9)
    assert z[Z.compact_defer_shift] == 0 and z[Z.compact_order_failed] == 10


def test_7db8889a_skips_to_another_tasks_free_scanner_and_the_fix_does_not():
    """Two tasks compacting at once: with 7db8889a the second's free scanner jumps to where the first left
    the zone's cached pfn; with Mel Gorman's fix it scans from where it started."""
    C = _py("compaction_kernel")
    for cache, skips in (("7db8889a", True), ("fixed", False)):
        a = _scattered_movable_zone(32)
        a["pi"][_py("zone_kernel").I.compact_cached_free_pfn] = CACHE_CHOICES.index(cache)
        t1, t2 = ACTOR.TEST, ACTOR.THP
        for t in (t1, t2):
            assert C.compact_zone_begin(a["nf"], a["z"], a["pi"], a["ac"], t, 9, MT.MIGRATE_MOVABLE, 1) == 1
        # task 1 isolates free pages near the end of the zone and moves the cached pfn down
        for _ in range(6):
            a["ac"][AC.budget_ns, t1] = 1 << 40
            C.compact_zone_step(a["pg"], a["fl"], a["nf"], a["pb"], a["lh"], a["oh"], a["z"], a["vm"], a["pi"],
                                a["pf"], a["ac"], a["cm"], a["cf"], t1, True)
        # task 2 needs free pages; another task's scanner is low in the zone (the cached pfn says so)
        a["ac"][AC.nr_migratepages, t2] = 32
        cached = a["ac"][AC.migrate_pfn, t2] + 2 * PAGEBLOCK_NR_PAGES
        a["z"][Z.compact_cached_free_pfn] = cached
        C.isolate_freepages(a["pg"], a["fl"], a["nf"], a["pb"], a["z"], a["vm"], a["pi"], a["pf"], a["ac"], a["cf"],
                            t2)
        got = a["cf"][t2, :a["ac"][AC.nr_freepages, t2]]
        assert len(got) >= 32
        jumped = got.max() < cached + PAGEBLOCK_NR_PAGES  # everything it took lies below the other task
        assert jumped == skips, (cache, cached, got.max())


# --------------------------------------------------------------------------- outputs


def test_buddyinfo_and_pagetypeinfo_have_the_parsers_shapes():
    r = simulate(params_for("contended-v5"), small(), seed=2, verbose=False)
    real = load(ROOT / "data/traces/memory-pressure/bundle/proc-buddyinfo-pressure.gz")
    b = r.buddyinfo()
    assert list(b.columns) == list(real.columns)
    assert (b.dtypes.drop(["zone"]) == real.dtypes.drop(["zone"])).all()
    pt = r.pagetypeinfo()
    assert list(pt.columns) == ["section", "node", "zone", "type", "order", "count", "sample", "time", "elapsed"]
    # the parser's dtypes, column by column (a snapshot under a time: line, as mmtests records it)
    fixture = (ROOT / "tests/fixtures/traces/pagetypeinfo-6.18.txt").read_text()
    parsed = parse_pagetypeinfo("time: 1795239303\n" + fixture)
    assert list(parsed.columns) == list(pt.columns)
    for c in ("node", "order", "count", "sample", "time", "elapsed"):
        assert pt[c].dtype == parsed[c].dtype, c
    assert all(isinstance(pt[c].dtype, type(parsed[c].dtype)) for c in ("section", "zone", "type"))
    assert set(pt["type"]) == {"Unmovable", "Reclaimable", "Movable", "Reserve"}
    # the free pages by order agree between the two files, sample by sample
    free = pt[pt["section"] == "free"].groupby(["sample", "order"])["count"].sum().unstack()
    assert (free.to_numpy() == b[[f"order_{o}" for o in range(MAX_ORDER)]].to_numpy()).all()
    f = df_fragmentation(b, 9)
    assert ((f["unusable_index"] >= 0) & (f["unusable_index"] <= 1)).all()
    rows = r.mmtests_vmstat()
    assert list(rows["row"])[:4] == ["Page Ins", "Page Outs", "Swap Ins", "Swap Outs"]
    assert set(r.passes()["pass"]) == {"Pass 1", "Pass 2", "while Rested"}


# --------------------------------------------------------------------------- knobs


@pytest.mark.parametrize("name,value,words", [
    ("extfrag_threshold", 2000, "extfrag_threshold=2000"),
    ("compact_max_defer_shift", -1, "COMPACT_MAX_DEFER_SHIFT"),
    ("compact_cached_free_pfn", "always", "one of 'none', '7db8889a', 'fixed'"),
    ("min_free_kbytes", 16, "min_free_kbytes=16"),
    ("compact_capture_page", "yes", "True or False"),
])
def test_bad_knobs_raise_naming_the_knob(name, value, words):
    with pytest.raises(WorkbookParameterError) as e:
        params_for("capture-v5", **{name: value})
    assert e.value.name == name and words in str(e.value)


def test_bad_workload_and_variant_raise_naming_them():
    with pytest.raises(WorkbookParameterError) as e:
        StressHighalloc(machine_mb=512, zone_mb=1024)
    assert e.value.name == "zone_mb"
    with pytest.raises(WorkbookParameterError) as e:
        StressHighalloc(highalloc_gfpflags="GFP_KERNEL")
    assert e.value.name == "highalloc_gfpflags"
    with pytest.raises(WorkbookParameterError) as e:
        params_for("3.7")
    assert e.value.name == "variant"
    with pytest.raises(WorkbookParameterError) as e:
        simulate(params_for(), small(), seed=-1)
    assert e.value.name == "seed"


def test_vfs_cache_pressure_shrinks_the_dentry_and_inode_caches_harder():
    """The knob added through the declaration alone: shrink_slab() asks the dentry and inode shrinkers for their
    freeable objects scaled by vfs_cache_pressure / 100, so the same pages scanned scan (and free) that much more
    slab.  (Whole runs mix in the aborted direct reclaims' shrink_slab() calls at every priority, which scan
    slab with no page scanned.)"""
    V = _py("vmscan_kernel")
    out = {}
    for pressure in (10, 1000):
        a = _zone(16)
        a["pi"][V.I.vfs_cache_pressure] = pressure
        for k in range(1200):
            _alloc(a, 0, MT.MIGRATE_RECLAIMABLE if k % 4 == 0 else MT.MIGRATE_MOVABLE,
                   KIND.RECLAIMABLE if k % 4 == 0 else KIND.FILE)
        freed = V.shrink_slab(a["pg"], a["fl"], a["nf"], a["pb"], a["lh"], a["oh"], a["z"], a["vm"], a["pi"], 256)
        out[pressure] = (a["vm"][V.VM.slabs_scanned], freed)
    assert out[1000][0] > 50 * out[10][0] > 0 and out[1000][1] > out[10][1]


def test_the_cache_enum_follows_the_knobs_choices():
    from kernel_workbook.models.compaction import CACHE_CHOICES
    from kernel_workbook.models.compaction.layout import CACHE

    assert [k.split("_", 1)[1].lower() for k in CACHE._fields] == list(CACHE_CHOICES)
    assert CompactionParams.knob("compact_cached_free_pfn").kernel_value("7db8889a", None) == CACHE.CACHE_7DB8889A


def test_variants_are_the_thread_kernels_as_flag_sets():
    assert {"revert-v5", "contended-v5", "capture-v5", "3.3.6", "akpm tree"} <= set(VARIANTS)
    p = {k: params_for(k) for k in VARIANTS}
    assert p["revert-v5"].compact_cached_free_pfn == "7db8889a" and p["contended-v5"].compact_cached_free_pfn == "fixed"
    assert not p["3.3.6"].reclaim_order_0 and p["akpm tree"].reclaim_order_0
    assert p["capture-v5"].compact_capture_page and not p["contended-v5"].compact_capture_page
    assert p["contended-v5"].gfp_no_kswapd and not p["capture-v5"].gfp_no_kswapd
    assert isinstance(p["capture-v5"], CompactionParams)


def test_the_test_paces_a_pass_as_the_machine_would():
    w = StressHighalloc(machine_mb=6520, zone_mb=512)
    assert w.ms_delay == 125.0  # 2 MiB at 16 MB/s, mmtests' integer arithmetic
    assert w.count == 6520 * 1048576 * 95 // (2 * 1048576 * 100)
    r_derived = __import__("kernel_workbook.models.compaction", fromlist=["derive"]).derive(params_for(), w)
    # the slice's attempts are spaced so that a pass lasts as long as on the machine
    assert abs(r_derived["test_count"] * r_derived["test_delay_ns"] / 1e9 - w.pass_s()) < 1.0
