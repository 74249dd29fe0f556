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
# the allocator patches of the same series (part 2, the notebook
# `2014b-seqread-fairzone`) recovered more, at every reader count.
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
# (`cfq_slice_sync`) at the default priority. With `low_latency` on
# (`cfq_latency`), the slice is shrunk so that all busy queues get a turn
# within `cfq_target_latency` (`cfq_scaled_cfqq_slice()`): with *N* busy
# queues each gets `100 * target / (100 * N)` ms, but never less than
# `2 * cfq_slice_idle` (16 ms). Between two slices the disk seeks to the next
# reader's file — a cost paid once per slice, so short slices waste a larger
# share of the disk. The slices, in the kernel's integer jiffies:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.frames import Table
from kernel_workbook.heuristics.cfq.seqread_2014 import df_slices

Table(df_slices())

# %% [markdown]
# Here are four readers on the model (3.16's CFQ on the desktop disk) for
# the first 600 ms: each blue bar is a slice, ticks are requests sent to the
# disk, orange is CFQ idling for the active reader's next request
# (`cfq_slice_idle`). With four busy queues the slice is 75 ms at 300 ms and
# the full 100 ms at 600 ms. (The first call compiles the model, once.)

# %%
from kernel_workbook.models.cfq import DESKTOP_2014, IOParams, cfq_for_kernel
from kernel_workbook.heuristics.cfq.charts import plot_timeline, runs_target_latency

p316 = IOParams(scheduler="cfq", cfq=cfq_for_kernel("3.16"), disk=DESKTOP_2014)
runs = runs_target_latency(p316, (300, 600), readers=4, ram_mb=8192, mb_total=96)

# %%
import altair as alt

alt.vconcat(plot_timeline(runs[300], 0, 600, title="cfq_target_latency = 300 ms"),
            plot_timeline(runs[600], 0, 600, title="cfq_target_latency = 600 ms"))

# %% [markdown]
# ## The model and its knobs
#
# `IOParams` is the whole parameter set of a run. Every knob is declared
# once, under the name of the kernel variable it mirrors, with its unit, the
# kernel function it feeds and its valid range; validation, the widgets
# below and each run's caption come from that declaration. Kernel versions
# are presets (`cfq_for_kernel("3.0" | "3.1" | "3.16")`). CFQ's knobs:

# %%
# NBVAL_CHECK_OUTPUT
knobs = p316.df_knobs()
Table(knobs[knobs["knob"].str.startswith("cfq_")][["knob", "value", "unit", "kernel", "source"]])

# %% [markdown]
# The disk is a data-sheet description of the class of drive the thread
# names:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.models.cfq import df_presets

cols = ["name", "rpm", "media_rate_mb_s", "seek_track_ms", "seek_avg_ms", "seek_full_ms", "ncq_depth",
        "readahead_kb", "write_cache_kb", "spindles", "capacity_gb"]
Table(df_presets()[cols])

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
# `kwb reproduce 2014-seqread-fairzone-cfq` prints the same (with the
# allocator's part after it); each block is the published table, then the
# model's (seeds as iterations, through `tables.compare`, in the thread's 2014
# layout), then the change of every cell against vanilla, published and
# model. The CFQ part alone runs about 40 seconds here (`WORKBOOK_MODE=ci`
# sizes) and a few minutes at the full size of the lab.

# %%
from kernel_workbook.heuristics.cfq.seqread_2014 import reproduce_cfq

rep = reproduce_cfq()

# %%
# NBVAL_CHECK_OUTPUT
display(*(rep.block(key) for key in ("cfq/fitted", "cfq600-seqread/published", "cfq600-seqread/model",
                                     "cfq600-seqread/cells")))

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
display(*(rep.block(key) for key in ("lessdirty-tiobench-min/published", "lessdirty-tiobench-min/model",
                                     "lessdirty-tiobench-min/cells", "cfq600-iostat/published",
                                     "cfq600-iostat/model", "cfq600-iostat/cells")))

# %% [markdown]
# `r_await` is the model's read latency over the read phases (SeqRead and
# RandRead), each phase's samples weighted by its real length. The model
# predicts no change from a longer `cfq_target_latency` — longer slices make
# one request per slice wait longer but fewer of them wait — and Mel's mean
# and worst read waits barely moved either. The model's absolute values are
# far below his: his iostat samples also cover the write phases, where reads
# queue behind seconds of writeback (`w_await` 13 s); the model does not
# simulate buffered writes, so `avgqz`, `await` and `w_await` are not
# predicted.
#
# The same model on the thread's other two machines, each fitted on its own
# vanilla SeqRead-1 (not in the summary: those tables' baseline column is
# 3.0, an allocator difference):

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.heuristics.cfq.seqread_2014 import notes_prose

display(rep.block("cfq/other-machines"), notes_prose(rep))

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.reproduce import format_summary

format_summary(rep)

