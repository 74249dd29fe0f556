"""The block layer between a submitter, the elevator and the device: ``block/ll_rw_blk.c`` and ``block/elevator.c``.

Read in 2.6.23 (``block/ll_rw_blk.c``, ``block/elevator.c``); 3.x moved the
same functions to ``block/blk-core.c`` and ``block/blk-merge.c`` and counts
the request list per sync/async instead of per read/write, as this model does
(every writeback request is an async write, so the two agree for it).  The
disk/CFQ event loop and the writeback model (``models/writeback``) both run
their I/O through these functions:

* the request list: :func:`get_request` (``nr_requests`` per direction, the
  batching process that may pass a full list, ``blk_set_queue_congested()``
  at ``blk_queue_congestion_threshold()``'s "on" mark), :func:`freed_request`
  (``blk_clear_queue_congested()`` below the "off" mark -- every such call
  wakes each ``congestion_wait()`` sleeper -- and the first process waiting
  for a request);
* the elevator interface of ``block/elevator.c``: :func:`elv_add_request`,
  :func:`elv_dispatch`, :func:`elv_completed`;
* ``__make_request()`` (:func:`make_request`): a bio merges into a queued
  request (``elv_merge()``: the one-hit ``q->last_merge``, the hash of request
  ends for a back merge, the elevator's own front merge), and a merged
  request into its neighbour (``attempt_back_merge()`` /
  ``attempt_front_merge()``), up to ``q->max_sectors``; else it takes a new
  request;
* :func:`run_queue` (``__blk_run_queue()``) and :func:`blk_finish_request`
  (a completion: the elevator's hook, the request back to the list).

The tiobench and aio-stress workloads of the CFQ threads issue requests that
never merge, so :func:`make_request` is the writeback model's way in; the
event loop calls :func:`get_request` and :func:`admit` itself.
"""

from ..engine import sibling, kernel_no_nrt as kernel, leaf_no_nrt as leaf
from .layout import EVT, FIFO, I, MERGE, PR_, PS, Q_, R_, RS, S_, SCHED

_el = sibling(__name__, "elevator_kernel")
_cfq = sibling(__name__, "cfq_kernel")
_dk = sibling(__name__, "disk_kernel")
cfq_insert_request = _cfq.cfq_insert_request
cfq_dispatch_requests = _cfq.cfq_dispatch_requests
cfq_completed_request = _cfq.cfq_completed_request
cfq_may_queue = _cfq.cfq_may_queue
cfq_choose_req = _cfq.cfq_choose_req
cfq_find_next_rq = _cfq.cfq_find_next_rq
cfq_remove_request = _cfq.cfq_remove_request
noop_add_request = _el.noop_add_request
noop_dispatch = _el.noop_dispatch
deadline_add_request = _el.deadline_add_request
deadline_dispatch_requests = _el.deadline_dispatch_requests
deadline_latter_request = _el.deadline_latter_request
deadline_former_request = _el.deadline_former_request
log_ev = _el.log_ev
jiffies = _el.jiffies
dev_submit = _dk.dev_submit
dev_remove = _dk.dev_remove
BLK_BATCH_REQ = 32  # q->nr_batching: requests a batching process may take past a full list


# ------------------------------------------------------------------ the elevator interface (block/elevator.c)
# Leaves: each is a switch on the scheduler that hands its eight arrays on.  Compiled as functions,
# every call spelled out each array's fields a second time (the arguments of a Numba function) for
# a single comparison -- about a twentieth of the compiled loop on the benchmark.

@leaf
def elv_add_request(P, S, R, Q, QR, ST, EL, EV, rid):
    sched = P[I.scheduler]
    if sched == SCHED.noop:
        noop_add_request(S, EL, rid)
    elif sched == SCHED.deadline:
        deadline_add_request(P, S, R, EL, rid)
    else:
        cfq_insert_request(P, S, R, Q, QR, ST, EV, rid)


@leaf
def elv_dispatch(P, S, R, Q, QR, ST, EL, EV):
    sched = P[I.scheduler]
    if sched == SCHED.noop:
        return noop_dispatch(S, EL)
    if sched == SCHED.deadline:
        return deadline_dispatch_requests(P, S, R, EL)
    return cfq_dispatch_requests(P, S, R, Q, QR, ST, EV)


@leaf
def elv_completed(P, S, R, Q, QR, ST, EV, rid):
    if P[I.scheduler] == SCHED.cfq:
        cfq_completed_request(P, S, R, Q, QR, ST, EV, rid)


