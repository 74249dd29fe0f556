"""The arrays of the disk/CFQ event loop, their columns named, never numbered by hand.

The kernel functions take plain int64 arrays (Numba compiles them best).
Every column index below is generated from a list of names
(:func:`~kernel_workbook.models.layout.slots`, ``enum``), so adding a column
is adding a name.  Units: time in nanoseconds, positions in 512-byte
sectors, CFQ's own times in jiffies as the kernel keeps them.

``P`` -- the parameters, one int64 array generated from the knob declaration
(:data:`LAYOUT`, ``P[I.cfq_slice_idle]``): every knob's slot holds the knob in
the kernel's units (CFQ times in jiffies, disk times in ns, sizes in
sectors), plus the sizes the Python side derives per run.

The state arrays, each with its column tuple (the array's name and ``_``):

==========  ==========================================================
``S``       scalar state: ``cfqd`` fields, the device, the log, counters (``S_``)
``R``       one row per request (``R_``)
``Q``       one row per CFQ queue (``Q_``); ``QR`` its requests in FIFO order
``ST``      one row per service tree, indexed by :data:`WL` (``ST_``)
``EL``      the noop and deadline FIFOs, one row each (:data:`FIFO`)
``EV``      the event log (``EV_``), codes :data:`EVT`
``SP``      one row per spindle (``SP_``); ``RA`` its read segments (``RA_``)
``WC``      write-back cache extents (``WC_``); ``WW`` writes waiting for room
``DC``      commands in the device; ``SEEK`` seek time (ns) by cylinder distance
``PR``      one row per process (``PR_``); ``FI`` one row per file (``FI_``)
``U``       uniform random numbers, one row per process (drawn before the run)
==========  ==========================================================
"""

from __future__ import annotations

from ..layout import ParamLayout, enum, slots
from .params import SCHEDULERS, IOParams

# ---------------------------------------------------------------- P: parameters
LAYOUT = ParamLayout(
    IOParams,
    # sizes and conversions the Python side computes for each run (simulate.pack)
    derived_int="jiffy_ns rot_ns sectors_per_track if_ps_per_sector t_max_ns log_cap nproc nreq nu audit",
)
I = LAYOUT.I  # noqa: E741 -- the kernel reads P[I.<knob>]

SCHED = enum("elevator", SCHEDULERS)  # the packed value of the ``scheduler`` choice

# ---------------------------------------------------------------- S: scalar state
S_ = slots("S", """
    now next_rid busy_queues busy_sync rq_in_driver in_flight_async in_flight_sync rq_queued
    hw_tag hw_tag_est hw_tag_samples active active_cic last_pos serving_type wl_expires idle_timer
    last_delayed_sync seq nr_cfqq bq_avg saved_wl_slice saved_wl_type
    grp_dispatched grp_tt_last grp_tt_samples grp_tt_total grp_tt_mean
    el_n dl_n_r dl_n_w dl_next_r dl_next_w dl_batching dl_starved
    dev_n ww_n wc_used log_n ndone_proc events
    c_preempt c_arm_idle c_idle_fired c_slices c_deep_set c_deep_clear c_dispatch c_complete c_idle_ns
    idle_armed_at c_destage c_cache_hit c_media_ops c_wc_full audit audit_code wc_live
    rl_count_async rl_count_sync rl_full_async rl_full_sync rl_waiters_async rl_waiters_sync rl_count_max
    wait_seq c_sleeprq
    rl_congested_async rl_congested_sync c_congestion_clear last_merge dl_last_sector
    c_back_merge c_front_merge c_rq_merge
""")
"""``active``: the active queue (-1 none); ``active_cic``: the process of the active cic;
``last_pos``: ``last_position``; ``serving_type``: ``serving_wl_type``; ``bq_avg``:
``busy_queues_avg[BE]``; ``seq``: insertion counter (service-tree tie order); ``el_n``: noop
FIFO length; ``dl_*``: deadline's FIFO lengths, ``next_rq[]``, batching and starved counts;
``dev_n``: commands in the device; ``ww_n``: writes waiting for write-cache room;
``wc_live``: write-back extents in use; ``c_*``: counters named after the cfq_log messages;
``audit``/``audit_code``: invariant violations seen (``P[I.audit]``) and the first one's code;
``rl_*``: the request list of blk-core (``rl->count[]``, ``blk_rl_full()``, processes asleep in
``get_request()`` per direction, the high-water mark of the count); ``c_sleeprq``: sleeps in
``get_request()`` (blktrace's ``block_sleeprq``);
``rl_congested_*``: the queue's congestion bit per direction (``blk_set_queue_congested()``, set at
``blk_queue_congestion_threshold()``'s "on" mark, cleared below its "off" mark); ``c_congestion_clear``:
calls of ``clear_bdi_congested()`` (each wakes every ``congestion_wait()`` sleeper);
``last_merge``: ``q->last_merge`` (-1 none); ``dl_last_sector``: the 2.5 deadline's ``last_sector``;
``c_*_merge``: bios merged at the back or front of a request, and requests merged into a neighbour."""

WL = enum("wl_type_t", "ASYNC_WORKLOAD SYNC_NOIDLE_WORKLOAD SYNC_WORKLOAD")
"""``enum wl_type_t``: the service trees of the best-effort class (rows of ``ST``)."""

