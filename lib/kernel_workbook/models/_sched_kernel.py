"""The elevators of the event loop: noop, deadline and CFQ, as in 3.1 and 3.16.

Each function mirrors the kernel function of the same name (block/
noop-iosched.c, block/deadline-iosched.c, block/cfq-iosched.c); the
comments say where the model departs from it.  CFQ's times are jiffies, as
in the kernel (``jiffies = now_ns // P[P_JIF]``), and its integer
arithmetic is the kernel's (unsigned differences are guarded where the
kernel would wrap).  One cgroup (the root group), best-effort class only;
queue merging of close cooperators (cfq_setup_merge) is not modelled: a
close cooperator is still served next, it just keeps its own queue.

Version differences are flags in ``P`` (see ``cfq_params.py``):
``P_TTIME_BIG`` (3.3+ service-tree and group think time), the deep-queue
variants of the 2011 thread (``P_MARK_DEEP``, ``P_DEEP_FAST_CLEAR``,
``P_DEEP_CLEAR_ALWAYS``, ``P_DEEP_PATLASOV``), ``P_PREEMPT_IDLE_QUEUE`` and
``P_PROMOTE_SYNC``.
"""

from ._cfq_layout import (
    ASYNC_WORKLOAD, EV_ARM_IDLE, EV_DEEP_CLEAR, EV_DEEP_SET, EV_DISPATCH, EV_EXPIRE,
    EV_IDLE_FIRE, EV_IDLE_WINDOW, EV_INSERT, EV_PREEMPT, EV_SET_ACTIVE, EV_SET_SLICE,
    EV_WORKLOAD, EV_COMPLETE,
    P_BACK_MAX, P_BACK_PENALTY, P_DEEP_CLEAR_ALWAYS, P_DEEP_FAST_CLEAR, P_DEEP_PATLASOV,
    P_DL_FIFO_BATCH, P_DL_READ_EXPIRE, P_DL_WRITE_EXPIRE, P_DL_WRITES_STARVED,
    P_FIFO_EXP_ASYNC, P_FIFO_EXP_SYNC, P_GROUP_IDLE, P_HIST_DIVISOR, P_HZ, P_JIF,
    P_LATENCY, P_LOG_CAP, P_MARK_DEEP, P_NONROT, P_NPROC, P_PAGE_SECT, P_PREEMPT_IDLE_QUEUE,
    P_PROMOTE_SYNC, P_QUANTUM, P_SCHED, P_SLICE_ASYNC, P_SLICE_ASYNC_RQ, P_SLICE_IDLE,
    P_SLICE_SYNC, P_TARGET_LATENCY, P_TTIME_BIG,
    Q_ALLOC_SLICE, Q_DISPATCHED, Q_DISPATCH_START, Q_F_DEEP, Q_F_FAST, Q_F_FIFO_EXPIRE,
    Q_F_IDLE_WINDOW, Q_F_MUST_DISPATCH, Q_F_SLICE_NEW, Q_F_WAIT_BUSY, Q_F_WAIT_REQUEST,
    Q_LAST_REQ_POS, Q_N, Q_NEXT_RQ, Q_ON_RR, Q_PRIO, Q_PROC, Q_QUEUED, Q_RBKEY,
    Q_SEEK_HIST, Q_SEQ, Q_SLICE_DISPATCH, Q_SLICE_END, Q_SLICE_RESID, Q_SLICE_START,
    Q_SVC_N, Q_SVC_SUM, Q_SYNC, Q_TREE, Q_TT_LAST, Q_TT_MEAN, Q_TT_SAMPLES, Q_TT_TOTAL,
    Q_TTNS_LAST, Q_TTNS_MEAN, Q_TTNS_SAMPLES, Q_TTNS_TOTAL,
    R_FIFO, R_NSECT, R_QUEUE, R_SECT, R_START_J, R_SYNC, R_T_COMPLETE, R_T_DISPATCH,
    R_WRITE,
    S_ACTIVE, S_ACTIVE_CIC, S_BQ_AVG, S_BUSY_QUEUES, S_BUSY_SYNC, S_C_ARM_IDLE,
    S_C_DEEP_CLEAR, S_C_DEEP_SET, S_C_DISPATCH, S_C_COMPLETE, S_C_IDLE_FIRED, S_C_IDLE_NS,
    S_C_PREEMPT, S_C_SLICES, S_DL_BATCHING, S_DL_NEXT_R, S_DL_NEXT_W, S_DL_N_R, S_DL_N_W,
    S_DL_STARVED, S_EL_N, S_GRP_DISPATCHED, S_GRP_TT_LAST, S_GRP_TT_MEAN, S_GRP_TT_SAMPLES,
    S_GRP_TT_TOTAL, S_HW_TAG, S_HW_TAG_EST, S_HW_TAG_SAMPLES, S_IDLE_ARMED_AT,
    S_IDLE_TIMER, S_IN_FLIGHT_ASYNC, S_IN_FLIGHT_SYNC, S_LAST_DELAYED_SYNC, S_LAST_POS,
    S_LOG_N, S_NOW, S_NR_CFQQ, S_RQ_IN_DRIVER, S_RQ_QUEUED, S_SAVED_WL_SLICE,
    S_SAVED_WL_TYPE, S_SEQ, S_SERVING_TYPE, S_WL_EXPIRES,
    ST_COUNT, ST_TT_LAST, ST_TT_MEAN, ST_TT_SAMPLES, ST_TT_TOTAL,
    SYNC_NOIDLE_WORKLOAD, SYNC_WORKLOAD,
)
from ._jit import kernel, leaf

CFQ_MIN_TT = 2  # jiffies; below this think time counts as immediate
CFQ_SLICE_SCALE = 5
CFQ_HW_QUEUE_MIN = 5
CFQQ_SEEK_THR = 8 * 100  # sectors
CFQQ_CLOSE_THR = 8 * 1024  # sectors
SAMPLE_VALID = 80  # sample_valid(samples): samples > 80
INF_J = 1 << 60


# ------------------------------------------------------------------ helpers

@leaf
def jiffies(P, S):
    return S[S_NOW] // P[P_JIF]


@leaf
def log_ev(P, S, EV, code, who, a, b):
    n = S[S_LOG_N]
    if n < P[P_LOG_CAP]:
        EV[n, 0] = S[S_NOW]
        EV[n, 1] = code
        EV[n, 2] = who
        EV[n, 3] = a
        EV[n, 4] = b
        S[S_LOG_N] = n + 1


@leaf
def popcount32(x):
    x = x & 0xFFFFFFFF
    c = 0
    while x != 0:
        x &= x - 1
        c += 1
    return c