@leaf
def admit(P, S, R, Q, QR, ST, EL, EV, p, rid):
    """The request has its struct: into the elevator (iostat counts it from here).

    A leaf, like the elevator interface it calls (two callers, three statements of its own)."""
    R[rid, R_.state] = RS.elevator
    R[rid, R_.t_insert] = S[S_.now]
    if P[I.scheduler] != SCHED.cfq:
        log_ev(P, S, EV, EVT.insert, p, rid, R[rid, R_.sect])
    elv_add_request(P, S, R, Q, QR, ST, EL, EV, rid)


@kernel
def run_queue(P, S, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK):
    """__blk_run_queue(): move requests from the elevator to the device while it has free tags."""
    while S[S_.dev_n] < P[I.ncq_depth]:
        rid = elv_dispatch(P, S, R, Q, QR, ST, EL, EV)
        if rid < 0:
            break
        R[rid, R_.state] = RS.device
        R[rid, R_.t_dispatch] = S[S_.now]
        if P[I.scheduler] != SCHED.cfq:
            log_ev(P, S, EV, EVT.dispatch, R[rid, R_.proc], rid, R[rid, R_.sect])
        if S[S_.last_merge] == rid:  # elv_dispatch_sort(): the dispatched request leaves the merge cache
            S[S_.last_merge] = -1
        dev_submit(P, S, R, SP, RA, WC, WW, DC, SEEK, rid, S[S_.now])


# ------------------------------------------------------------------ the request list

@leaf
def congestion_on_threshold(P):
    """``blk_queue_congestion_threshold()``: congested from ``nr - nr/8 + 1`` requests (113 of 128)."""
    nr = P[I.nr_requests]
    on = nr - nr // 8 + 1
    return nr if on > nr else on


@leaf
def congestion_off_threshold(P):
    """... and uncongested below ``nr - nr/8 - nr/16 - 1`` (103 of 128)."""
    nr = P[I.nr_requests]
    off = nr - nr // 8 - nr // 16 - 1
    return 1 if off < 1 else off


