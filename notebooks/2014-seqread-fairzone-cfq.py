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
# # 2014: "Improve sequential read throughput" — part 1, CFQ's `target_latency`
#
# **The story in five sentences.** In June 2014 Mel Gorman found tiobench's
# sequential reads on 3.16-rc1 well below 3.0, and worse the more readers ran.
# His first patch raised CFQ's `cfq_target_latency` from 300 to 600 ms, which
# bought 8–12 % at 8 and 16 readers and nothing at 1 or 2. Jeff Moyer asked
# which real workload runs 8 sequential readers; Dave Chinner answered that
# people do not tune CFQ, they switch to deadline. The CFQ patch was dropped;
# the allocator patches of the same series (part 2 below) recovered more, at
# every reader count.
#
# This notebook rebuilds the CFQ half: the slice arithmetic of
# `block/cfq-iosched.c`, a disk with a seek curve and a rotation, and tiobench's
# readers — calibrated on one number of the vanilla column, then asked to
# predict the cfq600 column.

# %%
from kernel_workbook import config

mode = config.setup()

# %% [markdown]
# ## The published tables
#
# Mel's tiobench run on "a mid-range desktop with a single spinning disk",
# as the mail printed it, and the iostat summary of the same run:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.tables import published, render

THREAD = "2014-seqread-fairzone-cfq"
print(render(published(THREAD, "cfq600-seqread"), title=True))

# %%
# NBVAL_CHECK_OUTPUT
print(render(published(THREAD, "cfq600-iostat"), title=True))

# %% [markdown]
# ## The mechanism: a slice shrinks as readers multiply
#
# CFQ gives each process's sync queue a time slice on the disk, 100 ms
# (`cfq_slice_sync`) at the default priority. With `low_latency` on, the
# slice is shrunk so that all busy queues get a turn within
# `cfq_target_latency` (`cfq_scaled_cfqq_slice()`): with *N* busy queues each
# gets `100 * target / (100 * N)` ms, but never less than `2 * slice_idle`
# (16 ms). Between two slices the disk seeks to the next reader's file — a
# cost paid once per slice, so short slices waste a larger share of the disk.

# %%
# NBVAL_CHECK_OUTPUT
import pandas as pd

from kernel_workbook.models.cfq_params import CFQParams, scaled_slice_ms

slices = pd.DataFrame({
    "readers": [1, 2, 4, 8, 16],
    "slice_ms target 300": [scaled_slice_ms(CFQParams(), n) for n in (1, 2, 4, 8, 16)],
    "slice_ms target 600": [scaled_slice_ms(CFQParams(cfq_target_latency=600), n) for n in (1, 2, 4, 8, 16)],
})
print(slices.to_string(index=False))

# %% [markdown]
# Here are four readers on the model (3.16's CFQ on the desktop disk) for
# the first 600 ms: each blue bar is a slice, ticks are requests sent to the
# disk, orange is CFQ idling for the active reader's next request
# (`slice_idle`). With four busy queues the slice is 75 ms at 300 ms and the
# full 100 ms at 600 ms. (The first call compiles the model, once.)

# %%
from kernel_workbook.models.cfq import IOParams, simulate
from kernel_workbook.models.cfq_params import cfq_for_kernel
from kernel_workbook.models.disk import DESKTOP_2014
from kernel_workbook.ui.cfq_charts import plot_timeline
from kernel_workbook.workloads import tiobench

p316 = IOParams(scheduler="cfq", cfq=cfq_for_kernel("3.16"), disk=DESKTOP_2014)
four = tiobench.seqread(4, ram_mb=8192, mb_total=96)
r300 = simulate(p316, four, seed=1, log_events=20000)
r600 = simulate(p316.with_(cfq_target_latency=600), four, seed=1, log_events=20000)

# %%
import altair as alt

alt.vconcat(plot_timeline(r300, 0, 600, title="target_latency = 300 ms"),
            plot_timeline(r600, 0, 600, title="target_latency = 600 ms"))

# %% [markdown]
# ## The model and its knobs
#
# `IOParams` is the whole parameter set of a run; CFQ's knobs carry the
# kernel's names and sysfs units (ms), each documented with the function it
# feeds; versions are presets (`cfq_for_kernel("3.0" | "3.1" | "3.16")`). The
# disk is a data-sheet description of the class of drive the thread names:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.models.disk import df_presets

