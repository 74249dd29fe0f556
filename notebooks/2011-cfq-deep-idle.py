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
# # 2011: "CFQ: fixing performance issues" — idling on deep seeky queues
#
# **The story in five sentences.** CFQ idles after a queue's last request, in
# case the same process sends another nearby one; seeky queues are spared
# that, unless they are "deep" — seen once with four or more requests queued
# (76280aff1c7e). Maxim Patlasov found that on a fast hardware RAID this flag
# costs a third of the throughput: CFQ 67 MB/s where noop gives 100 and
# `slice_idle=0` 106. The fix then in the kernel (8e1ac6655104, clear the flag
# when the device looks fast) comes too late to let other queues preempt, and
# on a slow SATA disk it misjudges the disk as fast and loses 35 %. His patch
# claims to fix both; the thread holds only the cover letter and the figures.
#
# The model replays the experiment on the two machines, with each variant as
# a flag on one parameter set.

# %%
from kernel_workbook import config

mode = config.setup()

# %% [markdown]
# ## The published figures
#
# Given in prose in the mail; curated here with the line each number came from.

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.tables import published, render

THREAD = "2011-cfq-deep-idle"
for t in ("aio-stress-fast-raid", "aio-stress-slow-hdd"):
    print(render(published(THREAD, t), title=True), end="\n\n")

# %% [markdown]
# ## The workload, flag by flag
#
# Each of the eight instances ran
# `aio-stress -a 4 -b 4 -c 1 -r 4 -O -o 0 -t 1 -d 1 -i 1 -s 16 f1_$I f2_$I f3_$I f4_$I`:
# one thread, four 16 MB files written sequentially (`-o 0`) in 4 KiB
# O_DIRECT records (`-r 4 -O`). Read in `aio-stress.c`: `-d 1` gives the
# thread `files × depth` = 4 io units shared by its four files; `-i 1` builds
# one write per file before moving to the next, and `-b 4` sends up to four
# in one `io_submit`. So each round is one write to each of f1..f4, submitted
# together, and the next round waits in `io_getevents` until all four io
# units are free again: each instance alternates four writes in flight and
# none. O_DIRECT writes are *synchronous* requests, so each instance has one
# CFQ sync queue that can idle; four requests 16 MB apart arriving together
# make it seeky, and — whenever it waits its turn — `deep`. On the RAID,
# Maxim added `usleep(1000)` after each submission (think time).

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.frames import Table
from kernel_workbook.heuristics.cfq import aio_stress
from kernel_workbook.heuristics.cfq.deep_idle_2011 import workload_prose

workload_prose(aio_stress.patlasov_2011(usleep_us=1000))

# %% [markdown]
# ## The mechanism: idling versus preemption
#
# Four instances on the RAID for 40 ms: blue bars are slices (a queue holds
# the disk), thin orange bars idle windows, grey ticks requests sent to the
# disk, red ticks preemptions. In pristine 3.1 a queue that waited its turn
# with four requests is marked `deep`, gets `idle_window`, sits on the SYNC
# service tree and, once served, keeps the disk through its 1 ms think times
# (idling) while the others wait — until 8e1ac6655104's check clears the flags
# and another queue preempts. With the marking commented out every queue is
# seeky and not deep: all sit on the SYNC_NOIDLE tree, which CFQ serves
# together, each batch preempting the idle one; only the tree's last queue
# idles, a little, for the whole tree. (In this window of the pristine run,
# queue 2 does not get the disk at all.)

# %%
import altair as alt

from kernel_workbook.heuristics.cfq.charts import df_counters, plot_timeline, runs_deep_marking

runs = runs_deep_marking(instances=4, file_mb=0.5)
alt.vconcat(plot_timeline(runs["pristine"], 10, 50, title="pristine 3.1.0-rc2"),
            plot_timeline(runs["no mark_deep"], 10, 50, title="mark_cfqq_deep commented out"))

# %%
# NBVAL_CHECK_OUTPUT
Table(df_counters(runs), index=True)

