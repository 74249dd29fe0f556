"""The event loop: processes issue I/O, the elevator dispatches, the device serves.

``run(...)`` is the whole simulation over pre-allocated int64 arrays and
pre-drawn uniforms (``U``, one row per process); it draws nothing itself, so
a seed fixes the run.  Events, in time order (ties: device, then the idle
timer, then processes, lowest index first):

* a spindle finishes a media op or a write-back (``_disk_kernel``);
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
and never reach the elevator.
"""

from ._cfq_layout import (
    DS_DONE, EV_COMPLETE, EV_DISPATCH, EV_INSERT, P_AUDIT, P_NCQ_DEPTH, P_WC_CAP,
    Q_DISPATCHED, Q_N, Q_ON_RR, Q_QUEUED, S_AUDIT, S_AUDIT_CODE, S_BUSY_QUEUES, S_BUSY_SYNC,
    S_IN_FLIGHT_ASYNC, S_IN_FLIGHT_SYNC, S_NR_CFQQ, S_RQ_IN_DRIVER, S_RQ_QUEUED, S_WC_USED, S_WW_N,
    S_EL_N, S_DL_N_R, S_DL_N_W, ST_COUNT,
    FI_DEPTH, FI_DONE, FI_INFLIGHT, FI_ISSUED, FI_LEN, FI_PC_PPM, FI_POS, FI_RANDOM, FI_REQ,
    FI_PROC, FI_START, FI_SYNC, FI_TOTAL, FI_WRITE,
    P_NCQ_DEPTH, P_NPROC, P_NREQ, P_NU, P_PAGE_SECT, P_SCHED, P_T_MAX, P_HZ, P_NSPIN,
    PR_BATCH, PR_HEAD, PR_ITER, PR_POOL,
    PR_BYTES, PR_F0, PR_F1, PR_INFLIGHT, PR_PAGE_NS, PR_PRIO, PR_QUEUE, PR_REQS, PR_RNG,
    PR_SLEEP, PR_SLEEP_JIT, PR_STATE, PR_T, PR_THINK, PR_THINK_JIT, PR_T_END, PR_T_START,
    PR_UNREAPED, PS_DONE, PS_READY, PS_SLEEP, PS_WAIT,
    Q_F_IDLE_WINDOW, Q_NEXT_RQ, Q_PRIO, Q_PROC, Q_SYNC, Q_TREE, Q_TT_LAST,
    R_FILE, R_NSECT, R_PROC, R_QUEUE, R_SECT, R_STATE, R_SYNC, R_T_COMPLETE, R_T_DISPATCH,
    R_T_INSERT, R_T_ISSUE, R_WRITE, R_DSTATE, R_DONE_T,
    RS_DEV, RS_DONE, RS_ELV, RS_PCHIT,
    S_ACTIVE, S_ACTIVE_CIC, S_DEV_N, S_DL_NEXT_R, S_DL_NEXT_W, S_EVENTS, S_HW_TAG,
    S_IDLE_TIMER, S_LAST_DELAYED_SYNC, S_NDONE_PROC, S_NEXT_RID, S_NOW,
    SP_BUSY_UNTIL,
)
from ._jit import borrowed, drop_stale_cache, kernel, leaf, sibling

if not __name__.endswith("_pure"):
    drop_stale_cache()
_dk = sibling(__name__, "_disk_kernel")
_sk = sibling(__name__, "_sched_kernel")
dev_submit = _dk.dev_submit
dev_remove = _dk.dev_remove
dev_next_event = _dk.dev_next_event
spin_op_end = _dk.spin_op_end
elv_add_request = _sk.elv_add_request
elv_dispatch = _sk.elv_dispatch
elv_completed = _sk.elv_completed
cfq_idle_slice_timer = _sk.cfq_idle_slice_timer
log_ev = _sk.log_ev
borrow = borrowed(__name__)


@leaf
def next_u(P, PR, U, p):
    k = PR[p, PR_RNG]
    PR[p, PR_RNG] = k + 1
    return U[p, k % P[P_NU]]


