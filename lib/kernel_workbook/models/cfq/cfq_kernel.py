"""CFQ, as in 3.1 and 3.16: the time-slice elevator of block/cfq-iosched.c.

Each function mirrors the kernel function of the same name; the comments
say where the model departs from it.  CFQ's times are jiffies, as in the
kernel (``jiffies = now_ns // P[I.jiffy_ns]``), and its integer arithmetic is
the kernel's (unsigned differences are guarded where the kernel would wrap).
One cgroup (the root group), best-effort class only; queue merging of close
cooperators (cfq_setup_merge) is not modelled: a close cooperator is still
served next, it just keeps its own queue.

Every tunable is read by its own name (``P[I.cfq_slice_idle]``, in jiffies).
Version differences are flags (``params.CFQParams``): ``cfq_io_thinktime_big``
(3.3+ service-tree and group think time), the deep-queue variants of the 2011
thread (``cfq_mark_cfqq_deep``, ``cfq_clear_cfqq_deep_fast_device``,
``cfq_clear_cfqq_deep_unconditional``, ``patlasov_2011``),
``cfq_should_preempt_idle_queue`` and ``cfq_may_dispatch_promote_sync``.
"""

from ..engine import sibling, kernel_no_nrt as kernel, leaf_no_nrt as leaf
from .layout import EVT, I, Q_, R_, S_, ST_, WL

_el = sibling(__name__, "elevator_kernel")
jiffies = _el.jiffies
log_ev = _el.log_ev

# the kernel's #defines (not tunables)
CFQ_MIN_TT = 2  # jiffies; below this think time counts as immediate
CFQ_SLICE_SCALE = 5
CFQ_HW_QUEUE_MIN = 5
CFQQ_SEEK_THR = 8 * 100  # sectors
CFQQ_CLOSE_THR = 8 * 1024  # sectors
SAMPLE_VALID = 80  # sample_valid(samples): samples > 80
INF_J = 1 << 60
N_TREES = len(WL)
PAGE_SECTORS = 8  # PAGE_SIZE / 512


# ------------------------------------------------------------------ helpers

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
    return popcount32(Q[q, Q_.seek_hist]) > 4


