"""The disk/CFQ event loop: the compiled loop equals the same source run as Python; the invariants hold;
the mechanisms do what block/cfq-iosched.c does; bad knobs are refused by name."""

import numpy as np
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook import heuristic
from kernel_workbook.models.cfq import (
    DESKTOP_2014, MODEL, RAID_LSI1078_2011, SERVER_SATA_2011, CFQParams, IOParams, IOWorkload, Process, Stream,
    cfq_for_kernel, for_variant, scaled_slice_ms, simulate,
)
from kernel_workbook.models.cfq.layout import I, PR_, Q_, R_, RS, S_
from kernel_workbook.heuristics.cfq import aio_stress, tiobench

DESK = IOParams(scheduler="cfq", cfq=cfq_for_kernel("3.16"), disk=DESKTOP_2014)
RAID = IOParams(scheduler="cfq", cfq=cfq_for_kernel("3.1"), disk=RAID_LSI1078_2011)
HDD = IOParams(scheduler="cfq", cfq=cfq_for_kernel("3.1"), disk=SERVER_SATA_2011)

SMALL_CASES = {
    "cfq-seqread-3": (DESK, tiobench.seqread(3, mb_total=6)),
    "cfq600-seqread-4": (DESK.with_(cfq_target_latency=600), tiobench.seqread(4, mb_total=6)),
    "deadline-randread": (DESK.with_(scheduler="deadline"), tiobench.randread(3, ops_per_thread=25)),
    "noop-seqread": (DESK.with_(scheduler="noop"), tiobench.seqread(2, mb_total=4)),
    # files in ext3 reservation windows taking turns: readers cross from one window to the next
    "cfq-seqread-ext3-windows": (DESK, tiobench.seqread(3, mb_total=12, rsv_window_blocks=259)),
    "cfq-seqread-ext3-regular-turns": (DESK, tiobench.seqread(2, mb_total=12, rsv_window_blocks=259,
                                                              regular_turns=True)),
    "raid-aio-usleep": (RAID, aio_stress.patlasov_2011(usleep_us=1000, file_mb=0.25, instances=4)),
    "raid-aio-patch": (RAID.with_(patlasov_2011=True), aio_stress.patlasov_2011(usleep_us=1000, file_mb=0.25,
                                                                              instances=4)),
    "hdd-aio-writeback": (HDD, aio_stress.patlasov_2011(file_mb=0.25, instances=3)),
    "hdd-aio-no-8e1ac665": (HDD.with_(cfq_clear_cfqq_deep_fast_device=False, HZ=250),
                            aio_stress.patlasov_2011(file_mb=0.25, instances=3)),
    # a request list of 4: processes sleep in get_request() and go on from there
    "raid-aio-nr_requests-4": (RAID.with_(nr_requests=4), aio_stress.patlasov_2011(usleep_us=1000, file_mb=0.25,
                                                                                    instances=4)),
    "deadline-randread-nr_requests-4": (DESK.with_(scheduler="deadline", nr_requests=4),
                                        tiobench.randread(8, ops_per_thread=20)),
}


@pytest.mark.parametrize("case", list(SMALL_CASES))
def test_python_engine_equals_compiled(case):
    p, w = SMALL_CASES[case]
    a = simulate(p, w, seed=11, log_events=400, audit=True, engine="jit").arrays
    b = simulate(p, w, seed=11, log_events=400, audit=True, engine="python").arrays
    for name in ("S", "R", "Q", "QR", "ST", "EL", "EV", "SP", "RA", "WC", "PR", "FI"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), f"{case}: array {name} differs"
    assert a.S[S_.next_rid] > 0 and a.S[S_.c_complete if p.scheduler == "cfq" else S_.events] > 0



def test_the_kernels_compile_without_reference_counting():
    """engine.kernel_no_nrt: half of the compiled loop was NRT_incref/NRT_decref calls (17 arrays handed on at
    every call); the plain decorators would bring them back without changing a result, so only this test
    would notice.  The elevator interface is inlined for the same reason (a call cost more than its switch)."""
    from kernel_workbook.models.cfq import KERNELS

    assert KERNELS.function("jit").targetoptions.get("_nrt") is False
    for mod, fn in (("cfq_kernel", "cfq_dispatch_requests"), ("disk_kernel", "dev_next_event")):
        assert getattr(KERNELS.module(mod, "jit"), fn).targetoptions.get("_nrt") is False
    assert KERNELS.module("blk_core_kernel", "jit").elv_dispatch.targetoptions.get("inline") == "always"