@kernel
def think_ns(P, PR, FI, U, p):
    """Time from a completion (or a wake-up) to the next submission."""
    t = PR[p, PR_THINK]
    if PR[p, PR_THINK_JIT] > 0:
        t += int(next_u(P, PR, U, p) * PR[p, PR_THINK_JIT])
    if PR[p, PR_PAGE_NS] > 0:
        pages = FI[PR[p, PR_F0], FI_REQ] // P[P_PAGE_SECT]
        t += pages * PR[p, PR_PAGE_NS]
    return t


@kernel
def run_queue(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK):
    """__blk_run_queue(): move requests from the elevator to the device while it has free tags."""
    while S[S_DEV_N] < P[P_NCQ_DEPTH]:
        rid = elv_dispatch(P, S, R, Q, QR, ST, EL, EV)
        if rid < 0:
            break
        R[rid, R_STATE] = RS_DEV
        R[rid, R_T_DISPATCH] = S[S_NOW]
        if P[P_SCHED] != 2:
            log_ev(P, S, EV, EV_DISPATCH, R[rid, R_PROC], rid, R[rid, R_SECT])
        dev_submit(P, S, R, SP, RA, WC, WW, DC, SEEK, rid, S[S_NOW])


@kernel
def aio_round_size(PR, FI, p):
    """iocbs the next round of aio-stress's run_active_list() builds (0: every file is done).

    From the head of the active list, ``io_iter`` per file (fewer if the
    file has fewer left), stopping after a file once one more would pass
    ``max_io_submit`` or when every unfinished file has had its turn.
    """
    f0 = PR[p, PR_F0]
    n = PR[p, PR_F1] - f0
    it = PR[p, PR_ITER]
    built = 0
    f = PR[p, PR_HEAD]
    for _ in range(n):
        left = FI[f, FI_TOTAL] - FI[f, FI_ISSUED]
        if left > 0:
            built += it if it < left else left
            if built + it > PR[p, PR_BATCH]:
                break
        f += 1
        if f == f0 + n:
            f = f0
    return built


@leaf
def proc_can_go(PR, FI, p):
    """May a waiting process run again? A reader once something completed; an aio-stress
    thread once it has free io units for its whole next round (or, when every iocb is
    issued, once nothing is in flight)."""
    if PR[p, PR_POOL] == 0:
        return PR[p, PR_UNREAPED] > 0 or PR[p, PR_INFLIGHT] == 0
    need = aio_round_size(PR, FI, p)
    if need == 0:
        return PR[p, PR_INFLIGHT] == 0
    return PR[p, PR_POOL] - PR[p, PR_INFLIGHT] >= need


