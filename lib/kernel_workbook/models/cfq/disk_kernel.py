"""The device half of the event loop: spindles, NCQ, the drive's caches.

Plain functions over int64 arrays (their columns: ``layout``), compiled by
Numba or run as Python (``models.engine``).  Time is in ns, positions in
sectors; ``P[I.<knob>]`` holds a disk knob in those units (``P[I.cmd_overhead_us]``
is ns).

Geometry.  A sector's angular position is ``off(lba) = lba * T_rot // spt``
(mod ``T_rot``): consecutive sectors follow one another under the head with
no gap, across track boundaries too (perfect track skew), so a request that
starts exactly where the head is costs no rotation and one that arrives a
moment too late costs almost a whole turn -- the missed-rotation effect of a
synchronous sequential stream.  The cylinder is ``lba // spt // heads``;
seek time comes from a table indexed by cylinder distance (``analytic.py``
builds it from the data-sheet track-to-track, average and full-stroke times).

Reads.  After a media read the drive keeps reading ahead (``readahead_kb``)
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
media operation like a read.  FLUSH CACHE and FUA are not modelled and no
write bypasses the cache: in 3.1 an O_DIRECT write is ``WRITE_ODIRECT =
WRITE | REQ_SYNC`` (include/linux/fs.h), with neither REQ_FLUSH nor REQ_FUA.
The segment count, how firmware groups cached writes and the write-back
order are in no data sheet (docs/models/cfq.md: this sets the 2011 slow
disk's miss).

RAID-0.  ``spindles`` spindles, stripe unit ``stripe_kb``; a request goes to
the spindle holding its first sector (requests are not split: keep the
stripe unit at least as large as the largest request).
"""

from ..engine import kernel_no_nrt as kernel, leaf_no_nrt as leaf
from .layout import DS, I, NEXT, R_, RA_, S_, SP_, SPOP, WC_, WCS


@leaf
def off(P, lba):
    """Time offset (ns, not reduced mod T_rot) at which sector ``lba`` passes under the head."""
    return (lba * P[I.rot_ns]) // P[I.sectors_per_track]