cols = ["name", "rpm", "media_rate_mb_s", "seek_track_ms", "seek_avg_ms", "seek_full_ms", "ncq_depth",
        "readahead_kb", "write_cache_kb", "spindles", "capacity_gb"]
print(df_presets()[cols].to_string(index=False))

# %% [markdown]
# **What is fitted, and to what.** One number: the desktop's media rate, so
# that one reader on the model reads what one reader read on Mel's machine
# (vanilla `SeqRead-MB/sec-1`). With one reader slices do not matter, so this
# is the disk as tiobench sees it. Everything else is the data sheet and the
# kernel's defaults. The machine's memory (8 GB: tiobench's files total twice
# that) comes from the thread itself — the `fairzone-spread` table splits page
# cache allocations 37:63 between a ~3 GB DMA32 zone and the Normal zone.
#
# ## Published beside model
#
# `kwb reproduce 2014-seqread-fairzone-cfq` prints the same; each block is the
# published table, then the model's (seeds as iterations, through
# `tables.compare`, in the thread's 2014 layout), then the change of every
# cell against vanilla, published and model.

# %%
from kernel_workbook.reproduce import reproduce

rep = reproduce(THREAD)

# %%
# NBVAL_CHECK_OUTPUT
for block in rep.text[:4]:
    print(block, end="\n\n")

# %% [markdown]
# The cfq600 column is predicted within about 3 points at 4, 8 and 16
# readers. At 1 and 2 readers the published changes are a fraction of a
# percent either way — run-to-run noise: with one or two queues the slice is
# the full 100 ms at both settings, and the model says so.
#
# The model's vanilla column is *above* the published one from 2 readers on
# (the fitted number is the first row only). That gap is not CFQ: part 2's
# allocator patches raise vanilla by 8–19 % at every reader count, one reader
# included, where CFQ's slices cannot matter. The model's 3.0 column (3.0's
# CFQ, same disk) is within a few percent of 3.16's, where the thread's 3.0
# leads by 10–20 %: that lead is the allocator's too, so the column is
# printed but not predicted.

# %%
# NBVAL_CHECK_OUTPUT
for block in rep.text[4:10]:
    print(block, end="\n\n")

# %% [markdown]
# `r_await` is the model's read latency over the read phases (SeqRead and
# RandRead), each phase's samples weighted by its real length. The model
# predicts no change from a longer `target_latency` — longer slices make one
# request per slice wait longer but fewer of them wait — and Mel's mean and
# worst read waits barely moved either. The model's absolute values are far
# below his: his iostat samples also cover the write phases, where reads
# queue behind seconds of writeback (`w_await` 13 s); the model does not
# simulate buffered writes, so `avgqz`, `await` and `w_await` are not predicted.
#
# The same model on the thread's other two machines, each fitted on its own
# vanilla SeqRead-1 (not in the summary: those tables' baseline column is
# 3.0, an allocator difference):

# %%
# NBVAL_CHECK_OUTPUT
print(rep.text[10])
print()
for n in rep.notes:
    print("*", n)

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.reproduce import Reproduction, format_summary

# the CFQ part's cells alone (the whole thread's summary, allocator included, is in part 2)
cfq_cells = [c for c in rep.cells if c["table"] in ("cfq600-seqread", "cfq600-iostat")
             or (c["table"] == "lessdirty-tiobench" and c["kernel"] == "3.16.0-rc1 cfq600")]
print(format_summary(Reproduction(THREAD, cells=cfq_cells)))

# %% [markdown]
# **The fidelity summary, read honestly.** The median error meets the
# target (≤ 3 points). The sign agreement does not (target ≥ 90 %). The
# sign misses are RandRead and latency rows: in the thread, RandRead moves by
# up to 7 % either way between two kernels that differ only in a knob random
# reads do not touch (all seeky queues share one SYNC_NOIDLE workload slice),
# so its published sign is run-to-run noise, and so is the model's; the same
# holds for the latency rows. On every SeqRead cell where the thread shows a
# real effect (4 to 16 readers, 2 to 12 %) the model has the sign right and
# is within about 3 points.
#
# **The road not taken.** Had we fitted the disk's seek curve to the whole
# vanilla column, the model would have to believe in seeks five times the
# data sheet's — and it then over-predicts the cfq600 gain:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.reproduce.seqread_2014 import alternative_seek_fit

