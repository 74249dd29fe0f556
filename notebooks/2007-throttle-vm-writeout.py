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
# # 2007: page reclaim is a polling loop paced by the disk
#
# **The story in five sentences.** In October 2007 Fengguang Wu proposed a one-line patch that makes
# `balance_dirty_pages()` write nonblocking, and asked why kswapd is allowed to write to a congested
# queue at all. Andrew Morton answered with his commit `c4e2d7dd` of December 2002: there is one request
# queue per disk, shared by every zone, so when pdflush has filled it with HIGHMEM pages nobody can write
# back the ZONE_NORMAL pages kswapd needs, and kswapd "chews 50% of the CPU scanning past dirty
# ZONE_NORMAL pages" at a reclaim efficiency of 2%. Letting kswapd use the whole queue and block on it
# brought its CPU to 2% and efficiency to 40%. The thread ends with the metric every reclaim hacker
# watches, `pgsteal / pgscan` from `/proc/vmstat` (97.7% on akpm's desktop, 96% on Fengguang's). This
# notebook rebuilds the zones, pdflush and reclaim of those kernels as a simulation over the disk/CFQ
# model's block layer (the request list, the elevator that sorts and merges, the disk), takes its two
# costs from the "before" side of the thread, and checks what it predicts.

# %%
from kernel_workbook import config

mode = config.setup()

# %% [markdown]
# ## The published figures
#
# Six small tables, each with the line of the thread it comes from: akpm's test before and after
# `c4e2d7dd`, Fengguang's estimate of kswapd with and without `congestion_wait()`, and the two desktops.

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.tables import published, render

THREAD = "2007-throttle-vm-writeout"
for table in ("kswapd-writeback-2002", "congestion-wait-estimate", "akpm-reclaim-efficiency",
              "fengguang-ratio-script"):
    print(render(published(THREAD, table)))

# %% [markdown]
# ## akpm's 2002 changelog, in one paragraph
#
# > The `low latency page reclaim' design works by preventing page allocators from blocking on request
# > queues [...]. pdflush (or a write(2) caller) could be saturating the queue with highmem pages. This
# > prevents anyone from writing back ZONE_NORMAL pages. [...] So this patch changes the policy for
# > kswapd. kswapd may use all of a request queue, and is prepared to block on request queues.
#
# In the model that is one flag, `kswapd_swapwrite` (`may_write_to_queue()` in `mm/vmscan.c`; later
# `PF_SWAPWRITE`). The kernels of the thread are flag sets of the model's knobs:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.frames import Table
from kernel_workbook.heuristics.writeback import throttle_2007 as t07
from kernel_workbook.models.writeback import params_for

display(Table(t07.df_variants(), index=True), t07.variants_prose())

# %% [markdown]
# Every knob is declared once, with the kernel variable it mirrors and its source:

# %%
# NBVAL_CHECK_OUTPUT
Table(params_for("2.6.23").df_knobs()[["knob", "value", "unit", "kernel"]])

# %% [markdown]
# ## The reproduction
#
# Nothing is searched for. The disk's media rate is Fengguang's "about the write throughput" (the
# baseline column of his estimate), and the CPU cost of scanning one page is akpm's "50% of the CPU"
# divided by Fengguang's "vmscan at 1000MB/s" (both describe kswapd scanning pages it cannot free).
# The 2002 kernels run 2.5.52-mm's rbtree deadline elevator and 2.5's reclaim loop; 2.6.23 runs CFQ.
# Scored, in points against the run before `c4e2d7dd`: kswapd CPU and reclaim efficiency after it, the
# two changes the thread measured. Fengguang's "maybe 150MB/s" is a guess in prose and is shown, not
# scored; the desktops' efficiencies are levels of one machine each, shown beside the model's light
# desktop. The score is the workbook's strict one: the published sign and a size within a factor of 2,
# beyond the thread's noise. The calibration block shows where the machine lands on the thread's
# absolute figures, none of which was fitted to a run.

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.reproduce import format_summary, reproduce

rep = reproduce(THREAD)
display(rep.block("fitted"), rep.block("calibration"), format_summary(rep))

# %%
# NBVAL_CHECK_OUTPUT
display(rep.block("model"), *(rep.block(f"{table}/cells") for table in (
    "kswapd-writeback-2002", "congestion-wait-estimate", "akpm-reclaim-efficiency", "fengguang-ratio-script")))

# %%
from kernel_workbook.heuristics.writeback import charts as wc

wc.plot_cells(rep.scored(), title="published and model change of every scored cell")

# %% [markdown]
# ### Every miss, and why
#
# The efficiency after `c4e2d7dd` is a hit: the elevator sorts and merges kswapd's one-page
# ZONE_NORMAL writes with pdflush's requests, they are served, and the pages come back rotated to the
# inactive tail where kswapd frees them. kswapd's CPU falls to about akpm's 2%, but from 15%, not 50%:
# with the scan cost the thread implies, the model's kswapd before the fix naps in 2.5's
# `blk_congestion_wait()` after every priority pass and scans far less than Fengguang's 1000 MB/s, so
# the fall is a third of akpm's. Cells that are not scored are listed with their reason too.

