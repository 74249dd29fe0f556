# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 2015: "Slow PTE scan rate if migration failures occur" — automatic NUMA balancing as a model
#
# **The story in five sentences.** Dave Chinner's `xfs_repair` ran up to 3x slower
# on 4.0-rc1 than on 3.19, and `perf` put 56 % of the CPU in TLB-flush IPIs sent
# by `migrate_misplaced_page()`. He bisected it to 4d9424669946, the change that
# made NUMA hinting faults use `PROT_NONE` instead of `_PAGE_NUMA`. Mel Gorman
# answered with a patch that doubles the PTE-scan period whenever a migration
# fails (`numa_faults_locality[2]`, `TNF_MIGRATE_FAIL`), and Ingo asked whether
# that fixes the cause or hides it. Linus then read the code and found the
# cause: restoring `vma->vm_page_prot` after a hinting fault leaves private pages
# read-only, so `pte_write()` is false on every fault, every fault is flagged
# `TNF_NO_GROUP`, and threads of one process never form a numa group. His
# `pte_dirty()` test restored most of the performance, but not all of it — and
# the thread ends with the remaining gap unexplained.
#
# This notebook puts the thread's numbers beside a model of the mechanism
# (`kernel_workbook.models.numa`), calibrated on the 3.19 column only. The model
# is checked function by function against the kernel source of the time; where
# it still misses a published number, it says which and why.

# %%
from kernel_workbook import config

mode = config.setup()

# %% [markdown]
# ## The published tables
#
# Mel's autonumabench run on a 4-socket, 48-core machine (mmtests, 2015
# layout; the percentage is against the first column, positive = better):

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.tables import published, render

T = "2015-numa-slow-scan"
for table in ("slowscan-autonuma", "slowscan-totals"):
    print(render(published(T, table), title=True))

# %% [markdown]
# Four days later, with Linus's `pte_dirty()` test (`ptewrite-v1`), the same
# 3.19 and 4.0-rc1 runs and their NUMA counters from `/proc/vmstat`:

# %%
# NBVAL_CHECK_OUTPUT
for table in ("ptewrite-autonuma", "ptewrite-totals", "ptewrite-numastat"):
    print(render(published(T, table), title=True))

# %% [markdown]
# The `xfsrepair` benchmark (fsmark creates the inodes, then `xfs_repair` runs)
# and the NUMA counters Mel printed right after it. **Which run do these counters
# belong to?** Not to autonumabench: their 3.19 column differs from the 3.19
# column above although both mails show the same 3.19 autonumabench times, and
# they show few huge-PMD updates beside many base-page faults — `xfs_repair`'s
# `malloc`'d buffers, not autonumabench's huge pages. So the model compares them
# with its xfs_repair-like load. (`tables.csv` titles the table accordingly;
# the mail itself does not say.)

# %%
# NBVAL_CHECK_OUTPUT
print(render(published(T, "slowscan-xfsrepair")[lambda d: d["row"].str.endswith("xfsrepair")], title=True))
print(render(published(T, "slowscan-numastat"), title=True))
print(render(published(T, "ptewrite-xfsrepair"), title=True))

# %% [markdown]
# Dave's own numbers, on a 16-CPU KVM guest with four fake NUMA nodes:
# run times, the profile share of the TLB-flush path, and `/proc/vmstat`.

# %%
# NBVAL_CHECK_OUTPUT
for table in ("dave-xfsrepair-times", "flush-profile", "dave-vmstat", "linus-runtime-summary"):
    print(render(published(T, table), title=True))

