"""Column indices of the integer arrays the disk/CFQ event loop works on.

The kernel functions take plain int64 arrays (Numba needs no Python
objects); these constants name their columns.  Units: time in nanoseconds,
positions in 512-byte sectors, CFQ's own times in jiffies as the kernel
keeps them.  Python wrappers (``cfq.py``) fill ``P`` and read the results.
"""

# ---------------------------------------------------------------- P: parameters
P_SCHED = 0  # 0 noop, 1 deadline, 2 cfq
P_HZ = 1
P_JIF = 2  # ns per jiffy
P_QUANTUM = 3  # cfq_quantum
P_FIFO_EXP_ASYNC = 4  # cfq_fifo_expire[0], jiffies
P_FIFO_EXP_SYNC = 5  # cfq_fifo_expire[1], jiffies
P_BACK_MAX = 6  # cfq_back_max, KiB
P_BACK_PENALTY = 7  # cfq_back_penalty
P_SLICE_ASYNC = 8  # cfq_slice[0], jiffies
P_SLICE_SYNC = 9  # cfq_slice[1], jiffies
P_SLICE_ASYNC_RQ = 10  # cfq_slice_async_rq
P_SLICE_IDLE = 11  # cfq_slice_idle, jiffies
P_GROUP_IDLE = 12  # cfq_group_idle, jiffies
P_LATENCY = 13  # cfq_latency (sysfs low_latency)
P_TARGET_LATENCY = 14  # cfq_target_latency, jiffies
P_HIST_DIVISOR = 15  # cfq_hist_divisor
P_MARK_DEEP = 16  # cfq_update_idle_window marks deep at queued >= 4
P_DEEP_FAST_CLEAR = 17  # 8e1ac6655104: cfq_select_queue clears deep on a "fast device"
P_DEEP_CLEAR_ALWAYS = 18  # the thread's experiment: that clearing without its condition
P_DEEP_PATLASOV = 19  # the 2011 patch as the thread describes it
P_PREEMPT_IDLE_QUEUE = 20  # cfq_should_preempt: "an idle queue should not be idle now"
P_TTIME_BIG = 21  # 3.3+: service-tree and group think time in should_idle/select/wait_busy
P_PROMOTE_SYNC = 22  # cfq_may_dispatch: sole busy sync queue gets no dispatch limit
P_DL_READ_EXPIRE = 23  # deadline read_expire, jiffies
P_DL_WRITE_EXPIRE = 24  # deadline write_expire, jiffies
P_DL_WRITES_STARVED = 25
P_DL_FIFO_BATCH = 26
P_NSPIN = 27  # spindles (1 = a plain disk)
P_STRIPE = 28  # RAID-0 stripe unit, sectors
P_SPT = 29  # sectors per track
P_HEADS = 30  # tracks per cylinder
P_TROT = 31  # ns per revolution
P_WRITE_SETTLE = 32  # ns, extra settle before a media write
P_CMD_OVH = 33  # ns, firmware/controller time per command, added at completion
P_IF_PS_SECT = 34  # picoseconds per sector over the interface (cache hits, write-cache acks)
P_NCQ_DEPTH = 35  # commands the device accepts at once
P_NCQ_REORDER = 36  # 1: shortest positioning time first; 0: FIFO
P_NCQ_MAX_AGE = 37  # ns a command may wait before it is served first
P_RA_SECT = 38  # on-drive read-ahead after a read, sectors
P_RA_SEGS = 39  # retained read segments per spindle
P_WC_ON = 40  # on-drive / controller write-back cache
P_WC_CAP = 41  # write-back capacity, sectors
P_WC_EXT = 42  # write-back extents (cache segments)
P_T_MAX = 43  # ns, simulation stops here
P_LOG_CAP = 44  # rows of the event log
P_PAGE_SECT = 45  # sectors per page (8)
P_NPROC = 46
P_NFILE = 47
P_NREQ = 48  # rows of R
P_MAXQ = 49  # columns of QR (requests a cfq queue can hold)
P_NU = 50  # uniforms per process
P_NONROT = 51  # blk_queue_nonrot
P_CYLS = 52  # cylinders
P_WC_COALESCE = 53  # contiguous writes merge into one extent in the write-back cache
P_MEDIA_OVH = 54  # ns between the end of one media op and the start of the next one's seek
P_AUDIT = 55  # check the invariants after every event (tests)
P_N = 56

