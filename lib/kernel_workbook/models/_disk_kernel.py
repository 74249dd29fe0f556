"""The device half of the event loop: spindles, NCQ, the drive's caches.

Plain functions over int64 arrays (see ``_cfq_layout``), compiled by Numba
or run as Python (``_jit``).  Time is in ns, positions in sectors.

Geometry.  A sector's angular position is ``off(lba) = lba * T_rot // spt``
(mod ``T_rot``): consecutive sectors follow one another under the head with
no gap, across track boundaries too (perfect track skew), so a request that
starts exactly where the head is costs no rotation and one that arrives a
moment too late costs almost a whole turn -- the missed-rotation effect of a
synchronous sequential stream.  The cylinder is ``lba // spt // heads``;
seek time comes from a table indexed by cylinder distance (``disk.py`` builds
it from the data-sheet track-to-track, average and full-stroke times).

Reads.  After a media read the drive keeps reading ahead (``P_RA_SECT``)
while it has nothing else to do, like every drive's segment read-ahead; a
read of data already fetched is a cache hit, one a little further on the
same stream is served by the still-running read-ahead (no seek, no rotation).
Fetched ranges are kept in a small ring of segments per spindle.

Writes.  With the write-back cache on, a write is acknowledged once it is in
the cache (command overhead plus interface transfer) if there is room;
contiguous writes coalesce into one extent, up to the size of a cache
segment (capacity / segments); an idle spindle writes extents
back (shortest positioning first), reads going first.  Without room the
write waits until a write-back frees some.  With the cache off a write is a
media operation like a read.

RAID-0.  ``P_NSPIN`` spindles, stripe unit ``P_STRIPE``; a request goes to
the spindle holding its first sector (requests are not split: keep the
stripe unit at least as large as the largest request).
"""

from ._cfq_layout import (
    DS_DONE, DS_MEDIA, DS_WAIT, DS_WCWAIT,
    P_CMD_OVH, P_HEADS, P_MEDIA_OVH, P_WC_COALESCE, P_IF_PS_SECT, P_NCQ_MAX_AGE, P_NCQ_REORDER, P_NSPIN, P_RA_SECT,
    P_RA_SEGS, P_SPT, P_STRIPE, P_TROT, P_WC_CAP, P_WC_EXT, P_WC_ON, P_WRITE_SETTLE,
    R_ANG, R_CACHED, R_CYL, R_DONE_T, R_DSTATE, R_MLBA, R_NSECT, R_RA_SEEN, R_SECT, R_SPIN, R_T_DEV, R_WRITE,
    R_XFER,
    S_C_CACHE_HIT, S_C_DESTAGE, S_C_MEDIA_OPS, S_C_WC_FULL, S_DEV_N, S_WC_LIVE, S_WC_USED, S_WW_N,
    SP_BUSY_NS, SP_BUSY_UNTIL, SP_CYL, SP_OP, SP_OP_ID, SP_PF_LIMIT, SP_PF_LO, SP_PF_ON,
    SP_DIRTY, SP_PF_POS0, SP_PF_T0, SP_RA_NEXT, SP_RA_PUSHES,
    WC_E, WC_S, WC_SPIN, WC_STATE, WC_T,
)
from ._jit import kernel, leaf


@leaf
def off(P, lba):
    """Time offset (ns, not reduced mod T_rot) at which sector ``lba`` passes under the head."""
    return (lba * P[P_TROT]) // P[P_SPT]