def test_engines_seeds_and_the_spec():
    w = tiobench.seqread(2, mb_total=4)
    # a seed is an int or a Generator; the same Generator state gives the same run
    a = simulate(DESK, w, seed=np.random.default_rng(3))
    b = simulate(DESK, w, seed=3)
    assert np.array_equal(a.arrays.R, b.arrays.R)
    with pytest.raises(WorkbookParameterError, match="no independent reference"):
        simulate(DESK, w, engine="reference")
    with pytest.raises(WorkbookParameterError, match="engine"):
        simulate(DESK, w, engine="numba")
    # the kernel mirror names no workload (they are its heuristic's, a layer above); the heuristic's spec has them
    assert MODEL.workloads == {}
    spec = heuristic.model("cfq")
    assert spec.workload("tiobench-seqread", threads=3, mb_total=4).meta["threads"] == 3
    assert MODEL.params_for("3.16 cfq600").cfq.cfq_target_latency == 600.0
    assert for_variant("3.1 noop").scheduler == "noop"
    s = spec.run("3.1 mark_cfqq_deep commented out", "aio-stress-2011",
                  workload_kw={"file_mb": 0.25, "instances": 3}, seed=2)
    assert s["mark_deep"] == 0 and s["MB/s"] > 0 and s["finished"]


INVARIANT_CASES = {
    "cfq-seqread-8": (DESK, tiobench.seqread(8, mb_total=48)),
    "cfq-randread-8": (DESK, tiobench.randread(8, ops_per_thread=80)),
    "deadline-seqread-4": (DESK.with_(scheduler="deadline"), tiobench.seqread(4, mb_total=32)),
    "raid-aio": (RAID, aio_stress.patlasov_2011(usleep_us=1000, file_mb=1)),
    "raid-aio-always-clear": (RAID.with_(cfq_clear_cfqq_deep_unconditional=True),
                              aio_stress.patlasov_2011(usleep_us=1000, file_mb=1)),
    "hdd-aio-patch": (HDD.with_(patlasov_2011=True), aio_stress.patlasov_2011(file_mb=0.5)),
    "hdd-aio-noop": (HDD.with_(scheduler="noop"), aio_stress.patlasov_2011(file_mb=0.5)),
    "hdd-writethrough": (HDD.with_(write_cache=False), aio_stress.patlasov_2011(file_mb=0.25, instances=4)),
}


@pytest.mark.parametrize("case", list(INVARIANT_CASES))
def test_invariants(case):
    p, w = INVARIANT_CASES[case]
    r = simulate(p, w, seed=7, log_events=5000, audit=True)
    a = r.arrays
    assert r.finished, "every process finished"
    # counts never negative and consistent after every event; time never went backward
    assert r.counters["audit_violations"] == 0, f"invariant {r.counters['audit_first_code']} broken"
    n = int(a.S[S_.next_rid])
    R = a.R[:n]
    # every request issued is served exactly once
    assert n == w.total_requests
    assert set(np.unique(R[:, R_.state])) <= {RS.done, RS.page_cache}
    disk = R[R[:, R_.state] == RS.done]
    if p.scheduler == "cfq":
        assert r.counters["dispatched"] == r.counters["completed"] == len(disk)
    assert a.S[S_.dev_n] == 0 and a.S[S_.ww_n] == 0
    # bytes served equal bytes requested
    assert a.PR[:, PR_.bytes].sum() == R[:, R_.nsect].sum() * 512 == w.total_bytes
    # a request's times never go backward
    ti, tn, td, tc = (disk[:, c] for c in (R_.t_issue, R_.t_insert, R_.t_dispatch, R_.t_complete))
    assert (ti <= tn).all() and (tn <= td).all() and (td <= tc).all()
    ev = r.events
    assert (np.diff(ev["t_ms"].to_numpy()) >= 0).all()
    # queues end empty
    assert (a.Q[:, Q_.n] == 0).all() and (a.Q[:, Q_.dispatched] == 0).all()