@leaf
def cfqq_seeky(Q, q):
    """CFQQ_SEEKY(): more than 32/8 of the last 32 requests were seeks."""
    return popcount32(Q[q, Q_SEEK_HIST]) > 4


@leaf
def cfqq_type(Q, q):
    """cfqq_type(): ASYNC, SYNC_NOIDLE or SYNC from the queue's flags."""
    if Q[q, Q_SYNC] == 0:
        return ASYNC_WORKLOAD
    if Q[q, Q_F_IDLE_WINDOW] == 0:
        return SYNC_NOIDLE_WORKLOAD
    return SYNC_WORKLOAD


@kernel
def ttime_update(last, samples, total, slice_idle, j):
    """__cfq_update_io_thinktime(): returns (samples, total, mean)."""
    elapsed = j - last
    if elapsed < 0:
        elapsed = 0
    if elapsed > 2 * slice_idle:
        elapsed = 2 * slice_idle
    samples = (7 * samples + 256) // 8
    total = (7 * total + 256 * elapsed) // 8
    mean = (total + 128) // samples
    return samples, total, mean


@leaf
def thinktime_big(samples, mean, slice_):
    """cfq_io_thinktime_big()."""
    if samples <= SAMPLE_VALID:
        return False
    return mean > slice_


@leaf
def cfq_prio_slice(P, sync, prio):
    base = P[P_SLICE_SYNC] if sync != 0 else P[P_SLICE_ASYNC]
    return base + (base // CFQ_SLICE_SCALE) * (4 - prio)


@leaf
def busy_in_class(ST):
    """cfq_group_busy_queues_wl(BE)."""
    return ST[0, ST_COUNT] + ST[1, ST_COUNT] + ST[2, ST_COUNT]


@kernel
def cfq_group_get_avg_queues(P, S, ST):
    """Fast-up, slow-down average of the busy queues (busy_queues_avg)."""
    div = P[P_HIST_DIVISOR]
    mult = div - 1
    rnd = div // 2
    busy = busy_in_class(ST)
    avg = S[S_BQ_AVG]
    mn = avg if avg < busy else busy
    mx = avg if avg > busy else busy
    S[S_BQ_AVG] = (mult * mx + mn + rnd) // div
    return S[S_BQ_AVG]


@kernel
def cfq_scaled_cfqq_slice(P, S, Q, ST, q):
    """The queue's slice: prio slice, shrunk under low_latency to fit target_latency."""
    slc = cfq_prio_slice(P, Q[q, Q_SYNC], Q[q, Q_PRIO])
    if P[P_LATENCY] != 0:
        iq = cfq_group_get_avg_queues(P, S, ST)
        sync_slice = P[P_SLICE_SYNC]
        expect_latency = sync_slice * iq
        group_slice = P[P_TARGET_LATENCY]  # one group: target_latency * weight / total_weight
        if expect_latency > group_slice:
            base_low_slice = 2 * P[P_SLICE_IDLE]
            low_slice = base_low_slice * slc // sync_slice
            if slc < low_slice:
                low_slice = slc
            scaled = slc * group_slice // expect_latency
            slc = scaled if scaled > low_slice else low_slice
    return slc


@leaf
def cfq_slice_used(P, S, Q, q):
    if Q[q, Q_F_SLICE_NEW] != 0:
        return False
    if jiffies(P, S) < Q[q, Q_SLICE_END]:
        return False
    return True


@leaf
def del_timer(P, S):
    if S[S_IDLE_TIMER] >= 0:
        S[S_C_IDLE_NS] += S[S_NOW] - S[S_IDLE_ARMED_AT]
        S[S_IDLE_TIMER] = -1


# ------------------------------------------------------------------ noop

@kernel
def noop_add_request(S, EL, rid):
    EL[0, S[S_EL_N]] = rid
    S[S_EL_N] += 1


@kernel
def noop_dispatch(S, EL):
    n = S[S_EL_N]
    if n == 0:
        return -1
    rid = EL[0, 0]
    for k in range(1, n):
        EL[0, k - 1] = EL[0, k]
    S[S_EL_N] = n - 1
    return rid


# ------------------------------------------------------------------ deadline

@kernel
def deadline_add_request(P, S, R, EL, rid):
    d = R[rid, R_WRITE]
    j = jiffies(P, S)
    if d == 0:
        R[rid, R_FIFO] = j + P[P_DL_READ_EXPIRE]
        EL[1, S[S_DL_N_R]] = rid
        S[S_DL_N_R] += 1
    else:
        R[rid, R_FIFO] = j + P[P_DL_WRITE_EXPIRE]
        EL[2, S[S_DL_N_W]] = rid
        S[S_DL_N_W] += 1


@kernel
def deadline_latter_request(R, EL, n, row, rid):
    """The next request in sector order after ``rid`` (rb_next in the sort list)."""
    s0 = R[rid, R_SECT]
    best = -1
    for k in range(n):
        r = EL[row, k]
        if r == rid:
            continue
        s = R[r, R_SECT]
        if s > s0 or (s == s0 and r > rid):
            if best < 0 or s < R[best, R_SECT] or (s == R[best, R_SECT] and r < best):
                best = r
    return best


@kernel
def deadline_dispatch_requests(P, S, R, EL):
    """deadline_dispatch_requests(): batches in sector order, FIFO deadlines, writes_starved."""
    reads = S[S_DL_N_R] > 0
    writes = S[S_DL_N_W] > 0
    rq = S[S_DL_NEXT_W]
    if rq < 0:
        rq = S[S_DL_NEXT_R]
    if not (rq >= 0 and S[S_DL_BATCHING] < P[P_DL_FIFO_BATCH]):
        ddir = -1
        if reads:
            ddir = 0
            if writes:
                st = S[S_DL_STARVED]
                S[S_DL_STARVED] = st + 1
                if st >= P[P_DL_WRITES_STARVED]:
                    ddir = 1
        elif writes:
            ddir = 1
        if ddir < 0:
            return -1
        if ddir == 1:
            S[S_DL_STARVED] = 0
        row = 1 + ddir
        nxt = S[S_DL_NEXT_W] if ddir == 1 else S[S_DL_NEXT_R]
        first = EL[row, 0]
        expired = jiffies(P, S) >= R[first, R_FIFO]
        if expired or nxt < 0:
            rq = first
        else:
            rq = nxt
        S[S_DL_BATCHING] = 0
    # deadline_move_request
    S[S_DL_BATCHING] += 1
    ddir = R[rq, R_WRITE]
    row = 1 + ddir
    n = S[S_DL_N_W] if ddir == 1 else S[S_DL_N_R]
    nxt = deadline_latter_request(R, EL, n, row, rq)
    S[S_DL_NEXT_R] = -1
    S[S_DL_NEXT_W] = -1
    if ddir == 1:
        S[S_DL_NEXT_W] = nxt
    else:
        S[S_DL_NEXT_R] = nxt
    for k in range(n):
        if EL[row, k] == rq:
            for m in range(k + 1, n):
                EL[row, m - 1] = EL[row, m]
            break
    if ddir == 1:
        S[S_DL_N_W] = n - 1
    else:
        S[S_DL_N_R] = n - 1
    return rq


# ------------------------------------------------------------------ CFQ: service trees

@kernel
def tree_first(P, Q, tree):
    """cfq_rb_first(): the queue with the smallest (rb_key, insertion) on a service tree."""
    best = -1
    nq = Q.shape[0]
    for q in range(nq):
        if Q[q, Q_TREE] != tree:
            continue
        if best < 0 or Q[q, Q_RBKEY] < Q[best, Q_RBKEY] or (
                Q[q, Q_RBKEY] == Q[best, Q_RBKEY] and Q[q, Q_SEQ] < Q[best, Q_SEQ]):
            best = q
    return best


@kernel
def cfq_service_tree_add(P, S, Q, ST, q, add_front):
    """cfq_service_tree_add(): (re)insert the queue on the tree of its type."""
    st = cfqq_type(Q, q)
    j = jiffies(P, S)
    if add_front == 0:
        offset = (S[S_NR_CFQQ] - 1) * (cfq_prio_slice(P, 1, 0) - cfq_prio_slice(P, Q[q, Q_SYNC], Q[q, Q_PRIO]))
        if offset < 0:
            offset = 0
        rb_key = offset + j - Q[q, Q_SLICE_RESID]
        Q[q, Q_SLICE_RESID] = 0
    else:
        first = tree_first(P, Q, st)
        rb_key = (Q[first, Q_RBKEY] if first >= 0 else j) - P[P_HZ]
    new_cfqq = 1
    if Q[q, Q_TREE] >= 0:
        new_cfqq = 0
        if rb_key == Q[q, Q_RBKEY] and Q[q, Q_TREE] == st:
            return
        ST[Q[q, Q_TREE], ST_COUNT] -= 1
        Q[q, Q_TREE] = -1
    Q[q, Q_TREE] = st
    Q[q, Q_RBKEY] = rb_key
    S[S_SEQ] += 1
    Q[q, Q_SEQ] = S[S_SEQ]
    ST[st, ST_COUNT] += 1
    if add_front != 0 or new_cfqq == 0:
        return
    S[S_NR_CFQQ] += 1  # cfq_group_notify_queue_add


@kernel
def cfq_resort_rr_list(P, S, Q, ST, q):
    if Q[q, Q_ON_RR] != 0:
        cfq_service_tree_add(P, S, Q, ST, q, 0)


@kernel
def cfq_add_cfqq_rr(P, S, Q, ST, q):
    Q[q, Q_ON_RR] = 1
    S[S_BUSY_QUEUES] += 1
    if Q[q, Q_SYNC] != 0:
        S[S_BUSY_SYNC] += 1
    cfq_resort_rr_list(P, S, Q, ST, q)


@kernel
def cfq_del_cfqq_rr(P, S, Q, ST, q):
    Q[q, Q_ON_RR] = 0
    if Q[q, Q_TREE] >= 0:
        ST[Q[q, Q_TREE], ST_COUNT] -= 1
        Q[q, Q_TREE] = -1
    S[S_NR_CFQQ] -= 1  # cfq_group_notify_queue_del
    if S[S_NR_CFQQ] == 0:
        S[S_SAVED_WL_SLICE] = 0
    S[S_BUSY_QUEUES] -= 1
    if Q[q, Q_SYNC] != 0:
        S[S_BUSY_SYNC] -= 1


# ------------------------------------------------------------------ CFQ: requests in a queue

@kernel
def cfq_choose_req(P, R, r1, r2, last):
    """cfq_choose_req(): the better next request of two, one-way elevator with short back seeks."""
    if r1 < 0 or r1 == r2:
        return r2
    if r2 < 0:
        return r1
    if R[r1, R_SYNC] != R[r2, R_SYNC]:
        return r1 if R[r1, R_SYNC] != 0 else r2
    s1 = R[r1, R_SECT]
    s2 = R[r2, R_SECT]
    back_max = P[P_BACK_MAX] * 2
    wrap1 = False
    wrap2 = False
    d1 = 0
    d2 = 0
    if s1 >= last:
        d1 = s1 - last
    elif s1 + back_max >= last:
        d1 = (last - s1) * P[P_BACK_PENALTY]
    else:
        wrap1 = True
    if s2 >= last:
        d2 = s2 - last
    elif s2 + back_max >= last:
        d2 = (last - s2) * P[P_BACK_PENALTY]
    else:
        wrap2 = True
    if not wrap1 and not wrap2:
        if d1 < d2:
            return r1
        if d2 < d1:
            return r2
        return r1 if s1 >= s2 else r2
    if wrap2 and not wrap1:
        return r1
    if wrap1 and not wrap2:
        return r2
    return r1 if s1 <= s2 else r2


@kernel
def cfq_find_next_rq(P, R, Q, QR, q, last):
    """cfq_find_next_rq(): after ``last`` goes, choose between its neighbours in sector order."""
    n = Q[q, Q_N]
    s0 = R[last, R_SECT]
    nxt = -1
    prv = -1
    first = -1
    for k in range(n):
        r = QR[q, k]
        if r == last:
            continue
        s = R[r, R_SECT]
        if s > s0 or (s == s0 and r > last):
            if nxt < 0 or s < R[nxt, R_SECT] or (s == R[nxt, R_SECT] and r < nxt):
                nxt = r
        else:
            if prv < 0 or s > R[prv, R_SECT] or (s == R[prv, R_SECT] and r > prv):
                prv = r
        if first < 0 or s < R[first, R_SECT] or (s == R[first, R_SECT] and r < first):
            first = r
    if nxt < 0:
        nxt = first  # rb_first() when there is no next
    return cfq_choose_req(P, R, nxt, prv, s0)


@kernel
def cfq_remove_request(S, Q, QR, q, rid):
    n = Q[q, Q_N]
    for k in range(n):
        if QR[q, k] == rid:
            for m in range(k + 1, n):
                QR[q, m - 1] = QR[q, m]
            break
    Q[q, Q_N] = n - 1
    Q[q, Q_QUEUED] -= 1
    S[S_RQ_QUEUED] -= 1


# ------------------------------------------------------------------ CFQ: slices and workloads

@kernel
def cfq_set_prio_slice(P, S, Q, ST, EV, q):
    slc = cfq_scaled_cfqq_slice(P, S, Q, ST, q)
    j = jiffies(P, S)
    Q[q, Q_SLICE_START] = j
    Q[q, Q_SLICE_END] = j + slc
    Q[q, Q_ALLOC_SLICE] = slc
    log_ev(P, S, EV, EV_SET_SLICE, q, slc, 0)


@kernel
def cfq_choose_wl_type(P, Q):
    """cfq_choose_wl_type(): the tree whose first queue has the lowest key."""
    cur_best = SYNC_NOIDLE_WORKLOAD
    key_valid = False
    lowest = 0
    for i in range(3):
        f = tree_first(P, Q, i)
        if f >= 0 and (not key_valid or Q[f, Q_RBKEY] < lowest):
            lowest = Q[f, Q_RBKEY]
            cur_best = i
            key_valid = True
    return cur_best


@kernel
def choose_wl_class_and_type(P, S, Q, ST, EV):
    """choose_wl_class_and_type() for the best-effort class: keep or pick a tree, set its slice."""
    j = jiffies(P, S)
    count = ST[S[S_SERVING_TYPE], ST_COUNT]
    if count != 0 and not (j > S[S_WL_EXPIRES]):
        return
    t = cfq_choose_wl_type(P, Q)
    S[S_SERVING_TYPE] = t
    count = ST[t, ST_COUNT]
    group_slice = P[P_TARGET_LATENCY]
    busy = busy_in_class(ST)
    den = S[S_BQ_AVG] if S[S_BQ_AVG] > busy else busy
    if den < 1:
        den = 1
    slc = group_slice * count // den
    if t == ASYNC_WORKLOAD:
        nasync = ST[ASYNC_WORKLOAD, ST_COUNT]
        bq = S[S_BUSY_QUEUES] if S[S_BUSY_QUEUES] > 0 else 1
        tmp = P[P_TARGET_LATENCY] * nasync // bq
        if tmp < slc:
            slc = tmp
        slc = slc * P[P_SLICE_ASYNC] // P[P_SLICE_SYNC]
    else:
        if slc < 2 * P[P_SLICE_IDLE]:
            slc = 2 * P[P_SLICE_IDLE]
    if slc < CFQ_MIN_TT:
        slc = CFQ_MIN_TT
    S[S_WL_EXPIRES] = j + slc
    log_ev(P, S, EV, EV_WORKLOAD, -1, t, slc)


@kernel
def cfq_choose_cfqg(P, S, Q, ST, EV):
    """cfq_choose_cfqg(): the root group; restore its saved workload, then choose."""
    j = jiffies(P, S)
    if S[S_SAVED_WL_SLICE] != 0:
        S[S_WL_EXPIRES] = j + S[S_SAVED_WL_SLICE]
        S[S_SERVING_TYPE] = S[S_SAVED_WL_TYPE]
    else:
        S[S_WL_EXPIRES] = j - 1
    choose_wl_class_and_type(P, S, Q, ST, EV)


@kernel
def cfq_set_active_queue(P, S, Q, EV, q):
    """__cfq_set_active_queue()."""
    if q >= 0:
        j = jiffies(P, S)
        Q[q, Q_SLICE_START] = 0
        Q[q, Q_DISPATCH_START] = j
        Q[q, Q_ALLOC_SLICE] = 0
        Q[q, Q_SLICE_END] = 0
        Q[q, Q_SLICE_DISPATCH] = 0
        Q[q, Q_F_WAIT_REQUEST] = 0
        Q[q, Q_F_MUST_DISPATCH] = 0
        Q[q, Q_F_FIFO_EXPIRE] = 0
        Q[q, Q_F_SLICE_NEW] = 1
        Q[q, Q_SVC_SUM] = 0
        Q[q, Q_SVC_N] = 0
        del_timer(P, S)
        S[S_C_SLICES] += 1
        log_ev(P, S, EV, EV_SET_ACTIVE, q, cfqq_type(Q, q), Q[q, Q_N])
    S[S_ACTIVE] = q


@kernel
def cfq_slice_expired(P, S, Q, ST, EV, timed_out):
    """__cfq_slice_expired() of the active queue."""
    q = S[S_ACTIVE]
    if q < 0:
        return
    j = jiffies(P, S)
    log_ev(P, S, EV, EV_EXPIRE, q, timed_out, Q[q, Q_N])
    if Q[q, Q_F_WAIT_REQUEST] != 0:
        del_timer(P, S)
    Q[q, Q_F_WAIT_REQUEST] = 0
    Q[q, Q_F_WAIT_BUSY] = 0
    if timed_out != 0:
        if Q[q, Q_F_SLICE_NEW] != 0:
            Q[q, Q_SLICE_RESID] = cfq_scaled_cfqq_slice(P, S, Q, ST, q)
        else:
            Q[q, Q_SLICE_RESID] = Q[q, Q_SLICE_END] - j
    # cfq_group_served(): save the workload context of the (only) group
    if S[S_WL_EXPIRES] > j:
        S[S_SAVED_WL_SLICE] = S[S_WL_EXPIRES] - j
        S[S_SAVED_WL_TYPE] = S[S_SERVING_TYPE]
    else:
        S[S_SAVED_WL_SLICE] = 0
    if Q[q, Q_ON_RR] != 0 and Q[q, Q_N] == 0:
        cfq_del_cfqq_rr(P, S, Q, ST, q)
    cfq_resort_rr_list(P, S, Q, ST, q)
    S[S_ACTIVE] = -1
    S[S_ACTIVE_CIC] = -1


@kernel
def cfq_get_next_queue(P, S, Q):
    if S[S_RQ_QUEUED] == 0:
        return -1
    return tree_first(P, Q, S[S_SERVING_TYPE])


@leaf
def cfq_rq_close(P, S, R, rid):
    pos = R[rid, R_SECT]
    last = S[S_LAST_POS]
    d = pos - last if pos >= last else last - pos
    return d <= CFQQ_CLOSE_THR


@kernel
def cfq_close_cooperator(P, S, R, Q, cur):
    """cfq_close_cooperator(): a sync, non-seeky queue whose next request is near the head."""
    if Q[cur, Q_SYNC] == 0 or cfqq_seeky(Q, cur):
        return -1
    if S[S_NR_CFQQ] == 1:
        return -1
    best = -1
    bestd = 0
    last = S[S_LAST_POS]
    for q in range(Q.shape[0]):
        if q == cur or Q[q, Q_ON_RR] == 0 or Q[q, Q_NEXT_RQ] < 0 or Q[q, Q_PRIO] != Q[cur, Q_PRIO]:
            continue
        pos = R[Q[q, Q_NEXT_RQ], R_SECT]
        d = pos - last if pos >= last else last - pos
        if best < 0 or d < bestd:
            best = q
            bestd = d
    if best < 0 or bestd > CFQQ_CLOSE_THR:
        return -1
    if Q[best, Q_SYNC] == 0 or cfqq_seeky(Q, best):
        return -1
    return best


@kernel
def cfq_should_idle(P, S, Q, ST, q):
    """cfq_should_idle(): idle if the queue's idle window is on, or it is the last of its tree."""
    if P[P_SLICE_IDLE] == 0:
        return False
    if Q[q, Q_F_IDLE_WINDOW] != 0 and not (P[P_NONROT] != 0 and S[S_HW_TAG] != 0):
        return True
    t = Q[q, Q_TREE]
    if t < 0:
        t = cfqq_type(Q, q)
    if ST[t, ST_COUNT] == 1 and Q[q, Q_SYNC] != 0:
        if P[P_TTIME_BIG] != 0 and thinktime_big(ST[t, ST_TT_SAMPLES], ST[t, ST_TT_MEAN], P[P_SLICE_IDLE]):
            return False
        return True
    return False


@kernel
def cfq_arm_slice_timer(P, S, Q, ST, EV):
    """cfq_arm_slice_timer(): wait up to slice_idle for the active queue's next request."""
    q = S[S_ACTIVE]
    if P[P_NONROT] != 0 and S[S_HW_TAG] != 0:
        return
    group_idle = 0
    if not cfq_should_idle(P, S, Q, ST, q):
        if P[P_GROUP_IDLE] != 0:
            group_idle = P[P_GROUP_IDLE]
        else:
            return
    if Q[q, Q_DISPATCHED] != 0:
        return
    j = jiffies(P, S)
    left = Q[q, Q_SLICE_END] - j
    if Q[q, Q_TT_SAMPLES] > SAMPLE_VALID and left >= 0 and left < Q[q, Q_TT_MEAN]:
        return
    if group_idle != 0 and S[S_NR_CFQQ] > 1:
        return
    Q[q, Q_F_WAIT_REQUEST] = 1
    sl = group_idle if group_idle != 0 else P[P_SLICE_IDLE]
    S[S_IDLE_TIMER] = (j + sl) * P[P_JIF]
    S[S_IDLE_ARMED_AT] = S[S_NOW]
    S[S_C_ARM_IDLE] += 1
    log_ev(P, S, EV, EV_ARM_IDLE, q, sl, 1 if group_idle != 0 else 0)


@leaf
def clear_deep(P, S, Q, EV, q):
    if Q[q, Q_F_DEEP] != 0:
        Q[q, Q_F_DEEP] = 0
        S[S_C_DEEP_CLEAR] += 1
        log_ev(P, S, EV, EV_DEEP_CLEAR, q, 0, 0)


@leaf
def set_deep(P, S, Q, EV, q):
    if Q[q, Q_F_DEEP] == 0:
        Q[q, Q_F_DEEP] = 1
        S[S_C_DEEP_SET] += 1
        log_ev(P, S, EV, EV_DEEP_SET, q, 0, 0)


@leaf
def set_idle_window(P, S, Q, EV, q, on):
    if Q[q, Q_F_IDLE_WINDOW] != on:
        Q[q, Q_F_IDLE_WINDOW] = on
        log_ev(P, S, EV, EV_IDLE_WINDOW, q, on, 0)


@kernel
def cfq_select_queue(P, S, R, Q, ST, EV):
    """cfq_select_queue(): keep the active queue, wait for it, or expire it and pick the next."""
    q = S[S_ACTIVE]
    new_q = -1
    j = jiffies(P, S)
    stage = 0  # 0 check, 1 expire, 2 new_queue
    if q < 0:
        stage = 2
    else:
        if S[S_RQ_QUEUED] == 0:
            return -1
        if Q[q, Q_F_WAIT_BUSY] != 0 and Q[q, Q_N] > 0:
            stage = 1
        elif cfq_slice_used(P, S, Q, q) and Q[q, Q_F_MUST_DISPATCH] == 0:
            if S[S_NR_CFQQ] == 1 and Q[q, Q_N] == 0 and Q[q, Q_DISPATCHED] != 0 and cfq_should_idle(P, S, Q, ST, q):
                return -1
            stage = 3  # check_group_idle
        elif Q[q, Q_N] > 0:
            return q
        else:
            new_q = cfq_close_cooperator(P, S, R, Q, q)
            if new_q >= 0:
                stage = 1
            elif S[S_IDLE_TIMER] >= 0:
                return -1
            else:
                if P[P_DEEP_FAST_CLEAR] != 0 and P[P_DEEP_PATLASOV] == 0:
                    # 8e1ac6655104: "a deep seek queue, but the device is much faster
                    # than the queue can deliver, don't idle"
                    left = Q[q, Q_SLICE_END] - j
                    if left < 0:
                        left = INF_J  # unsigned wrap in the kernel
                    cond = Q[q, Q_F_SLICE_NEW] != 0 or left > j - Q[q, Q_SLICE_START]
                    if P[P_DEEP_CLEAR_ALWAYS] != 0:
                        cond = True
                    if cfqq_seeky(Q, q) and Q[q, Q_F_IDLE_WINDOW] != 0 and cond:
                        clear_deep(P, S, Q, EV, q)
                        set_idle_window(P, S, Q, EV, q, 0)
                if Q[q, Q_DISPATCHED] != 0 and cfq_should_idle(P, S, Q, ST, q):
                    return -1
                stage = 3
        if stage == 3:
            # check_group_idle
            gi = P[P_GROUP_IDLE]
            if gi != 0 and S[S_NR_CFQQ] == 1 and S[S_GRP_DISPATCHED] != 0:
                if P[P_TTIME_BIG] == 0 or not thinktime_big(S[S_GRP_TT_SAMPLES], S[S_GRP_TT_MEAN], gi):
                    return -1
            stage = 1
        if stage == 1:
            cfq_slice_expired(P, S, Q, ST, EV, 0)
    # new_queue
    if new_q < 0:
        if S[S_BUSY_QUEUES] == 0:
            cfq_set_active_queue(P, S, Q, EV, -1)
            return -1
        cfq_choose_cfqg(P, S, Q, ST, EV)
        new_q = cfq_get_next_queue(P, S, Q)
    cfq_set_active_queue(P, S, Q, EV, new_q)
    return new_q


@leaf
def cfq_slice_used_soon(P, S, Q, q):
    if Q[q, Q_F_SLICE_NEW] != 0:
        return True
    if jiffies(P, S) + P[P_SLICE_IDLE] * Q[q, Q_DISPATCHED] > Q[q, Q_SLICE_END]:
        return True
    return False


@kernel
def cfq_may_dispatch(P, S, Q, ST, q):
    """cfq_may_dispatch(): how many requests the active queue may have in flight."""
    if cfq_should_idle(P, S, Q, ST, q) and S[S_IN_FLIGHT_ASYNC] != 0:
        return False
    if S[S_IN_FLIGHT_SYNC] != 0 and Q[q, Q_SYNC] == 0:
        return False
    max_dispatch = P[P_QUANTUM] // 2
    if max_dispatch < 1:
        max_dispatch = 1
    if Q[q, Q_DISPATCHED] >= max_dispatch:
        promote_sync = P[P_PROMOTE_SYNC] != 0 and Q[q, Q_SYNC] != 0 and S[S_BUSY_SYNC] == 1
        if S[S_BUSY_QUEUES] > 1 and cfq_slice_used_soon(P, S, Q, q) and not promote_sync:
            return False
        if S[S_BUSY_QUEUES] == 1 or promote_sync:
            max_dispatch = INF_J
        else:
            max_dispatch = P[P_QUANTUM]
    if Q[q, Q_SYNC] == 0 and P[P_LATENCY] != 0:
        last_sync = jiffies(P, S) - S[S_LAST_DELAYED_SYNC]
        depth = last_sync // P[P_SLICE_SYNC]
        if depth == 0 and Q[q, Q_DISPATCHED] == 0:
            depth = 1
        if depth < max_dispatch:
            max_dispatch = depth
    return Q[q, Q_DISPATCHED] < max_dispatch


@kernel
def cfq_check_fifo(P, S, R, Q, QR, q):
    """cfq_check_fifo(): once per slice, serve the FIFO head first if it expired."""
    if Q[q, Q_F_FIFO_EXPIRE] != 0:
        return -1
    Q[q, Q_F_FIFO_EXPIRE] = 1
    if Q[q, Q_N] == 0:
        return -1
    rid = QR[q, 0]
    if jiffies(P, S) < R[rid, R_FIFO]:
        return -1
    return rid


@kernel
def cfq_dispatch_insert(P, S, R, Q, QR, EV, rid):
    """cfq_dispatch_insert() + cfq_activate_request(): the request goes to the driver."""
    q = R[rid, R_QUEUE]
    Q[q, Q_NEXT_RQ] = cfq_find_next_rq(P, R, Q, QR, q, rid)
    cfq_remove_request(S, Q, QR, q, rid)
    if Q[q, Q_NEXT_RQ] == rid:
        Q[q, Q_NEXT_RQ] = -1
    Q[q, Q_DISPATCHED] += 1
    S[S_GRP_DISPATCHED] += 1
    if Q[q, Q_SYNC] != 0:
        S[S_IN_FLIGHT_SYNC] += 1
    else:
        S[S_IN_FLIGHT_ASYNC] += 1
    S[S_RQ_IN_DRIVER] += 1
    S[S_LAST_POS] = R[rid, R_SECT] + R[rid, R_NSECT]


@kernel
def cfq_dispatch_requests(P, S, R, Q, QR, ST, EV):
    """cfq_dispatch_requests() (not forced): one request to the driver, or -1."""
    if S[S_BUSY_QUEUES] == 0:
        return -1
    q = cfq_select_queue(P, S, R, Q, ST, EV)
    if q < 0 or Q[q, Q_N] == 0:
        return -1
    if not cfq_may_dispatch(P, S, Q, ST, q):
        return -1
    rid = cfq_check_fifo(P, S, R, Q, QR, q)
    if rid < 0:
        rid = Q[q, Q_NEXT_RQ]
    if rid < 0:
        rid = QR[q, 0]
    cfq_dispatch_insert(P, S, R, Q, QR, EV, rid)
    if S[S_ACTIVE_CIC] < 0:
        S[S_ACTIVE_CIC] = Q[q, Q_PROC]
    Q[q, Q_SLICE_DISPATCH] += 1
    Q[q, Q_F_MUST_DISPATCH] = 0
    if S[S_BUSY_QUEUES] > 1 and Q[q, Q_SYNC] == 0 and \
            Q[q, Q_SLICE_DISPATCH] >= 2 * P[P_SLICE_ASYNC_RQ] * (8 - Q[q, Q_PRIO]):
        Q[q, Q_SLICE_END] = jiffies(P, S) + 1
        cfq_slice_expired(P, S, Q, ST, EV, 0)
    S[S_C_DISPATCH] += 1
    log_ev(P, S, EV, EV_DISPATCH, q, rid, R[rid, R_SECT])
    return rid


# ------------------------------------------------------------------ CFQ: new requests

@kernel
def idle_window_decision(P, Q, q):
    """The enable_idle computation of cfq_update_idle_window()."""
    enable = Q[q, Q_F_IDLE_WINDOW]
    if P[P_SLICE_IDLE] == 0 or (Q[q, Q_F_DEEP] == 0 and cfqq_seeky(Q, q)):
        enable = 0
    elif Q[q, Q_TT_SAMPLES] > SAMPLE_VALID:
        enable = 0 if Q[q, Q_TT_MEAN] > P[P_SLICE_IDLE] else 1
    return enable


@kernel
def cfq_update_idle_window(P, S, Q, EV, q):
    """cfq_update_idle_window(): think time and seekiness decide whether to idle; marks deep."""
    if Q[q, Q_SYNC] == 0:
        return
    if P[P_MARK_DEEP] != 0 and Q[q, Q_QUEUED] >= 4:
        # with the 2011 patch a queue found faster than its device is not re-marked
        if P[P_DEEP_PATLASOV] == 0 or Q[q, Q_F_FAST] == 0:
            set_deep(P, S, Q, EV, q)
    set_idle_window(P, S, Q, EV, q, idle_window_decision(P, Q, q))


@kernel
def patlasov_2011_verdict(P, S, Q, ST, EV, q):
    """The 2011 patch as the cover letter describes it ([I]: the diff is not in the thread).

    It replaces 8e1ac6655104's estimate ("all requests delivered before half
    the slice", which a write-back cache fools) and closes the time gap
    between marking ``deep`` at enqueue and clearing it later.  Called where
    the active queue has emptied with nothing in flight, just before
    cfq_arm_slice_timer(): the device is judged faster than the queue when
    the mean service time of the queue's requests this slice is below its
    think time (both in ns).  Then ``deep`` and ``idle_window`` are cleared,
    the queue moves to the SYNC_NOIDLE tree at once, and the verdict is
    remembered so that its next batch does not mark it ``deep`` again; a
    slow verdict lets cfq_update_idle_window() mark it as before.
    """
    if Q[q, Q_SVC_N] == 0 or Q[q, Q_TTNS_SAMPLES] <= SAMPLE_VALID:
        return
    svc = Q[q, Q_SVC_SUM] // Q[q, Q_SVC_N]
    if svc < Q[q, Q_TTNS_MEAN]:
        Q[q, Q_F_FAST] = 1
        clear_deep(P, S, Q, EV, q)
        before = cfqq_type(Q, q)
        set_idle_window(P, S, Q, EV, q, idle_window_decision(P, Q, q))
        if cfqq_type(Q, q) != before:
            cfq_resort_rr_list(P, S, Q, ST, q)
    else:
        Q[q, Q_F_FAST] = 0


@kernel
def cfq_should_preempt(P, S, R, Q, ST, newq, rid):
    """cfq_should_preempt(): may the queue of a new request take the disk from the active one?"""
    cur = S[S_ACTIVE]
    if cur < 0:
        return False
    if R[rid, R_SYNC] != 0 and Q[cur, Q_SYNC] == 0:
        return True
    if cfq_slice_used(P, S, Q, cur):
        return True
    if S[S_SERVING_TYPE] == SYNC_NOIDLE_WORKLOAD and cfqq_type(Q, newq) == SYNC_NOIDLE_WORKLOAD:
        t = Q[newq, Q_TREE]
        if t >= 0 and ST[t, ST_COUNT] == 2 and Q[cur, Q_N] == 0:
            return True
    if P[P_PREEMPT_IDLE_QUEUE] != 0 and Q[cur, Q_N] == 0 and not cfq_should_idle(P, S, Q, ST, cur):
        return True
    if S[S_ACTIVE_CIC] < 0 or Q[cur, Q_F_WAIT_REQUEST] == 0:
        return False
    return cfq_rq_close(P, S, R, rid)


@kernel
def cfq_preempt_queue(P, S, Q, ST, EV, q):
    old_type = cfqq_type(Q, S[S_ACTIVE])
    S[S_C_PREEMPT] += 1
    log_ev(P, S, EV, EV_PREEMPT, q, S[S_ACTIVE], 0)
    cfq_slice_expired(P, S, Q, ST, EV, 1)
    if old_type != cfqq_type(Q, q):
        S[S_SAVED_WL_SLICE] = 0
    cfq_service_tree_add(P, S, Q, ST, q, 1)
    Q[q, Q_SLICE_END] = 0
    Q[q, Q_F_SLICE_NEW] = 1


@kernel
def cfq_insert_request(P, S, R, Q, QR, ST, EV, rid):
    """cfq_insert_request() + cfq_add_rq_rb() + cfq_rq_enqueued()."""
    q = R[rid, R_QUEUE]
    j = jiffies(P, S)
    sync = R[rid, R_SYNC]
    R[rid, R_FIFO] = j + (P[P_FIFO_EXP_SYNC] if sync != 0 else P[P_FIFO_EXP_ASYNC])
    R[rid, R_START_J] = j
    QR[q, Q[q, Q_N]] = rid
    Q[q, Q_N] += 1
    Q[q, Q_QUEUED] += 1
    if Q[q, Q_ON_RR] == 0:
        cfq_add_cfqq_rr(P, S, Q, ST, q)
    Q[q, Q_NEXT_RQ] = cfq_choose_req(P, R, Q[q, Q_NEXT_RQ], rid, S[S_LAST_POS])
    # cfq_rq_enqueued()
    S[S_RQ_QUEUED] += 1
    if Q[q, Q_SYNC] != 0:
        sl = P[P_SLICE_IDLE]
        a, b, c = ttime_update(Q[q, Q_TT_LAST], Q[q, Q_TT_SAMPLES], Q[q, Q_TT_TOTAL], sl, j)
        Q[q, Q_TT_SAMPLES] = a
        Q[q, Q_TT_TOTAL] = b
        Q[q, Q_TT_MEAN] = c
        a, b, c = ttime_update(Q[q, Q_TTNS_LAST], Q[q, Q_TTNS_SAMPLES], Q[q, Q_TTNS_TOTAL],
                               sl * P[P_JIF], S[S_NOW])
        Q[q, Q_TTNS_SAMPLES] = a
        Q[q, Q_TTNS_TOTAL] = b
        Q[q, Q_TTNS_MEAN] = c
        if P[P_TTIME_BIG] != 0:
            t = Q[q, Q_TREE]
            a, b, c = ttime_update(ST[t, ST_TT_LAST], ST[t, ST_TT_SAMPLES], ST[t, ST_TT_TOTAL], sl, j)
            ST[t, ST_TT_SAMPLES] = a
            ST[t, ST_TT_TOTAL] = b
            ST[t, ST_TT_MEAN] = c
    if P[P_TTIME_BIG] != 0:
        a, b, c = ttime_update(S[S_GRP_TT_LAST], S[S_GRP_TT_SAMPLES], S[S_GRP_TT_TOTAL], P[P_GROUP_IDLE], j)
        S[S_GRP_TT_SAMPLES] = a
        S[S_GRP_TT_TOTAL] = b
        S[S_GRP_TT_MEAN] = c
    # cfq_update_io_seektime()
    sdist = 0
    pos = R[rid, R_SECT]
    if Q[q, Q_LAST_REQ_POS] != 0:
        sdist = pos - Q[q, Q_LAST_REQ_POS]
        if sdist < 0:
            sdist = -sdist
    h = (Q[q, Q_SEEK_HIST] << 1) & 0xFFFFFFFF
    if P[P_NONROT] != 0:
        if R[rid, R_NSECT] < 2 * 32:
            h |= 1
    elif sdist > CFQQ_SEEK_THR:
        h |= 1
    Q[q, Q_SEEK_HIST] = h
    cfq_update_idle_window(P, S, Q, EV, q)
    Q[q, Q_LAST_REQ_POS] = pos + R[rid, R_NSECT]
    log_ev(P, S, EV, EV_INSERT, q, rid, pos)
    if q == S[S_ACTIVE]:
        if Q[q, Q_F_WAIT_REQUEST] != 0:
            if R[rid, R_NSECT] > P[P_PAGE_SECT] or S[S_BUSY_QUEUES] > 1:
                del_timer(P, S)
                Q[q, Q_F_WAIT_REQUEST] = 0
            else:
                Q[q, Q_F_MUST_DISPATCH] = 1
    elif cfq_should_preempt(P, S, R, Q, ST, q, rid):
        cfq_preempt_queue(P, S, Q, ST, EV, q)


# ------------------------------------------------------------------ CFQ: completions and the idle timer

@kernel
def cfq_update_hw_tag(P, S, Q):
    q = S[S_ACTIVE]
    if S[S_RQ_IN_DRIVER] > S[S_HW_TAG_EST]:
        S[S_HW_TAG_EST] = S[S_RQ_IN_DRIVER]
    if S[S_HW_TAG] == 1:
        return
    if S[S_RQ_QUEUED] <= CFQ_HW_QUEUE_MIN and S[S_RQ_IN_DRIVER] <= CFQ_HW_QUEUE_MIN:
        return
    if q >= 0 and Q[q, Q_F_IDLE_WINDOW] != 0 and \
            Q[q, Q_DISPATCHED] + Q[q, Q_QUEUED] < CFQ_HW_QUEUE_MIN and S[S_RQ_IN_DRIVER] < CFQ_HW_QUEUE_MIN:
        return
    s = S[S_HW_TAG_SAMPLES]
    S[S_HW_TAG_SAMPLES] = s + 1
    if s < 50:
        return
    S[S_HW_TAG] = 1 if S[S_HW_TAG_EST] >= CFQ_HW_QUEUE_MIN else 0


@kernel
def cfq_should_wait_busy(P, S, Q, q):
    if Q[q, Q_N] != 0:
        return False
    if S[S_NR_CFQQ] > 1:
        return False
    if P[P_TTIME_BIG] != 0 and thinktime_big(S[S_GRP_TT_SAMPLES], S[S_GRP_TT_MEAN], P[P_GROUP_IDLE]):
        return False
    if cfq_slice_used(P, S, Q, q):
        return True
    left = Q[q, Q_SLICE_END] - jiffies(P, S)
    if Q[q, Q_TT_SAMPLES] > SAMPLE_VALID and left >= 0 and left < Q[q, Q_TT_MEAN]:
        return True
    if left == 1:
        return True
    return False


@kernel
def cfq_completed_request(P, S, R, Q, QR, ST, EV, rid):
    """cfq_completed_request(): set the slice on the first completion, expire or idle."""
    q = R[rid, R_QUEUE]
    j = jiffies(P, S)
    cfq_update_hw_tag(P, S, Q)
    S[S_RQ_IN_DRIVER] -= 1
    Q[q, Q_DISPATCHED] -= 1
    S[S_GRP_DISPATCHED] -= 1
    if Q[q, Q_SYNC] != 0:
        S[S_IN_FLIGHT_SYNC] -= 1
    else:
        S[S_IN_FLIGHT_ASYNC] -= 1
    S[S_C_COMPLETE] += 1
    log_ev(P, S, EV, EV_COMPLETE, q, rid, 0)
    if R[rid, R_SYNC] != 0:
        Q[q, Q_TT_LAST] = j
        Q[q, Q_TTNS_LAST] = S[S_NOW]
        t = Q[q, Q_TREE]
        if t < 0:
            t = cfqq_type(Q, q)
        ST[t, ST_TT_LAST] = j
        if not (R[rid, R_START_J] + P[P_FIFO_EXP_SYNC] > j):
            S[S_LAST_DELAYED_SYNC] = j
    S[S_GRP_TT_LAST] = j
    if S[S_ACTIVE] == q:
        Q[q, Q_SVC_SUM] += R[rid, R_T_COMPLETE] - R[rid, R_T_DISPATCH]
        Q[q, Q_SVC_N] += 1
        empty = Q[q, Q_N] == 0
        if Q[q, Q_F_SLICE_NEW] != 0:
            cfq_set_prio_slice(P, S, Q, ST, EV, q)
            Q[q, Q_F_SLICE_NEW] = 0
        if cfq_should_wait_busy(P, S, Q, q):
            ext = P[P_SLICE_IDLE] if P[P_SLICE_IDLE] != 0 else P[P_GROUP_IDLE]
            Q[q, Q_SLICE_END] = j + ext
            Q[q, Q_F_WAIT_BUSY] = 1
        if cfq_slice_used(P, S, Q, q):
            cfq_slice_expired(P, S, Q, ST, EV, 1)
        elif R[rid, R_SYNC] != 0 and empty and cfq_close_cooperator(P, S, R, Q, q) < 0:
            if P[P_DEEP_PATLASOV] != 0 and Q[q, Q_DISPATCHED] == 0:
                patlasov_2011_verdict(P, S, Q, ST, EV, q)
            cfq_arm_slice_timer(P, S, Q, ST, EV)


@kernel
def cfq_idle_slice_timer(P, S, Q, ST, EV):
    """cfq_idle_slice_timer(): the idle window ran out; returns True if the queue should run."""
    del_timer(P, S)
    S[S_C_IDLE_FIRED] += 1
    q = S[S_ACTIVE]
    timed_out = 1
    if q >= 0:
        log_ev(P, S, EV, EV_IDLE_FIRE, q, Q[q, Q_N], 0)
        timed_out = 0
        if Q[q, Q_F_MUST_DISPATCH] != 0:
            return True
        if not cfq_slice_used(P, S, Q, q):
            if S[S_BUSY_QUEUES] == 0:
                return False
            if Q[q, Q_N] != 0:
                return True
            # "Queue depth flag is reset only when the idle didn't succeed"
            clear_deep(P, S, Q, EV, q)
    cfq_slice_expired(P, S, Q, ST, EV, timed_out)
    return True


# ------------------------------------------------------------------ the elevator interface

@kernel
def elv_add_request(P, S, R, Q, QR, ST, EL, EV, rid):
    sched = P[P_SCHED]
    if sched == 0:
        noop_add_request(S, EL, rid)
    elif sched == 1:
        deadline_add_request(P, S, R, EL, rid)
    else:
        cfq_insert_request(P, S, R, Q, QR, ST, EV, rid)


@kernel
def elv_dispatch(P, S, R, Q, QR, ST, EL, EV):
    sched = P[P_SCHED]
    if sched == 0:
        return noop_dispatch(S, EL)
    if sched == 1:
        return deadline_dispatch_requests(P, S, R, EL)
    return cfq_dispatch_requests(P, S, R, Q, QR, ST, EV)


@kernel
def elv_completed(P, S, R, Q, QR, ST, EV, rid):
    if P[P_SCHED] == 2:
        cfq_completed_request(P, S, R, Q, QR, ST, EV, rid)