@leaf
def ioc_batching(P, S, PR, p):
    """ioc_batching(): may the process still allocate past a full list (BLK_BATCH_REQ requests, BLK_BATCH_TIME)?"""
    n = PR[p, PR_.nr_batch_requests]
    return n == BLK_BATCH_REQ or (n > 0 and jiffies(P, S) < PR[p, PR_.last_waited] + P[I.HZ] // 50)


@leaf
def ioc_set_batching(P, S, PR, p):
    if not ioc_batching(P, S, PR, p):
        PR[p, PR_.nr_batch_requests] = BLK_BATCH_REQ
        PR[p, PR_.last_waited] = jiffies(P, S)


@kernel
def get_request(P, S, Q, PR, p, sync, q):
    """get_request(): may process ``p`` have a request of direction ``sync`` (for queue ``q``)?

    The list holds ``P[I.nr_requests]`` requests of a direction; the one who
    fills it becomes a "batcher", others fail unless batching or exempted
    by the elevator (CFQ's ELV_MQUEUE_MUST), and nobody passes 3/2 of the
    limit.  From the "on" threshold the queue is marked congested (what
    ``bdi_write_congested()`` reports to writeback and reclaim).
    """
    must = P[I.scheduler] == SCHED.cfq and cfq_may_queue(Q, q)
    cnt = S[S_.rl_count_async + sync]
    nr = P[I.nr_requests]
    if cnt + 1 >= congestion_on_threshold(P):
        if cnt + 1 >= nr:
            if S[S_.rl_full_async + sync] == 0:
                ioc_set_batching(P, S, PR, p)
                S[S_.rl_full_async + sync] = 1
            elif not must and not ioc_batching(P, S, PR, p):
                return False
        S[S_.rl_congested_async + sync] = 1
    if cnt >= 3 * nr // 2:
        return False
    S[S_.rl_count_async + sync] = cnt + 1
    if cnt + 1 > S[S_.rl_count_max]:
        S[S_.rl_count_max] = cnt + 1
    if ioc_batching(P, S, PR, p):
        PR[p, PR_.nr_batch_requests] -= 1
    return True


@leaf
def rq_sleep(S, PR, p, rid, sync):
    """get_request_wait(): prepare_to_wait_exclusive() at the tail of the direction's wait queue, io_schedule()."""
    PR[p, PR_.state] = PS.rqwait
    PR[p, PR_.wait_rid] = rid
    PR[p, PR_.wait_sync] = sync
    S[S_.wait_seq] += 1
    PR[p, PR_.wait_seq] = S[S_.wait_seq]
    S[S_.rl_waiters_async + sync] += 1
    S[S_.c_sleeprq] += 1


@kernel
def freed_request(P, S, PR, sync):
    """freed_request(): one request of ``sync`` is back; below "off" the queue is uncongested (every such
    call counts in ``c_congestion_clear``: ``clear_bdi_congested()`` wakes all congestion_wait() sleepers);
    wake the first process waiting for a request."""
    S[S_.rl_count_async + sync] -= 1
    if S[S_.rl_count_async + sync] < congestion_off_threshold(P):
        S[S_.rl_congested_async + sync] = 0
        S[S_.c_congestion_clear] += 1
    if S[S_.rl_count_async + sync] + 1 <= P[I.nr_requests]:
        if S[S_.rl_waiters_async + sync] > 0:
            best = -1
            for p in range(PR.shape[0]):
                if PR[p, PR_.state] == PS.rqwait and PR[p, PR_.wait_sync] == sync and (
                        best < 0 or PR[p, PR_.wait_seq] < PR[best, PR_.wait_seq]):
                    best = p
            S[S_.rl_waiters_async + sync] -= 1
            PR[best, PR_.state] = PS.rqwoken
            PR[best, PR_.t] = S[S_.now] + PR[best, PR_.think]  # the wake-up, as after a completion
        S[S_.rl_full_async + sync] = 0


@kernel
def blk_finish_request(P, S, R, Q, QR, ST, EV, PR, DC, rid):
    """The device completed ``rid``: it leaves the device, the elevator's completion hook runs
    (``elv_completed_request()``) and the request goes back to the list (``__blk_put_request()``)."""
    dev_remove(S, DC, rid)
    R[rid, R_.state] = RS.done
    R[rid, R_.t_complete] = S[S_.now]
    if P[I.scheduler] != SCHED.cfq:
        log_ev(P, S, EV, EVT.complete, R[rid, R_.proc], rid, 0)
    elv_completed(P, S, R, Q, QR, ST, EV, rid)
    freed_request(P, S, PR, R[rid, R_.sync])


# ------------------------------------------------------------------ merging (__make_request, elv_merge)

@leaf
def rq_mergeable(R, rid):
    """rq_mergeable(): still in the elevator (not started) and not marked REQ_NOMERGE."""
    return R[rid, R_.state] == RS.elevator and R[rid, R_.nomerge] == 0


@leaf
def elv_rq_merge_ok(P, R, rid, write, sync, q):
    """elv_rq_merge_ok(): same direction; CFQ's cfq_allow_merge(): no sync bio into an async request, and
    only into a request of the queue the bio would go to."""
    if not rq_mergeable(R, rid) or R[rid, R_.write] != write:
        return False
    if P[I.scheduler] == SCHED.cfq:
        if sync != 0 and R[rid, R_.sync] == 0:
            return False
        if R[rid, R_.queue] != q:
            return False
    return True


@kernel
def elv_merge(P, S, R, write, sync, q, sect, nsect):
    """elv_merge(): ``(kind, rid)`` of a queued request the bio ``[sect, sect + nsect)`` can join.

    The one-hit cache ``q->last_merge`` first (either end), then the hash of request ends (a back
    merge, any elevator), then the elevator's front merge: CFQ's in the bio's queue
    (``cfq_find_rq_fmerge()``), deadline's in the sort list of its direction; noop has none.
    """
    lm = S[S_.last_merge]
    if lm >= 0 and elv_rq_merge_ok(P, R, lm, write, sync, q):
        if R[lm, R_.sect] + R[lm, R_.nsect] == sect:
            return MERGE.ELEVATOR_BACK_MERGE, lm
        if R[lm, R_.sect] - nsect == sect:
            return MERGE.ELEVATOR_FRONT_MERGE, lm
    for rid in range(R.shape[0]):  # elv_rqhash_find(): a request ending where the bio starts
        if R[rid, R_.sect] + R[rid, R_.nsect] == sect and elv_rq_merge_ok(P, R, rid, write, sync, q):
            return MERGE.ELEVATOR_BACK_MERGE, rid
    if P[I.scheduler] != SCHED.noop:
        for rid in range(R.shape[0]):  # elv_rb_find() of the elevator's merge_fn: a request starting at its end
            if R[rid, R_.sect] == sect + nsect and elv_rq_merge_ok(P, R, rid, write, sync, q):
                return MERGE.ELEVATOR_FRONT_MERGE, rid
    return MERGE.ELEVATOR_NO_MERGE, -1


@kernel
def elv_neighbour(P, S, R, Q, QR, EL, rid, later):
    """elv_latter_request() (``later``) / elv_former_request(): the request after or before ``rid``.

    CFQ and deadline: the next or previous sector of the same sort list (the CFQ queue's, the
    direction's: ``elv_rb_latter_request()``); noop: the next or previous request of its FIFO.
    -1 when there is none.
    """
    sched = P[I.scheduler]
    if sched == SCHED.noop:
        n = S[S_.el_n]
        for k in range(n):
            if EL[FIFO.noop, k] == rid:
                if later:
                    return EL[FIFO.noop, k + 1] if k + 1 < n else -1
                return EL[FIFO.noop, k - 1] if k > 0 else -1
        return -1
    if sched == SCHED.deadline:
        w = R[rid, R_.write]
        n = S[S_.dl_n_w] if w != 0 else S[S_.dl_n_r]
        if later:
            return deadline_latter_request(R, EL, n, FIFO.deadline_read + w, rid)
        return deadline_former_request(R, EL, n, FIFO.deadline_read + w, rid)
    q = R[rid, R_.queue]
    s0 = R[rid, R_.sect]
    best = -1
    for k in range(Q[q, Q_.n]):
        r = QR[q, k]
        if r == rid:
            continue
        s = R[r, R_.sect]
        if later:
            if (s > s0 or (s == s0 and r > rid)) and (best < 0 or s < R[best, R_.sect]):
                best = r
        elif (s < s0 or (s == s0 and r < rid)) and (best < 0 or s > R[best, R_.sect]):
            best = r
    return best


@kernel
def elv_remove_merged(P, S, R, Q, QR, EL, req, nxt):
    """elv_merge_requests()'s elevator part: ``nxt`` joined ``req`` and leaves the elevator.

    CFQ (cfq_merged_requests()): ``req`` keeps its FIFO place, ``nxt`` leaves its queue (the queue's
    ``next_rq`` moves on if it was ``nxt``); deadline (deadline_merged_requests()): ``req`` takes
    ``nxt``'s FIFO place and expiry when ``nxt`` expires first, ``nxt`` leaves both lists (its
    direction's ``next_rq`` moves on); noop: ``nxt`` leaves the FIFO.
    """
    sched = P[I.scheduler]
    if sched == SCHED.noop:
        n = S[S_.el_n]
        for k in range(n):
            if EL[FIFO.noop, k] == nxt:
                for m in range(k + 1, n):
                    EL[FIFO.noop, m - 1] = EL[FIFO.noop, m]
                break
        S[S_.el_n] = n - 1
    elif sched == SCHED.deadline:
        w = R[nxt, R_.write]
        row = FIFO.deadline_read + w
        n = S[S_.dl_n_w] if w != 0 else S[S_.dl_n_r]
        # deadline_remove_request(): the direction's next_rq moves on (found while nxt is still listed)
        if w != 0 and S[S_.dl_next_w] == nxt:
            S[S_.dl_next_w] = deadline_latter_request(R, EL, n, row, nxt)
        if w == 0 and S[S_.dl_next_r] == nxt:
            S[S_.dl_next_r] = deadline_latter_request(R, EL, n, row, nxt)
        move = R[nxt, R_.fifo] < R[req, R_.fifo]
        if move:
            R[req, R_.fifo] = R[nxt, R_.fifo]
        m = 0
        for k in range(n):  # the FIFO without nxt (req in nxt's place when it moves)
            r = EL[row, k]
            if r == req and move:
                continue
            if r == nxt:
                if move:
                    EL[row, m] = req
                    m += 1
                continue
            EL[row, m] = r
            m += 1
        if w != 0:
            S[S_.dl_n_w] = m
        else:
            S[S_.dl_n_r] = m
    else:
        q = R[nxt, R_.queue]
        if R[nxt, R_.start_j] < R[req, R_.start_j]:  # attempt_merge(): the older start time (the FIFO's clock)
            R[req, R_.start_j] = R[nxt, R_.start_j]
            R[req, R_.fifo] = R[nxt, R_.fifo]
        if Q[q, Q_.next_rq] == nxt:
            Q[q, Q_.next_rq] = cfq_find_next_rq(P, R, Q, QR, q, nxt)
        cfq_remove_request(S, Q, QR, q, nxt)
        if Q[q, Q_.next_rq] == nxt:
            Q[q, Q_.next_rq] = -1


@kernel
def attempt_merge(P, S, R, Q, QR, EL, PR, req, nxt):
    """attempt_merge(): ``nxt`` starts where ``req`` ends and both fit under ``max_sectors``: ``req`` takes
    ``nxt``'s sectors, ``nxt`` leaves the elevator and goes back to the request list."""
    if not rq_mergeable(R, req) or not rq_mergeable(R, nxt):
        return False
    if R[req, R_.sect] + R[req, R_.nsect] != R[nxt, R_.sect] or R[req, R_.write] != R[nxt, R_.write]:
        return False
    if R[req, R_.nsect] + R[nxt, R_.nsect] > P[I.max_sectors_kb]:  # ll_merge_requests_fn()
        return False
    R[req, R_.nsect] += R[nxt, R_.nsect]
    elv_remove_merged(P, S, R, Q, QR, EL, req, nxt)
    S[S_.last_merge] = req
    R[nxt, R_.state] = RS.free
    S[S_.c_rq_merge] += 1
    freed_request(P, S, PR, R[nxt, R_.sync])
    return True


@leaf
def elv_merged_request(P, S, R, Q, rid, kind):
    """elv_merged_request(): after a front merge CFQ repositions the request (cfq_merged_request():
    it may now be the queue's better next request); ``q->last_merge`` is this request."""
    if kind == MERGE.ELEVATOR_FRONT_MERGE and P[I.scheduler] == SCHED.cfq:
        q = R[rid, R_.queue]
        Q[q, Q_.next_rq] = cfq_choose_req(P, R, Q[q, Q_.next_rq], rid, S[S_.last_pos])
    S[S_.last_merge] = rid


@leaf
def no_more_merges(S, R, rid):
    """ll_back_merge_fn() / ll_front_merge_fn() refused (``max_sectors``): REQ_NOMERGE, out of the cache."""
    R[rid, R_.nomerge] = 1
    if S[S_.last_merge] == rid:
        S[S_.last_merge] = -1


@kernel
def make_request(P, S, R, Q, QR, ST, EL, EV, PR, p, new_rid, sect, nsect, write, sync, q, may_merge):
    """__make_request() of one bio ``[sect, sect + nsect)`` of process ``p`` for queue ``q``.

    Returns ``(holder, freed)``: the request that now carries the bio -- a queued one it merged
    into, or ``new_rid`` when it took a new request -- and a request that merged into ``holder``
    and is free again (-1: none); ``(-1, -1)`` when the list has no request for ``p``
    (get_request_wait() would sleep: the caller does, holding the bio).  ``may_merge`` is False for
    a bio retried after that sleep (2.6.23 does not look for a merge again).
    """
    if may_merge:
        kind, rid = elv_merge(P, S, R, write, sync, q, sect, nsect)
        if kind != MERGE.ELEVATOR_NO_MERGE:
            if R[rid, R_.nsect] + nsect > P[I.max_sectors_kb]:
                no_more_merges(S, R, rid)
            elif kind == MERGE.ELEVATOR_BACK_MERGE:
                R[rid, R_.nsect] += nsect
                S[S_.c_back_merge] += 1
                nxt = elv_neighbour(P, S, R, Q, QR, EL, rid, True)
                if nxt >= 0 and attempt_merge(P, S, R, Q, QR, EL, PR, rid, nxt):  # attempt_back_merge()
                    return rid, nxt
                elv_merged_request(P, S, R, Q, rid, kind)
                return rid, -1
            else:
                R[rid, R_.sect] = sect
                R[rid, R_.nsect] += nsect
                S[S_.c_front_merge] += 1
                prv = elv_neighbour(P, S, R, Q, QR, EL, rid, False)
                if prv >= 0 and attempt_merge(P, S, R, Q, QR, EL, PR, prv, rid):  # attempt_front_merge()
                    return prv, rid
                elv_merged_request(P, S, R, Q, rid, kind)
                return rid, -1
    if not get_request(P, S, Q, PR, p, sync, q):
        return -1, -1
    R[new_rid, R_.proc] = p
    R[new_rid, R_.file] = 0
    R[new_rid, R_.sect] = sect
    R[new_rid, R_.nsect] = nsect
    R[new_rid, R_.write] = write
    R[new_rid, R_.sync] = sync
    R[new_rid, R_.queue] = q
    R[new_rid, R_.nomerge] = 0
    R[new_rid, R_.t_issue] = S[S_.now]
    R[new_rid, R_.dstate] = 0
    R[new_rid, R_.done_t] = -1
    R[new_rid, R_.t_insert] = -1
    R[new_rid, R_.t_dispatch] = -1
    R[new_rid, R_.t_complete] = -1
    admit(P, S, R, Q, QR, ST, EL, EV, p, new_rid)
    if S[S_.last_merge] < 0:  # elv_insert(ELEVATOR_INSERT_SORT): the merge cache is empty, take this one
        S[S_.last_merge] = new_rid
    return new_rid, -1