alt_fit = alternative_seek_fit()
pub600 = published(THREAD, "cfq600-seqread").query("kernel == '3.16.0-rc1 cfq600'").set_index("row")["pct"]
print(f"seek times x {alt_fit['factor']} to match vanilla SeqRead-16")
print(pd.DataFrame({"published cfq600 %": pub600, "model cfq600 % (seek fitted)": alt_fit["cfq600_delta"]})
      .round(2).to_string())

# %% [markdown]
# ## Turn the knobs
#
# Sliders for `target_latency`, `slice_sync`, `slice_idle`, `low_latency`,
# `quantum`, the deep-queue variant of the 2011 thread, the scheduler and
# the machine. The chart shows the model's SeqRead against the number of
# readers (your settings beside the defaults, the thread's points as
# diamonds) and the read latency percentiles; the mmtests table beside it
# compares the two. (A static export shows `target_latency=600` against the
# defaults; in JupyterLab the widgets recompute in a few milliseconds.)

# %%
from kernel_workbook.reproduce.seqread_2014 import desktop_params
from kernel_workbook.ui.cfq_charts import cfq_explorer

pub_points = published(THREAD, "cfq600-seqread")
pub_points = pub_points[pub_points["kernel"] != "3.0.0 vanilla"]
cfq_explorer(desktop_params(), published_cells=pub_points)

# %% [markdown]
# ## A model run and a real capture on one chart
#
# The model's `iostat()` names its columns as sysstat does, so a capture
# loads beside it. `data/traces/tiobench-seqread` is tiobench-like SeqRead
# (fio, 4 KiB reads, 1 to 16 readers) recorded on a virtual machine whose
# disk is a fast virtio device — a very different machine, which is the
# point: the same chart shows how far a 2014 spinning disk is from it.

# %%
from kernel_workbook import traces

rows = []
for n in (1, 2, 4, 8, 16):
    cap = traces.load(traces.shipped_captures() / "tiobench-seqread" / f"readers-{n:02d}").load("iostat")
    busy = cap[cap["r/s"] > cap["r/s"].max() * 0.5]
    rows.append({"readers": n, "source": "capture (virtio VM)", "rkB/s": busy["rkB/s"].mean(),
                 "r_await": busy["r_await"].mean()})
    io = simulate(desktop_params(), tiobench.seqread(n, ram_mb=8192, mb_total=64), seed=1, verbose=False).iostat(0.25)
    io = io[io["r/s"] > 0]
    rows.append({"readers": n, "source": "model (desktop-2014, CFQ)", "rkB/s": io["rkB/s"].mean(),
                 "r_await": io["r_await"].mean()})
both = pd.DataFrame(rows)
alt.Chart(both).mark_line(point=True).encode(
    x=alt.X("readers:O"), y=alt.Y("rkB/s:Q", scale=alt.Scale(type="log"), title="read kB/s (iostat rkB/s)"),
    color="source:N", tooltip=["source", "readers", alt.Tooltip("rkB/s:Q", format=",.0f"), "r_await"],
).properties(width=mode.width, height=mode.height, title="iostat rkB/s: a capture and the model")

# %% [markdown]
# ## Questions
#
# 1. With the sliders, find the smallest `target_latency` at which 16 readers
#    lose less than 5 % against one reader. What does it cost in the p99 read
#    latency? Was Dave Chinner's "switch to deadline" a better answer for
#    this workload (try the scheduler buttons)?
# 2. Set `slice_idle` to 0. Why does SeqRead with many readers fall, while the
#    2011 thread's fast RAID *gained* from the same setting? (Hint: what does a
#    sequential reader do between two of its requests, and what does the
#    disk do meanwhile?)
# 3. The model's vanilla column is too high from 2 readers on, and we chose
#    not to fit it. Using the published `fairzone-seqread` table, estimate how
#    much of the gap part 2's patch closes, and argue why fitting the seek
#    curve to the vanilla column (the road not taken, above) would have made
#    the cfq600 prediction worse, not better.