def test_same_seed_same_run_other_seed_other_run():
    w = tiobench.seqread(4, mb_total=24)
    a, b, c = (simulate(DESK, w, seed=s) for s in (5, 5, 6))
    assert np.array_equal(a.arrays.R, b.arrays.R) and a.throughput_mb_s == b.throughput_mb_s
    assert not np.array_equal(a.arrays.R, c.arrays.R)


def _slices(r):
    ev = r.events
    return ev.loc[ev["event"] == "set_slice", "a"].to_numpy()


@pytest.mark.parametrize("readers,target,expected", [(8, 300, 37), (16, 300, 18), (16, 600, 37), (2, 300, 100)])
def test_low_latency_slices_follow_cfq_scaled_cfqq_slice(readers, target, expected):
    """slice = max(slice_sync * target / (slice_sync * avg_queues), 2 * slice_idle) once the
    average number of busy queues has caught up (cfq_scaled_cfqq_slice)."""
    r = simulate(DESK.with_(cfq_target_latency=target), tiobench.seqread(readers, mb_total=max(40 * readers, 480)),
                 seed=1, log_events=50000)
    s = _slices(r)
    assert len(s) > 3 * readers
    steady = s[readers:-readers]  # after the average caught up, before readers start finishing
    assert np.median(steady) == expected
    assert steady.min() >= 16  # the 2 * slice_idle floor
    # the notebook's table (analytic.scaled_slice_ms) says the same as the event loop
    assert scaled_slice_ms(CFQParams(cfq_target_latency=target), readers) == expected


def test_low_latency_off_keeps_the_full_slice():
    r = simulate(DESK.with_(cfq_latency=False), tiobench.seqread(16, mb_total=64), seed=1, log_events=20000)
    assert set(_slices(r)) == {100}


def test_longer_target_latency_helps_many_readers_not_one():
    w16, w1 = tiobench.seqread(16, mb_total=96), tiobench.seqread(1, mb_total=48)
    t300 = simulate(DESK, w16, seed=2).throughput_mb_s
    t600 = simulate(DESK.with_(cfq_target_latency=600), w16, seed=2).throughput_mb_s
    assert t600 > 1.04 * t300
    assert simulate(DESK, w1, seed=2).throughput_mb_s == simulate(
        DESK.with_(cfq_target_latency=600), w1, seed=2).throughput_mb_s


def test_slice_idle_zero_idles_only_for_the_group_and_deep_marking_follows_its_flag():
    w = aio_stress.patlasov_2011(usleep_us=1000, file_mb=0.5)
    ev = simulate(RAID.with_(cfq_slice_idle=0), w, seed=1, log_events=200000).events
    arm = ev[ev["event"] == "arm_idle"]
    # cfq_arm_slice_timer(): with slice_idle=0 only group_idle remains (b == 1), for a queue alone in its group
    assert len(arm) and (arm["b"] == 1).all() and (arm["a"] == 8).all()
    assert simulate(RAID.with_(cfq_slice_idle=0, cfq_group_idle=0), w, seed=1).counters["arm_idle"] == 0
    assert simulate(RAID, w, seed=1).counters["mark_deep"] > 0
    assert simulate(RAID.with_(cfq_mark_cfqq_deep=False), w, seed=1).counters["mark_deep"] == 0


def test_8e1ac6655104_clears_deep_in_select_queue():
    w = aio_stress.patlasov_2011(usleep_us=1000, file_mb=0.5)
    on = simulate(RAID, w, seed=1, log_events=200000)
    off = simulate(RAID.with_(cfq_clear_cfqq_deep_fast_device=False), w, seed=1, log_events=200000)
    # without it, deep is cleared only when an idle window fails (cfq_idle_slice_timer)
    assert on.counters["clear_deep"] > 10 * max(1, off.counters["clear_deep"])
    assert off.counters["clear_deep"] <= off.counters["idle_timer_fired"]