@leaf
def cyl_of(P, lba):
    return (lba // P[P_SPT]) // P[P_HEADS]


@leaf
def spindle_of(P, lba):
    if P[P_NSPIN] <= 1:
        return 0
    return (lba // P[P_STRIPE]) % P[P_NSPIN]


@leaf
def member_lba(P, lba):
    """Sector on the member disk of a RAID-0 (the array sector on a plain disk)."""
    n = P[P_NSPIN]
    if n <= 1:
        return lba
    st = P[P_STRIPE]
    return (lba // (st * n)) * st + lba % st


@leaf
def if_ns(P, nsect):
    """Interface transfer time of ``nsect`` sectors (ns)."""
    return (nsect * P[P_IF_PS_SECT]) // 1000


@kernel
def media_start(P, SP, SEEK, s, mlba, write, now):
    """When the transfer of an op at ``mlba`` can begin if spindle ``s`` starts positioning at ``now``."""
    d = cyl_of(P, mlba) - SP[s, SP_CYL]
    if d < 0:
        d = -d
    if d >= SEEK.shape[0]:
        d = SEEK.shape[0] - 1
    ready = now + P[P_MEDIA_OVH] + SEEK[d]
    if write != 0 and d > 0:
        ready += P[P_WRITE_SETTLE]
    trot = P[P_TROT]
    wait = (off(P, mlba) - ready) % trot
    return ready + wait


@leaf
def start_at(P, SP, SEEK, s, cyl, ang, write, now, nowmod):
    """media_start() for a command whose cylinder and angle are known; ``nowmod`` is
    ``(now + media overhead) % T_rot``, computed once per decision (no division here)."""
    d = cyl - SP[s, SP_CYL]
    if d < 0:
        d = -d
    if d >= SEEK.shape[0]:
        d = SEEK.shape[0] - 1
    sk = SEEK[d]
    if write != 0 and d > 0:
        sk += P[P_WRITE_SETTLE]
    trot = P[P_TROT]
    m = nowmod + sk
    while m >= trot:
        m -= trot
    wait = ang - m
    if wait < 0:
        wait += trot
    return now + P[P_MEDIA_OVH] + sk + wait


@leaf
def pf_pos(P, SP, s, t):
    """Sector up to which the running read-ahead of spindle ``s`` has fetched by time ``t``."""
    pos0 = SP[s, SP_PF_POS0]
    if t <= SP[s, SP_PF_T0]:
        return pos0
    d = t - SP[s, SP_PF_T0] + off(P, pos0)
    k = ((d + 1) * P[P_SPT] - 1) // P[P_TROT]
    if k > SP[s, SP_PF_LIMIT]:
        k = SP[s, SP_PF_LIMIT]
    if k < pos0:
        k = pos0
    return k


@kernel
def pf_stop(P, SP, RA, s, t):
    """End read-ahead mode at ``t``: keep what was fetched as a cache segment."""
    if SP[s, SP_PF_ON] == 0:
        return
    hi = pf_pos(P, SP, s, t)
    if P[P_RA_SEGS] > 0:
        i = SP[s, SP_RA_NEXT]
        RA[s, i, 0] = SP[s, SP_PF_LO]
        RA[s, i, 1] = hi
        SP[s, SP_RA_NEXT] = (i + 1) % P[P_RA_SEGS]
        SP[s, SP_RA_PUSHES] += 1
    SP[s, SP_PF_ON] = 0


@kernel
def read_hit(P, S, SP, RA, WC, s, mlba, lba, n, now, seen):
    """Is the read of [mlba, mlba+n) on spindle ``s`` already in a cache?

    Only the ring segments pushed since ``seen`` (SP_RA_PUSHES when this read
    was last checked) are looked at: pushed segments never change, so the
    older ones cannot have started to hold it.
    """
    e = mlba + n
    segs = P[P_RA_SEGS]
    k = SP[s, SP_RA_PUSHES] - seen
    if k > segs:
        k = segs
    i = SP[s, SP_RA_NEXT]
    for _ in range(k):
        i -= 1
        if i < 0:
            i += segs
        if RA[s, i, 1] > RA[s, i, 0] and RA[s, i, 0] <= mlba and e <= RA[s, i, 1]:
            return True
    if SP[s, SP_PF_ON] != 0 and SP[s, SP_BUSY_UNTIL] < 0:
        if SP[s, SP_PF_LO] <= mlba and e <= pf_pos(P, SP, s, now):
            return True
    if P[P_WC_ON] != 0 and S[S_WC_LIVE] > 0:
        for i in range(P[P_WC_EXT]):
            if WC[i, WC_STATE] != 0 and WC[i, WC_S] <= lba and lba + n <= WC[i, WC_E]:
                return True
    return False


@kernel
def read_done_time(P, SP, SEEK, s, mlba, n, now):
    """Completion (end of transfer) of a media read started on an idle spindle at ``now``.

    A read inside the running read-ahead window continues the stream; any
    other pays seek and rotation.
    """
    e = mlba + n
    if SP[s, SP_PF_ON] != 0 and SP[s, SP_PF_LO] <= mlba and mlba <= SP[s, SP_PF_LIMIT]:
        pos0 = SP[s, SP_PF_POS0]
        lim = SP[s, SP_PF_LIMIT]
        t_lim = SP[s, SP_PF_T0] + off(P, lim) - off(P, pos0)
        if now <= t_lim or e <= lim:
            done = SP[s, SP_PF_T0] + off(P, e) - off(P, pos0)
            if done < now:
                done = now
            return done
        start = media_start(P, SP, SEEK, s, lim, 0, now)
        return start + off(P, e) - off(P, lim)
    start = media_start(P, SP, SEEK, s, mlba, 0, now)
    return start + off(P, e) - off(P, mlba)


@kernel
def cmd_done_time(P, R, SP, SEEK, s, rid, now, nowmod):
    """Completion (end of transfer) of command ``rid`` if spindle ``s`` starts it at ``now``:
    a read inside the running read-ahead window continues the stream; any other op pays
    seek and rotation (from the cylinder, angle and transfer time kept with the command)."""
    mlba = R[rid, R_MLBA]
    if R[rid, R_WRITE] == 0 and SP[s, SP_PF_ON] != 0 and SP[s, SP_PF_LO] <= mlba and mlba <= SP[s, SP_PF_LIMIT]:
        return read_done_time(P, SP, SEEK, s, mlba, R[rid, R_NSECT], now)
    return start_at(P, SP, SEEK, s, R[rid, R_CYL], R[rid, R_ANG], R[rid, R_WRITE], now, nowmod) + R[rid, R_XFER]


@kernel
def wc_accept(P, S, R, SP, WC, rid, now):
    """Put a write into the write-back cache if it fits; True if accepted."""
    lba = R[rid, R_SECT]
    n = R[rid, R_NSECT]
    if S[S_WC_USED] + n > P[P_WC_CAP]:
        return False
    free = -1
    seg = P[P_WC_CAP] // P[P_WC_EXT]  # a dirty extent lives in one cache segment
    for i in range(P[P_WC_EXT]):
        st = WC[i, WC_STATE]
        if st == 1 and P[P_WC_COALESCE] != 0 and WC[i, WC_E] == lba and WC[i, WC_E] - WC[i, WC_S] + n <= seg:
            WC[i, WC_E] = lba + n
            WC[i, WC_T] = now
            S[S_WC_USED] += n
            return True
        if st == 0 and free < 0:
            free = i
    if free < 0:
        return False
    WC[free, WC_S] = lba
    WC[free, WC_E] = lba + n
    WC[free, WC_STATE] = 1
    WC[free, WC_T] = now
    sp = spindle_of(P, lba)
    WC[free, WC_SPIN] = sp
    SP[sp, SP_DIRTY] += 1
    S[S_WC_LIVE] += 1
    S[S_WC_USED] += n
    return True


@leaf
def finish_cmd(P, S, R, rid, t):
    """The device is done with ``rid`` at ``t`` (plus its command overhead)."""
    R[rid, R_DSTATE] = DS_DONE
    R[rid, R_DONE_T] = t + P[P_CMD_OVH]


@kernel
def spin_start_next(P, S, R, SP, RA, WC, DC, SEEK, s, now):
    """If spindle ``s`` is idle, start its next media op: a host command, else a write-back."""
    if SP[s, SP_BUSY_UNTIL] >= 0:
        return
    best = -1
    best_start = 0
    oldest = -1
    oldest_t = 0
    nowmod = (now + P[P_MEDIA_OVH]) % P[P_TROT]
    nd = S[S_DEV_N]
    k = 0
    while k < nd:
        rid = DC[k]
        k += 1
        if R[rid, R_DSTATE] != DS_WAIT or R[rid, R_SPIN] != s:
            continue
        if R[rid, R_WRITE] == 0:
            # read-ahead may have fetched it while it waited
            n = R[rid, R_NSECT]
            hit = read_hit(P, S, SP, RA, WC, s, R[rid, R_MLBA], R[rid, R_SECT], n, now, R[rid, R_RA_SEEN])
            R[rid, R_RA_SEEN] = SP[s, SP_RA_PUSHES]
            if hit:
                R[rid, R_CACHED] = 1
                S[S_C_CACHE_HIT] += 1
                finish_cmd(P, S, R, rid, now + if_ns(P, n))
                continue
        done = cmd_done_time(P, R, SP, SEEK, s, rid, now, nowmod)
        start = done - R[rid, R_XFER]
        if best < 0 or start < best_start:
            best = rid
            best_start = start
        if oldest < 0 or R[rid, R_T_DEV] < oldest_t:
            oldest = rid
            oldest_t = R[rid, R_T_DEV]
    if best >= 0:
        pick = best
        if P[P_NCQ_REORDER] == 0 or now - oldest_t > P[P_NCQ_MAX_AGE]:
            pick = oldest
        n = R[pick, R_NSECT]
        mlba = R[pick, R_MLBA]
        done = cmd_done_time(P, R, SP, SEEK, s, pick, now, nowmod)
        pf_stop(P, SP, RA, s, now)
        R[pick, R_DSTATE] = DS_MEDIA
        SP[s, SP_BUSY_UNTIL] = done
        SP[s, SP_OP] = 1
        SP[s, SP_OP_ID] = pick
        SP[s, SP_CYL] = cyl_of(P, mlba + n - 1)
        SP[s, SP_BUSY_NS] += done - now
        S[S_C_MEDIA_OPS] += 1
        return
    # nothing from the host: write dirty data back, shortest positioning first
    if P[P_WC_ON] == 0 or SP[s, SP_DIRTY] == 0:
        return
    bext = -1
    bstart = 0
    for i in range(P[P_WC_EXT]):
        if WC[i, WC_STATE] != 1 or WC[i, WC_SPIN] != s:
            continue
        lba = WC[i, WC_S]
        mlba = member_lba(P, lba)
        st = media_start(P, SP, SEEK, s, mlba, 1, now)
        if bext < 0 or st < bstart:
            bext = i
            bstart = st
    if bext < 0:
        return
    lba = WC[bext, WC_S]
    n = WC[bext, WC_E] - lba
    mlba = member_lba(P, lba)
    done = bstart + off(P, mlba + n) - off(P, mlba)
    pf_stop(P, SP, RA, s, now)
    WC[bext, WC_STATE] = 2
    SP[s, SP_DIRTY] -= 1
    SP[s, SP_BUSY_UNTIL] = done
    SP[s, SP_OP] = 2
    SP[s, SP_OP_ID] = bext
    SP[s, SP_CYL] = cyl_of(P, mlba + n - 1)
    SP[s, SP_BUSY_NS] += done - now
    S[S_C_DESTAGE] += 1


@kernel
def kick_idle(P, S, R, SP, RA, WC, DC, SEEK, now):
    for s in range(P[P_NSPIN]):
        if SP[s, SP_BUSY_UNTIL] < 0 and SP[s, SP_DIRTY] > 0:
            spin_start_next(P, S, R, SP, RA, WC, DC, SEEK, s, now)


@kernel
def retry_waiting_writes(P, S, R, SP, WC, WW, now):
    """Writes waiting for write-cache room go in, in arrival order."""
    nw = S[S_WW_N]
    k = 0
    while k < nw:
        rid = WW[k]
        if not wc_accept(P, S, R, SP, WC, rid, now):
            break
        finish_cmd(P, S, R, rid, now + if_ns(P, R[rid, R_NSECT]))
        k += 1
    if k > 0:
        for j in range(k, nw):
            WW[j - k] = WW[j]
        S[S_WW_N] = nw - k


@kernel
def dev_submit(P, S, R, SP, RA, WC, WW, DC, SEEK, rid, now):
    """The driver hands ``rid`` to the device (the caller checked there is a free tag)."""
    DC[S[S_DEV_N]] = rid
    S[S_DEV_N] += 1
    lba = R[rid, R_SECT]
    n = R[rid, R_NSECT]
    s = spindle_of(P, lba)
    mlba = member_lba(P, lba)
    R[rid, R_SPIN] = s
    R[rid, R_MLBA] = mlba
    R[rid, R_CYL] = cyl_of(P, mlba)
    o = off(P, mlba)
    R[rid, R_ANG] = o % P[P_TROT]
    R[rid, R_XFER] = off(P, mlba + n) - o
    R[rid, R_T_DEV] = now
    R[rid, R_CACHED] = 0
    if R[rid, R_WRITE] != 0:
        if P[P_WC_ON] != 0:
            if S[S_WW_N] == 0 and wc_accept(P, S, R, SP, WC, rid, now):
                R[rid, R_CACHED] = 1
                finish_cmd(P, S, R, rid, now + if_ns(P, n))
                kick_idle(P, S, R, SP, RA, WC, DC, SEEK, now)
                return
            R[rid, R_DSTATE] = DS_WCWAIT
            R[rid, R_CACHED] = 1
            WW[S[S_WW_N]] = rid
            S[S_WW_N] += 1
            S[S_C_WC_FULL] += 1
            return
    else:
        R[rid, R_RA_SEEN] = SP[s, SP_RA_PUSHES]
        if read_hit(P, S, SP, RA, WC, s, mlba, lba, n, now, -(1 << 40)):
            R[rid, R_CACHED] = 1
            S[S_C_CACHE_HIT] += 1
            finish_cmd(P, S, R, rid, now + if_ns(P, n))
            return
    R[rid, R_DSTATE] = DS_WAIT
    spin_start_next(P, S, R, SP, RA, WC, DC, SEEK, s, now)


@kernel
def spin_op_end(P, S, R, SP, RA, WC, WW, DC, SEEK, s, now):
    """Spindle ``s`` finished its op at ``now``: complete it, start the next one."""
    op = SP[s, SP_OP]
    oid = SP[s, SP_OP_ID]
    SP[s, SP_BUSY_UNTIL] = -1
    SP[s, SP_OP] = 0
    if op == 1:
        finish_cmd(P, S, R, oid, now)
        if R[oid, R_WRITE] == 0:
            e = R[oid, R_MLBA] + R[oid, R_NSECT]
            SP[s, SP_PF_ON] = 1
            SP[s, SP_PF_T0] = now
            SP[s, SP_PF_POS0] = e
            SP[s, SP_PF_LIMIT] = e + P[P_RA_SECT]
            SP[s, SP_PF_LO] = R[oid, R_MLBA]
    elif op == 2:
        S[S_WC_USED] -= WC[oid, WC_E] - WC[oid, WC_S]
        WC[oid, WC_STATE] = 0
        S[S_WC_LIVE] -= 1
        retry_waiting_writes(P, S, R, SP, WC, WW, now)
    spin_start_next(P, S, R, SP, RA, WC, DC, SEEK, s, now)
    if op == 2:
        kick_idle(P, S, R, SP, RA, WC, DC, SEEK, now)


@kernel
def dev_remove(S, DC, rid):
    """Forget a completed command (frees its tag)."""
    nd = S[S_DEV_N]
    for k in range(nd):
        if DC[k] == rid:
            for j in range(k + 1, nd):
                DC[j - 1] = DC[j]
            S[S_DEV_N] = nd - 1
            return


@kernel
def dev_next_event(P, S, R, SP, DC):
    """(time, kind, index) of the device's next event: 0 spindle op end, 1 command completion."""
    t = -1
    kind = -1
    idx = -1
    for s in range(P[P_NSPIN]):
        b = SP[s, SP_BUSY_UNTIL]
        if b >= 0 and (t < 0 or b < t):
            t = b
            kind = 0
            idx = s
    for k in range(S[S_DEV_N]):
        rid = DC[k]
        if R[rid, R_DSTATE] == DS_DONE:
            d = R[rid, R_DONE_T]
            if t < 0 or d < t:
                t = d
                kind = 1
                idx = rid
    return t, kind, idx