# %% [markdown]
# ## Part 2 — the fair zone allocation policy
#
# **The story in five sentences.** Since 3.12 the page allocator spreads
# page-cache pages over a node's zones in proportion to their size — the
# *fair zone allocation policy* — because before it the first zone in the
# zonelist (Normal) took almost every allocation while the lower zone
# (DMA32) sat still, so pages there lived far longer than pages in Normal:
# an *age inversion* that makes reclaim throw out young pages and keep old
# ones. Mel Gorman found the fair policy's bookkeeping expensive and posted
# patch 3/4 ("fairzone"): a depleted flag, resets only when every batch is
# spent, and batches of a quarter of the zone (`managed_pages >> 2`) instead
# of the watermark gap (`high - low`); tiobench's SeqRead rose 8–19 %.
# Johannes Weiner could not see how a leaner allocator speeds up an
# I/O-bound read, showed that the batch size alone ("bigbatches") recovers
# most of the gain — and that it puts zone fairness back "to prehistoric
# levels". The allocation spread moved from 37/63 to 32/68, towards 3.0's 29/71.
#
# Part 2 rebuilds the allocator: zones with the kernel's watermarks, the fast
# path of each kernel of the thread, kswapd and writeback, tiobench's use of
# the page cache — and asks which part of the gain it can explain.

# %% [markdown]
# ### The published tables
#
# SeqRead with fairzone (patches 1–3: the CFQ patch is underneath), the
# allocation spread at 80 % of memory with Johannes's percentages of it, and
# Johannes's bigbatches runs with the zone velocity (pages scanned per second
# in each zone) that shows what fairness they give up:

# %%
# NBVAL_CHECK_OUTPUT
for t in ("fairzone-seqread", "fairzone-spread", "spread-percent", "bigbatches-seqread", "bigbatches-velocity"):
    print(render(published(THREAD, t), title=True), end="\n\n")

# %% [markdown]
# ### The mechanism: watermarks, batches and kswapd
#
# Each zone has three watermarks computed from `min_free_kbytes`
# (`__setup_per_zone_wmarks()`): `min`, `low = min + min/4`, `high = min +
# min/2`, each proportional to the zone's size. The allocator's fast path
# takes a page from a zone whose free pages stay above `low` (plus
# `lowmem_reserve`: DMA32 keeps Normal/256 pages back from allocations that
# could have used Normal); when every zone is below `low`, the slow path wakes
# kswapd, which reclaims the oldest pages of each zone until all are above
# `high` (+ a balance gap). The fair policy adds a budget per zone,
# `NR_ALLOC_BATCH`: the fast path skips a zone whose budget is spent, and when
# all are spent it resets them. Here is Mel's 8 GB desktop as the model sets
# it up (pages; DMA32's size is fitted below):

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.models.fairzone import VARIANT_DOC, variant_params, zone_setup
from kernel_workbook.reproduce import fairzone_2014 as fz

desk = fz.desktop_machine()
rows = []
for v in ("3.16-rc1", "fairzone"):
    zs = zone_setup(variant_params(v, desk))
    for z, name in enumerate(("DMA", "DMA32", "Normal")):
        rows.append({"kernel": v, "zone": name, "managed": zs.managed[z], "min": zs.wmark_min[z],
                     "low": zs.wmark_low[z], "high": zs.wmark_high[z], "lowmem_reserve[Normal]": zs.lowmem_reserve[z, 2],
                     "NR_ALLOC_BATCH": zs.batch[z], "fair_enabled": zs.fair_enabled[z] if v == "fairzone" else 1})
print(f"min_free_kbytes = {zs.min_free_kbytes}")
print(pd.DataFrame(rows).to_string(index=False))

# %% [markdown]
# In 3.16-rc1 a batch is the watermark gap: a few hundred pages, so the
# allocator alternates between the zones every few hundred pages and resets
# the batches each time both are spent (one more zonelist pass, a watermark
# check and an atomic update per zone). Patch 3/4 makes each batch a quarter
# of the zone — the watermarks run out long before the batches do — and the
# DMA zone, smaller than 1/16 of the node, leaves the fair pass.
#
# Below, a window of 3000 allocations in the steady state of a streaming read
# (the node already full of page cache) for four kernels: the batch counts
# of DMA32 (red) and Normal (blue), where each page came from (the band
# under each panel), and the resets (dotted). 3.16-rc1 saw-tooths between the
# zones; fairzone and bigbatches spend their huge budgets slowly and keep
# taking pages from Normal; 3.0 has no batches at all.

# %%
from kernel_workbook.ui.fairzone_charts import df_batch_trace, plot_batches