# %% [markdown]
# ## The mechanism
#
# The model follows the kernel functions one by one (3.19/4.0,
# `kernel/sched/fair.c`, `mm/memory.c`, `mm/migrate.c`):
#
# 1. **Scanner.** Every `numa_scan_period` of a thread's runtime,
#    `task_tick_numa()` queues `task_numa_work()`; if the mm's `numa_next_scan`
#    has passed, it marks the next `numa_balancing_scan_size_mb` (256 MB) of
#    resident memory `PROT_NONE` and sets `numa_next_scan = now + period`.
# 2. **Hinting fault.** The next touch of a marked page runs `do_numa_page()`:
#    `numa_hint_faults` (+`numa_hint_faults_local`), the `TNF_NO_GROUP` test,
#    and `should_numa_migrate_memory()`.
# 3. **Grouping.** `task_numa_fault()` counts the fault private (the same pid
#    faulted last) or shared. A shared fault *without* `TNF_NO_GROUP` calls
#    `task_numa_group()`: it gives the task a numa group and, if the task of the
#    page's last cpupid is still the one running on that CPU
#    (`cpu_rq(cpu)->curr`) and belongs to the same process, joins the bigger of
#    the two groups. With `TNF_NO_GROUP` the call never happens — no group ever
#    forms.
# 4. **Which page moves.** `should_numa_migrate_memory()`: the two-stage
#    filter (the same node must fault twice in a row), then a private fault
#    migrates; a shared fault *with no group* migrates too; with a group, the
#    page moves only onto the group's `active_nodes`, and between two active
#    nodes only if the destination has fewer than 3/4 of the source's group
#    faults — shared pages stay put.
# 5. **Migration, page by page.** `migrate_misplaced_page()` decides per 4 KiB
#    page (per huge page on the THP path); the model keeps units of many pages
#    for placement and decides the outcome page by page in aggregate. A page is
#    admitted while its destination has taken at most `ratelimit_pages` (128 MB)
#    in the current 100 ms, and while the destination stays above its high
#    watermark; `isolate_lru_page()` fails while the page still waits in a
#    CPU's `lru_add_pvec` (3.19/4.0 `__lru_cache_add()`: up to `PAGEVEC_SIZE` =
#    14 entries, a huge page is one; pages enter at first touch and around every
#    migration, so the last few pages of a unit wait); a huge page needs
#    `page_count() == 3`. Then `migrate_pages()` under `MIGRATE_ASYNC`, up to 10
#    passes: a page pinned by another thread's in-flight direct read
#    (`get_user_pages()`; xfs_repair's buffers are sector-aligned, so their end
#    pages hold data other threads touch) is unmapped, flushed and remapped on
#    every pass and stays where it was. **The counters:** `pgmigrate_fail`
#    counts only permanent failures — 3.19/4.0's `migrate_pages()` returns the
#    pages still `-EAGAIN` after the last pass but does not count them, and a page
#    the rate limit, the watermark or the pagevec refused never reaches it — so
#    Dave's `pgmigrate_fail 0` does not mean no migration failed. Each migration
#    unmaps the page and flushes its TLB entry on every CPU in the mm's cpumask
#    (`try_to_unmap_one()` → `flush_tlb_page()` → `native_flush_tlb_others()`:
#    one IPI per CPU), which is Dave's profile.
# 6. **The period.** Once per pass over the address space,
#    `task_numa_placement()` runs `update_task_scan_period()`: more than 7 of 10
#    faults local → scan slower, fewer → faster (a shared fault inside the
#    group's active nodes counts as local). Slowscan-v2 adds a third slot: any
#    failed migration doubles the period.
# 7. **Task placement.** A task off its preferred node retries
#    `task_numa_migrate()`; when it finds a better CPU it moves (or swaps) the
#    task and resets its `numa_scan_period` to `task_scan_min`.
# 8. **The CFS load balancer.** From an idle CPU, every `sd_weight` ms,
#    `load_balance()` of the NUMA domain pulls a task from the busiest node when
#    it runs at least two more: at once if the move improves the task's
#    locality (`migrate_improves_locality()`), otherwise after
#    `cache_nice_tries` (+2 for a running task, active balance) failed tries.
#    Nothing resists a move against NUMA placement (`NUMA_RESIST_LOWER` is off),
#    and the move keeps the task's period.
#
# **Checked against the source** (fair.c, memory.c, migrate.c of the 3.19/4.0
# era; the thread's own patches): the first round had steps 1-6 right in
# outline; this round fixed what it had not modelled. A group join now needs the
# last faulter to be *running* on its CPU (a thread asleep on I/O is not
# `curr`); a migrated huge page comes back writable and dirty
# (`maybe_pmd_mkwrite(pmd_mkdirty(entry))`); `task_numa_migrate()`'s searches
# and moves cost system time; and a migration costs its copy, its unmap and one
# IPI per CPU of the mm. Three facts the first round found stand: the slow-down
# path of `update_task_scan_period()` returns *without* clearing
# `numa_faults_locality[]`, so after one failed migration every later update
# doubles the period (Mel's patch, as posted in the thread, does exactly this);
# the only other writer of `numa_scan_period` is `task_numa_migrate()`'s reset,
# which leaves `numa_faults_locality[2]` set — the next update doubles again
# from `task_scan_min`; a thread the scheduler wakes on another node keeps its
# period. And `migrate_ratelimited()` skipped no scanning in 3.19 (dead code
# since 9e645ab6d089), which corrects `kernel-heuristics.md` §3.6.
#
# Four kernels on a shortened NUMA01 (the two processes zeroing their 3 GB;
# one simulated unit = 4 huge pages, half of the passes), the costs at their
# priors:

# %%
from kernel_workbook.heuristics.numa.charts import NUMA01_KERNELS as four, numa01_short, runs_numa01

runs01 = runs_numa01(four)

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.frames import Prose, Table
from kernel_workbook.heuristics.numa.charts import df_numa01_counters

display(Prose(numa01_short().description), Table(df_numa01_counters(runs01), index=True, rows=True))

# %% [markdown]
# Under 3.19 the threads of each process join one numa group; its shared
# pages settle on the group's active nodes and stop moving. Under 4.0-rc1 every
# fault is `TNF_NO_GROUP`, no group forms, and a shared page moves whenever two
# faults in a row come from the same node: migrations and TLB-flush IPIs
# explode. Slowscan-v2 sees the failures among them and scans slower; ptewrite
# restores the groups. One task's period under each:

# %%
import altair as alt

from kernel_workbook.heuristics.numa.charts import plot_faults, plot_scan_period

alt.hconcat(*[plot_scan_period(runs01[k], 0, title=k, width=260, height=180) for k in four[:2]])

# %%
alt.hconcat(*[plot_scan_period(runs01[k], 0, title=k, width=260, height=180) for k in four[2:]])

# %%
plot_faults(runs01["4.0.0-rc1 vanilla"], title="4.0-rc1: faults local/remote, migrations done/failed")

# %%
plot_faults(runs01["4.0.0-rc1 slowscan-v2"], title="slowscan-v2: the same, scanning slower after failures")

# %% [markdown]
# ## The `TNF_NO_GROUP` rule, four ways
#
# | rule | kernel | flags a fault `TNF_NO_GROUP` when |
# |---|---|---|
# | `pte_write` | 3.19 | `!pte_write(pte)`; `_PAGE_NUMA` kept the write bit |
# | `always_read_only` | 4.0-rc1 | always: `pte_modify(pte, vma->vm_page_prot)` made every private page read-only |
# | `pte_dirty` | 53da3bc2ba9e (Linus, rc4) | `!pte_dirty(pte)`; a base page migrated since its last write is clean |
# | `VM_WRITE` | bea66fbd11af (Mel) | `!(vma->vm_flags & VM_WRITE)` |
#
# Once a thread has joined its process's group, the rule no longer matters
# (both paths leave a shared fault shared); it matters only until groups form.
# So in the model `pte_write`, `pte_dirty` and `VM_WRITE` behave alike, and only
# "always read-only" keeps every group from forming:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.heuristics.numa.charts import df_no_group_rules

Table(df_no_group_rules("4.0.0-rc1 vanilla"), index=True, rows=True)