# ---------------------------------------------------------------- R: requests
R_ = slots("R", """
    proc file sect nsect write sync t_issue t_insert t_dispatch t_complete state queue fifo start_j
    dstate done_t spin mlba t_dev cached cyl ang xfer ra_seen nomerge
""")
"""``t_issue``: the process submitted it; ``t_insert``: it entered the elevator (iostat's
start); ``fifo``: ``fifo_time`` (jiffies); ``start_j``: ``rq->start_time`` (jiffies);
``dstate``: :data:`DS`; ``done_t``: the device's completion time; ``mlba``: the member
disk's sector (RAID); ``cyl``/``ang``: cylinder and angle (ns into a revolution) of
``mlba``; ``xfer``: ns of media transfer; ``ra_seen``: read segments already checked;
``nomerge``: ``REQ_NOMERGE`` (a bio did not fit under ``max_sectors``: the request takes no more)."""

RS = enum("request_state", "free elevator device done page_cache alloc_wait")
"""``alloc_wait``: a bio whose process sleeps in ``get_request()`` for a request (``nr_requests``)."""
MERGE = enum("elv_merge", "ELEVATOR_NO_MERGE ELEVATOR_FRONT_MERGE ELEVATOR_BACK_MERGE")
"""What ``elv_merge()`` found for a bio (``include/linux/elevator.h``)."""
DS = enum("device_state", "none wait media done wcwait")
"""A command in the device: waiting for the media, in a media op, completing, waiting for
write-cache room."""

# ---------------------------------------------------------------- Q: CFQ queues
Q_ = slots("Q", """
    on_rr tree rbkey seq sync prio queued dispatched next_rq slice_start slice_end alloc_slice
    slice_dispatch slice_resid dispatch_start seek_hist last_req_pos
    f_idle_window f_deep f_wait_request f_must_dispatch f_slice_new f_wait_busy f_fifo_expire
    tt_last tt_samples tt_total tt_mean proc n svc_sum svc_n
    ttns_last ttns_samples ttns_total ttns_mean f_fast f_must_alloc_slice
""")
"""Fields of ``struct cfq_queue`` (``f_*``: its flags), the cic's think time (``tt_*``,
jiffies), ``n``: requests in ``QR``; ``svc_*``, ``ttns_*``, ``f_fast``: the 2011 patch's
service and think times (ns) and verdict."""

ST_ = slots("ST", "count tt_last tt_samples tt_total tt_mean")
"""A service tree: its queue count and (3.3+) its think time."""

FIFO = enum("elevator_fifo", "noop deadline_read deadline_write")
"""Rows of ``EL``: noop's FIFO, deadline's read and write FIFOs (``fifo_list[READ/WRITE]``)."""

DIR = enum("data_dir", "READ WRITE")  # rq_data_dir(): R_.write holds it

# ---------------------------------------------------------------- SP: spindles
SP_ = slots("SP", "busy_until op op_id cyl pf_on pf_t0 pf_pos0 pf_limit pf_lo ra_next busy_ns dirty ra_pushes")
"""``busy_until``: ns the current op ends (-1 idle); ``op``: :data:`SPOP`; ``pf_*``: the
read-ahead running while idle; ``ra_next``/``ra_pushes``: the ring of read segments;
``dirty``: dirty write-back extents of this spindle."""

SPOP = enum("spindle_op", "idle media destage")
RA_ = slots("RA", "lo hi")  # a read segment kept in the drive's cache: [lo, hi) member sectors

# ---------------------------------------------------------------- WC: write-back extents
WC_ = slots("WC", "s e state t spin")
WCS = enum("extent_state", "free dirty writing")

# ---------------------------------------------------------------- PR: processes, FI: files
PR_ = slots("PR", """
    state t f0 f1 inflight unreaped think think_jit sleep sleep_jit page_ns rng queue t_start t_end
    bytes reqs prio pool iter batch head nr_batch_requests last_waited wait_seq wait_rid wait_sync
""")
"""``t``: when it next runs; ``f0``..``f1``: its files; ``think``/``sleep`` (+ ``_jit``):
ns; ``page_ns``: CPU per page; ``rng``: its next uniform; ``pool``/``iter``/``batch``/
``head``: aio-stress's io units, ``-i``, ``-b`` and the head of its active list;
``nr_batch_requests``/``last_waited``: its io_context's request batching (blk-core);
``wait_seq``/``wait_rid``/``wait_sync``: its place in the request list's wait queue, the bio it
holds and its direction."""

PS = enum("process_state", "ready sleep wait done rqwait rqwoken")
"""``rqwait``: asleep in ``get_request()``; ``rqwoken``: woken by ``freed_request()``, runs at ``t``."""

FI_ = slots("FI", "start len pos req depth inflight write sync random total issued done pc_ppm proc turn ext stride "
                 "wtab")
"""``pc_ppm``: page-cache hit probability (parts per million); ``turn``: iocbs of the io_submit
being built that are still to go to this file (aio-stress); ``ext``/``stride``: the file lies in
extents of ``ext`` sectors, one every ``stride`` sectors (0: one contiguous extent); ``wtab``:
0, or the column where the file's table of turns starts (beyond the slots): for its extent
``k``, how many sectors it lies from its place in the regular order."""

# ---------------------------------------------------------------- EV: the event log
EV_ = slots("EV", "t code who a b")
EVT = enum("cfq_log", """
    none set_active slice_expired dispatch complete arm_idle idle_timer_fired preempt mark_deep clear_deep
    idle_window set_slice workload_slice insert
""")
"""Event codes, named after CFQ's blktrace messages (``EVT.arm_idle``...)."""

NEXT = enum("next_event", "spindle_op_end cmd_done idle_timer process")
"""What the event loop's next event is."""

__all__ = ["LAYOUT", "I", "SCHED", "S_", "WL", "R_", "RS", "MERGE", "DS", "Q_", "ST_", "FIFO", "DIR", "SP_", "SPOP", "RA_", "WC_",
           "WCS", "PR_", "PS", "FI_", "EV_", "EVT", "NEXT"]