# %%
# NBVAL_CHECK_OUTPUT
display(Table(t07.df_misses()[["row", "kernel", "published_delta_pct", "model_delta_pct", "reason", "why"]]),
        Table(t07.df_excluded(rep.scored())),
        Table(rep.df_unmodelled()))

# %% [markdown]
# ### The assumed load, swept
#
# The thread does not describe the load after the kill; the model assumes 100 MB/s of allocations, a
# tenth of them lowmem-only, written down before any run. Each is swept over its plausible range (the
# other at its assumed value) to show how far the two scored changes move (published: -48 and +38
# points).

# %%
# NBVAL_CHECK_OUTPUT
Table(t07.df_assumptions())

# %% [markdown]
# ## The one queue shared by the zones
#
# Who holds the request queue's slots over akpm's test (one sample every 100 ms): pdflush's requests of
# HIGHMEM pages (the oldest-dirtied) and then of ZONE_NORMAL pages, kswapd's, and the dashed
# `nr_requests` and congestion thresholds (`blk_queue_congestion_threshold()`: 113 and 103 of 128).
# Before `c4e2d7dd` kswapd may write only when the queue is not congested, which pdflush sees to.

# %%
runs = t07.runs()
wc.plot_queue(runs["before c4e2d7dd"], title="before c4e2d7dd: who holds the queue's slots")

# %%
wc.plot_queue(runs["after c4e2d7dd"], title="after c4e2d7dd: kswapd may take every slot, and block")

# %%
wc.plot_zone_pages(runs["before c4e2d7dd"], title="before c4e2d7dd: each zone's free, dirty and writeback pages")

# %% [markdown]
# ## The knobs
#
# The explorer is built from the knob declaration: a kernel menu sets every knob to that kernel's
# values; `kswapd_swapwrite` is `c4e2d7dd`, `throttle_vm_writeout` 2.6.23's wait after each zone shrink,
# `bdp_nonblocking` Fengguang's patch (it only matters when someone writes: try the desktop load),
# `nr_requests` the queue, the dirty ratios pdflush's and the writers' limits, and `lowmem_mb` the memory
# split. It runs akpm's test on a 2 GB machine for 5 s (in `WORKBOOK_MODE=ci` it draws the defaults once).

# %%
wc.writeback_explorer(variant="before c4e2d7dd")

# %% [markdown]
# ## The model's efficiency over a real capture's
#
# `traces.df_reclaim_2007` is Fengguang's loop (`ratio = 100 * steal / (scan + 1)`); applied per
# interval it is the efficiency that moves. The same function reads the model's `/proc/vmstat` series
# and a capture taken on this workbook's machine (`data/traces/memory-pressure`: a 24 GiB VM on 6.18,
# memory pinned, then a file streamed through the page cache). Its pages were clean, so the capture's
# efficiency is near 100%, like the light desktop's, and far from akpm's test before the fix. The dashed
# line is akpm's "trouble below 25%".

# %%
from kernel_workbook.paths import data_dir
from kernel_workbook.traces import load

capture = load(data_dir() / "traces/memory-pressure/bundle/proc-vmstat-pressure.gz")
wc.plot_efficiency({"model: akpm's test, before c4e2d7dd": runs["before c4e2d7dd"],
                    "model: akpm's test, after c4e2d7dd": runs["after c4e2d7dd"],
                    "model: light desktop, 2.6.23": runs["desktop"]},
                   capture, capture_name="capture: memory-pressure (6.18)")

# %%
# NBVAL_CHECK_OUTPUT
eff = wc.df_efficiency({"before": runs["before c4e2d7dd"], "after": runs["after c4e2d7dd"],
                        "desktop": runs["desktop"]}, capture, capture_name="capture")
Table(wc.df_efficiency_totals(eff), index=True, units={"steal": "pages", "scan": "pages"})

# %% [markdown]
# ## What to take away
#
# * Reclaim efficiency (`pgsteal / pgscan`) is the first number to look at; below 25% reclaim is
#   scanning pages it cannot free: dirty, under writeback, or in a zone it cannot write.
# * One queue per disk, not per zone: whoever fills it decides which zone gets cleaned.
# * `congestion_wait()` is a crude throttle: it wakes on *any* queue uncongesting. The model shows the
#   other pacing, `get_request_wait()`, taking over once kswapd may block on the queue.
# * The model gets the efficiency gain of the 2002 change once its queue sorts and merges as 2.5's
#   elevator did, and the direction of kswapd's CPU; it misses the size of the CPU fall because its
#   kswapd before the fix scans far slower than akpm's did, for the reasons above.