# ---------------------------------------------------------------- S: scalar state
S_NOW = 0
S_NEXT_RID = 1
S_BUSY_QUEUES = 2  # cfqd->busy_queues
S_BUSY_SYNC = 3  # cfqd->busy_sync_queues
S_RQ_IN_DRIVER = 4
S_IN_FLIGHT_ASYNC = 5  # rq_in_flight[BLK_RW_ASYNC]
S_IN_FLIGHT_SYNC = 6  # rq_in_flight[BLK_RW_SYNC]
S_RQ_QUEUED = 7
S_HW_TAG = 8
S_HW_TAG_EST = 9
S_HW_TAG_SAMPLES = 10
S_ACTIVE = 11  # active_queue (-1 none)
S_ACTIVE_CIC = 12  # process of the active cic (-1 none)
S_LAST_POS = 13  # last_position
S_SERVING_TYPE = 14  # serving_wl_type
S_WL_EXPIRES = 15  # workload_expires, jiffies
S_IDLE_TIMER = 16  # ns when idle_slice_timer fires, -1 not pending
S_LAST_DELAYED_SYNC = 17  # jiffies
S_SEQ = 18  # insertion counter (service tree tie order)
S_NR_CFQQ = 19  # root group nr_cfqq
S_BQ_AVG = 20  # busy_queues_avg[BE]
S_SAVED_WL_SLICE = 21
S_SAVED_WL_TYPE = 22
S_GRP_DISPATCHED = 23
S_GRP_TT_LAST = 24  # group think time (3.3+)
S_GRP_TT_SAMPLES = 25
S_GRP_TT_TOTAL = 26
S_GRP_TT_MEAN = 27
S_EL_N = 28  # noop FIFO length
S_DL_N_R = 29  # deadline fifo lengths
S_DL_N_W = 30
S_DL_NEXT_R = 31  # deadline next_rq[READ] (rid or -1)
S_DL_NEXT_W = 32
S_DL_BATCHING = 33
S_DL_STARVED = 34
S_DEV_N = 35  # commands in the device
S_WW_N = 36  # writes waiting for write-cache room
S_WC_USED = 37  # sectors in the write-back cache
S_LOG_N = 38
S_NDONE_PROC = 39
S_EVENTS = 40  # loop iterations
S_C_PREEMPT = 41  # counters named after the cfq_log messages
S_C_ARM_IDLE = 42
S_C_IDLE_FIRED = 43
S_C_SLICES = 44  # set_active
S_C_DEEP_SET = 45
S_C_DEEP_CLEAR = 46
S_C_DISPATCH = 47
S_C_COMPLETE = 48
S_C_IDLE_NS = 49  # time spent with the idle timer armed
S_IDLE_ARMED_AT = 50
S_C_DESTAGE = 51
S_C_CACHE_HIT = 52
S_C_MEDIA_OPS = 53
S_C_WC_FULL = 54
S_AUDIT = 55  # invariant violations seen (P_AUDIT)
S_AUDIT_CODE = 56  # code of the first one
S_WC_LIVE = 57  # write-back extents in use (dirty or being written)
S_N = 58

# tree types (enum wl_type_t)
ASYNC_WORKLOAD = 0
SYNC_NOIDLE_WORKLOAD = 1
SYNC_WORKLOAD = 2

# ---------------------------------------------------------------- R: requests
R_PROC = 0
R_FILE = 1
R_SECT = 2
R_NSECT = 3
R_WRITE = 4
R_SYNC = 5
R_T_ISSUE = 6  # process submitted it (ns)
R_T_INSERT = 7  # entered the elevator (ns); iostat's start
R_T_DISPATCH = 8  # sent to the device (ns)
R_T_COMPLETE = 9
R_STATE = 10  # 0 free, 1 in elevator, 2 in device, 3 done, 4 page-cache hit
R_QUEUE = 11  # cfq queue
R_FIFO = 12  # cfq/deadline fifo_time, jiffies
R_START_J = 13  # rq->start_time, jiffies
R_DSTATE = 14  # device: 1 wait media, 2 in media op, 3 completing, 4 wait write-cache room
R_DONE_T = 15  # device completion time while DSTATE == 3
R_SPIN = 16
R_MLBA = 17  # member-disk sector (RAID)
R_T_DEV = 18  # arrived at device (ns)
R_CACHED = 19  # served from a device cache (1) or the media (0)
R_CYL = 20  # cylinder of R_MLBA (set when the device receives it)
R_ANG = 21  # ns into a revolution at which R_MLBA passes the head
R_XFER = 22  # ns of media transfer
R_RA_SEEN = 23  # ring segments already checked for this read (SP_RA_PUSHES then)
R_NF = 24

# request states
RS_FREE = 0
RS_ELV = 1
RS_DEV = 2
RS_DONE = 3
RS_PCHIT = 4

# device command states
DS_WAIT = 1
DS_MEDIA = 2
DS_DONE = 3
DS_WCWAIT = 4

