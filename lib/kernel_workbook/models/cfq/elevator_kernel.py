"""noop and deadline, and the block layer's clock and event log that every elevator uses.

Each function mirrors the kernel function of the same name
(``block/noop-iosched.c``, ``block/deadline-iosched.c``): plain functions
over the arrays of ``layout``, compiled by Numba or run as Python
(``models.engine``).  The deadline of late 2002 (the writeback thread's
2.5.52-mm kernels: no write deadline, batches from the lowest sector) is
:func:`deadline_dispatch_2002`, chosen by ``deadline_rbtree_2002``.  CFQ is
in ``cfq_kernel``; the elevator interface (``elv_add_request``...) and the
merging of bios and requests are in ``blk_core_kernel``.
"""

from ..engine import kernel_no_nrt as kernel, leaf_no_nrt as leaf
from .layout import DIR, EV_, FIFO, I, R_, RS, S_


# ------------------------------------------------------------------ the clock and the log

@leaf
def jiffies(P, S):
    return S[S_.now] // P[I.jiffy_ns]


@leaf
def log_ev(P, S, EV, code, who, a, b):
    n = S[S_.log_n]
    if n < P[I.log_cap]:
        EV[n, EV_.t] = S[S_.now]
        EV[n, EV_.code] = code
        EV[n, EV_.who] = who
        EV[n, EV_.a] = a
        EV[n, EV_.b] = b
        S[S_.log_n] = n + 1


# ------------------------------------------------------------------ noop

@kernel
def noop_add_request(S, EL, rid):
    EL[FIFO.noop, S[S_.el_n]] = rid
    S[S_.el_n] += 1


@kernel
def noop_dispatch(S, EL):
    n = S[S_.el_n]
    if n == 0:
        return -1
    rid = EL[FIFO.noop, 0]
    for k in range(1, n):
        EL[FIFO.noop, k - 1] = EL[FIFO.noop, k]
    S[S_.el_n] = n - 1
    return rid


# ------------------------------------------------------------------ deadline

@kernel
def deadline_add_request(P, S, R, EL, rid):
    d = R[rid, R_.write]
    j = jiffies(P, S)
    if d == DIR.READ:
        R[rid, R_.fifo] = j + P[I.read_expire]
        EL[FIFO.deadline_read, S[S_.dl_n_r]] = rid
        S[S_.dl_n_r] += 1
    else:
        R[rid, R_.fifo] = j + P[I.write_expire]
        EL[FIFO.deadline_write, S[S_.dl_n_w]] = rid
        S[S_.dl_n_w] += 1


@kernel
def deadline_latter_request(R, EL, n, row, rid):
    """The next request in sector order after ``rid`` (rb_next in the sort list)."""
    s0 = R[rid, R_.sect]
    best = -1
    for k in range(n):
        r = EL[row, k]
        if r == rid:
            continue
        s = R[r, R_.sect]
        if s > s0 or (s == s0 and r > rid):
            if best < 0 or s < R[best, R_.sect] or (s == R[best, R_.sect] and r < best):
                best = r
    return best


@kernel
def deadline_former_request(R, EL, n, row, rid):
    """The request before ``rid`` in sector order (rb_prev in the sort list)."""
    s0 = R[rid, R_.sect]
    best = -1
    for k in range(n):
        r = EL[row, k]
        if r == rid:
            continue
        s = R[r, R_.sect]
        if s < s0 or (s == s0 and r < rid):
            if best < 0 or s > R[best, R_.sect] or (s == R[best, R_.sect] and r > best):
                best = r
    return best


@kernel
def deadline_first(R, EL, n, row):
    """rb_first(): the lowest-sector request of a sort list, or -1."""
    best = -1
    for k in range(n):
        r = EL[row, k]
        if best < 0 or R[r, R_.sect] < R[best, R_.sect] or (R[r, R_.sect] == R[best, R_.sect] and r < best):
            best = r
    return best


# the 2002 deadline's batch costs (drivers/block/deadline-iosched.c, 2.5.46-BK + the rbtree patch)
DL2002_SEEK_COST = 16  # seek_cost: "a seek is 16 times more expensive"
DL2002_STREAM_UNIT = 256 * 2  # stream_unit: 256 KiB of contiguous data cost one unit (in sectors)


@kernel
def deadline_choose_dir(P, S, reads, writes):
    """The direction a new batch takes: reads, unless writes have been passed over ``writes_starved`` times
    (each choice of reads while writes wait counts one); -1 when both lists are empty."""
    if reads:
        if writes:
            st = S[S_.dl_starved]
            S[S_.dl_starved] = st + 1
            if st >= P[I.writes_starved]:
                return DIR.WRITE
        return DIR.READ
    if writes:
        return DIR.WRITE
    return -1