trace = df_batch_trace(("3.16-rc1", "fairzone", "bigbatches", "3.0"), machine=desk, allocations=3000)
plot_batches(trace)

# %% [markdown]
# ### The model and its knobs
#
# `kernel_workbook.models.fairzone` is one node: per-zone free pages,
# watermarks, `lowmem_reserve`, inactive and active file lists with each
# page's allocation time, dirty and writeback counts. Each kernel of the
# thread is a named flag set (`ALLOC_FAIR`, `ZONE_FAIR_DEPLETED`,
# `NR_ALLOC_BATCH`, `remote_spill_pass`, `zone_dirty_ok`, kswapd's wake
# mark...):

# %%
# NBVAL_CHECK_OUTPUT
for v, doc in VARIANT_DOC.items():
    print(f"{v:16s} {doc}")

# %% [markdown]
# **What is fitted, and to what.** Only the vanilla (3.16-rc1) column:
# DMA32's size and the memory held outside the page cache on Mel's desktop
# (from the vanilla spread counts), DMA32's size on Johannes's machine (from
# his vanilla velocity split), and each machine's disk (from its vanilla
# SeqRead with one reader). Everything else — batches, watermarks, resets —
# is the kernel's arithmetic; the allocator's CPU prices are stated guesses.
#
# **The assumption everything rests on.** Read from the 3.x source, kswapd
# sleeps for 100 ms as soon as every zone is above `high` and then reclaims
# each zone in proportion to its size. In that model *every* kernel is fair
# once memory is full: the allocator takes what kswapd frees, kswapd frees
# with equal pressure. Johannes's own description of the kernels before the
# fair policy (2013) is different: "kswapd and a continuous stream of page
# allocations keep the preferred zone of a task between the high and low
# watermark (allocations succeed + kswapd does not go to sleep) indefinitely,
# completely underutilizing the lower zones". The predictions use that
# regime (`kswapd_stays_awake`) for every kernel alike; the vanilla column
# cannot tell the two apart, because under the fair policy both are fair.
#
# ### Published beside model
#
# `kwb reproduce 2014-seqread-fairzone-cfq` prints the same blocks: the
# published table, the model's in the thread's layout, and each cell's change.

# %%
blocks = {b.split("\n", 1)[0]: b for b in rep.text}


def show(*titles):
    for t in titles:
        for k, b in blocks.items():
            if k.startswith(f"== {t}"):
                print(b, end="\n\n")


# %%
# NBVAL_CHECK_OUTPUT
show("fair-zone allocator model", "fairzone-spread, model", "spread-percent, model")
for b in rep.text:
    if b.lstrip().startswith("published and model change against 3.16.0-rc1 vanilla:") and "DMA32 allocs" in b:
        print(b)

# %% [markdown]
# The fairzone column is predicted well: DMA32 loses a sixth of its
# allocations, Normal gains a tenth, within a few points of the thread. The
# 3.0 column is not: the model's 3.0 keeps DMA32's share at the zone ratio in
# this run, where the thread's 3.0 fell to 29 %. In the model the spread run
# sits right at the edge where the files and the kernel's memory stop fitting
# together (that is where the vanilla total puts it): 3.0's lead over vanilla
# there comes from re-reads that still hit (fewer allocations of both kinds),
# not from a shift between the zones. Johannes's velocity table:

# %%
# NBVAL_CHECK_OUTPUT
show("bigbatches-velocity, model")
for b in rep.text:
    if b.lstrip().startswith("published and model change against 3.0:"):
        print(b)

# %% [markdown]
# The direction is right everywhere — vanilla scans DMA32 far more than 3.0
# and bigbatches do, and Normal less — and bigbatches' velocities are close
# in absolute terms. But with kswapd awake the model's 3.0 *never* reclaims
# DMA32 after the first fill: a handful of pages per second against the
# thread's 3103, so every change measured against that near-zero baseline is
# enormous. That is the assumption's failure mode: real 3.0 kept some DMA32
# reclaim going (Mel's spread shows 3.0 still allocating 29 % from DMA32),
# the awake kswapd of the model keeps none.
#
# ### SeqRead: what the model can explain
#
# The model's SeqRead figure is the disk/CFQ model's rate (with the kernel's
# CFQ and the allocator's CPU per page passed in through
# `seqread_throughput(..., cpu_cost_per_page=...)`) for the pages that miss
# the page cache, plus a memory copy for the pages that hit. One table of the
# seven (all are in `kwb reproduce`):