# %% [markdown]
# ## Calibration: what is fitted, to which 3.19 cells, and what is assumed
#
# Only the 3.19 column is fitted; every 4.0 number below is a prediction (the
# kernels differ only by their switches, `KERNELS` in `kernel_workbook.models.numa`). CI runs 2
# seeds and 2-huge-page units; `kwb reproduce 2015-numa-slow-scan` runs 3 seeds
# at the real size.
#
# * **Fitted.** The machine's memory bandwidth and remote-access cost, to the
#   four 3.19 `User` times; the system time a running thread costs outside NUMA
#   balancing (`cost_sched_tick_us`, per ms of CPU), to the four 3.19 `System`
#   times; each test's set-up time to its 3.19 `Elapsed`; for the xfs_repair-like
#   load, how much of its memory is the shared cache (`shared_frac`) and how
#   often a thread wakes on another node (`wander_per_s`, a workload unknown:
#   see below), to the 3.19 NUMA counters (PTE updates and hinting faults per
#   second, local percent, pages migrated per fault), then its length and own
#   system time to the 3.19 `real-` and `syst-xfsrepair`, and its own
#   allocations to 3.19's `NUMA alloc hit` less its pages migrated.
# * **Assumed** — every per-event cost, from physical reasoning (printed below
#   with its reason): a hinting fault 1.5 µs (a minor fault's entry and exit
#   plus `do_numa_page()`); a PTE update 20 ns; a migrated base page 1 µs of copy
#   (4 KiB across the interconnect) plus 2 µs to unmap and remap it (isolation,
#   page lock, rmap walk, migration entries); 1.5 µs per CPU a TLB-flush IPI
#   reaches (the APIC write, the target's interrupt and `INVLPG`, the
#   acknowledgement); 1 µs per write-protect fault; 0.2 µs per CPU that
#   `task_numa_migrate()` examines and 10 µs per task it moves (or the load
#   balancer moves). Also assumed: how densely the xfs_repair-like threads touch
#   their cache, and the machine's memory (the thread gives Mel's machine only as
#   "4 socket bare-metal machine with 48 cores"; `machine_sources()` says where
#   each number of each machine comes from). No migration failure is assumed: a
#   page fails only as the kernel's checks say (the pagevec, a direct-I/O pin,
#   the rate limit, the watermark), and the
#   kernel constants `PAGEVEC_SIZE` and `cache_nice_tries` are printed with the
#   assumptions.
#
# **Why the per-event costs are not fitted.** The 3.19 column cannot tell them
# apart from the per-CPU overhead: its four autonumabench tests take few
# migrations, and what distinguishes them — NUMA01 has the most system time per
# CPU-second — is tracked by its fault count and its task moves and its CPUs
# per mm all at once. A free fit of the fault cost (printed below) asks for
# tens of times a trap's cost: not a fault's price, but NUMA01's extra system
# time, which the model does not otherwise explain. Fitting it would let 4.0's
# extra faults carry the system-time rise that Dave's profile puts on the
# migrations' IPIs. So the costs stay at their priors, and the misses say where
# that leaves the model.

# %%
from kernel_workbook.heuristics.numa import numa_2015 as R

rep = R.reproduce_numa_2015()
display(*(rep.block(key) for key in rep.keys() if key.split("/")[0] == "calibration"))

# %% [markdown]
# Two things stand out. The 3.19 `System` times are not one per-CPU overhead
# plus NUMA events at physical prices: NUMA01 and NUMA01_THREADLOCAL have
# 35-45 % more system time than that explains, NUMA02 and NUMA02_SMT less; the
# model has no event that accounts for it. And on the xfs_repair-like load the
# priors put *more* than the published `syst-xfsrepair` on the 3.19 counters
# (see the notes): either a base-page fault and migration cost about half of
# the priors on Mel's machine, or part of the counters came from the fsmark
# phase. The model keeps the priors and reads the xfs_repair rows as changes.
#
# **The cross-node wake-up rate is a workload unknown.** An xfs_repair thread
# sleeps on every direct read. 3.19's `select_task_rq_fair()` keeps a waking
# thread in its previous CPU's last-level cache (`select_idle_sibling()`) unless
# `wake_affine()` pulls it to the waker's node, which needs the previous CPU
# loaded with about two tasks (`100 * (this_load + weight) <= 112 * load`): rare
# with 8 threads on 48 CPUs, but how rare depends on who wakes whom and on what
# else runs, which the thread does not say. So the rate is not derived: it is
# searched together with the sharing on the 3.19 column alone, over every pair
# of two grids fixed before any prediction was seen — the rate from 0 to one
# cross-node wake-up per scheduler tick (250/s), one point per decade, and the
# sharing from its floor 0 (no access on the shared cache), then 0.1 to 0.9 (the
# floor was added when Mel's 3.19 minimum lay on the grid's old bottom, 0.1: a
# bound must be the mechanism's, not the grid's) — and the pair with the least
# 3.19 error is taken. The
# table above gives the 3.19 error at each rate, at the sharing that fits best
# there. The notes say when a minimum lies on a grid's bound: then the bound,
# not the column, decides it, and the 3.19 column does not pin the rate.
#
# **Disclosure: an earlier search was chosen post hoc.** The search this
# notebook used before (rates only up to 30/s, the sharing kept at 0.5 or more
# and searched first at 1/s) was chosen *after* seeing how the slowscan cells
# move with the rate. It is not used. As a disclosed comparison only: with it the
# stored CI run of commit 5c76c98 scored 12 of 67 cells at seed base 0 (17.9 %;
# 19.6 % mean, 17.9–22.4 % over 8 seed bases; 13 of 67 at the full size), with 5
# of the 6 scored slowscan-family cells hit (the hint-fault row is a repeat), at
# 0.1 wake-ups/s and a sharing of 0.8.
# `R.reproduce_numa_2015(wakeup_search="post-hoc")` recomputes it. The score
# this notebook prints below is the honest search's.
#
# ## The storm on xfs_repair's shared cache
#
# The calibrated xfs_repair-like load under the four kernels (from the
# reproduction's runs): without groups, its shared cache pages chase whichever
# node faulted twice in a row, and every move sends an IPI to each CPU of the
# mm.