# ---------------------------------------------------------------- Q: cfq queues
Q_ON_RR = 0
Q_TREE = 1  # service tree it sits on (-1 none)
Q_RBKEY = 2
Q_SEQ = 3
Q_SYNC = 4
Q_PRIO = 5
Q_QUEUED = 6  # queued[0] + queued[1]
Q_DISPATCHED = 7
Q_NEXT_RQ = 8
Q_SLICE_START = 9
Q_SLICE_END = 10
Q_ALLOC_SLICE = 11
Q_SLICE_DISPATCH = 12
Q_SLICE_RESID = 13
Q_DISPATCH_START = 14
Q_SEEK_HIST = 15
Q_LAST_REQ_POS = 16
Q_F_IDLE_WINDOW = 17
Q_F_DEEP = 18
Q_F_WAIT_REQUEST = 19
Q_F_MUST_DISPATCH = 20
Q_F_SLICE_NEW = 21
Q_F_WAIT_BUSY = 22
Q_F_FIFO_EXPIRE = 23
Q_TT_LAST = 24  # cic think time: last_end_request (jiffies)
Q_TT_SAMPLES = 25
Q_TT_TOTAL = 26
Q_TT_MEAN = 27
Q_PROC = 28
Q_N = 29  # requests in QR (FIFO order)
Q_SVC_SUM = 30  # ns of device service of this slice (2011 patch)
Q_SVC_N = 31
Q_UNUSED_32 = 32  # (free)
Q_TTNS_LAST = 33  # ns of the last completion (2011 patch: think time in ns)
Q_TTNS_SAMPLES = 34
Q_TTNS_TOTAL = 35
Q_TTNS_MEAN = 36
Q_F_FAST = 37  # 2011 patch: the last verdict found the device faster than the queue
Q_NF = 38

# ---------------------------------------------------------------- service trees (ST)
ST_COUNT = 0
ST_TT_LAST = 1
ST_TT_SAMPLES = 2
ST_TT_TOTAL = 3
ST_TT_MEAN = 4
ST_NF = 5

# ---------------------------------------------------------------- SP: spindles
SP_BUSY_UNTIL = 0  # ns the current op ends, -1 idle
SP_OP = 1  # 0 idle, 1 host media op, 2 destage
SP_OP_ID = 2  # rid or extent
SP_CYL = 3
SP_PF_ON = 4  # reading ahead while idle
SP_PF_T0 = 5
SP_PF_POS0 = 6
SP_PF_LIMIT = 7
SP_PF_LO = 8
SP_RA_NEXT = 9  # ring index of the retained read segments
SP_BUSY_NS = 10  # total busy time
SP_DIRTY = 11  # dirty write-back extents that belong to this spindle
SP_RA_PUSHES = 12  # segments pushed into the ring so far
SP_NF = 13

# ---------------------------------------------------------------- WC: write-back extents
WC_S = 0
WC_E = 1
WC_STATE = 2  # 0 free, 1 dirty, 2 being written
WC_T = 3
WC_SPIN = 4  # spindle of the extent's first sector
WC_NF = 5

# ---------------------------------------------------------------- PR: processes
PR_STATE = 0  # 0 ready at PR_T, 1 sleeping until PR_T, 2 waiting for a completion, 3 done
PR_T = 1
PR_F0 = 2
PR_F1 = 3
PR_INFLIGHT = 4
PR_UNREAPED = 5
PR_THINK = 6  # ns between a completion and the next submission
PR_THINK_JIT = 7  # ns of uniform jitter added to it
PR_SLEEP = 8  # ns slept after each submission (aio-stress usleep)
PR_SLEEP_JIT = 9
PR_PAGE_NS = 10  # ns of CPU per page before the next submission (readahead allocation)
PR_RNG = 11  # next uniform to use
PR_QUEUE = 12  # its cfq sync queue
PR_T_START = 13
PR_T_END = 14
PR_BYTES = 15
PR_REQS = 16
PR_PRIO = 17
PR_POOL = 18  # aio-stress: io units of the thread (files x -d); 0: a reader (each file refills its depth)
PR_ITER = 19  # aio-stress -i: iocbs per file per round
PR_BATCH = 20  # aio-stress -b: iocbs per io_submit() at most
PR_HEAD = 21  # aio-stress: file at the head of the thread's active list
PR_NF = 22

PS_READY = 0
PS_SLEEP = 1
PS_WAIT = 2
PS_DONE = 3

# ---------------------------------------------------------------- FI: files
FI_START = 0
FI_LEN = 1
FI_POS = 2
FI_REQ = 3
FI_DEPTH = 4
FI_INFLIGHT = 5
FI_WRITE = 6
FI_SYNC = 7
FI_RANDOM = 8
FI_TOTAL = 9
FI_ISSUED = 10
FI_DONE = 11
FI_PC_PPM = 12  # page-cache hit probability, parts per million
FI_PROC = 13
FI_NF = 14

# ---------------------------------------------------------------- event log codes
EV_SET_ACTIVE = 1
EV_EXPIRE = 2
EV_DISPATCH = 3
EV_COMPLETE = 4
EV_ARM_IDLE = 5
EV_IDLE_FIRE = 6
EV_PREEMPT = 7
EV_DEEP_SET = 8
EV_DEEP_CLEAR = 9
EV_IDLE_WINDOW = 10
EV_SET_SLICE = 11
EV_WORKLOAD = 12
EV_INSERT = 13
EV_NF = 5  # t, code, queue/proc, a, b