# %%
# NBVAL_CHECK_OUTPUT
show("fairzone-seqread, published", "fairzone-seqread, model")

# %% [markdown]
# How much of a kernel's change each assumption carries, switching one on at a
# time (fairzone and 3.0 on Mel's desktop, against vanilla; black: published):

# %%
from kernel_workbook.ui.fairzone_charts import df_decomposition, plot_decomposition

dec = df_decomposition("mel", ["3.16.0-rc1 fairzone", "3.0.0 vanilla"],
                       published_cells=published(THREAD, "fairzone-seqread"))
plot_decomposition(dec)

# %%
# NBVAL_CHECK_OUTPUT
print(dec.pivot_table(index=["kernel", "readers"], columns="component", values="pct").round(2).to_string())

# %% [markdown]
# Johannes's doubt, in numbers: the leaner fast path changes the model's
# SeqRead by hundredths of a percent. The allocator's work per page is a
# fraction of a microsecond, and the disk model hides anything up to about
# 16 µs per page behind the drive's read-ahead; even Mel's cache effect of
# switching zones, priced here at 2 µs per switch, moves nothing. What moves
# SeqRead in the model is *which pages are still cached when the read comes*:
# under the fair policy the page cache is one big LRU and reading a file
# twice the size of memory after writing it hits nothing; when the allocator
# prefers Normal (3.0, bigbatches, fairzone), the pages that landed in DMA32
# on the first fill are not reclaimed and the read finds them. The CFQ patch
# underneath fairzone adds its share at 8 and 16 readers.

# %%
# NBVAL_CHECK_OUTPUT
show("fair-zone fidelity by group")
print("the whole thread (CFQ and allocator parts):", format_summary(rep))

# %% [markdown]
# **The fidelity, read honestly.** The targets for the spread and
# velocity tables are a sign agreement of 90 % or more and a median error of
# 3 points or less. The sign target is met; the error target is **not**: the
# 3.0 spread cells miss by more than ten points (above), and the velocity cells are
# measured against the model's near-zero 3.0 DMA32 scanning. For SeqRead the
# sign agrees on about nine cells in ten; the model *over*-explains the gain
# (the "% explained" line above is more than 100 %): its page cache keeps all
# of DMA32's first-fill pages, so fairzone, bigbatches and 3.0 all gain
# about 20 % at every reader count, where the thread's gains range from 5 to
# 19 %, smallest with one or two readers on Johannes's machine. With kswapd
# napping instead (the last line), the model is fair for every kernel and
# explains none of it. The truth is between the two regimes, and the thread
# does not contain the measurement (kswapd's sleep counters, per-zone page
# ages) that would pin it down.
#
# ### Turn the knobs
#
# The variant, the batch formula (`high - low`, `managed >> shift`, a custom
# size), `min_free_kbytes`, DMA32's size, RAM, the file size as a fraction of
# RAM, the number of readers and the kswapd assumption. Each update runs
# tiobench's SeqWrite and SeqRead for vanilla and your setting; the table
# shows the spread, the zone velocity, what the read found cached and the
# allocator's work. (A static export shows fairzone against vanilla.)

# %%
from kernel_workbook.ui.fairzone_charts import fairzone_explorer

fairzone_explorer(published_spread=published(THREAD, "fairzone-spread"))

# %% [markdown]
# ## Questions (part 2)
#
# 1. With the explorer on fairzone, move the shift from 2 to 12. At which
#    batch size does DMA32's share come back to the zone ratio, and what
#    happens to the SeqRead hits? Compare with Johannes's claim that the
#    right batch is one reclaim cycle, `high - low`.
# 2. Untick "kswapd stays awake". Why does every kernel become fair, whatever
#    the batch? (Hint: once memory is full, every page allocated from a zone
#    was first reclaimed from it — who decides how much each zone is reclaimed?)
# 3. Set the file size to 0.8 × RAM. Why does 3.0 allocate fewer pages than
#    vanilla for the same benchmark, as in Mel's spread table? Is an "unfair"
#    allocator ever the better cache policy, and for which workloads would it
#    be the worse one?
# 4. Raise `min_free_kbytes` to 65536. The batches of 3.16-rc1 grow with it
#    (they are the watermark gap): does that make vanilla behave more like
#    bigbatches? What does it cost in memory?