@leaf
def cyl_of(P, lba):
    return (lba // P[I.sectors_per_track]) // P[I.heads]


@leaf
def spindle_of(P, lba):
    if P[I.spindles] <= 1:
        return 0
    return (lba // P[I.stripe_kb]) % P[I.spindles]


@leaf
def member_lba(P, lba):
    """Sector on the member disk of a RAID-0 (the array sector on a plain disk)."""
    n = P[I.spindles]
    if n <= 1:
        return lba
    st = P[I.stripe_kb]
    return (lba // (st * n)) * st + lba % st


@leaf
def if_ns(P, nsect):
    """Interface transfer time of ``nsect`` sectors (ns)."""
    return (nsect * P[I.if_ps_per_sector]) // 1000


@kernel
def media_start(P, SP, SEEK, s, mlba, write, now):
    """When the transfer of an op at ``mlba`` can begin if spindle ``s`` starts positioning at ``now``."""
    d = cyl_of(P, mlba) - SP[s, SP_.cyl]
    if d < 0:
        d = -d
    if d >= SEEK.shape[0]:
        d = SEEK.shape[0] - 1
    ready = now + P[I.media_overhead_us] + SEEK[d]
    if write != 0 and d > 0:
        ready += P[I.write_settle_ms]
    trot = P[I.rot_ns]
    wait = (off(P, mlba) - ready) % trot
    return ready + wait


@leaf
def start_at(P, SP, SEEK, s, cyl, ang, write, now, nowmod):
    """media_start() for a command whose cylinder and angle are known; ``nowmod`` is
    ``(now + media overhead) % T_rot``, computed once per decision (no division here)."""
    d = cyl - SP[s, SP_.cyl]
    if d < 0:
        d = -d
    if d >= SEEK.shape[0]:
        d = SEEK.shape[0] - 1
    sk = SEEK[d]
    if write != 0 and d > 0:
        sk += P[I.write_settle_ms]
    trot = P[I.rot_ns]
    m = nowmod + sk
    while m >= trot:
        m -= trot
    wait = ang - m
    if wait < 0:
        wait += trot
    return now + P[I.media_overhead_us] + sk + wait


@leaf
def pf_pos(P, SP, s, t):
    """Sector up to which the running read-ahead of spindle ``s`` has fetched by time ``t``."""
    pos0 = SP[s, SP_.pf_pos0]
    if t <= SP[s, SP_.pf_t0]:
        return pos0
    d = t - SP[s, SP_.pf_t0] + off(P, pos0)
    k = ((d + 1) * P[I.sectors_per_track] - 1) // P[I.rot_ns]
    if k > SP[s, SP_.pf_limit]:
        k = SP[s, SP_.pf_limit]
    if k < pos0:
        k = pos0
    return k


@kernel
def pf_stop(P, SP, RA, s, t):
    """End read-ahead mode at ``t``: keep what was fetched as a cache segment."""
    if SP[s, SP_.pf_on] == 0:
        return
    hi = pf_pos(P, SP, s, t)
    if P[I.read_segments] > 0:
        i = SP[s, SP_.ra_next]
        RA[s, i, RA_.lo] = SP[s, SP_.pf_lo]
        RA[s, i, RA_.hi] = hi
        SP[s, SP_.ra_next] = (i + 1) % P[I.read_segments]
        SP[s, SP_.ra_pushes] += 1
    SP[s, SP_.pf_on] = 0


@kernel
def read_hit(P, S, SP, RA, WC, s, mlba, lba, n, now, seen):
    """Is the read of [mlba, mlba+n) on spindle ``s`` already in a cache?

    Only the ring segments pushed since ``seen`` (SP_.ra_pushes when this read
    was last checked) are looked at: pushed segments never change, so the
    older ones cannot have started to hold it.
    """
    e = mlba + n
    segs = P[I.read_segments]
    k = SP[s, SP_.ra_pushes] - seen
    if k > segs:
        k = segs
    i = SP[s, SP_.ra_next]
    for _ in range(k):
        i -= 1
        if i < 0:
            i += segs
        if RA[s, i, RA_.hi] > RA[s, i, RA_.lo] and RA[s, i, RA_.lo] <= mlba and e <= RA[s, i, RA_.hi]:
            return True
    if SP[s, SP_.pf_on] != 0 and SP[s, SP_.busy_until] < 0:
        if SP[s, SP_.pf_lo] <= mlba and e <= pf_pos(P, SP, s, now):
            return True
    if P[I.write_cache] != 0 and S[S_.wc_live] > 0:
        for i in range(P[I.write_cache_extents]):
            if WC[i, WC_.state] != WCS.free and WC[i, WC_.s] <= lba and lba + n <= WC[i, WC_.e]:
                return True
    return False


@kernel
def read_done_time(P, SP, SEEK, s, mlba, n, now):
    """Completion (end of transfer) of a media read started on an idle spindle at ``now``.

    A read inside the running read-ahead window continues the stream; any
    other pays seek and rotation.
    """
    e = mlba + n
    if SP[s, SP_.pf_on] != 0 and SP[s, SP_.pf_lo] <= mlba and mlba <= SP[s, SP_.pf_limit]:
        pos0 = SP[s, SP_.pf_pos0]
        lim = SP[s, SP_.pf_limit]
        t_lim = SP[s, SP_.pf_t0] + off(P, lim) - off(P, pos0)
        if now <= t_lim or e <= lim:
            done = SP[s, SP_.pf_t0] + off(P, e) - off(P, pos0)
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
    mlba = R[rid, R_.mlba]
    if R[rid, R_.write] == 0 and SP[s, SP_.pf_on] != 0 and SP[s, SP_.pf_lo] <= mlba and mlba <= SP[s, SP_.pf_limit]:
        return read_done_time(P, SP, SEEK, s, mlba, R[rid, R_.nsect], now)
    return start_at(P, SP, SEEK, s, R[rid, R_.cyl], R[rid, R_.ang], R[rid, R_.write], now, nowmod) + R[rid, R_.xfer]


@kernel
def wc_accept(P, S, R, SP, WC, rid, now):
    """Put a write into the write-back cache if it fits; True if accepted."""
    lba = R[rid, R_.sect]
    n = R[rid, R_.nsect]
    if S[S_.wc_used] + n > P[I.write_cache_kb]:
        return False
    free = -1
    seg = P[I.write_cache_kb] // P[I.write_cache_extents]  # a dirty extent lives in one cache segment
    for i in range(P[I.write_cache_extents]):
        st = WC[i, WC_.state]
        if st == WCS.dirty and P[I.write_coalesce] != 0 and WC[i, WC_.e] == lba and WC[i, WC_.e] - WC[i, WC_.s] + n <= seg:
            WC[i, WC_.e] = lba + n
            WC[i, WC_.t] = now
            S[S_.wc_used] += n
            return True
        if st == WCS.free and free < 0:
            free = i
    if free < 0:
        return False
    WC[free, WC_.s] = lba
    WC[free, WC_.e] = lba + n
    WC[free, WC_.state] = WCS.dirty
    WC[free, WC_.t] = now
    sp = spindle_of(P, lba)
    WC[free, WC_.spin] = sp
    SP[sp, SP_.dirty] += 1
    S[S_.wc_live] += 1
    S[S_.wc_used] += n
    return True


@leaf
def finish_cmd(P, S, R, rid, t):
    """The device is done with ``rid`` at ``t`` (plus its command overhead)."""
    R[rid, R_.dstate] = DS.done
    R[rid, R_.done_t] = t + P[I.cmd_overhead_us]


@kernel
def spin_start_next(P, S, R, SP, RA, WC, DC, SEEK, s, now):
    """If spindle ``s`` is idle, start its next media op: a host command, else a write-back."""
    if SP[s, SP_.busy_until] >= 0:
        return
    best = -1
    best_start = 0
    oldest = -1
    oldest_t = 0
    nowmod = (now + P[I.media_overhead_us]) % P[I.rot_ns]
    nd = S[S_.dev_n]
    k = 0
    while k < nd:
        rid = DC[k]
        k += 1
        if R[rid, R_.dstate] != DS.wait or R[rid, R_.spin] != s:
            continue
        if R[rid, R_.write] == 0:
            # read-ahead may have fetched it while it waited
            n = R[rid, R_.nsect]
            hit = read_hit(P, S, SP, RA, WC, s, R[rid, R_.mlba], R[rid, R_.sect], n, now, R[rid, R_.ra_seen])
            R[rid, R_.ra_seen] = SP[s, SP_.ra_pushes]
            if hit:
                R[rid, R_.cached] = 1
                S[S_.c_cache_hit] += 1
                finish_cmd(P, S, R, rid, now + if_ns(P, n))
                continue
        done = cmd_done_time(P, R, SP, SEEK, s, rid, now, nowmod)
        start = done - R[rid, R_.xfer]
        if best < 0 or start < best_start:
            best = rid
            best_start = start
        if oldest < 0 or R[rid, R_.t_dev] < oldest_t:
            oldest = rid
            oldest_t = R[rid, R_.t_dev]
    if best >= 0:
        pick = best
        if P[I.ncq_reorder] == 0 or now - oldest_t > P[I.ncq_max_age_ms]:
            pick = oldest
        n = R[pick, R_.nsect]
        mlba = R[pick, R_.mlba]
        done = cmd_done_time(P, R, SP, SEEK, s, pick, now, nowmod)
        pf_stop(P, SP, RA, s, now)
        R[pick, R_.dstate] = DS.media
        SP[s, SP_.busy_until] = done
        SP[s, SP_.op] = SPOP.media
        SP[s, SP_.op_id] = pick
        SP[s, SP_.cyl] = cyl_of(P, mlba + n - 1)
        SP[s, SP_.busy_ns] += done - now
        S[S_.c_media_ops] += 1
        return
    # nothing from the host: write dirty data back, shortest positioning first
    if P[I.write_cache] == 0 or SP[s, SP_.dirty] == 0:
        return
    bext = -1
    bstart = 0
    for i in range(P[I.write_cache_extents]):
        if WC[i, WC_.state] != WCS.dirty or WC[i, WC_.spin] != s:
            continue
        lba = WC[i, WC_.s]
        mlba = member_lba(P, lba)
        st = media_start(P, SP, SEEK, s, mlba, 1, now)
        if bext < 0 or st < bstart:
            bext = i
            bstart = st
    if bext < 0:
        return
    lba = WC[bext, WC_.s]
    n = WC[bext, WC_.e] - lba
    mlba = member_lba(P, lba)
    done = bstart + off(P, mlba + n) - off(P, mlba)
    pf_stop(P, SP, RA, s, now)
    WC[bext, WC_.state] = WCS.writing
    SP[s, SP_.dirty] -= 1
    SP[s, SP_.busy_until] = done
    SP[s, SP_.op] = SPOP.destage
    SP[s, SP_.op_id] = bext
    SP[s, SP_.cyl] = cyl_of(P, mlba + n - 1)
    SP[s, SP_.busy_ns] += done - now
    S[S_.c_destage] += 1


@kernel
def kick_idle(P, S, R, SP, RA, WC, DC, SEEK, now):
    for s in range(P[I.spindles]):
        if SP[s, SP_.busy_until] < 0 and SP[s, SP_.dirty] > 0:
            spin_start_next(P, S, R, SP, RA, WC, DC, SEEK, s, now)


@kernel
def retry_waiting_writes(P, S, R, SP, WC, WW, now):
    """Writes waiting for write-cache room go in, in arrival order."""
    nw = S[S_.ww_n]
    k = 0
    while k < nw:
        rid = WW[k]
        if not wc_accept(P, S, R, SP, WC, rid, now):
            break
        finish_cmd(P, S, R, rid, now + if_ns(P, R[rid, R_.nsect]))
        k += 1
    if k > 0:
        for j in range(k, nw):
            WW[j - k] = WW[j]
        S[S_.ww_n] = nw - k


@kernel
def dev_submit(P, S, R, SP, RA, WC, WW, DC, SEEK, rid, now):
    """The driver hands ``rid`` to the device (the caller checked there is a free tag)."""
    DC[S[S_.dev_n]] = rid
    S[S_.dev_n] += 1
    lba = R[rid, R_.sect]
    n = R[rid, R_.nsect]
    s = spindle_of(P, lba)
    mlba = member_lba(P, lba)
    R[rid, R_.spin] = s
    R[rid, R_.mlba] = mlba
    R[rid, R_.cyl] = cyl_of(P, mlba)
    o = off(P, mlba)
    R[rid, R_.ang] = o % P[I.rot_ns]
    R[rid, R_.xfer] = off(P, mlba + n) - o
    R[rid, R_.t_dev] = now
    R[rid, R_.cached] = 0
    if R[rid, R_.write] != 0:
        if P[I.write_cache] != 0:
            if S[S_.ww_n] == 0 and wc_accept(P, S, R, SP, WC, rid, now):
                R[rid, R_.cached] = 1
                finish_cmd(P, S, R, rid, now + if_ns(P, n))
                kick_idle(P, S, R, SP, RA, WC, DC, SEEK, now)
                return
            R[rid, R_.dstate] = DS.wcwait
            R[rid, R_.cached] = 1
            WW[S[S_.ww_n]] = rid
            S[S_.ww_n] += 1
            S[S_.c_wc_full] += 1
            return
    else:
        R[rid, R_.ra_seen] = SP[s, SP_.ra_pushes]
        if read_hit(P, S, SP, RA, WC, s, mlba, lba, n, now, -(1 << 40)):
            R[rid, R_.cached] = 1
            S[S_.c_cache_hit] += 1
            finish_cmd(P, S, R, rid, now + if_ns(P, n))
            return
    R[rid, R_.dstate] = DS.wait
    spin_start_next(P, S, R, SP, RA, WC, DC, SEEK, s, now)


@kernel
def spin_op_end(P, S, R, SP, RA, WC, WW, DC, SEEK, s, now):
    """Spindle ``s`` finished its op at ``now``: complete it, start the next one."""
    op = SP[s, SP_.op]
    oid = SP[s, SP_.op_id]
    SP[s, SP_.busy_until] = -1
    SP[s, SP_.op] = SPOP.idle
    if op == SPOP.media:
        finish_cmd(P, S, R, oid, now)
        if R[oid, R_.write] == 0:
            e = R[oid, R_.mlba] + R[oid, R_.nsect]
            SP[s, SP_.pf_on] = 1
            SP[s, SP_.pf_t0] = now
            SP[s, SP_.pf_pos0] = e
            SP[s, SP_.pf_limit] = e + P[I.readahead_kb]
            SP[s, SP_.pf_lo] = R[oid, R_.mlba]
    elif op == SPOP.destage:
        S[S_.wc_used] -= WC[oid, WC_.e] - WC[oid, WC_.s]
        WC[oid, WC_.state] = WCS.free
        S[S_.wc_live] -= 1
        retry_waiting_writes(P, S, R, SP, WC, WW, now)
    spin_start_next(P, S, R, SP, RA, WC, DC, SEEK, s, now)
    if op == SPOP.destage:
        kick_idle(P, S, R, SP, RA, WC, DC, SEEK, now)


@kernel
def dev_remove(S, DC, rid):
    """Forget a completed command (frees its tag)."""
    nd = S[S_.dev_n]
    for k in range(nd):
        if DC[k] == rid:
            for j in range(k + 1, nd):
                DC[j - 1] = DC[j]
            S[S_.dev_n] = nd - 1
            return


@kernel
def dev_next_event(P, S, R, SP, DC):
    """(time, kind, index) of the device's next event: a spindle's op ends or a command completes (``NEXT``)."""
    t = -1
    kind = -1
    idx = -1
    for s in range(P[I.spindles]):
        b = SP[s, SP_.busy_until]
        if b >= 0 and (t < 0 or b < t):
            t = b
            kind = NEXT.spindle_op_end
            idx = s
    for k in range(S[S_.dev_n]):
        rid = DC[k]
        if R[rid, R_.dstate] == DS.done:
            d = R[rid, R_.done_t]
            if t < 0 or d < t:
                t = d
                kind = NEXT.cmd_done
                idx = rid
    return t, kind, idx