@kernel
def proc_submit(P, S, R, Q, QR, ST, EL, EV, PR, FI, U, p):
    """Build and insert one plugged batch; returns how many requests reached the elevator.

    A reader: a request for every file with fewer than its depth in flight.
    An aio-stress thread: one round of run_active_list() (the caller checked
    that the io units are free); the files served go to the list's tail.
    """
    now = S[S_NOW]
    count = 0
    pool = PR[p, PR_POOL]
    f0 = PR[p, PR_F0]
    nf = PR[p, PR_F1] - f0
    built = 0
    f = PR[p, PR_HEAD] if pool > 0 else f0
    for _ in range(nf):
        lim = FI[f, FI_DEPTH]
        if pool > 0:
            left = FI[f, FI_TOTAL] - FI[f, FI_ISSUED]
            if left <= 0:
                f += 1
                if f == f0 + nf:
                    f = f0
                continue
            m = PR[p, PR_ITER] if PR[p, PR_ITER] < left else left
            lim = FI[f, FI_INFLIGHT] + m
            built += m
        while FI[f, FI_INFLIGHT] < lim and FI[f, FI_ISSUED] < FI[f, FI_TOTAL]:
            rid = S[S_NEXT_RID]
            if rid >= P[P_NREQ]:
                return count
            S[S_NEXT_RID] = rid + 1
            req = FI[f, FI_REQ]
            if FI[f, FI_RANDOM] != 0:
                nblk = FI[f, FI_LEN] // req
                b = int(next_u(P, PR, U, p) * nblk)
                if b >= nblk:
                    b = nblk - 1
                offs = b * req
            else:
                offs = FI[f, FI_POS]
                if offs + req > FI[f, FI_LEN]:
                    offs = 0
                FI[f, FI_POS] = offs + req
            R[rid, R_PROC] = p
            R[rid, R_FILE] = f
            R[rid, R_SECT] = FI[f, FI_START] + offs
            R[rid, R_NSECT] = req
            R[rid, R_WRITE] = FI[f, FI_WRITE]
            R[rid, R_SYNC] = FI[f, FI_SYNC]
            R[rid, R_T_ISSUE] = now
            R[rid, R_QUEUE] = PR[p, PR_QUEUE] if FI[f, FI_SYNC] != 0 else P[P_NPROC]
            R[rid, R_DSTATE] = 0
            R[rid, R_DONE_T] = -1
            R[rid, R_T_INSERT] = -1
            R[rid, R_T_DISPATCH] = -1
            R[rid, R_T_COMPLETE] = -1
            FI[f, FI_ISSUED] += 1
            if FI[f, FI_PC_PPM] > 0 and next_u(P, PR, U, p) * 1000000.0 < FI[f, FI_PC_PPM]:
                # page-cache hit: done now, costs only the process's CPU
                R[rid, R_STATE] = RS_PCHIT
                R[rid, R_T_COMPLETE] = now
                FI[f, FI_DONE] += 1
                PR[p, PR_UNREAPED] += 1
                PR[p, PR_BYTES] += req * 512
                PR[p, PR_REQS] += 1
                break
            FI[f, FI_INFLIGHT] += 1
            PR[p, PR_INFLIGHT] += 1
            R[rid, R_STATE] = RS_ELV
            R[rid, R_T_INSERT] = now
            if P[P_SCHED] != 2:
                log_ev(P, S, EV, EV_INSERT, p, rid, R[rid, R_SECT])
            elv_add_request(P, S, R, Q, QR, ST, EL, EV, rid)
            count += 1
        f += 1
        if f == f0 + nf:
            f = f0
        if pool > 0 and built + PR[p, PR_ITER] > PR[p, PR_BATCH]:
            break
    if pool > 0:
        PR[p, PR_HEAD] = f
    return count


@kernel
def proc_finished(PR, FI, p):
    if PR[p, PR_INFLIGHT] != 0:
        return False
    for f in range(PR[p, PR_F0], PR[p, PR_F1]):
        if FI[f, FI_ISSUED] < FI[f, FI_TOTAL]:
            return False
    return True


@kernel
def aio_event(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, p):
    """An aio-stress thread runs: io_submit() its round (io units permitting), usleep, or end."""
    now = S[S_NOW]
    need = aio_round_size(PR, FI, p)
    if need == 0:
        if PR[p, PR_INFLIGHT] == 0:
            PR[p, PR_STATE] = PS_DONE
            PR[p, PR_T_END] = now
            S[S_NDONE_PROC] += 1
        else:
            PR[p, PR_STATE] = PS_WAIT
        return
    if PR[p, PR_POOL] - PR[p, PR_INFLIGHT] < need:
        PR[p, PR_STATE] = PS_WAIT
        return
    n = proc_submit(P, S, R, Q, QR, ST, EL, EV, PR, FI, U, p)
    if n > 0:
        run_queue(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)
    if PR[p, PR_SLEEP] > 0:
        sl = PR[p, PR_SLEEP]
        if PR[p, PR_SLEEP_JIT] > 0:
            sl += int(next_u(P, PR, U, p) * PR[p, PR_SLEEP_JIT])
        PR[p, PR_STATE] = PS_SLEEP
        PR[p, PR_T] = now + sl
    elif proc_can_go(PR, FI, p):
        PR[p, PR_STATE] = PS_READY
        PR[p, PR_T] = now + think_ns(P, PR, FI, U, p)
    else:
        PR[p, PR_STATE] = PS_WAIT


