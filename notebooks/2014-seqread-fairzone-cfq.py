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
from kernel_workbook.reproduce import format_summary

print(format_summary(rep))

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
# The series' other patches change the page allocator: the fair zone
# allocation batches (`NR_ALLOC_BATCH`, patch 3/4, "fairzone") and the cost of
# dirty zone balancing (patch 4/4, "lessdirty"). They come with the allocator
# model (issue 5), which will plug its per-page cost into this disk/CFQ model
# through `kernel_workbook.models.cfq.seqread_throughput(params, readers,
# cpu_cost_per_page=...)` and add its part to
# `kernel_workbook.reproduce.seqread_2014.PARTS`. Until then, the tables of
# that half are in the published data (`kwb tables 2014-seqread-fairzone-cfq`).