# %%
# NBVAL_CHECK_OUTPUT
runs = R.runs(R.Setup.for_mode())
Table(R.df_xfs_runs(runs), index=True, rows=True)

# %% [markdown]
# ## Published beside model

# %%
# NBVAL_CHECK_OUTPUT
display(*(rep.block(key) for key in rep.keys() if key.endswith(("/published", "/model")) or key == "cells"))

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.reproduce import format_summary

display(rep.block("fidelity/groups"), rep.block("misses"), format_summary(rep))

# %% [markdown]
# That is one seed base: one set of mmtests iterations. The stored run of
# `kwb reproduce 2015-numa-slow-scan --json --seeds 8` at this notebook's size
# (`data/fidelity/` in CI, checked by the tests against a fresh seed-base-0 run;
# `data/fidelity/full/` in the lab) gives the strict
# score's spread over eight seed bases, each a fresh set of runs of every
# kernel on the machine fitted once, on seed base 0's 3.19 runs:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.reproduce.fidelity import df_seed_scores, score_text

display(score_text("2015-numa-slow-scan"), Table(df_seed_scores("2015-numa-slow-scan"), formats={"score": "{:.1%}"}))

# %%
from kernel_workbook.heuristics.numa.charts import plot_fidelity

plot_fidelity(rep.cells)

# %% [markdown]
# ## Where it misses, and why
#
# The strict score (the sign right and the size within a factor of 2) is well
# below the 40 % the issue aims at; the list above names every missed cell with
# its reason, computed from the model's own runs. The causes:
#
# 1. **Slowscan on the xfs_repair-like load depends on an unknown the 3.19
#    column does not pin.** Migrations do fail in the model's 4.0-rc1 (pages
#    pinned by another thread's direct read), and one failure latches the
#    slow-down; what undoes the latch is `task_numa_migrate()` resetting the
#    period after a cross-node wake-up. The honest search takes the rate where
#    the 3.19 column's error is least, and the notes say where that lies on the
#    grid: at a high rate the resets undo the latch and the slowscan cells
#    shrink toward nothing. The stored sweep below shows every cell across
#    the plausible range: 0 of 7 from 1/s up, 6 or 7 of 7 below; the local
#    percent is within a factor of 2 only at the slowest rate.
#    Dave's cells (the section above) miss for the two reasons given there.
# 2. **NUMA01's system time under 4.0-rc1.** The model migrates many times
#    3.19's pages on NUMA01 (more than the thread's counters show, see 3), yet
#    at physical costs those migrations cost far less than the +408 s Mel
#    measured. Per huge page migrated, the published rise would take several
#    times a 2 MB copy and its two TLB flushes: the real run paid for work the
#    model does not count. Candidates the model lacks: threads sleeping in
#    `wait_on_page_locked()` while a huge page they touch is copied (another
#    thread's hinting fault on it waits for the migration), and lock contention
#    among 24 threads faulting on one buffer. The kernel's isolation check now
#    fails on NUMA01's freshly migrated huge pages (they wait in the migrating
#    CPU's pagevec), which is what slowscan reacts to there.
# 3. **The storm's size on NUMA01.** Without groups the model's NUMA01 migrates
#    about a fifth of its hinting faults — 24 threads per process fault from two
#    nodes, so about half of the remote faults pass the two-stage filter — where
#    the thread's counters give under a tenth over all four tests. Something caps
#    the real storm; the same missing failures of point 2 would.
# 4. **The small tests' system times.** NUMA01_THREADLOCAL, NUMA02 and
#    NUMA02_SMT keep their memory local: all their NUMA events cost well under a
#    second in the model under every kernel, while the published changes are
#    seconds to tens of seconds — and follow the groups (3.19 and ptewrite
#    alike, 4.0-rc1 and slowscan alike). Their cause has no event in the model.
# 5. **User and elapsed time of NUMA01.** Below: in the model both processes
#    settle on two nodes each under *every* kernel, so remote accesses do not
#    grow under 4.0-rc1. The load balancer does not change that: with one
#    thread per CPU `find_busiest_group()` sees no imbalance until threads
#    finish, and autonumabench's threads never sleep in the model, so no
#    wake-up is placed on another node (a sleeper in `wait_on_page_locked()`
#    would wake on its idle previous CPU: 3.19's `wake_affine()` is not
#    `balanced` when that CPU's load is 0).
#
# **Does 4.0-rc1 converge in the model, and why?** Grouping is what pulls a
# group's tasks and memory together in the kernel (the group's preferred node,
# `active_nodes` holding shared pages). Without groups, each thread still has
# its own task weights, and `task_numa_migrate()` swaps a thread of process A
# sitting among B's memory with a thread of B sitting among A's: both gain. So
# the two processes separate anyway, and memory follows them. Where each
# process's threads run, at the start and at the end:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.heuristics.numa.charts import df_placement, placement_prose