@kernel
def proc_event(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, p):
    now = S[S_NOW]
    st = PR[p, PR_STATE]
    if st == PS_SLEEP:
        if proc_can_go(PR, FI, p):
            PR[p, PR_STATE] = PS_READY
            PR[p, PR_T] = now + think_ns(P, PR, FI, U, p)
        else:
            PR[p, PR_STATE] = PS_WAIT
        return
    # PS_READY: reap what completed, submit the next batch
    PR[p, PR_UNREAPED] = 0
    if PR[p, PR_POOL] > 0:
        aio_event(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, p)
        return
    n = proc_submit(P, S, R, Q, QR, ST, EL, EV, PR, FI, U, p)
    if n > 0:
        run_queue(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)
    if proc_finished(PR, FI, p) and PR[p, PR_UNREAPED] == 0:
        PR[p, PR_STATE] = PS_DONE
        PR[p, PR_T_END] = now
        S[S_NDONE_PROC] += 1
        return
    if n > 0 and PR[p, PR_SLEEP] > 0:
        sl = PR[p, PR_SLEEP]
        if PR[p, PR_SLEEP_JIT] > 0:
            sl += int(next_u(P, PR, U, p) * PR[p, PR_SLEEP_JIT])
        PR[p, PR_STATE] = PS_SLEEP
        PR[p, PR_T] = now + sl
    elif PR[p, PR_UNREAPED] > 0:
        PR[p, PR_STATE] = PS_READY
        PR[p, PR_T] = now + think_ns(P, PR, FI, U, p)
    elif PR[p, PR_INFLIGHT] > 0:
        PR[p, PR_STATE] = PS_WAIT
    else:
        # nothing in flight and nothing could be built (request table full)
        PR[p, PR_STATE] = PS_DONE
        PR[p, PR_T_END] = now
        S[S_NDONE_PROC] += 1


@kernel
def host_complete(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, rid):
    """The device completed ``rid``: elevator hook, the process, the next dispatch."""
    now = S[S_NOW]
    dev_remove(S, DC, rid)
    R[rid, R_STATE] = RS_DONE
    R[rid, R_T_COMPLETE] = now
    if P[P_SCHED] != 2:
        log_ev(P, S, EV, EV_COMPLETE, R[rid, R_PROC], rid, 0)
    elv_completed(P, S, R, Q, QR, ST, EV, rid)
    p = R[rid, R_PROC]
    f = R[rid, R_FILE]
    FI[f, FI_INFLIGHT] -= 1
    FI[f, FI_DONE] += 1
    PR[p, PR_INFLIGHT] -= 1
    PR[p, PR_UNREAPED] += 1
    PR[p, PR_BYTES] += R[rid, R_NSECT] * 512
    PR[p, PR_REQS] += 1
    if PR[p, PR_STATE] == PS_WAIT and proc_can_go(PR, FI, p):
        PR[p, PR_STATE] = PS_READY
        PR[p, PR_T] = now + think_ns(P, PR, FI, U, p)
    run_queue(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)


@kernel
def init_state(P, S, Q, PR):
    nproc = P[P_NPROC]
    S[S_ACTIVE] = -1
    S[S_ACTIVE_CIC] = -1
    S[S_IDLE_TIMER] = -1
    S[S_HW_TAG] = -1
    S[S_LAST_DELAYED_SYNC] = -P[P_HZ]
    S[S_DL_NEXT_R] = -1
    S[S_DL_NEXT_W] = -1
    for q in range(Q.shape[0]):
        Q[q, Q_TREE] = -1
        Q[q, Q_NEXT_RQ] = -1
        if q < nproc:
            Q[q, Q_SYNC] = 1
            Q[q, Q_PRIO] = PR[q, PR_PRIO]
            Q[q, Q_PROC] = q
            Q[q, Q_F_IDLE_WINDOW] = 1  # cfq_init_cfqq() marks sync queues idle_window
        else:
            Q[q, Q_SYNC] = 0
            Q[q, Q_PRIO] = 4
            Q[q, Q_PROC] = -1
        Q[q, Q_TT_LAST] = 0
    for p in range(nproc):
        PR[p, PR_HEAD] = PR[p, PR_F0]
        PR[p, PR_QUEUE] = p
        PR[p, PR_STATE] = PS_READY
        PR[p, PR_T] = PR[p, PR_T_START]
        PR[p, PR_T_END] = -1


@leaf
def violation(S, code):
    if S[S_AUDIT] == 0:
        S[S_AUDIT_CODE] = code
    S[S_AUDIT] += 1