# %% [markdown]
# **The fidelity summary, read honestly.** The lenient score's median error
# meets the target (≤ 3 points); its sign agreement does not (target ≥ 90 %).
# The sign misses are RandRead and latency rows: in the thread, RandRead
# moves by up to 7 % either way between two kernels that differ only in a
# knob random reads do not touch (all seeky queues share one SYNC_NOIDLE
# workload slice), so its published sign is run-to-run noise, and so is the
# model's; the same holds for the latency rows. The thread prints no
# standard deviation; what it says is that the other operations are
# "negligible" and "essentially flat" (Mel Gorman, [PATCH 0/4] and 3/4), and
# the strict score leaves out the RandRead, SeqWrite and RandWrite cells of
# his desktop table with those words as the reason (the JSON's `reason`),
# and counts a hit only when sign and size (within a factor of 2) agree. On
# every SeqRead cell where the thread shows a real effect (4 to 16 readers,
# 2 to 12 %) the model has the sign right and is within about 3 points.
#
# **The road not taken.** Had we fitted the disk's seek curve to the whole
# vanilla column, the model would have to believe in seeks several times the
# data sheet's — and it then over-predicts the cfq600 gain:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.heuristics.cfq.seqread_2014 import df_alternative_seek_fit

Table(df_alternative_seek_fit())

# %% [markdown]
# **A road found later: where the files lie.** The model lays tiobench's
# files back to back, each in one piece. ext3 does not. tiotest's threads
# write their files at the same time, and ext3 gives each growing file a
# reservation window, doubled up to `EXT3_MAX_RESERVE_BLOCKS` (1027 blocks,
# 4 MiB of data; `alloc_new_reservation()`, fs/ext3/balloc.c). So the files
# take turns on the disk, 4 MiB at a time. The order of the turns changes
# from round to round, and is drawn from the seed. One reader's file is one
# piece, so the fit above does not change. Several readers each seek past
# the others' windows every 4 MiB.
#
# Below is the vanilla column alone, the baseline, model minus published in
# percent. Nothing is fitted for it. It is shown at the reproduction's size
# (160 MB simulated) and at the whole benchmark (16 GB, as tiotest reads
# it):

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.heuristics.cfq.seqread_2014 import df_file_layout, df_file_layout_errors

Table(df_file_layout_errors(df_file_layout()), index=True, signed=True)

# %% [markdown]
# On the whole benchmark, the ext3 layout brings the vanilla decline with
# readers out of the disk itself: the model is within about 5% of the
# published vanilla column at every reader count, where back to back it is
# 12–36% too fast. So the gap in the table above need not be the allocator's after
# all. It still does not explain the allocator kernels' gain at one reader.
# The reproduction does not use this layout yet. Under it the runs settle
# only over the whole benchmark: the readers start side by side and drift
# apart slowly, so 160 MB simulated comes out far too slow at 16 readers.
# That is 0.37 s a run, about 3 minutes more for each seed base of this
# thread. Adopting it would also change every 2014 cell. `docs/models/cfq.md`
# (where tiobench's files lie) has the measurements. It also says why the
# turns are drawn: in a fixed order the outcome at 16 readers flips on a
# 0.1% change of the media rate.

# %% [markdown]
# ## Turn the knobs
#
# CFQ's knobs under their kernel names — hover over one for its unit and the
# kernel function it feeds: `scheduler`, `cfq_target_latency`,
# `cfq_slice_sync`, `cfq_slice_idle`, `cfq_quantum`, `cfq_latency` — with the
# deep-queue variant of the 2011 thread, the machine and the number of
# readers. The chart shows the model's SeqRead against the number of readers
# (your settings beside 3.16's defaults, the thread's points as diamonds) and
# the read latency percentiles (shapes: p50, p90, p99); the mmtests table
# above it compares the two. Your settings start at Mel's patch,
# `cfq_target_latency = 600`, which is what a static export shows. A change
# reruns ten simulations in about a tenth of a second; drawing the new chart
# in the browser takes a second or so more.

# %%
from kernel_workbook.heuristics.cfq.seqread_2014 import desktop_params, df_explorer_points
from kernel_workbook.heuristics.cfq.charts import cfq_explorer

cfq_explorer(desktop_params(), published_cells=df_explorer_points())

# %% [markdown]
# ## A model run and a real capture on one chart
#
# The model's `iostat()` names its columns as sysstat does, so a capture
# loads beside it. `data/traces/tiobench-seqread` is tiobench-like SeqRead
# (fio, 4 KiB reads, 1 to 16 readers) recorded on a virtual machine whose
# disk is a fast virtio device — a very different machine, which is the
# point: the same chart shows how far a 2014 spinning disk is from it.

# %%
from kernel_workbook.heuristics.cfq.charts import df_capture_beside_model, plot_capture_beside_model

both = df_capture_beside_model(desktop_params())
plot_capture_beside_model(both)

# %% [markdown]
# ## Questions
#
# 1. With the widgets, find the smallest `cfq_target_latency` at which 16
#    readers lose less than 5 % against one reader. What does it cost in the
#    p99 read latency? Was Dave Chinner's "switch to deadline" a better answer
#    for this workload (try the `scheduler` menu)?
# 2. Set `cfq_slice_idle` to 0. Why does SeqRead with many readers fall, while
#    the 2011 thread's fast RAID *gained* from the same setting? (Hint: what
#    does a sequential reader do between two of its requests, and what does
#    the disk do meanwhile?)
# 3. The model's vanilla column is too high from 2 readers on, and we chose
#    not to fit it. Using the published `fairzone-seqread` table (part 2),
#    estimate how much of the gap the allocator patch closes, and argue why
#    fitting the seek curve to the vanilla column (the road not taken, above)
#    would have made the cfq600 prediction worse, not better.