display(*placement_prose(df_placement(runs01, ("3.19.0 vanilla", "4.0.0-rc1 vanilla"))))

# %% [markdown]
# (The load balancer has nothing to undo here: `task_numa_migrate()` moves a
# task only to an idle CPU, or swaps two, so no node ever holds more threads
# than CPUs; the balancer's moves on NUMA01 — `lb_task_moves` in the
# reproduction — come only as threads finish.) The kernel may well do the same
# on an idle machine; Mel's 28 % more user time on NUMA01 under 4.0-rc1 then
# has a cause outside remote accesses as the model counts them (the model's user
# time is accesses at local or remote speed).
#
# **NUMA01 is "adversarial", and the model agrees why.** Every thread of a
# process writes all of its 3 GB, so no placement makes most accesses local: both
# processes end up on two nodes each with their memory split half and half. That
# is why Mel calls its elapsed-time loss under slowscan "not a major concern":
# slowing the scanner there gives up little locality that was to be had.
#
# **Slowscan across the wake-up rate.** On the xfs_repair-like load the
# slow-down needs a failed migration, and the model's 4.0-rc1 has some: pages
# pinned by another thread's direct read when a hinting fault tries to move them
# (a few hundred pages of the run; `pgmigrate_fail` stays 0, as Dave's does). One
# is enough: the slow path of `update_task_scan_period()` never clears
# `numa_faults_locality[2]`, so every later placement doubles the period again.
# What undoes it is `task_numa_migrate()` resetting the period when it moves a
# thread back after a wake-up on another node. So the depth of slowscan's cut is
# set by the wake-up rate, which the thread does not give. Rather than rest on
# one value, the model's prediction is this table, stored over 8 seed bases
# (`data/fidelity/numa-wakeup-sweep.csv`, `WORKBOOK_MODE=ci python -m
# kernel_workbook.heuristics.numa.numa_2015 --wakeup-sweep`): at each rate of the
# grid fixed before any prediction was seen, the load the 3.19 column asks for
# at that rate (the sharing that fits 3.19 best there, and its 3.19 error), the
# model's change of each of the seven scored slowscan cells (mean over the seed
# bases; the first row is the thread's), and how many of the seven are hits at
# seed base 0 and over the 8 bases (`chosen` marks the rate the 3.19 fit took):

# %%
# NBVAL_CHECK_OUTPUT
cal = R.calibrate(R.Setup.for_mode().calibration_setup())
display(Table(R.df_wakeup_sweep_view()))

# %% [markdown]
# Below about one cross-node wake-up per second per thread the model's
# slowscan-v2 hits six or seven of the seven cells; from one a second up,
# `task_numa_migrate()` resets undo the latch as fast as it forms and slowscan
# changes almost nothing. The 3.19 column prefers the fast end (its error is
# 0.28 at 250/s against 0.71-0.93 from 0.01 to 10/s), but for a reason of the model's
# own: the real 3.19 migrated 16 % of its hinting faults, and the model comes
# near that share only when its threads move often and share little (the
# fitted pair is on the top of the rate's grid and the bottom of the sharing's).
# Nothing else the thread prints on Mel's machine bounds the rate: there are no
# scheduler counters, and Dave's `top` (8 threads over 15 of 16 CPUs in 5 s) is
# his guest, which has no NUMA scheduling domain at all. So the slowscan
# family's score is a property of this unknown, not of the model alone: 0 of 7
# at the rate the 3.19 fit takes, 6-7 of 7 if the threads rarely wake on another
# node. The local percent follows least (within a factor of 2 only at the
# slowest rate): slowscan slows the scanner, it does not move threads or memory,
# so the model's local and remote faults fall nearly alike, while the real local
# share fell from 40 % to 37 %.
#
# ## Dave Chinner's guest
#
# Dave's numbers are the thread's central evidence, and they are scored here
# too: his four `xfs_repair` options (xfsprogs' own rules turn them into the
# load: `-o bhash` sets the cache, 808,584 buffers, and without it xfs_repair's
# estimate of what a 500 TB filesystem needs exceeds 3/4 of the guest's 16 GB,
# so the hash falls to its floor of 512 buckets; `-o ag_stride=-1` leaves 8
# threads, the default 34 AG ranges), his `/proc/vmstat` counters and the
# profile's share of the TLB-flush IPIs. The guest is fitted on his 3.19 column
# only:

# %%
dc = R.calibrate_dave(R.Setup.for_mode().calibration_setup())
display(*(rep.block(key) for key in rep.keys() if key.split("/")[0] == "dave-calibration"))

# %% [markdown]
# The fit is poor, and says why the predictions below miss: the model cannot
# scan as slowly, stay as remote and migrate as little as Dave's 3.19 does all at
# once (its 3.19 migrates a larger share of its faults than Dave's 3.5 %), so
# 4.0-rc1's storm multiplies from a higher base. The wake-up table shows the
# trade-off: without cross-node wake-ups the scanner slows down but the threads
# settle beside their memory (far above Dave's 26 % local); with many, the local
# share falls to about a node's quarter but every reset keeps the scanner
# several times faster than his. In the model one quantity drives both; in his
# guest something keeps the scan slow while placement stays near random. What
# that is was not established in this pass (the fake nodes' scheduler domains
# and distances in 3.19's `numa_emulation()` are a candidate, unchecked), so
# this is recorded as a miss of the baseline fit, not fixed. The runtimes and counters,
# published beside model:

# %%
# NBVAL_CHECK_OUTPUT
display(*(rep.block(key) for key in ("dave-xfsrepair-times/published", "dave-xfsrepair-times/model",
                                     "dave-vmstat/model")))

# %% [markdown]
# Two families carry most of these misses. **The default options** cache only
# 4,096 buffers (64 MB): the model's load has almost nothing for NUMA balancing
# to do there, while the real run regressed 14-18 %: in memory the workload
# leaves out (xfs_repair's inode and block maps, its other allocations) or in
# another change of 4.0 — Dave did not split it ("I don't know yet whether this
# is still page fault related or some other problem"). **The `pte_dirty` kernels**
# (4.0-rc4, 3.19 with 53da3bc2ba9e) migrate as 3.19 does in the model, and the
# load's stores per access (`write_frac`, an assumption: 0.3) are not why. A
# shared fault on a page nothing stored to since it was migrated (a clean pte)
# is `TNF_NO_GROUP` under `!pte_dirty(pte)`, but that matters only until a
# thread has joined its process's numa group, and the model's eight threads join
# in the first seconds, on freshly allocated (dirty) pages, and live to the end.
# The sweep below runs Dave's guest, fitted on 3.19 and nothing refitted, with
# no stores at all up to a store on every access: 3.19 is the same at every
# value (its `!pte_write` rule does not read the dirty bit) and the two
# `pte_dirty` kernels stay near it.
#
# A candidate the model leaves out is xfs_repair's thread churn: its prefetch
# starts a queuing thread and I/O threads for every allocation group
# (`pf_create_prefetch_thread()` in repair/prefetch.c), and a new thread starts
# outside any group (`__sched_fork()`: `p->numa_group = NULL`), so under
# `pte_dirty` its shared faults on clean ptes cannot group it. Tried as an
# experiment (seven of the eight threads replaced every 0.2-5 s), it left the
# `pte_dirty` kernels at 1.0-1.2x 3.19's migrations, even with no stores, and
# took away the 4.0-rc1 storm (docs/models/numa.md has the table).
#
# The thread's own later figures say the model is right on one of the two and
# why the other differs. Dave re-measured plain 3.19 in phase 3 at 235k
# `mm_migrate_pages` per 10 s ("the original measurement might have been
# faulty": his first ~55k came from a window started with the run), against
# 241,718 for 3.19 with `pte_dirty` in the same window: no storm, as in the
# model. The 4.7x the model misses is his whole-run /proc/vmstat dumps', and
# 3.19's dump was not taken again after the re-measure, so the thread does not
# say which of the two comparisons holds (Linus: "really about measurement
# differences"). And
# under Mel's `VM_WRITE` rule, which brings 3.19 back (5m4s against 4m54s,
# "in the noise"), 4.0-rc4 still made 558,632 per 10 s ("page migrations are
# pretty much unchanged"), 2.4x 3.19: rc4's extra migrations do not come from
# the grouping rule, the one thing (besides the write faults of `PROT_NONE`)
# in which the model's rc4 differs from its 3.19. The thread does not find what
# does ("No, nothing new pops up in the kernel profiles").
# (An earlier version of this notebook said direct I/O leaves a migrated page's
# pte clean. xfsprogs of the time zeroes every buffer with `memset()` in
# `__initbuf()` before reading into it, and under 4.0-rc4 a direct read into a
# read-only pte goes through `do_wp_page()`, which dirties it, so that was not
# the reason.)

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.heuristics.numa.numa_2015 import df_dirty_write_sweep