@leaf
def cfqq_type(Q, q):
    """cfqq_type(): ASYNC, SYNC_NOIDLE or SYNC from the queue's flags."""
    if Q[q, Q_.sync] == 0:
        return WL.ASYNC_WORKLOAD
    if Q[q, Q_.f_idle_window] == 0:
        return WL.SYNC_NOIDLE_WORKLOAD
    return WL.SYNC_WORKLOAD


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
    base = P[I.cfq_slice_sync] if sync != 0 else P[I.cfq_slice_async]
    return base + (base // CFQ_SLICE_SCALE) * (4 - prio)


@leaf
def busy_in_class(ST):
    """cfq_group_busy_queues_wl(BE)."""
    return ST[WL.ASYNC_WORKLOAD, ST_.count] + ST[WL.SYNC_NOIDLE_WORKLOAD, ST_.count] + ST[WL.SYNC_WORKLOAD, ST_.count]


@kernel
def cfq_group_get_avg_queues(P, S, ST):
    """Fast-up, slow-down average of the busy queues (busy_queues_avg)."""
    div = P[I.cfq_hist_divisor]
    mult = div - 1
    rnd = div // 2
    busy = busy_in_class(ST)
    avg = S[S_.bq_avg]
    mn = avg if avg < busy else busy
    mx = avg if avg > busy else busy
    S[S_.bq_avg] = (mult * mx + mn + rnd) // div
    return S[S_.bq_avg]


@kernel
def cfq_scaled_cfqq_slice(P, S, Q, ST, q):
    """The queue's slice: prio slice, shrunk under low_latency to fit target_latency."""
    slc = cfq_prio_slice(P, Q[q, Q_.sync], Q[q, Q_.prio])
    if P[I.cfq_latency] != 0:
        iq = cfq_group_get_avg_queues(P, S, ST)
        sync_slice = P[I.cfq_slice_sync]
        expect_latency = sync_slice * iq
        group_slice = P[I.cfq_target_latency]  # one group: target_latency * weight / total_weight
        if expect_latency > group_slice:
            base_low_slice = 2 * P[I.cfq_slice_idle]
            low_slice = base_low_slice * slc // sync_slice
            if slc < low_slice:
                low_slice = slc
            scaled = slc * group_slice // expect_latency
            slc = scaled if scaled > low_slice else low_slice
    return slc


@leaf
def cfq_slice_used(P, S, Q, q):
    if Q[q, Q_.f_slice_new] != 0:
        return False
    if jiffies(P, S) < Q[q, Q_.slice_end]:
        return False
    return True


@leaf
def del_timer(P, S):
    if S[S_.idle_timer] >= 0:
        S[S_.c_idle_ns] += S[S_.now] - S[S_.idle_armed_at]
        S[S_.idle_timer] = -1

# ------------------------------------------------------------------ CFQ: service trees

@kernel
def tree_first(P, Q, tree):
    """cfq_rb_first(): the queue with the smallest (rb_key, insertion) on a service tree."""
    best = -1
    nq = Q.shape[0]
    for q in range(nq):
        if Q[q, Q_.tree] != tree:
            continue
        if best < 0 or Q[q, Q_.rbkey] < Q[best, Q_.rbkey] or (
                Q[q, Q_.rbkey] == Q[best, Q_.rbkey] and Q[q, Q_.seq] < Q[best, Q_.seq]):
            best = q
    return best


@kernel
def cfq_service_tree_add(P, S, Q, ST, q, add_front):
    """cfq_service_tree_add(): (re)insert the queue on the tree of its type."""
    st = cfqq_type(Q, q)
    j = jiffies(P, S)
    if add_front == 0:
        offset = (S[S_.nr_cfqq] - 1) * (cfq_prio_slice(P, 1, 0) - cfq_prio_slice(P, Q[q, Q_.sync], Q[q, Q_.prio]))
        if offset < 0:
            offset = 0
        rb_key = offset + j - Q[q, Q_.slice_resid]
        Q[q, Q_.slice_resid] = 0
    else:
        first = tree_first(P, Q, st)
        rb_key = (Q[first, Q_.rbkey] if first >= 0 else j) - P[I.HZ]
    new_cfqq = 1
    if Q[q, Q_.tree] >= 0:
        new_cfqq = 0
        if rb_key == Q[q, Q_.rbkey] and Q[q, Q_.tree] == st:
            return
        ST[Q[q, Q_.tree], ST_.count] -= 1
        Q[q, Q_.tree] = -1
    Q[q, Q_.tree] = st
    Q[q, Q_.rbkey] = rb_key
    S[S_.seq] += 1
    Q[q, Q_.seq] = S[S_.seq]
    ST[st, ST_.count] += 1
    if add_front != 0 or new_cfqq == 0:
        return
    S[S_.nr_cfqq] += 1  # cfq_group_notify_queue_add


@kernel
def cfq_resort_rr_list(P, S, Q, ST, q):
    if Q[q, Q_.on_rr] != 0:
        cfq_service_tree_add(P, S, Q, ST, q, 0)


@kernel
def cfq_add_cfqq_rr(P, S, Q, ST, q):
    Q[q, Q_.on_rr] = 1
    S[S_.busy_queues] += 1
    if Q[q, Q_.sync] != 0:
        S[S_.busy_sync] += 1
    cfq_resort_rr_list(P, S, Q, ST, q)


@kernel
def cfq_del_cfqq_rr(P, S, Q, ST, q):
    Q[q, Q_.on_rr] = 0
    if Q[q, Q_.tree] >= 0:
        ST[Q[q, Q_.tree], ST_.count] -= 1
        Q[q, Q_.tree] = -1
    S[S_.nr_cfqq] -= 1  # cfq_group_notify_queue_del
    if S[S_.nr_cfqq] == 0:
        S[S_.saved_wl_slice] = 0
    S[S_.busy_queues] -= 1
    if Q[q, Q_.sync] != 0:
        S[S_.busy_sync] -= 1


# ------------------------------------------------------------------ CFQ: requests in a queue

@kernel
def cfq_choose_req(P, R, r1, r2, last):
    """cfq_choose_req(): the better next request of two, one-way elevator with short back seeks."""
    if r1 < 0 or r1 == r2:
        return r2
    if r2 < 0:
        return r1
    if R[r1, R_.sync] != R[r2, R_.sync]:
        return r1 if R[r1, R_.sync] != 0 else r2
    s1 = R[r1, R_.sect]
    s2 = R[r2, R_.sect]
    back_max = P[I.cfq_back_max] * 2
    wrap1 = False
    wrap2 = False
    d1 = 0
    d2 = 0
    if s1 >= last:
        d1 = s1 - last
    elif s1 + back_max >= last:
        d1 = (last - s1) * P[I.cfq_back_penalty]
    else:
        wrap1 = True
    if s2 >= last:
        d2 = s2 - last
    elif s2 + back_max >= last:
        d2 = (last - s2) * P[I.cfq_back_penalty]
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
    n = Q[q, Q_.n]
    s0 = R[last, R_.sect]
    nxt = -1
    prv = -1
    first = -1
    for k in range(n):
        r = QR[q, k]
        if r == last:
            continue
        s = R[r, R_.sect]
        if s > s0 or (s == s0 and r > last):
            if nxt < 0 or s < R[nxt, R_.sect] or (s == R[nxt, R_.sect] and r < nxt):
                nxt = r
        else:
            if prv < 0 or s > R[prv, R_.sect] or (s == R[prv, R_.sect] and r > prv):
                prv = r
        if first < 0 or s < R[first, R_.sect] or (s == R[first, R_.sect] and r < first):
            first = r
    if nxt < 0:
        nxt = first  # rb_first() when there is no next
    return cfq_choose_req(P, R, nxt, prv, s0)


@kernel
def cfq_remove_request(S, Q, QR, q, rid):
    n = Q[q, Q_.n]
    for k in range(n):
        if QR[q, k] == rid:
            for m in range(k + 1, n):
                QR[q, m - 1] = QR[q, m]
            break
    Q[q, Q_.n] = n - 1
    Q[q, Q_.queued] -= 1
    S[S_.rq_queued] -= 1


# ------------------------------------------------------------------ CFQ: slices and workloads

@kernel
def cfq_set_prio_slice(P, S, Q, ST, EV, q):
    slc = cfq_scaled_cfqq_slice(P, S, Q, ST, q)
    j = jiffies(P, S)
    Q[q, Q_.slice_start] = j
    Q[q, Q_.slice_end] = j + slc
    Q[q, Q_.alloc_slice] = slc
    log_ev(P, S, EV, EVT.set_slice, q, slc, 0)


@kernel
def cfq_choose_wl_type(P, Q):
    """cfq_choose_wl_type(): the tree whose first queue has the lowest key."""
    cur_best = WL.SYNC_NOIDLE_WORKLOAD
    key_valid = False
    lowest = 0
    for i in range(N_TREES):
        f = tree_first(P, Q, i)
        if f >= 0 and (not key_valid or Q[f, Q_.rbkey] < lowest):
            lowest = Q[f, Q_.rbkey]
            cur_best = i
            key_valid = True
    return cur_best


@kernel
def choose_wl_class_and_type(P, S, Q, ST, EV):
    """choose_wl_class_and_type() for the best-effort class: keep or pick a tree, set its slice."""
    j = jiffies(P, S)
    count = ST[S[S_.serving_type], ST_.count]
    if count != 0 and not (j > S[S_.wl_expires]):
        return
    t = cfq_choose_wl_type(P, Q)
    S[S_.serving_type] = t
    count = ST[t, ST_.count]
    group_slice = P[I.cfq_target_latency]
    busy = busy_in_class(ST)
    den = S[S_.bq_avg] if S[S_.bq_avg] > busy else busy
    if den < 1:
        den = 1
    slc = group_slice * count // den
    if t == WL.ASYNC_WORKLOAD:
        nasync = ST[WL.ASYNC_WORKLOAD, ST_.count]
        bq = S[S_.busy_queues] if S[S_.busy_queues] > 0 else 1
        tmp = P[I.cfq_target_latency] * nasync // bq
        if tmp < slc:
            slc = tmp
        slc = slc * P[I.cfq_slice_async] // P[I.cfq_slice_sync]
    else:
        if slc < 2 * P[I.cfq_slice_idle]:
            slc = 2 * P[I.cfq_slice_idle]
    if slc < CFQ_MIN_TT:
        slc = CFQ_MIN_TT
    S[S_.wl_expires] = j + slc
    log_ev(P, S, EV, EVT.workload_slice, -1, t, slc)


@kernel
def cfq_choose_cfqg(P, S, Q, ST, EV):
    """cfq_choose_cfqg(): the root group; restore its saved workload, then choose."""
    j = jiffies(P, S)
    if S[S_.saved_wl_slice] != 0:
        S[S_.wl_expires] = j + S[S_.saved_wl_slice]
        S[S_.serving_type] = S[S_.saved_wl_type]
    else:
        S[S_.wl_expires] = j - 1
    choose_wl_class_and_type(P, S, Q, ST, EV)


@kernel
def cfq_set_active_queue(P, S, Q, EV, q):
    """__cfq_set_active_queue()."""
    if q >= 0:
        j = jiffies(P, S)
        Q[q, Q_.slice_start] = 0
        Q[q, Q_.dispatch_start] = j
        Q[q, Q_.alloc_slice] = 0
        Q[q, Q_.slice_end] = 0
        Q[q, Q_.slice_dispatch] = 0
        Q[q, Q_.f_wait_request] = 0
        Q[q, Q_.f_must_dispatch] = 0
        Q[q, Q_.f_must_alloc_slice] = 0
        Q[q, Q_.f_fifo_expire] = 0
        Q[q, Q_.f_slice_new] = 1
        Q[q, Q_.svc_sum] = 0
        Q[q, Q_.svc_n] = 0
        del_timer(P, S)
        S[S_.c_slices] += 1
        log_ev(P, S, EV, EVT.set_active, q, cfqq_type(Q, q), Q[q, Q_.n])
    S[S_.active] = q


@kernel
def cfq_slice_expired(P, S, Q, ST, EV, timed_out):
    """__cfq_slice_expired() of the active queue."""
    q = S[S_.active]
    if q < 0:
        return
    j = jiffies(P, S)
    log_ev(P, S, EV, EVT.slice_expired, q, timed_out, Q[q, Q_.n])
    if Q[q, Q_.f_wait_request] != 0:
        del_timer(P, S)
    Q[q, Q_.f_wait_request] = 0
    Q[q, Q_.f_wait_busy] = 0
    if timed_out != 0:
        if Q[q, Q_.f_slice_new] != 0:
            Q[q, Q_.slice_resid] = cfq_scaled_cfqq_slice(P, S, Q, ST, q)
        else:
            Q[q, Q_.slice_resid] = Q[q, Q_.slice_end] - j
    # cfq_group_served(): save the workload context of the (only) group
    if S[S_.wl_expires] > j:
        S[S_.saved_wl_slice] = S[S_.wl_expires] - j
        S[S_.saved_wl_type] = S[S_.serving_type]
    else:
        S[S_.saved_wl_slice] = 0
    if Q[q, Q_.on_rr] != 0 and Q[q, Q_.n] == 0:
        cfq_del_cfqq_rr(P, S, Q, ST, q)
    cfq_resort_rr_list(P, S, Q, ST, q)
    S[S_.active] = -1
    S[S_.active_cic] = -1


@kernel
def cfq_get_next_queue(P, S, Q):
    if S[S_.rq_queued] == 0:
        return -1
    return tree_first(P, Q, S[S_.serving_type])


@leaf
def cfq_rq_close(P, S, R, rid):
    pos = R[rid, R_.sect]
    last = S[S_.last_pos]
    d = pos - last if pos >= last else last - pos
    return d <= CFQQ_CLOSE_THR


@kernel
def cfq_close_cooperator(P, S, R, Q, cur):
    """cfq_close_cooperator(): a sync, non-seeky queue whose next request is near the head."""
    if Q[cur, Q_.sync] == 0 or cfqq_seeky(Q, cur):
        return -1
    if S[S_.nr_cfqq] == 1:
        return -1
    best = -1
    bestd = 0
    last = S[S_.last_pos]
    for q in range(Q.shape[0]):
        if q == cur or Q[q, Q_.on_rr] == 0 or Q[q, Q_.next_rq] < 0 or Q[q, Q_.prio] != Q[cur, Q_.prio]:
            continue
        pos = R[Q[q, Q_.next_rq], R_.sect]
        d = pos - last if pos >= last else last - pos
        if best < 0 or d < bestd:
            best = q
            bestd = d
    if best < 0 or bestd > CFQQ_CLOSE_THR:
        return -1
    if Q[best, Q_.sync] == 0 or cfqq_seeky(Q, best):
        return -1
    return best


@kernel
def cfq_should_idle(P, S, Q, ST, q):
    """cfq_should_idle(): idle if the queue's idle window is on, or it is the last of its tree."""
    if P[I.cfq_slice_idle] == 0:
        return False
    if Q[q, Q_.f_idle_window] != 0 and not (P[I.nonrot] != 0 and S[S_.hw_tag] != 0):
        return True
    t = Q[q, Q_.tree]
    if t < 0:
        t = cfqq_type(Q, q)
    if ST[t, ST_.count] == 1 and Q[q, Q_.sync] != 0:
        if P[I.cfq_io_thinktime_big] != 0 and thinktime_big(ST[t, ST_.tt_samples], ST[t, ST_.tt_mean], P[I.cfq_slice_idle]):
            return False
        return True
    return False


@kernel
def cfq_arm_slice_timer(P, S, Q, ST, EV):
    """cfq_arm_slice_timer(): wait up to slice_idle for the active queue's next request."""
    q = S[S_.active]
    if P[I.nonrot] != 0 and S[S_.hw_tag] != 0:
        return
    group_idle = 0
    if not cfq_should_idle(P, S, Q, ST, q):
        if P[I.cfq_group_idle] != 0:
            group_idle = P[I.cfq_group_idle]
        else:
            return
    if Q[q, Q_.dispatched] != 0:
        return
    j = jiffies(P, S)
    left = Q[q, Q_.slice_end] - j
    if Q[q, Q_.tt_samples] > SAMPLE_VALID and left >= 0 and left < Q[q, Q_.tt_mean]:
        return
    if group_idle != 0 and S[S_.nr_cfqq] > 1:
        return
    Q[q, Q_.f_wait_request] = 1
    sl = group_idle if group_idle != 0 else P[I.cfq_slice_idle]
    S[S_.idle_timer] = (j + sl) * P[I.jiffy_ns]
    S[S_.idle_armed_at] = S[S_.now]
    S[S_.c_arm_idle] += 1
    log_ev(P, S, EV, EVT.arm_idle, q, sl, 1 if group_idle != 0 else 0)


@leaf
def clear_deep(P, S, Q, EV, q):
    if Q[q, Q_.f_deep] != 0:
        Q[q, Q_.f_deep] = 0
        S[S_.c_deep_clear] += 1
        log_ev(P, S, EV, EVT.clear_deep, q, 0, 0)


@leaf
def set_deep(P, S, Q, EV, q):
    if Q[q, Q_.f_deep] == 0:
        Q[q, Q_.f_deep] = 1
        S[S_.c_deep_set] += 1
        log_ev(P, S, EV, EVT.mark_deep, q, 0, 0)


@leaf
def set_idle_window(P, S, Q, EV, q, on):
    if Q[q, Q_.f_idle_window] != on:
        Q[q, Q_.f_idle_window] = on
        log_ev(P, S, EV, EVT.idle_window, q, on, 0)


@kernel
def cfq_select_queue(P, S, R, Q, ST, EV):
    """cfq_select_queue(): keep the active queue, wait for it, or expire it and pick the next."""
    q = S[S_.active]
    new_q = -1
    j = jiffies(P, S)
    stage = 0  # 0 check, 1 expire, 2 new_queue
    if q < 0:
        stage = 2
    else:
        if S[S_.rq_queued] == 0:
            return -1
        if Q[q, Q_.f_wait_busy] != 0 and Q[q, Q_.n] > 0:
            stage = 1
        elif cfq_slice_used(P, S, Q, q) and Q[q, Q_.f_must_dispatch] == 0:
            if S[S_.nr_cfqq] == 1 and Q[q, Q_.n] == 0 and Q[q, Q_.dispatched] != 0 and cfq_should_idle(P, S, Q, ST, q):
                return -1
            stage = 3  # check_group_idle
        elif Q[q, Q_.n] > 0:
            return q
        else:
            new_q = cfq_close_cooperator(P, S, R, Q, q)
            if new_q >= 0:
                stage = 1
            elif S[S_.idle_timer] >= 0:
                return -1
            else:
                if P[I.cfq_clear_cfqq_deep_fast_device] != 0 and P[I.patlasov_2011] == 0:
                    # 8e1ac6655104: "a deep seek queue, but the device is much faster
                    # than the queue can deliver, don't idle"
                    left = Q[q, Q_.slice_end] - j
                    if left < 0:
                        left = INF_J  # unsigned wrap in the kernel
                    cond = Q[q, Q_.f_slice_new] != 0 or left > j - Q[q, Q_.slice_start]
                    if P[I.cfq_clear_cfqq_deep_unconditional] != 0:
                        cond = True
                    if cfqq_seeky(Q, q) and Q[q, Q_.f_idle_window] != 0 and cond:
                        clear_deep(P, S, Q, EV, q)
                        set_idle_window(P, S, Q, EV, q, 0)
                if Q[q, Q_.dispatched] != 0 and cfq_should_idle(P, S, Q, ST, q):
                    return -1
                stage = 3
        if stage == 3:
            # check_group_idle
            gi = P[I.cfq_group_idle]
            if gi != 0 and S[S_.nr_cfqq] == 1 and S[S_.grp_dispatched] != 0:
                if P[I.cfq_io_thinktime_big] == 0 or not thinktime_big(S[S_.grp_tt_samples], S[S_.grp_tt_mean], gi):
                    return -1
            stage = 1
        if stage == 1:
            cfq_slice_expired(P, S, Q, ST, EV, 0)
    # new_queue
    if new_q < 0:
        if S[S_.busy_queues] == 0:
            cfq_set_active_queue(P, S, Q, EV, -1)
            return -1
        cfq_choose_cfqg(P, S, Q, ST, EV)
        new_q = cfq_get_next_queue(P, S, Q)
    cfq_set_active_queue(P, S, Q, EV, new_q)
    return new_q


@leaf
def cfq_slice_used_soon(P, S, Q, q):
    if Q[q, Q_.f_slice_new] != 0:
        return True
    if jiffies(P, S) + P[I.cfq_slice_idle] * Q[q, Q_.dispatched] > Q[q, Q_.slice_end]:
        return True
    return False


@kernel
def cfq_may_dispatch(P, S, Q, ST, q):
    """cfq_may_dispatch(): how many requests the active queue may have in flight."""
    if cfq_should_idle(P, S, Q, ST, q) and S[S_.in_flight_async] != 0:
        return False
    if S[S_.in_flight_sync] != 0 and Q[q, Q_.sync] == 0:
        return False
    max_dispatch = P[I.cfq_quantum] // 2
    if max_dispatch < 1:
        max_dispatch = 1
    if Q[q, Q_.dispatched] >= max_dispatch:
        promote_sync = P[I.cfq_may_dispatch_promote_sync] != 0 and Q[q, Q_.sync] != 0 and S[S_.busy_sync] == 1
        if S[S_.busy_queues] > 1 and cfq_slice_used_soon(P, S, Q, q) and not promote_sync:
            return False
        if S[S_.busy_queues] == 1 or promote_sync:
            max_dispatch = INF_J
        else:
            max_dispatch = P[I.cfq_quantum]
    if Q[q, Q_.sync] == 0 and P[I.cfq_latency] != 0:
        last_sync = jiffies(P, S) - S[S_.last_delayed_sync]
        depth = last_sync // P[I.cfq_slice_sync]
        if depth == 0 and Q[q, Q_.dispatched] == 0:
            depth = 1
        if depth < max_dispatch:
            max_dispatch = depth
    return Q[q, Q_.dispatched] < max_dispatch


@kernel
def cfq_check_fifo(P, S, R, Q, QR, q):
    """cfq_check_fifo(): once per slice, serve the FIFO head first if it expired."""
    if Q[q, Q_.f_fifo_expire] != 0:
        return -1
    Q[q, Q_.f_fifo_expire] = 1
    if Q[q, Q_.n] == 0:
        return -1
    rid = QR[q, 0]
    if jiffies(P, S) < R[rid, R_.fifo]:
        return -1
    return rid


@kernel
def cfq_dispatch_insert(P, S, R, Q, QR, EV, rid):
    """cfq_dispatch_insert() + cfq_activate_request(): the request goes to the driver."""
    q = R[rid, R_.queue]
    Q[q, Q_.next_rq] = cfq_find_next_rq(P, R, Q, QR, q, rid)
    cfq_remove_request(S, Q, QR, q, rid)
    if Q[q, Q_.next_rq] == rid:
        Q[q, Q_.next_rq] = -1
    Q[q, Q_.dispatched] += 1
    S[S_.grp_dispatched] += 1
    if Q[q, Q_.sync] != 0:
        S[S_.in_flight_sync] += 1
    else:
        S[S_.in_flight_async] += 1
    S[S_.rq_in_driver] += 1
    S[S_.last_pos] = R[rid, R_.sect] + R[rid, R_.nsect]


@kernel
def cfq_dispatch_requests(P, S, R, Q, QR, ST, EV):
    """cfq_dispatch_requests() (not forced): one request to the driver, or -1."""
    if S[S_.busy_queues] == 0:
        return -1
    q = cfq_select_queue(P, S, R, Q, ST, EV)
    if q < 0 or Q[q, Q_.n] == 0:
        return -1
    if not cfq_may_dispatch(P, S, Q, ST, q):
        return -1
    rid = cfq_check_fifo(P, S, R, Q, QR, q)
    if rid < 0:
        rid = Q[q, Q_.next_rq]
    if rid < 0:
        rid = QR[q, 0]
    cfq_dispatch_insert(P, S, R, Q, QR, EV, rid)
    if S[S_.active_cic] < 0:
        S[S_.active_cic] = Q[q, Q_.proc]
    Q[q, Q_.slice_dispatch] += 1
    Q[q, Q_.f_must_dispatch] = 0
    if S[S_.busy_queues] > 1 and Q[q, Q_.sync] == 0 and \
            Q[q, Q_.slice_dispatch] >= 2 * P[I.cfq_slice_async_rq] * (8 - Q[q, Q_.prio]):
        Q[q, Q_.slice_end] = jiffies(P, S) + 1
        cfq_slice_expired(P, S, Q, ST, EV, 0)
    S[S_.c_dispatch] += 1
    log_ev(P, S, EV, EVT.dispatch, q, rid, R[rid, R_.sect])
    return rid


# ------------------------------------------------------------------ CFQ: new requests

@kernel
def idle_window_decision(P, Q, q):
    """The enable_idle computation of cfq_update_idle_window()."""
    enable = Q[q, Q_.f_idle_window]
    if P[I.cfq_slice_idle] == 0 or (Q[q, Q_.f_deep] == 0 and cfqq_seeky(Q, q)):
        enable = 0
    elif Q[q, Q_.tt_samples] > SAMPLE_VALID:
        enable = 0 if Q[q, Q_.tt_mean] > P[I.cfq_slice_idle] else 1
    return enable


@kernel
def cfq_update_idle_window(P, S, Q, EV, q):
    """cfq_update_idle_window(): think time and seekiness decide whether to idle; marks deep."""
    if Q[q, Q_.sync] == 0:
        return
    if P[I.cfq_mark_cfqq_deep] != 0 and Q[q, Q_.queued] >= 4:
        # with the 2011 patch a queue found faster than its device is not re-marked
        if P[I.patlasov_2011] == 0 or Q[q, Q_.f_fast] == 0:
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
    if Q[q, Q_.svc_n] == 0 or Q[q, Q_.ttns_samples] <= SAMPLE_VALID:
        return
    svc = Q[q, Q_.svc_sum] // Q[q, Q_.svc_n]
    if svc < Q[q, Q_.ttns_mean]:
        Q[q, Q_.f_fast] = 1
        clear_deep(P, S, Q, EV, q)
        before = cfqq_type(Q, q)
        set_idle_window(P, S, Q, EV, q, idle_window_decision(P, Q, q))
        if cfqq_type(Q, q) != before:
            cfq_resort_rr_list(P, S, Q, ST, q)
    else:
        Q[q, Q_.f_fast] = 0


@kernel
def cfq_should_preempt(P, S, R, Q, ST, newq, rid):
    """cfq_should_preempt(): may the queue of a new request take the disk from the active one?"""
    cur = S[S_.active]
    if cur < 0:
        return False
    if R[rid, R_.sync] != 0 and Q[cur, Q_.sync] == 0:
        return True
    if cfq_slice_used(P, S, Q, cur):
        return True
    if S[S_.serving_type] == WL.SYNC_NOIDLE_WORKLOAD and cfqq_type(Q, newq) == WL.SYNC_NOIDLE_WORKLOAD:
        t = Q[newq, Q_.tree]
        if t >= 0 and ST[t, ST_.count] == 2 and Q[cur, Q_.n] == 0:
            return True
    if P[I.cfq_should_preempt_idle_queue] != 0 and Q[cur, Q_.n] == 0 and not cfq_should_idle(P, S, Q, ST, cur):
        return True
    if S[S_.active_cic] < 0 or Q[cur, Q_.f_wait_request] == 0:
        return False
    return cfq_rq_close(P, S, R, rid)


@kernel
def cfq_preempt_queue(P, S, Q, ST, EV, q):
    old_type = cfqq_type(Q, S[S_.active])
    S[S_.c_preempt] += 1
    log_ev(P, S, EV, EVT.preempt, q, S[S_.active], 0)
    cfq_slice_expired(P, S, Q, ST, EV, 1)
    if old_type != cfqq_type(Q, q):
        S[S_.saved_wl_slice] = 0
    cfq_service_tree_add(P, S, Q, ST, q, 1)
    Q[q, Q_.slice_end] = 0
    Q[q, Q_.f_slice_new] = 1


@kernel
def cfq_insert_request(P, S, R, Q, QR, ST, EV, rid):
    """cfq_insert_request() + cfq_add_rq_rb() + cfq_rq_enqueued()."""
    q = R[rid, R_.queue]
    j = jiffies(P, S)
    sync = R[rid, R_.sync]
    R[rid, R_.fifo] = j + (P[I.cfq_fifo_expire_sync] if sync != 0 else P[I.cfq_fifo_expire_async])
    R[rid, R_.start_j] = j
    QR[q, Q[q, Q_.n]] = rid
    Q[q, Q_.n] += 1
    Q[q, Q_.queued] += 1
    if Q[q, Q_.on_rr] == 0:
        cfq_add_cfqq_rr(P, S, Q, ST, q)
    Q[q, Q_.next_rq] = cfq_choose_req(P, R, Q[q, Q_.next_rq], rid, S[S_.last_pos])
    # cfq_rq_enqueued()
    S[S_.rq_queued] += 1
    if Q[q, Q_.sync] != 0:
        sl = P[I.cfq_slice_idle]
        a, b, c = ttime_update(Q[q, Q_.tt_last], Q[q, Q_.tt_samples], Q[q, Q_.tt_total], sl, j)
        Q[q, Q_.tt_samples] = a
        Q[q, Q_.tt_total] = b
        Q[q, Q_.tt_mean] = c
        a, b, c = ttime_update(Q[q, Q_.ttns_last], Q[q, Q_.ttns_samples], Q[q, Q_.ttns_total],
                               sl * P[I.jiffy_ns], S[S_.now])
        Q[q, Q_.ttns_samples] = a
        Q[q, Q_.ttns_total] = b
        Q[q, Q_.ttns_mean] = c
        if P[I.cfq_io_thinktime_big] != 0:
            t = Q[q, Q_.tree]
            a, b, c = ttime_update(ST[t, ST_.tt_last], ST[t, ST_.tt_samples], ST[t, ST_.tt_total], sl, j)
            ST[t, ST_.tt_samples] = a
            ST[t, ST_.tt_total] = b
            ST[t, ST_.tt_mean] = c
    if P[I.cfq_io_thinktime_big] != 0:
        a, b, c = ttime_update(S[S_.grp_tt_last], S[S_.grp_tt_samples], S[S_.grp_tt_total], P[I.cfq_group_idle], j)
        S[S_.grp_tt_samples] = a
        S[S_.grp_tt_total] = b
        S[S_.grp_tt_mean] = c
    # cfq_update_io_seektime()
    sdist = 0
    pos = R[rid, R_.sect]
    if Q[q, Q_.last_req_pos] != 0:
        sdist = pos - Q[q, Q_.last_req_pos]
        if sdist < 0:
            sdist = -sdist
    h = (Q[q, Q_.seek_hist] << 1) & 0xFFFFFFFF
    if P[I.nonrot] != 0:
        if R[rid, R_.nsect] < 2 * 32:
            h |= 1
    elif sdist > CFQQ_SEEK_THR:
        h |= 1
    Q[q, Q_.seek_hist] = h
    cfq_update_idle_window(P, S, Q, EV, q)
    Q[q, Q_.last_req_pos] = pos + R[rid, R_.nsect]
    log_ev(P, S, EV, EVT.insert, q, rid, pos)
    if q == S[S_.active]:
        if Q[q, Q_.f_wait_request] != 0:
            if R[rid, R_.nsect] > PAGE_SECTORS or S[S_.busy_queues] > 1:
                del_timer(P, S)
                Q[q, Q_.f_wait_request] = 0
            else:
                Q[q, Q_.f_must_dispatch] = 1
    elif cfq_should_preempt(P, S, R, Q, ST, q, rid):
        cfq_preempt_queue(P, S, Q, ST, EV, q)


# ------------------------------------------------------------------ CFQ: completions and the idle timer

@kernel
def cfq_update_hw_tag(P, S, Q):
    q = S[S_.active]
    if S[S_.rq_in_driver] > S[S_.hw_tag_est]:
        S[S_.hw_tag_est] = S[S_.rq_in_driver]
    if S[S_.hw_tag] == 1:
        return
    if S[S_.rq_queued] <= CFQ_HW_QUEUE_MIN and S[S_.rq_in_driver] <= CFQ_HW_QUEUE_MIN:
        return
    if q >= 0 and Q[q, Q_.f_idle_window] != 0 and \
            Q[q, Q_.dispatched] + Q[q, Q_.queued] < CFQ_HW_QUEUE_MIN and S[S_.rq_in_driver] < CFQ_HW_QUEUE_MIN:
        return
    s = S[S_.hw_tag_samples]
    S[S_.hw_tag_samples] = s + 1
    if s < 50:
        return
    S[S_.hw_tag] = 1 if S[S_.hw_tag_est] >= CFQ_HW_QUEUE_MIN else 0


@kernel
def cfq_should_wait_busy(P, S, Q, q):
    if Q[q, Q_.n] != 0:
        return False
    if S[S_.nr_cfqq] > 1:
        return False
    if P[I.cfq_io_thinktime_big] != 0 and thinktime_big(S[S_.grp_tt_samples], S[S_.grp_tt_mean], P[I.cfq_group_idle]):
        return False
    if cfq_slice_used(P, S, Q, q):
        return True
    left = Q[q, Q_.slice_end] - jiffies(P, S)
    if Q[q, Q_.tt_samples] > SAMPLE_VALID and left >= 0 and left < Q[q, Q_.tt_mean]:
        return True
    if left == 1:
        return True
    return False


@kernel
def cfq_completed_request(P, S, R, Q, QR, ST, EV, rid):
    """cfq_completed_request(): set the slice on the first completion, expire or idle."""
    q = R[rid, R_.queue]
    j = jiffies(P, S)
    cfq_update_hw_tag(P, S, Q)
    S[S_.rq_in_driver] -= 1
    Q[q, Q_.dispatched] -= 1
    S[S_.grp_dispatched] -= 1
    if Q[q, Q_.sync] != 0:
        S[S_.in_flight_sync] -= 1
    else:
        S[S_.in_flight_async] -= 1
    S[S_.c_complete] += 1
    log_ev(P, S, EV, EVT.complete, q, rid, 0)
    if R[rid, R_.sync] != 0:
        Q[q, Q_.tt_last] = j
        Q[q, Q_.ttns_last] = S[S_.now]
        t = Q[q, Q_.tree]
        if t < 0:
            t = cfqq_type(Q, q)
        ST[t, ST_.tt_last] = j
        if not (R[rid, R_.start_j] + P[I.cfq_fifo_expire_sync] > j):
            S[S_.last_delayed_sync] = j
    S[S_.grp_tt_last] = j
    if S[S_.active] == q:
        Q[q, Q_.svc_sum] += R[rid, R_.t_complete] - R[rid, R_.t_dispatch]
        Q[q, Q_.svc_n] += 1
        empty = Q[q, Q_.n] == 0
        if Q[q, Q_.f_slice_new] != 0:
            cfq_set_prio_slice(P, S, Q, ST, EV, q)
            Q[q, Q_.f_slice_new] = 0
        if cfq_should_wait_busy(P, S, Q, q):
            ext = P[I.cfq_slice_idle] if P[I.cfq_slice_idle] != 0 else P[I.cfq_group_idle]
            Q[q, Q_.slice_end] = j + ext
            Q[q, Q_.f_wait_busy] = 1
        if cfq_slice_used(P, S, Q, q):
            cfq_slice_expired(P, S, Q, ST, EV, 1)
        elif R[rid, R_.sync] != 0 and empty and cfq_close_cooperator(P, S, R, Q, q) < 0:
            if P[I.patlasov_2011] != 0 and Q[q, Q_.dispatched] == 0:
                patlasov_2011_verdict(P, S, Q, ST, EV, q)
            cfq_arm_slice_timer(P, S, Q, ST, EV)


@kernel
def cfq_idle_slice_timer(P, S, Q, ST, EV):
    """cfq_idle_slice_timer(): the idle window ran out; returns True if the queue should run."""
    del_timer(P, S)
    S[S_.c_idle_fired] += 1
    q = S[S_.active]
    timed_out = 1
    if q >= 0:
        log_ev(P, S, EV, EVT.idle_timer_fired, q, Q[q, Q_.n], 0)
        timed_out = 0
        if Q[q, Q_.f_must_dispatch] != 0:
            return True
        if not cfq_slice_used(P, S, Q, q):
            if S[S_.busy_queues] == 0:
                return False
            if Q[q, Q_.n] != 0:
                return True
            # "Queue depth flag is reset only when the idle didn't succeed"
            clear_deep(P, S, Q, EV, q)
    cfq_slice_expired(P, S, Q, ST, EV, timed_out)
    return True


# ------------------------------------------------------------------ CFQ: request allocation

@leaf
def cfq_may_queue(Q, q):
    """__cfq_may_queue(): the queue CFQ is idling for gets its request even when the list is full
    (ELV_MQUEUE_MUST, once per slice); any other: ELV_MQUEUE_MAY.  Returns True for MUST."""
    if Q[q, Q_.f_wait_request] != 0 and Q[q, Q_.f_must_alloc_slice] == 0:
        Q[q, Q_.f_must_alloc_slice] = 1
        return True
    return False