@kernel
def deadline_dispatch_2002(P, S, R, EL):
    """deadline_dispatch_requests() + deadline_move_requests() of late 2002, one request at a time.

    Only reads have a deadline (``read_fifo``): an expired read starts a batch at the FIFO head;
    otherwise a batch starts at the lowest sector (``rb_first``) of reads, or of writes when there
    are no reads or reads have passed them ``writes_starved`` times.  A batch goes on upward in
    sector order, each request costing ``seek_cost`` unless it starts where the last one ended
    (then one per ``stream_unit``), until ``fifo_batch`` is spent or the list ends.
    """
    rq = -1
    if S[S_.dl_batching] > 0:
        rq = S[S_.dl_next_w] if S[S_.dl_next_w] >= 0 else S[S_.dl_next_r]
        if rq >= 0 and R[rq, R_.state] != RS.elevator:
            rq = -1
    if rq < 0:
        reads = S[S_.dl_n_r] > 0
        writes = S[S_.dl_n_w] > 0
        ddir = deadline_choose_dir(P, S, reads, writes)
        if ddir < 0:
            return -1
        if ddir == DIR.WRITE:
            S[S_.dl_starved] = 0
            rq = deadline_first(R, EL, S[S_.dl_n_w], FIFO.deadline_write)
        else:
            first = EL[FIFO.deadline_read, 0]
            rq = first if jiffies(P, S) >= R[first, R_.fifo] else deadline_first(R, EL, S[S_.dl_n_r],
                                                                                  FIFO.deadline_read)
        S[S_.dl_batching] = P[I.fifo_batch]
    ddir = R[rq, R_.write]
    row = FIFO.deadline_read + ddir
    n = S[S_.dl_n_w] if ddir == DIR.WRITE else S[S_.dl_n_r]
    nxt = deadline_latter_request(R, EL, n, row, rq)
    cost = DL2002_SEEK_COST
    if R[rq, R_.sect] == S[S_.dl_last_sector]:
        cost = (R[rq, R_.nsect] + DL2002_STREAM_UNIT - 1) // DL2002_STREAM_UNIT
    S[S_.dl_batching] -= cost
    if nxt < 0 or S[S_.dl_batching] <= 0:
        S[S_.dl_batching] = 0
        nxt = -1
    S[S_.dl_next_r] = -1
    S[S_.dl_next_w] = -1
    if ddir == DIR.WRITE:
        S[S_.dl_next_w] = nxt
    else:
        S[S_.dl_next_r] = nxt
    S[S_.dl_last_sector] = R[rq, R_.sect] + R[rq, R_.nsect]
    for k in range(n):
        if EL[row, k] == rq:
            for m in range(k + 1, n):
                EL[row, m - 1] = EL[row, m]
            break
    if ddir == DIR.WRITE:
        S[S_.dl_n_w] = n - 1
    else:
        S[S_.dl_n_r] = n - 1
    return rq


@kernel
def deadline_dispatch_requests(P, S, R, EL):
    """deadline_dispatch_requests(): batches in sector order, FIFO deadlines, writes_starved."""
    if P[I.deadline_rbtree_2002] != 0:
        return deadline_dispatch_2002(P, S, R, EL)
    reads = S[S_.dl_n_r] > 0
    writes = S[S_.dl_n_w] > 0
    rq = S[S_.dl_next_w]
    if rq < 0:
        rq = S[S_.dl_next_r]
    if not (rq >= 0 and S[S_.dl_batching] < P[I.fifo_batch]):
        ddir = deadline_choose_dir(P, S, reads, writes)
        if ddir < 0:
            return -1
        if ddir == DIR.WRITE:
            S[S_.dl_starved] = 0
        row = FIFO.deadline_read + ddir
        nxt = S[S_.dl_next_w] if ddir == DIR.WRITE else S[S_.dl_next_r]
        first = EL[row, 0]
        expired = jiffies(P, S) >= R[first, R_.fifo]
        if expired or nxt < 0:
            rq = first
        else:
            rq = nxt
        S[S_.dl_batching] = 0
    # deadline_move_request
    S[S_.dl_batching] += 1
    ddir = R[rq, R_.write]
    row = FIFO.deadline_read + ddir
    n = S[S_.dl_n_w] if ddir == DIR.WRITE else S[S_.dl_n_r]
    nxt = deadline_latter_request(R, EL, n, row, rq)
    S[S_.dl_next_r] = -1
    S[S_.dl_next_w] = -1
    if ddir == DIR.WRITE:
        S[S_.dl_next_w] = nxt
    else:
        S[S_.dl_next_r] = nxt
    for k in range(n):
        if EL[row, k] == rq:
            for m in range(k + 1, n):
                EL[row, m - 1] = EL[row, m]
            break
    if ddir == DIR.WRITE:
        S[S_.dl_n_w] = n - 1
    else:
        S[S_.dl_n_r] = n - 1
    return rq
