"""The event loop: processes issue I/O, the elevator dispatches, the device serves.

``run(...)`` is the whole simulation over pre-allocated int64 arrays and
pre-drawn uniforms (``U``, one row per process); it draws nothing itself, so
a seed fixes the run.  Events, in time order (ties: device, then the idle
timer, then processes, lowest index first):

* a spindle finishes a media op or a write-back (``disk_kernel``);
* the device completes a command: the elevator's completion hook runs, the
  process learns of it and the block layer runs the queue again;
* CFQ's idle timer fires (``cfq_idle_slice_timer``);
* a process wakes: after its think time it submits one plugged batch --
  a reader one request for every file that has room (its next read-ahead
  window); an aio-stress thread one round of ``run_active_list()`` (``-i``
  iocbs per file, at most ``-b`` per ``io_submit``), once it has the free
  io units for the whole round -- optionally sleeps (aio-stress with
  ``usleep``), then waits for a completion.

Page-cache hits (random reads of a file partly in memory) complete at once
and never reach the elevator.  The elevators are in ``elevator_kernel``
(noop, deadline) and ``cfq_kernel``; the request list and the elevator
interface in ``blk_core_kernel`` (shared with the writeback model); the
device in ``disk_kernel``.
"""

from ..engine import sibling, kernel_no_nrt as kernel, leaf_no_nrt as leaf
from .layout import (DS, EVT, FI_, I, NEXT, PR_, PS, Q_, R_, RS, S_, SCHED, SP_, ST_, WL)

_dk = sibling(__name__, "disk_kernel")
_el = sibling(__name__, "elevator_kernel")
_cfq = sibling(__name__, "cfq_kernel")
_blk = sibling(__name__, "blk_core_kernel")
dev_next_event = _dk.dev_next_event
spin_op_end = _dk.spin_op_end
cfq_idle_slice_timer = _cfq.cfq_idle_slice_timer
log_ev = _el.log_ev
jiffies = _el.jiffies
run_queue = _blk.run_queue
get_request = _blk.get_request
freed_request = _blk.freed_request
ioc_set_batching = _blk.ioc_set_batching
rq_sleep = _blk.rq_sleep
admit = _blk.admit
blk_finish_request = _blk.blk_finish_request
PAGE_SECTORS = 8  # PAGE_SIZE / 512
N_TREES = len(WL)


# ------------------------------------------------------------------ processes and the loop

@leaf
def next_u(P, PR, U, p):
    k = PR[p, PR_.rng]
    PR[p, PR_.rng] = k + 1
    return U[p, k % P[I.nu]]


@leaf
def file_sector(FI, f, offs):
    """Where sector ``offs`` of a file lies on the device, counted from the start of its first extent.

    A file written while other files grew beside it is laid out in extents (ext3: one reservation
    window each, ``alloc_new_reservation()``), the files' extents taking turns: offset ``offs``
    is in extent ``offs // ext``, which starts ``stride`` sectors after the one before, moved by the
    file's table of turns when the order in each round was drawn."""
    ext = FI[f, FI_.ext]
    if ext <= 0:
        return offs
    k = offs // ext
    at = k * FI[f, FI_.stride] + offs % ext
    if FI[f, FI_.wtab] > 0:  # the turns were drawn: this extent's place in its round
        at += FI[f, FI[f, FI_.wtab] + k]
    return at


@kernel
def think_ns(P, PR, FI, U, p):
    """Time from a completion (or a wake-up) to the next submission."""
    t = PR[p, PR_.think]
    if PR[p, PR_.think_jit] > 0:
        t += int(next_u(P, PR, U, p) * PR[p, PR_.think_jit])
    if PR[p, PR_.page_ns] > 0:
        pages = FI[PR[p, PR_.f0], FI_.req] // PAGE_SECTORS
        t += pages * PR[p, PR_.page_ns]
    return t