# %% [markdown]
# ## What is fitted, and to what
#
# One device parameter per machine, on that machine's "Pristine 3.1.0-rc2
# (CFQ)" figure only; the data sheet gives the rest (`models.cfq.PRESETS`).
#
# * **RAID**: the controller's latency per command. CFQ's throughput is not
#   monotonic in it (whether a batch completes within the 1 ms sleep decides
#   whether the queue idles), so the fit is a grid search for the point
#   nearest the published value.
# * **Slow disk**: how much of its write-back cache holds dirty data
#   (the data sheet gives a 16 MB buffer, not how firmware splits it).
#
# ## Published beside model
#
# `kwb reproduce 2011-cfq-deep-idle` prints the same blocks: for each
# machine, what was fitted, the published table, the model's (seeds as
# iterations, through `tables.compare`), each variant's change against
# pristine CFQ, and the thread's own targets (ranking, ratios within 15 %).
# (About ten seconds here; a minute at the full size of `WORKBOOK_MODE=lab`.)

# %%
from kernel_workbook.reproduce import format_summary, reproduce

rep = reproduce(THREAD)
rep.keys()

# %%
# NBVAL_CHECK_OUTPUT
display(rep, format_summary(rep))

# %% [markdown]
# ## The strict score over seed bases, and why each miss happens
#
# One run is one set of mmtests iterations; another seed base is another set
# on the same calibrated machine. The machine is fitted once, on the mean of
# the pristine-CFQ runs of all eight seed bases, so each base's baseline varies
# with its runs as the variants do, and over the eight bases it has the
# published mean. The stored run of `kwb reproduce 2011-cfq-deep-idle
# --json --seeds 8` at this notebook's size (`data/fidelity/` in CI, checked by
# the tests against a fresh seed-base-0 run; `data/fidelity/full/` in the lab) gives the strict score's spread over eight seed bases, and
# the library names the model's reason for each scored miss of the run above.

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.heuristics.cfq.deep_idle_2011 import df_misses, misses_prose
from kernel_workbook.reproduce.fidelity import df_seed_scores, score_text

display(score_text(THREAD), Table(df_seed_scores(THREAD), formats={"score": "{:.1%}"}))
misses_prose(df_misses(rep.scored()))