Table(df_dirty_write_sweep(), index=False, rows=True)

# %% [markdown]
# ## Try the knobs
#
# Kernel, `TNF_NO_GROUP` rule, slow-scan switch, scan period bounds, scan size,
# the migration rate limit, workload and machine (the xfs_repair-like load is the
# calibrated one). The table compares the run with 3.19 on the same load; the
# charts show task 0's period and the faults. (In `WORKBOOK_MODE=ci` the widgets
# cannot draw: the default setting runs once.)

# %%
from kernel_workbook.heuristics.numa.charts import numa_explorer

numa_explorer(base=cal.params, xfs_kw=cal.xfs_kw)

# %% [markdown]
# ## Questions
#
# 1. **Ingo: does slowing the scanner fix the cause or hide it?** Run NUMA01
#    under 4.0-rc1 with and without `TNF_MIGRATE_FAIL` while an extra chance
#    that `isolate_lru_page()` fails (reclaim or compaction holding the page;
#    an explorer knob) grows. On NUMA01 the kernel's own check already fails
#    often — a huge page migrated a moment ago still waits in the migrating
#    CPU's pagevec — so slowscan cuts deep even at 0, and more failures change
#    little: slowscan reacts to *any* failure, not to what went wrong. The cause
#    (`TNF_NO_GROUP`) is still there, only sampled less often, and the storm of
#    migrations shrinks but stays above ptewrite's. Linus's fix removes the
#    cause and needs no failures.

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.heuristics.numa.charts import df_isolate_fail_sweep

Table(df_isolate_fail_sweep((0.0, 0.001, 0.01, 0.1), ("4.0.0-rc1 vanilla", "4.0.0-rc1 slowscan-v2",
                                                      "4.0.0-rc1 ptewrite-v1r20")), index=True, rows=True)

# %% [markdown]
# 2. Linus expected `pte_dirty()` to equal `pte_write()` for private memory,
#    yet Dave's 3.19+`pte_dirty` ran 9 % slower. Which events make them differ
#    (`fork()`, migration building a clean pte, writeback)? Which of them does
#    the model have, and what does `no_group_faults` show for each rule?
# 3. Dave's 4.0-rc4 still migrated about twice as many pages per second as
#    3.19 (`dave-perf-*` tables) although it had the `pte_dirty` fix. Mel later
#    preserved the write bit across the hinting fault (b191f9b106ea). Set
#    `cost_wp_fault_us` high and compare `4.0-rc4` with `3.19+pte_dirty`: how
#    much of the gap can extra write-protect faults explain?
# 4. The rate limit (`ratelimit_pages`, 128 MB per 100 ms per node) is meant to
#    throttle excessive migration. Lower it on NUMA01 under 4.0-rc1: when does
#    the limit bind, and what does slowscan then do with the failures it causes?
# 5. `numa_faults_locality[2]` is never cleared on the slow-down path. What would
#    a task's period do if it were cleared after every update (edit
#    `update_task_scan_period` in `_numa_reference.py` and run
#    `simulate(..., engine="reference")`)?
# 6. The IPI cost is a prior for bare metal; in Dave's guest each APIC write
#    exits to the hypervisor, and the reproduction fits it to 3.19's 13.7 % of
#    cycles in `native_flush_tlb_others` (`dc.params.cost_tlb_flush_ipi_us`).
#    What share does the model then give 4.0-rc1 on Dave's load, against the 67 %
#    Linus quotes — and how much of the gap is the migrations the model's 4.0-rc1
#    does not make?