@kernel
def aio_round_size(PR, FI, p):
    """iocbs the next round of aio-stress's run_active_list() builds (0: every file is done).

    From the head of the active list, ``io_iter`` per file (fewer if the
    file has fewer left), stopping after a file once one more would pass
    ``max_io_submit`` or when every unfinished file has had its turn.
    """
    f0 = PR[p, PR_.f0]
    n = PR[p, PR_.f1] - f0
    it = PR[p, PR_.iter]
    built = 0
    f = PR[p, PR_.head]
    for _ in range(n):
        left = FI[f, FI_.total] - FI[f, FI_.issued]
        if left > 0:
            built += it if it < left else left
            if built + it > PR[p, PR_.batch]:
                break
        f += 1
        if f == f0 + n:
            f = f0
    return built


@kernel
def aio_plan_round(PR, FI, p):
    """The round aio_round_size() counts, as each file's turn (``FI_.turn``): the same walk of the list."""
    f0 = PR[p, PR_.f0]
    n = PR[p, PR_.f1] - f0
    it = PR[p, PR_.iter]
    built = 0
    f = PR[p, PR_.head]
    for _ in range(n):
        left = FI[f, FI_.total] - FI[f, FI_.issued]
        if left > 0:
            m = it if it < left else left
            FI[f, FI_.turn] = m
            built += m
            if built + it > PR[p, PR_.batch]:
                break
        f += 1
        if f == f0 + n:
            f = f0


@leaf
def proc_can_go(PR, FI, p):
    """May a waiting process run again? A reader once something completed; an aio-stress
    thread once it has free io units for its whole next round (or, when every iocb is
    issued, once nothing is in flight)."""
    if PR[p, PR_.pool] == 0:
        return PR[p, PR_.unreaped] > 0 or PR[p, PR_.inflight] == 0
    need = aio_round_size(PR, FI, p)
    if need == 0:
        return PR[p, PR_.inflight] == 0
    return PR[p, PR_.pool] - PR[p, PR_.inflight] >= need


@kernel
def proc_submit(P, S, R, Q, QR, ST, EL, EV, PR, FI, U, p):
    """Build and insert one plugged batch; returns how many requests reached the elevator.

    A reader: a request for every file with fewer than its depth in flight.
    An aio-stress thread: one round of run_active_list() (the caller checked
    that the io units are free; ``FI_.turn`` holds each file's share); the
    files served go to the list's tail.  A process that finds no free
    request sleeps in get_request() holding its bio (``PS.rqwait``), and
    goes on from there when woken.
    """
    now = S[S_.now]
    count = 0
    pool = PR[p, PR_.pool]
    f0 = PR[p, PR_.f0]
    nf = PR[p, PR_.f1] - f0
    f = PR[p, PR_.head] if pool > 0 else f0
    for _ in range(nf):
        lim = FI[f, FI_.depth]
        if pool > 0:
            lim = FI[f, FI_.inflight] + FI[f, FI_.turn]
        while FI[f, FI_.inflight] < lim and FI[f, FI_.issued] < FI[f, FI_.total]:
            rid = S[S_.next_rid]
            if rid >= P[I.nreq]:
                return count
            S[S_.next_rid] = rid + 1
            req = FI[f, FI_.req]
            if FI[f, FI_.random] != 0:
                nblk = FI[f, FI_.len] // req
                b = int(next_u(P, PR, U, p) * nblk)
                if b >= nblk:
                    b = nblk - 1
                offs = b * req
            else:
                offs = FI[f, FI_.pos]
                if offs + req > FI[f, FI_.len]:
                    offs = 0
                FI[f, FI_.pos] = offs + req
            R[rid, R_.proc] = p
            R[rid, R_.file] = f
            R[rid, R_.sect] = FI[f, FI_.start] + file_sector(FI, f, offs)
            R[rid, R_.nsect] = req
            R[rid, R_.write] = FI[f, FI_.write]
            R[rid, R_.sync] = FI[f, FI_.sync]
            R[rid, R_.t_issue] = now
            R[rid, R_.queue] = PR[p, PR_.queue] if FI[f, FI_.sync] != 0 else P[I.nproc]
            R[rid, R_.dstate] = 0
            R[rid, R_.done_t] = -1
            R[rid, R_.t_insert] = -1
            R[rid, R_.t_dispatch] = -1
            R[rid, R_.t_complete] = -1
            FI[f, FI_.issued] += 1
            if pool > 0:
                FI[f, FI_.turn] -= 1
            if FI[f, FI_.pc_ppm] > 0 and next_u(P, PR, U, p) * 1000000.0 < FI[f, FI_.pc_ppm]:
                # page-cache hit: done now, costs only the process's CPU
                R[rid, R_.state] = RS.page_cache
                R[rid, R_.t_complete] = now
                FI[f, FI_.done] += 1
                PR[p, PR_.unreaped] += 1
                PR[p, PR_.bytes] += req * 512
                PR[p, PR_.reqs] += 1
                break
            FI[f, FI_.inflight] += 1
            PR[p, PR_.inflight] += 1
            if not get_request(P, S, Q, PR, p, R[rid, R_.sync], R[rid, R_.queue]):
                R[rid, R_.state] = RS.alloc_wait
                rq_sleep(S, PR, p, rid, R[rid, R_.sync])
                if pool > 0:
                    PR[p, PR_.head] = f  # the rest of the round goes on from this file when woken
                return count
            admit(P, S, R, Q, QR, ST, EL, EV, p, rid)
            count += 1
        f += 1
        if f == f0 + nf:
            f = f0
        if pool > 0 and round_done(PR, FI, p):
            break
    if pool > 0:
        PR[p, PR_.head] = f
    return count


