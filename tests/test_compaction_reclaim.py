"""Reclaim as 3.6 does it (mm/vmscan.c of v3.6), the 2012 script's steps, and refaults.

* an aborted direct reclaim keeps asking ``compaction_ready()`` at every priority (``do_try_to_free_pages()``
  has no break for it in 3.6), and every ask counts one more considered attempt (``compaction_deferred()``);
* kswapd's ``shrink_zone()`` is ``shrink_lruvec()`` too: at a costly order it stays in the zone until
  ``should_continue_reclaim()`` lets it go (``2 << order`` pages reclaimed);
* the script's steps run in order, ``rm -rf`` takes the trees, the rested pass has ``min_free_kbytes`` 1024;
* an evicted page of the trees that the builds read again is read from disk: Page Ins react to reclaim.
"""

from __future__ import annotations

from kernel_workbook.models.compaction import KERNELS, params_for, simulate
from kernel_workbook.models.compaction.layout import AC, ACTOR, DEF_PRIORITY, KIND, MT, VM, Z
from kernel_workbook.models.compaction.simulate import arrays
from kernel_workbook.heuristics.compaction.stress_highalloc import small


def _py(name):
    return KERNELS.module(name, "python")


def _zone(zone_mb, variant="revert-v5"):
    a = arrays(params_for(variant), small(zone_mb=zone_mb, machine_mb=max(64, 4 * zone_mb)), seed=1)
    _py("highalloc_kernel").init_zone(a["pg"], a["fl"], a["nf"], a["pb"], a["z"], a["pi"])
    return a


def _fill(a, leave):
    """Clean page cache until ``leave`` pages are free (kswapd's and compaction's watermarks unmet)."""
    Zk, Pk = _py("zone_kernel"), _py("pages_kernel")
    while a["z"][Z.nr_free] > leave:
        pfn = Zk.get_page_from_freelist(a["pg"], a["fl"], a["nf"], a["pb"], a["z"], a["vm"], a["pi"], 0,
                                        MT.MIGRATE_MOVABLE, 0)
        Pk.page_new(a["pg"], a["lh"], a["oh"], a["z"], pfn, 0, KIND.FILE, -1, 0, 0)


def _args(a, *names):
    return tuple(a[k] for k in names)


def test_an_aborted_direct_reclaim_asks_compaction_ready_at_every_priority():
    V, C = _py("vmscan_kernel"), _py("compaction_kernel")
    a = _zone(8)  # all free: compaction_ready()'s watermark (high + gap + 2 << order) holds
    z, pi = a["z"], a["pi"]
    for _ in range(6):
        C.defer_compaction(z, pi, 9)  # compact_defer_shift 6: 64 attempts skip compaction
    t = ACTOR.TEST
    a["ac"][AC.order, t] = 9
    V.direct_reclaim_begin(a["ac"], a["vm"], t)
    a["ac"][AC.budget_ns, t] = 1 << 40
    done = V.direct_reclaim_step(*_args(a, "pg", "fl", "nf", "pb", "lh", "oh", "z", "vm", "pi", "pf", "rnd", "ac"), t)
    assert done and a["ac"][AC.aborted, t] == 1 and a["ac"][AC.progress, t] == 1
    assert a["vm"][VM.pgscan_direct_normal] == 0
    # one ask per priority, DEF_PRIORITY down to 0, each a considered attempt of the deferred order
    assert z[Z.compact_considered] == DEF_PRIORITY + 1


def _kswapd_first_shrink(order):
    V = _py("vmscan_kernel")
    a = _zone(64)
    _fill(a, a["z"][Z.wmark_low])
    z = a["z"]
    z[Z.kswapd_awake], z[Z.kswapd_order], z[Z.kswapd_priority] = 1, order, 6
    before = a["vm"][VM.pgsteal_kswapd_normal]
    V.kswapd_step(*_args(a, "pg", "fl", "nf", "pb", "lh", "oh", "z", "vm", "pi", "pf", "rnd", "ac", "cm", "cf"))
    while z[Z.kswapd_shrinking]:
        V.kswapd_step(*_args(a, "pg", "fl", "nf", "pb", "lh", "oh", "z", "vm", "pi", "pf", "rnd", "ac", "cm", "cf"))
    return a["vm"][VM.pgsteal_kswapd_normal] - before


def test_kswapd_at_a_costly_order_stays_in_the_zone_until_it_has_reclaimed_for_compaction():
    one_pass = _kswapd_first_shrink(0)  # order 0: one pass of size >> priority over the lists
    costly = _kswapd_first_shrink(9)  # above PAGE_ALLOC_COSTLY_ORDER: should_continue_reclaim() keeps it there
    assert 0 < one_pass < 2 << 9 <= costly


def test_the_script_runs_its_steps_in_order_and_deletes_the_trees():
    r = simulate(params_for("contended-v5"), small(), seed=3, verbose=False)
    phases = list(dict.fromkeys(r.occupancy()["phase"]))
    order = ["setup", "warmup", "pass_1", "pass_2", "wait", "dd", "cat", "gap", "rested", "end"]
    assert [p for p in order if p in phases] == phases and {"setup", "wait", "dd", "rested"} <= set(phases)
    z, d = r.arrays["z"], r.derived
    assert z[Z.nr_tree] == 0 and z[Z.nr_bigfile] == 0  # rm -rf of the trees, rm of the large file
    assert (z[Z.wmark_min], z[Z.wmark_high]) == (d["wmark_min_rested"], d["wmark_high_rested"])
    assert d["wmark_min_rested"] < d["wmark_min"]  # min_free_kbytes 1024 for the rested pass
    assert r.counters(False)["pgpgin"] > 0  # cat read back what dd's file lost to reclaim


def test_page_ins_react_to_reclaim_through_refaults():
    """The builds read only the trees: with no re-reads nothing of theirs is read twice; with re-reads, the more
    the builds write (and reclaim evicts), the more of what they read again comes from disk."""
    def page_ins(**kw):
        w = small(page_ins_kb_s=0.0, end_dd=False, warmup_s=20.0, **kw)
        return simulate(params_for("contended-v5"), w, seed=4, verbose=False).counters(False)["pgpgin"]

    assert page_ins(hot_refs_s=0.0, dirty_pages_s=800.0) == 0
    light, heavy = page_ins(hot_refs_s=2000.0, dirty_pages_s=1600.0), page_ins(hot_refs_s=2000.0, dirty_pages_s=6400.0)
    assert 0 < light < heavy / 2