# %% [markdown]
# **The fast RAID** reproduces the direction and rough size of the result. At
# seed base 0 the model puts 13 of the 15 pairs of variants in the thread's
# order (the two swapped pairs are 0.4 % and 0.6 % apart in the thread: no
# deep marking against the patch, pristine against "always clear deep"), and
# the variants that stop idling gain +74–82 % where the thread's gained
# +46–58 %: their ratios to pristine CFQ sit 15–23 % above the thread's,
# because this base's pristine runs (63 MB/s) fall below the machine's fitted
# mean (67 MB/s). On seed base 7, whose pristine reads 70 MB/s, every ratio
# is within 15 %. The model's noop sits at
# the ceiling the workload allows (eight threads, four 4 KiB writes per
# `usleep(1000)` loop), above the published 99.76 MB/s; the real machine lost
# part of that ceiling to something the model does not have (CPU contention
# of eight threads, longer wake-ups after `usleep`). The 2011 patch is
# modelled from the cover letter alone (its diff is not in the thread): decide
# "deep" where the queue would idle, from its own service and think times,
# and apply the verdict at once. On the RAID that makes it behave like "no
# deep marking" — as Maxim measured (98.13 against 98.51).
#
# A caution on the RAID: CFQ's throughput there hinges on timing coincidences
# (does a batch complete inside the 1 ms sleep, on which side of a jiffy does
# the next one arrive), so it does not vary smoothly with the controller
# latency, and the fit lands on one of several values that give 67 MB/s.
# Variants that the thread measured as equal can fall either side of each
# other: "always clear deep" (0.6 % from pristine in the thread) lands
# anywhere from 22 % below to 23 % above pristine over the eight seed bases
# here (14 % below at seed base 0).
#
# That sensitivity is why the score moves from one seed base to the next. One
# pristine-CFQ run here scatters by 8–15 MB/s whatever the controller's
# overhead, so the machine is fitted on the *mean* of the eight seed bases'
# baseline runs: 186 µs, where that mean is 67 MB/s. The bases' own baselines
# then run from about 56 to 79 MB/s, while noop, `slice_idle=0`, no deep
# marking and the patch stay at the workload's ceiling whatever the seed.
# Their changes against pristine therefore run from about +40 % (pristine
# near 79 MB/s) to about twice the published +46–58 % (pristine near
# 56 MB/s), and on those bases the RAID's cells turn from hits to misses. On the slow disk noop hits
# and the two deep-idling cells miss on every seed base.
#
# The machine used to be fitted on seed base 0's runs alone. They happened to
# read 67 MB/s at 320 µs, where the mean over the bases is 57 MB/s, so most
# other bases fell below it (a mean score of 38 %). That change of fit was
# made after the per-seed scores had been seen, but it reads the baseline
# column only (the mean of its runs instead of one draw), and it would be the
# right fit whatever the variants did. Refitting the machine on *each* base's
# own runs would make every base's baseline equal the published one and print
# a steadier score, but it would hide exactly what a student should see: one
# run of this workload on this RAID is not a measurement of the variant.
#
# **The slow disk** is the miss. The order is right but for the two variants
# the thread measured as equal (5.46 against 5.45), and the patch again
# tracks the variant it should; the sizes are not right, and the model says
# exactly why. Its drive's write-back cache has 16 segments for the 32 files
# being written. Pristine CFQ switches queues all the time (8e1ac6655104
# judges the disk fast and clears "deep"), so all eight instances interleave,
# the segments thrash, each write-back op carries one to three 4 KiB writes
# and most writes wait for room; noop interleaves the same way, harder.
# Without 8e1ac6655104 CFQ idles on each deep queue for its whole slice (some
# 30 times fewer queue switches), only that instance's four files arrive,
# each segment grows to about sixteen contiguous writes written back in one
# media op, and the cache rarely fills: the model's drive nearly streams (a
# 7-fold gain where the disk gave 1.5). O_DIRECT writes do go through the
# drive's cache on the real machine too (3.1's `WRITE_ODIRECT` carries no
# FUA), so the cache is not wrongly in the path; what the model lacks is how
# this class of drive groups and writes back cached writes, which no data
# sheet gives. The data sheet's 16 MB as the cache's room, more segments than
# files, or write-back in LBA order were tried as diagnosis (each looked at
# the predicted columns, so none is adopted): none keeps the baseline and
# brings the gain within a factor 2 (`docs/models/cfq.md`).
#
# A hypothesis examined only *after* seeing this miss (so it stays out of the
# summary): the drive writes each cached command back on its own, without
# merging neighbours. Fitted again on pristine CFQ only, it comes closer but
# still misses:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.heuristics.cfq.deep_idle_2011 import df_what_if_per_command_destage

Table(df_what_if_per_command_destage())

# %% [markdown]
# ## Turn the knobs
#
# The machine, the deep-queue variant and the `usleep` think time, then the
# kernel's own knobs under their kernel names (hover for the unit and the
# source line): the `scheduler`, `cfq_slice_idle`, `cfq_quantum` and
# `cfq_group_idle`. The line gives the aggregate throughput and CFQ's
# counters, the picture a 40 ms timeline of four instances. Each change
# reruns the simulation and redraws in about a tenth of a second: the
# explorer runs the smaller problem of `WORKBOOK_MODE=ci` (4 MB per file on
# the RAID, 2 MB on the slow disk, the machine calibrated at that size), as
# one run. One run moves more with its seed than with the file size: on the
# RAID, pristine 3.1 gives 56–83 MB/s over seeds 1–6 with 8 MB files and
# 51–85 MB/s with 4 MB files (each size on its own fitted machine). (A static export shows the variants on the RAID.)

# %%
from kernel_workbook.heuristics.cfq.charts import deep_idle_explorer

deep_idle_explorer()

# %% [markdown]
# ## Questions
#
# 1. On the RAID, raise the `usleep` think time to 2 ms, then 3 ms. Does the
#    damage done by idling grow or shrink, and why? At what think time does
#    `cfq_slice_idle = 8` ms stop being worth its cost even for a sequential reader?
# 2. 8e1ac6655104 asks "did the queue deliver all its requests before half its
#    slice was used?". Explain from the slow-disk setup why a write-back cache
#    makes that test answer "the device is fast" for a disk doing 900 IOPS.
# 3. Maxim's "always clear deep" experiment cleared the flag whenever the
#    queue emptied, yet gained nothing. Using the timeline, say what sets the
#    flag again, and how soon — and why that alone defeats the preemption
#    the clearing was meant to allow.