def test_noop_and_deadline_ignore_cfq_knobs():
    w = tiobench.seqread(4, mb_total=16)
    for s in ("noop", "deadline"):
        a = simulate(DESK.with_(scheduler=s), w, seed=3)
        b = simulate(DESK.with_(scheduler=s, cfq_target_latency=900, cfq_slice_idle=0), w, seed=3)
        assert np.array_equal(a.arrays.R, b.arrays.R)
        assert a.counters["set_active"] == 0


def test_result_frames_are_named_as_the_tools_name_them():
    r = simulate(DESK, tiobench.seqread(2, mb_total=16), seed=1, log_events=100)
    io = r.iostat(0.1)
    for c in ("r/s", "rkB/s", "avgqu-sz", "await", "r_await", "w_await", "%util"):
        assert c in io.columns
    assert io.attrs["version"] == "sysstat 9-11"
    assert ((io["%util"] >= 0) & (io["%util"] <= 100)).all()
    # avgqu-sz and %util from the queue depth carried over each interval boundary: the same as counting it
    # request by request (the insertions and completions of every done request, in time order)
    R = r.arrays.R[: int(r.arrays.S[S_.next_rid])]
    R = R[R[:, R_.state] == RS.done]
    ev = sorted([(int(t), 1) for t in R[:, R_.t_insert]] + [(int(t), -1) for t in R[:, R_.t_complete]],
                key=lambda e: (e[0], -e[1]))
    T, depth, area, busy, prev = 10 ** 8, 0, {}, {}, 0
    for t, d in ev + [(len(io) * T, 0)]:
        for k in range(prev // T, min(t // T, len(io) - 1) + 1):  # split the segment [prev, t) at the boundaries
            lo, hi = max(prev, k * T), min(t, (k + 1) * T) if k < len(io) - 1 else t
            area[k] = area.get(k, 0) + depth * max(hi - lo, 0)
            busy[k] = busy.get(k, 0) + (depth > 0) * max(hi - lo, 0)
        depth, prev = depth + d, t
    assert np.allclose(io["avgqu-sz"], [area.get(k, 0) / T for k in range(len(io))], rtol=1e-12)
    assert np.allclose(io["%util"], [min(100.0, busy.get(k, 0) / T * 100) for k in range(len(io))], rtol=1e-12)
    # Little's law per interval: avgqu-sz = arrival rate x await (within a sample's edges)
    assert io["rkB/s"].sum() * 0.1 == pytest.approx(r.requests["sectors"].sum() / 2, rel=1e-9)
    t = r.threads
    assert list(t.columns) == ["thread", "name", "requests", "MB", "start_s", "end_s", "elapsed_s", "MB/s"]
    lat = r.await_percentiles()
    assert list(lat["op"]) == ["read", "write"] and lat.loc[0, "p50"] <= lat.loc[0, "p99"]
    # the caption echoes every knob changed from the machine's defaults, and the seed (OSTEP's ARG lines)
    assert r.caption().startswith("cfq on desktop-2014: defaults, seed=1; tiobench SeqRead")
    c = simulate(DESK.with_(cfq_target_latency=600, HZ=250), tiobench.seqread(2, mb_total=8), seed=4).caption()
    assert "HZ=250" in c and "cfq_target_latency=600" in c and "seed=4" in c
    s = r.summary()
    assert s["MB/s"] == r.throughput_mb_s and s["r_await_p50"] <= s["r_await_p99"] and s["set_active"] > 0


@pytest.mark.parametrize("kw,name,words", [
    ({"cfq_slice_idle": -1.0}, "cfq_slice_idle", "a number >= 0 (ms); cfq_slice_idle, block/cfq-iosched.c"),
    ({"cfq_target_latency": 0}, "cfq_target_latency", ">= 1 (ms)"),
    ({"cfq_quantum": 0}, "cfq_quantum", "an integer >= 1"), ({"cfq_quantum": 2.5}, "cfq_quantum", "an integer"),
    ({"scheduler": "bfq"}, "scheduler", "one of 'noop', 'deadline', 'cfq'"), ({"HZ": 123}, "HZ", "CONFIG_HZ"),
    ({"spindles": 0}, "spindles", "an integer in 1..64"), ({"seek_track_ms": -1.0}, "seek_track_ms", ">= 0.001"),
    ({"cfq_latency": "yes"}, "cfq_latency", "True or False"), ({"nonsense": 1}, "nonsense", "a knob of IOParams"),
])
def test_bad_knobs_are_refused_by_name(kw, name, words):
    with pytest.raises(WorkbookParameterError) as e:
        DESK.with_(**kw)
    assert e.value.name == name and words in str(e.value)


def test_bad_workloads_and_seeds_are_refused_by_name():
    with pytest.raises(WorkbookParameterError, match="think_us"):
        simulate(DESK, IOWorkload("w", "x", (Process("p", (Stream(0, 1000, 4, total_requests=1),), think_us=-1),)))
    with pytest.raises(WorkbookParameterError, match="seed"):
        simulate(DESK, tiobench.seqread(1, mb_total=4), seed=-1)
    with pytest.raises(WorkbookParameterError, match="threads"):
        tiobench.seqread(0)
    with pytest.raises(WorkbookParameterError, match="usleep_us"):
        aio_stress.patlasov_2011(usleep_us=-5)
    far = IOWorkload("w", "x", (Process("p", (Stream(DESKTOP_2014.capacity_sectors, 1000, 4, total_requests=1),)),))
    with pytest.raises(WorkbookParameterError, match="inside the disk"):
        simulate(DESK, far)


def test_derived_slots_follow_the_disk_the_clock_and_the_workload():
    """The slots the generic packing test cannot see: sizes and geometry computed from knobs."""
    from kernel_workbook.models.cfq import pack

    w = aio_stress.patlasov_2011(file_mb=0.25, instances=3)
    p = RAID.with_(HZ=250, rpm=15000.0, media_rate_mb_s=150.0, interface_mb_s=500.0)
    P, _ = pack(p, w, log_events=77, audit=True)
    d = p.disk
    assert P[I.jiffy_ns] == 4_000_000 and P[I.rot_ns] == 4_000_000  # 250 Hz; 15000 rpm = 4 ms a turn
    assert P[I.sectors_per_track] == round(150e6 / 512 / 250) == d.sectors_per_track
    assert P[I.if_ps_per_sector] == 1024_000  # 512 B at 500 MB/s
    assert P[I.t_max_ns] == int(w.t_max_s * 1e9) and P[I.log_cap] == 77 and P[I.audit] == 1
    assert P[I.nproc] == 3 and P[I.nreq] == w.total_requests and P[I.scheduler] == 2


def test_kernel_presets():
    assert cfq_for_kernel("3.1").cfq_io_thinktime_big is False
    assert cfq_for_kernel("3.16", cfq_target_latency=600).cfq_target_latency == 600
    assert cfq_for_kernel("3.16") == CFQParams()
    with pytest.raises(WorkbookParameterError, match="version"):
        cfq_for_kernel("4.0")


def test_knobs_are_declared_with_their_kernel_source_and_packed_in_kernel_units():
    decl = IOParams.declared()
    for name, k in decl.items():
        assert k.source, name
        if name.startswith("cfq_"):
            assert k.source.startswith("block/cfq-iosched.c"), name
    # one knob, one slot, in jiffies: the kernel's HZ expression for the default, msecs_to_jiffies otherwise
    from kernel_workbook.models.cfq import pack

    w = tiobench.seqread(1, mb_total=4)
    for HZ, default, other in ((1000, 8, 3), (250, 2, 1), (100, 1, 1)):
        p = DESK.with_(HZ=HZ)
        assert pack(p, w)[0][I.cfq_slice_idle] == default
        assert pack(p.with_(cfq_slice_idle=3.0), w)[0][I.cfq_slice_idle] == other
    # fifo_expire_sync = HZ / 8 at 250 Hz is 31 jiffies, while msecs_to_jiffies(125) would be 32
    assert pack(DESK.with_(HZ=250), w)[0][I.cfq_fifo_expire_sync] == 31
    assert pack(DESK.with_(HZ=250, cfq_fifo_expire_sync=126), w)[0][I.cfq_fifo_expire_sync] == 32
    assert pack(DESK.with_(cmd_overhead_us=7.5), w)[0][I.cmd_overhead_us] == 7500  # disk times in ns


@pytest.mark.parametrize("scheduler", ["noop", "cfq"])
def test_aio_stress_submits_whole_rounds_once_its_io_units_are_free(scheduler):
    # aio-stress -d 1 -i 1 -b 4 with 4 files: setup_ious() gives 4 io units for the thread, run_active_list()
    # builds one write per file and one io_submit() for all four, find_iou() blocks until a unit is free.
    # So every submission is a round of 4 (one per file) and starts only after the previous round completed.
    # the slow disk without its write cache: the four writes of a round complete one seek apart
    w = aio_stress.patlasov_2011(file_mb=0.25, instances=3)
    rq = simulate(HDD.with_(scheduler=scheduler, write_cache=False), w, seed=5).requests
    assert (rq["state"] == "done").all()
    for _, th in rq.groupby("thread"):
        rounds = th.groupby("t_issue_ms")
        sizes = rounds.size()
        assert (sizes == 4).all(), sizes.value_counts()
        assert (rounds["file"].nunique() == 4).all()
        first_issue = sizes.index.to_numpy()
        last_done = rounds["t_complete_ms"].max().to_numpy()
        assert (first_issue[1:] >= last_done[:-1]).all()


def test_aio_stress_knobs_are_checked_against_each_other():
    with pytest.raises(WorkbookParameterError, match="max_io_submit"):
        aio_stress.patlasov_2011(max_io_submit=5)  # 4 files x -d 1 = 4 io units
    with pytest.raises(WorkbookParameterError, match="io_iter"):
        aio_stress.patlasov_2011(io_iter=0)


def test_nr_requests_bounds_the_request_list_as_get_request_does():
    """block/blk-core.c __get_request(): at most nr_requests requests of a direction, a process that needs
    another sleeps (block_sleeprq); the one that fills the list and the ones woken may take a batch more,
    never past 3/2 of it."""
    # eight aio-stress threads with -d 8: 4 files x 8 io units each, 256 sync writes wanted at once
    w = aio_stress.patlasov_2011(depth=8, io_iter=8, max_io_submit=32, file_mb=0.5)
    free = simulate(RAID.with_(nr_requests=1024), w, seed=3, audit=True)
    assert free.counters["sleeprq"] == 0 and free.counters["rl_count_max"] == 256
    for nr in (128, 16, 4):
        r = simulate(RAID.with_(nr_requests=nr), w, seed=3, audit=True)
        c = r.counters
        assert r.finished and c["audit_violations"] == 0, c["audit_first_code"]
        assert c["sleeprq"] > 0, nr
        assert nr <= c["rl_count_max"] <= 3 * nr // 2, (nr, c["rl_count_max"])
        # every write still happens once, and the device saw fewer at a time
        assert c["completed"] == w.total_requests
        assert (r.requests["state"] == "done").all()
    # the threads' own workloads never fill the default list of 128: the knob changes nothing there
    w11 = aio_stress.patlasov_2011(usleep_us=1000, file_mb=0.25)
    a, b = simulate(RAID, w11, seed=1), simulate(RAID.with_(nr_requests=1024), w11, seed=1)
    assert np.array_equal(a.arrays.R, b.arrays.R) and a.counters["rl_count_max"] == 32
    with pytest.raises(WorkbookParameterError, match="nr_requests=2: expected an integer >= 4"):
        RAID.with_(nr_requests=2)


@pytest.mark.parametrize("params,workload", [
    (DESK, tiobench.seqread(4, mb_total=8)),
    (RAID, aio_stress.patlasov_2011(usleep_us=1000, file_mb=1)),  # aggregate: sum of the threads' MB/s
])
def test_headline_numbers_from_arrays_equal_the_frames(params, workload):
    # throughput_mb_s and await_ms read the arrays directly (explorer speed); they must say
    # what the threads and requests frames say
    r = simulate(params, workload, seed=3, verbose=False)
    t = r.threads
    if workload.meta.get("aggregate") == "sum_of_threads":
        want = t["MB/s"].sum()
    else:
        want = t["MB"].sum() / (t["end_s"].max() - t["start_s"].min())
    assert r.throughput_mb_s == pytest.approx(want, rel=1e-12)
    q = r.requests
    for op, is_write in (("read", False), ("write", True)):
        a = q[(q["state"] == "done") & (q["write"] == is_write)]["await_ms"]
        if len(a):
            assert r.await_ms(op, (50, 99)) == pytest.approx(np.percentile(a, [50, 99]), rel=1e-12)
        else:
            assert np.isnan(r.await_ms(op)).all()
    with pytest.raises(ValueError, match="op must be"):
        r.await_ms("both")


def test_ext3_windows_place_each_file_in_turns_and_cost_the_readers_seeks():
    """tiobench's files written side by side lie in reservation windows taking turns (1024 data blocks
    + 3 indirect of each 1027-block window); one writer's file is one piece, as is every file at 0."""
    w = tiobench.seqread(4, ram_mb=1024, mb_total=64, rsv_window_blocks=tiobench.EXT3_MAX_RESERVE_BLOCKS,
                         regular_turns=True)
    s = [pr.streams[0] for pr in w.processes]
    window = 1027 * 8
    assert [x.start_sector for x in s] == [2048 + i * window for i in range(4)]
    assert {(x.extent_sectors, x.extent_stride_sectors) for x in s} == {(1024 * 8, 4 * window)}
    assert s[0].span_sectors == (s[0].length_sectors // (1024 * 8) - 1) * 4 * window + 1024 * 8
    one = tiobench.seqread(1, ram_mb=1024, rsv_window_blocks=1027).processes[0].streams[0]
    assert one.extent_sectors == 0 and one.span_sectors == one.length_sectors
    assert tiobench.seqread(4, ram_mb=1024).processes[1].streams[0].extent_sectors == 0
    # every request of a reader lies in one of its own windows, none in another file's
    r = simulate(DESK, w, seed=3, verbose=False).arrays
    rid = np.arange(r.S[S_.next_rid])
    sect, f = r.R[rid, R_.sect], r.R[rid, R_.file]
    lane = ((sect - 2048) % (4 * window)) // window
    assert np.array_equal(lane, f) and np.all((sect - 2048) % window < 1024 * 8)
    # drawn turns: in every round each file takes one turn, no two files the same, not always the same one
    drawn = simulate(DESK, tiobench.seqread(4, ram_mb=1024, mb_total=64, rsv_window_blocks=1027), seed=3,
                     verbose=False).arrays
    rid = np.arange(drawn.S[S_.next_rid])
    sect, f = drawn.R[rid, R_.sect] - 2048, drawn.R[rid, R_.file]
    assert np.all(sect % window < 1024 * 8)
    rnd, turn = sect // (4 * window), (sect % (4 * window)) // window
    owner = {}
    for k, t, ff in zip(rnd, turn, f):
        assert owner.setdefault((int(k), int(t)), int(ff)) == ff  # one file per turn
    assert len({(int(k), int(ff)) for k, ff in zip(rnd, f)}) == len({(int(k), int(t)) for k, t in zip(rnd, turn)})
    assert len({t for (k, t), ff in owner.items() if ff == 0}) > 1  # file 0's turn changes from round to round
    # the seek from one window to the file's next costs a reader what a contiguous file does not
    flat = simulate(DESK, tiobench.seqread(2, ram_mb=1024, mb_total=64), seed=3, verbose=False)
    turns = simulate(DESK, tiobench.seqread(2, ram_mb=1024, mb_total=64, rsv_window_blocks=1027), seed=3,
                     verbose=False)
    assert turns.throughput_mb_s < 0.97 * flat.throughput_mb_s
    single = [simulate(DESK, tiobench.seqread(1, ram_mb=1024, mb_total=32, rsv_window_blocks=b), seed=3,
                       verbose=False).throughput_mb_s for b in (0, 1027)]
    assert single[0] == single[1]


def test_bad_file_layouts_are_refused_by_name():
    with pytest.raises(WorkbookParameterError, match="rsv_window_blocks"):
        tiobench.seqread(2, rsv_window_blocks=3)
    with pytest.raises(WorkbookParameterError, match="extent_sectors"):
        Stream(0, 4096, 4, extent_sectors=12, extent_stride_sectors=24).validate("s")
    with pytest.raises(WorkbookParameterError, match="extent_stride_sectors"):
        Stream(0, 4096, 4, extent_sectors=16, extent_stride_sectors=8).validate("s")