@leaf
def round_done(PR, FI, p):
    for f in range(PR[p, PR_.f0], PR[p, PR_.f1]):
        if FI[f, FI_.turn] > 0:
            return False
    return True


@kernel
def proc_finished(PR, FI, p):
    if PR[p, PR_.inflight] != 0:
        return False
    for f in range(PR[p, PR_.f0], PR[p, PR_.f1]):
        if FI[f, FI_.issued] < FI[f, FI_.total]:
            return False
    return True


@kernel
def sleep_or_wait_aio(P, S, PR, FI, U, p):
    """After an aio-stress thread's io_submit(): its usleep, its next round, or io_getevents()."""
    now = S[S_.now]
    if PR[p, PR_.sleep] > 0:
        sl = PR[p, PR_.sleep]
        if PR[p, PR_.sleep_jit] > 0:
            sl += int(next_u(P, PR, U, p) * PR[p, PR_.sleep_jit])
        PR[p, PR_.state] = PS.sleep
        PR[p, PR_.t] = now + sl
    elif proc_can_go(PR, FI, p):
        PR[p, PR_.state] = PS.ready
        PR[p, PR_.t] = now + think_ns(P, PR, FI, U, p)
    else:
        PR[p, PR_.state] = PS.wait


@kernel
def aio_event(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, p):
    """An aio-stress thread runs: io_submit() its round (io units permitting), usleep, or end."""
    now = S[S_.now]
    need = aio_round_size(PR, FI, p)
    if need == 0:
        if PR[p, PR_.inflight] == 0:
            PR[p, PR_.state] = PS.done
            PR[p, PR_.t_end] = now
            S[S_.ndone_proc] += 1
        else:
            PR[p, PR_.state] = PS.wait
        return
    if PR[p, PR_.pool] - PR[p, PR_.inflight] < need:
        PR[p, PR_.state] = PS.wait
        return
    aio_plan_round(PR, FI, p)
    n = proc_submit(P, S, R, Q, QR, ST, EL, EV, PR, FI, U, p)
    if n > 0:
        run_queue(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)
    if PR[p, PR_.state] != PS.rqwait:
        sleep_or_wait_aio(P, S, PR, FI, U, p)


@kernel
def after_reader_submit(P, S, PR, FI, U, p, n):
    """A reader after its batch: done, its usleep, the next batch (something already completed), or wait."""
    now = S[S_.now]
    if proc_finished(PR, FI, p) and PR[p, PR_.unreaped] == 0:
        PR[p, PR_.state] = PS.done
        PR[p, PR_.t_end] = now
        S[S_.ndone_proc] += 1
        return
    if n > 0 and PR[p, PR_.sleep] > 0:
        sl = PR[p, PR_.sleep]
        if PR[p, PR_.sleep_jit] > 0:
            sl += int(next_u(P, PR, U, p) * PR[p, PR_.sleep_jit])
        PR[p, PR_.state] = PS.sleep
        PR[p, PR_.t] = now + sl
    elif PR[p, PR_.unreaped] > 0:
        PR[p, PR_.state] = PS.ready
        PR[p, PR_.t] = now + think_ns(P, PR, FI, U, p)
    elif PR[p, PR_.inflight] > 0:
        PR[p, PR_.state] = PS.wait
    else:
        # nothing in flight and nothing could be built (request table full)
        PR[p, PR_.state] = PS.done
        PR[p, PR_.t_end] = now
        S[S_.ndone_proc] += 1


