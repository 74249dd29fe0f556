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
# notebook rebuilds the zones, the queue, pdflush and reclaim of those kernels as a simulation,
# calibrates it on the "before" side only, and checks what it predicts.

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
import pandas as pd

from kernel_workbook.frames import Prose, Table
from kernel_workbook.models.writeback import VARIANT_NOTES, VARIANTS, params_for

display(Table(pd.DataFrame(VARIANTS).T, index=True),
        Prose("\n".join(f"* **{k}**: {v}" for k, v in VARIANT_NOTES.items())))

# %% [markdown]
# Every knob is declared once, with the kernel variable it mirrors and its source:

# %%
# NBVAL_CHECK_OUTPUT
Table(params_for("2.6.23").df_knobs()[["knob", "value", "unit", "kernel"]])

# %% [markdown]
# ## The reproduction
#
# Calibrated on the "before" side only: the disk's write rate is Fengguang's "about the write
# throughput" (the baseline column of his estimate), and the CPU cost of scanning one page is bisected
# until kswapd uses 50% of a CPU in akpm's test before `c4e2d7dd`. Everything else is predicted.
# Percentages (CPU, efficiency) change in points; rates change relatively. The desktops' efficiency is
# measured against the calibrated "before" run. The score is the workbook's strict one: the published
# sign and a size within a factor of 2, beyond the thread's noise.

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.reproduce import format_summary, reproduce
from kernel_workbook.reproduce import throttle_2007 as t07

rep = reproduce(THREAD)
display(rep.block("fitted"), format_summary(rep))

# %%
# NBVAL_CHECK_OUTPUT
display(rep.block("model"), *(rep.block(f"{table}/cells") for table in (
    "kswapd-writeback-2002", "congestion-wait-estimate", "akpm-reclaim-efficiency", "fengguang-ratio-script")))

# %%
from kernel_workbook.ui import writeback_charts as wc

wc.plot_cells(rep.scored(), title="published and model change of every scored cell")

# %% [markdown]
# ### Every miss, and why
#
# The model misses where its kswapd after `c4e2d7dd` is paced by `get_request_wait()` rather than by
# rotation: its queue serves requests in the order they came (no elevator sorting), so kswapd's
# one-page ZONE_NORMAL writes wait behind pdflush's long HIGHMEM requests. Cells the model does not
# address are listed with their reason too.

# %%
# NBVAL_CHECK_OUTPUT
sc = rep.scored()
display(Table(t07.df_misses()[["row", "kernel", "published_delta_pct", "model_delta_pct", "reason", "why"]]),
        Table(sc[sc["status"] == "excluded"][["table", "row", "kernel", "reason"]]),
        Table(rep.df_unmodelled()))

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
Table(eff.groupby("source")[["steal", "scan"]].sum().assign(
    efficiency_pct=lambda d: (100 * d["steal"] // (d["scan"] + 1))), index=True,
    units={"steal": "pages", "scan": "pages"})

# %% [markdown]
# ## What to take away
#
# * Reclaim efficiency (`pgsteal / pgscan`) is the first number to look at; below 25% reclaim is
#   scanning pages it cannot free: dirty, under writeback, or in a zone it cannot write.
# * One queue per disk, not per zone: whoever fills it decides which zone gets cleaned.
# * `congestion_wait()` is a crude throttle: it wakes on *any* queue uncongesting. The model shows the
#   other pacing, `get_request_wait()`, taking over once kswapd may block on the queue.
# * The model gets the direction of the 2002 change and the healthy desktops; it misses the size of the
#   efficiency gain and Fengguang's estimate, for the reasons above.