@kernel
def audit(P, S, Q, ST, PR, FI):
    """The invariants, after an event: counts never negative and consistent with each other."""
    nq = Q.shape[0]
    queued = 0
    dispatched = 0
    on_rr = 0
    on_tree = 0
    for q in range(nq):
        if Q[q, Q_N] < 0 or Q[q, Q_DISPATCHED] < 0 or Q[q, Q_QUEUED] != Q[q, Q_N]:
            violation(S, 1)
        queued += Q[q, Q_QUEUED]
        dispatched += Q[q, Q_DISPATCHED]
        if Q[q, Q_ON_RR] != 0:
            on_rr += 1
    for t in range(3):
        if ST[t, ST_COUNT] < 0:
            violation(S, 2)
        on_tree += ST[t, ST_COUNT]
    if P[P_SCHED] == 2:
        if queued != S[S_RQ_QUEUED]:
            violation(S, 3)
        if dispatched != S[S_RQ_IN_DRIVER] or S[S_RQ_IN_DRIVER] != S[S_IN_FLIGHT_SYNC] + S[S_IN_FLIGHT_ASYNC]:
            violation(S, 4)
        if S[S_BUSY_QUEUES] != on_rr or S[S_NR_CFQQ] != on_rr or on_tree != on_rr or S[S_BUSY_SYNC] < 0:
            violation(S, 5)
    if S[S_EL_N] < 0 or S[S_DL_N_R] < 0 or S[S_DL_N_W] < 0:
        violation(S, 6)
    if S[S_DEV_N] < 0 or S[S_DEV_N] > P[P_NCQ_DEPTH] or S[S_WW_N] < 0:
        violation(S, 7)
    if S[S_WC_USED] < 0 or S[S_WC_USED] > P[P_WC_CAP]:
        violation(S, 8)
    for p in range(PR.shape[0]):
        infl = 0
        for f in range(PR[p, PR_F0], PR[p, PR_F1]):
            if FI[f, FI_INFLIGHT] < 0 or FI[f, FI_INFLIGHT] > FI[f, FI_DEPTH] or FI[f, FI_PROC] != p:
                violation(S, 9)
            infl += FI[f, FI_INFLIGHT]
        if infl != PR[p, PR_INFLIGHT]:
            violation(S, 10)


@kernel
def run(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U):
    """Run the simulation to the end (every process done) or to ``P[P_T_MAX]``."""
    P = borrow(P)
    S = borrow(S)
    R = borrow(R)
    Q = borrow(Q)
    QR = borrow(QR)
    ST = borrow(ST)
    EL = borrow(EL)
    EV = borrow(EV)
    SP = borrow(SP)
    RA = borrow(RA)
    WC = borrow(WC)
    WW = borrow(WW)
    DC = borrow(DC)
    SEEK = borrow(SEEK)
    PR = borrow(PR)
    FI = borrow(FI)
    U = borrow(U)
    init_state(P, S, Q, PR)
    nproc = P[P_NPROC]
    while True:
        S[S_EVENTS] += 1
        t, kind, idx = dev_next_event(P, S, R, SP, DC)
        tt = S[S_IDLE_TIMER]
        if tt >= 0 and (t < 0 or tt < t):
            t = tt
            kind = 2
            idx = -1
        for p in range(nproc):
            st = PR[p, PR_STATE]
            if (st == PS_READY or st == PS_SLEEP) and (t < 0 or PR[p, PR_T] < t):
                t = PR[p, PR_T]
                kind = 3
                idx = p
        if t < 0 or t > P[P_T_MAX]:
            break
        if t < S[S_NOW]:
            violation(S, 11)  # time went backward
        S[S_NOW] = t
        if kind == 0:
            spin_op_end(P, S, R, SP, RA, WC, WW, DC, SEEK, idx, t)
        elif kind == 1:
            host_complete(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, idx)
        elif kind == 2:
            if cfq_idle_slice_timer(P, S, Q, ST, EV):
                run_queue(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)
        else:
            proc_event(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR, FI, U, idx)
        if P[P_AUDIT] != 0:
            audit(P, S, Q, ST, PR, FI)
        if S[S_NDONE_PROC] >= nproc:
            break
    return S[S_NOW]