@kernel
def rq_woken(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, p):
    """A process woken in get_request(): now a batcher, it retries; with its request it goes on submitting."""
    ioc_set_batching(P, S, PR, p)
    rid = PR[p, PR_.wait_rid]
    if not get_request(P, S, Q, PR, p, R[rid, R_.sync], R[rid, R_.queue]):
        rq_sleep(S, PR, p, rid, R[rid, R_.sync])
        return
    PR[p, PR_.wait_rid] = -1
    PR[p, PR_.state] = PS.ready
    admit(P, S, R, Q, QR, ST, EL, EV, p, rid)
    n = 1 + proc_submit(P, S, R, Q, QR, ST, EL, EV, PR, FI, U, p)
    run_queue(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)
    if PR[p, PR_.state] == PS.rqwait:
        return
    if PR[p, PR_.pool] > 0:
        sleep_or_wait_aio(P, S, PR, FI, U, p)
    else:
        after_reader_submit(P, S, PR, FI, U, p, n)


@kernel
def proc_event(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, p):
    now = S[S_.now]
    st = PR[p, PR_.state]
    if st == PS.sleep:
        if proc_can_go(PR, FI, p):
            PR[p, PR_.state] = PS.ready
            PR[p, PR_.t] = now + think_ns(P, PR, FI, U, p)
        else:
            PR[p, PR_.state] = PS.wait
        return
    if st == PS.rqwoken:
        rq_woken(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, p)
        return
    # PS.ready: reap what completed, submit the next batch
    PR[p, PR_.unreaped] = 0
    if PR[p, PR_.pool] > 0:
        aio_event(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, p)
        return
    n = proc_submit(P, S, R, Q, QR, ST, EL, EV, PR, FI, U, p)
    if n > 0:
        run_queue(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)
    if PR[p, PR_.state] != PS.rqwait:
        after_reader_submit(P, S, PR, FI, U, p, n)


@kernel
def host_complete(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, rid):
    """The device completed ``rid``: elevator hook, the request freed, the process, the next dispatch."""
    now = S[S_.now]
    blk_finish_request(P, S, R, Q, QR, ST, EV, PR, DC, rid)
    p = R[rid, R_.proc]
    f = R[rid, R_.file]
    FI[f, FI_.inflight] -= 1
    FI[f, FI_.done] += 1
    PR[p, PR_.inflight] -= 1
    PR[p, PR_.unreaped] += 1
    PR[p, PR_.bytes] += R[rid, R_.nsect] * 512
    PR[p, PR_.reqs] += 1
    if PR[p, PR_.state] == PS.wait and proc_can_go(PR, FI, p):
        PR[p, PR_.state] = PS.ready
        PR[p, PR_.t] = now + think_ns(P, PR, FI, U, p)
    run_queue(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)


@kernel
def init_state(P, S, Q, PR):
    nproc = P[I.nproc]
    S[S_.active] = -1
    S[S_.active_cic] = -1
    S[S_.idle_timer] = -1
    S[S_.hw_tag] = -1
    S[S_.last_delayed_sync] = -P[I.HZ]
    S[S_.dl_next_r] = -1
    S[S_.dl_next_w] = -1
    for q in range(Q.shape[0]):
        Q[q, Q_.tree] = -1
        Q[q, Q_.next_rq] = -1
        if q < nproc:
            Q[q, Q_.sync] = 1
            Q[q, Q_.prio] = PR[q, PR_.prio]
            Q[q, Q_.proc] = q
            Q[q, Q_.f_idle_window] = 1  # cfq_init_cfqq() marks sync queues idle_window
        else:
            Q[q, Q_.sync] = 0
            Q[q, Q_.prio] = 4
            Q[q, Q_.proc] = -1
        Q[q, Q_.tt_last] = 0
    for p in range(nproc):
        PR[p, PR_.head] = PR[p, PR_.f0]
        PR[p, PR_.queue] = p
        PR[p, PR_.state] = PS.ready
        PR[p, PR_.t] = PR[p, PR_.t_start]
        PR[p, PR_.t_end] = -1
        PR[p, PR_.wait_rid] = -1


@leaf
def violation(S, code):
    if S[S_.audit] == 0:
        S[S_.audit_code] = code
    S[S_.audit] += 1


@kernel
def audit(P, S, Q, ST, PR, FI):
    """The invariants, after an event: counts never negative and consistent with each other."""
    nq = Q.shape[0]
    queued = 0
    dispatched = 0
    on_rr = 0
    on_tree = 0
    for q in range(nq):
        if Q[q, Q_.n] < 0 or Q[q, Q_.dispatched] < 0 or Q[q, Q_.queued] != Q[q, Q_.n]:
            violation(S, 1)
        queued += Q[q, Q_.queued]
        dispatched += Q[q, Q_.dispatched]
        if Q[q, Q_.on_rr] != 0:
            on_rr += 1
    for t in range(N_TREES):
        if ST[t, ST_.count] < 0:
            violation(S, 2)
        on_tree += ST[t, ST_.count]
    if P[I.scheduler] == SCHED.cfq:
        if queued != S[S_.rq_queued]:
            violation(S, 3)
        if dispatched != S[S_.rq_in_driver] or S[S_.rq_in_driver] != S[S_.in_flight_sync] + S[S_.in_flight_async]:
            violation(S, 4)
        if S[S_.busy_queues] != on_rr or S[S_.nr_cfqq] != on_rr or on_tree != on_rr or S[S_.busy_sync] < 0:
            violation(S, 5)
    if S[S_.el_n] < 0 or S[S_.dl_n_r] < 0 or S[S_.dl_n_w] < 0:
        violation(S, 6)
    if S[S_.dev_n] < 0 or S[S_.dev_n] > P[I.ncq_depth] or S[S_.ww_n] < 0:
        violation(S, 7)
    if S[S_.wc_used] < 0 or S[S_.wc_used] > P[I.write_cache_kb]:
        violation(S, 8)
    for d in range(2):  # the request list: never negative, never past 3/2 of nr_requests
        if S[S_.rl_count_async + d] < 0 or S[S_.rl_count_async + d] > 3 * P[I.nr_requests] // 2:
            violation(S, 12)
    for p in range(PR.shape[0]):
        infl = 0
        for f in range(PR[p, PR_.f0], PR[p, PR_.f1]):
            if FI[f, FI_.inflight] < 0 or FI[f, FI_.inflight] > FI[f, FI_.depth] or FI[f, FI_.proc] != p:
                violation(S, 9)
            infl += FI[f, FI_.inflight]
        if infl != PR[p, PR_.inflight]:
            violation(S, 10)


@kernel
def run(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U):
    """Run the simulation to the end (every process done) or to ``P[I.t_max_ns]``."""
    init_state(P, S, Q, PR)
    nproc = P[I.nproc]
    while True:
        S[S_.events] += 1
        t, kind, idx = dev_next_event(P, S, R, SP, DC)
        tt = S[S_.idle_timer]
        if tt >= 0 and (t < 0 or tt < t):
            t = tt
            kind = NEXT.idle_timer
            idx = -1
        for p in range(nproc):
            st = PR[p, PR_.state]
            if (st == PS.ready or st == PS.sleep or st == PS.rqwoken) and (t < 0 or PR[p, PR_.t] < t):
                t = PR[p, PR_.t]
                kind = NEXT.process
                idx = p
        if t < 0 or t > P[I.t_max_ns]:
            break
        if t < S[S_.now]:
            violation(S, 11)  # time went backward
        S[S_.now] = t
        if kind == NEXT.spindle_op_end:
            spin_op_end(P, S, R, SP, RA, WC, WW, DC, SEEK, idx, t)
        elif kind == NEXT.cmd_done:
            host_complete(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, idx)
        elif kind == NEXT.idle_timer:
            if cfq_idle_slice_timer(P, S, Q, ST, EV):
                run_queue(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)
        else:
            proc_event(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, idx)
        if P[I.audit] != 0:
            audit(P, S, Q, ST, PR, FI)
        if S[S_.ndone_proc] >= nproc:
            break
    return S[S_.now]
