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
# # Kernel Heuristics Workbook — start here
#
# Five real Linux kernel mailing-list threads argue about performance with
# numbers: tables printed by [mmtests](https://github.com/gormanm/mmtests),
# `/proc/vmstat` dumps, `perf stat` lines, figures in prose. This workbook turns
# every one of those numbers into data you can load, question and re-derive,
# and (in the thread notebooks) rebuilds each kernel heuristic as a small
# simulation whose knobs carry the kernel's own names.
#
# | thread | what it is about |
# |---|---|
# | `2014-seqread-fairzone-cfq` | CFQ `target_latency`, the page allocator's fair zone batches |
# | `2015-numa-slow-scan` | automatic NUMA balancing slowing its PTE scanner |
# | `2011-cfq-deep-idle` | CFQ idling on seeky "deep" queues |
# | `2007-throttle-vm-writeout` | kswapd writeback, `congestion_wait`, reclaim efficiency |
# | `2012-highalloc-compaction` | compaction and huge page allocation under load |
#
# This notebook shows how to read the tables. Nothing here needs the network.

# %%
from kernel_workbook import config

mode = config.setup()

# %% [markdown]
# ## What the threads contain
#
# Every table of every thread is in `data/published/`: one row per number,
# with the line of the thread text it was read from and who posted it. Most
# tables are read by the parser; a few are *curated* (typed in by hand) because
# the figures were given in prose, as in the 2011 thread.

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.frames import Table
from kernel_workbook.ui import thread_summary

Table(thread_summary())

# %% [markdown]
# ## How to read an mmtests comparison
#
# Here is the table of Mel Gorman's patch raising CFQ's `target_latency` from
# 300 to 600 ms, exactly as the mail printed it:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.tables import published, render

cfq600 = published("2014-seqread-fairzone-cfq", "cfq600-seqread")
print(render(cfq600, title=True))

# %% [markdown]
# * **Header:** each column is a kernel. mmtests splits the run name
#   `3.16.0-rc1-cfq600` at its first `-` (after an `-rcN`) into two rows.
# * **Rows:** a *statistic* (`Mean`, `Min`, `Stddev`, ... over several
#   iterations) and an *operation* — here sequential read throughput with 1 to
#   16 tiobench threads.
# * **The percentage** compares each column with the first (the baseline). It
#   is arranged so that **positive always means better**:
#   `pdiff = new*100/base - 100` for higher-is-better metrics (MB/sec),
#   `pndiff = 100 - new*100/base` for lower-is-better ones (time, latency).
#
# Check one by hand: 16 readers, cfq600 against vanilla.

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.frames import Prose
from kernel_workbook.tables import pdiff, pndiff

Prose(f"* `pdiff(77.29, 68.90)` = **{pdiff(77.29, 68.90):+.2f}%** (throughput: higher is better)\n"
      f"* `pndiff(209.42, 602.44)` = **{pndiff(209.42, 602.44):+.2f}%** (2015: system time, lower is better)")

# %% [markdown]
# The same table as a chart of the percentage change:

# %%
from kernel_workbook.ui import plot_pct_change

plot_pct_change(cfq600, "cfq600-seqread")

# %% [markdown]
# ## Explore any table
#
# Pick a thread and a table. The line under the title says where it comes
# from; the chart shows each column's change against the table's baseline.
# (Static exports show the first table; in JupyterLab the menus work.)

# %%
from kernel_workbook.ui import table_explorer

table_explorer("2014-seqread-fairzone-cfq", "fairzone-seqread")

# %% [markdown]
# ## Is a difference real? Significance
#
# A mean moves from run to run. mmtests marks a mean as significant — printed
# `* 18.70%*` instead of `( 18.70%)` — by one of two tests:
#
# * **CI overlap** (current mmtests): each mean gets `mean ± 1.96·stddev`; the
#   change is significant when the two intervals do not overlap;
# * **Welch's t-test** at α = 0.05.
#
# Below, seeded samples: a kernel 5 % faster and one that is the same, five
# runs each. The note under the table says which test marked what, with α and n.

# %%
# NBVAL_CHECK_OUTPUT
import numpy as np

from kernel_workbook.tables import compare

rng = np.random.default_rng(2014)
runs = {
    "6.1.0-base": {"ops/sec": rng.normal(1000, 20, 5)},
    "6.1.0-faster": {"ops/sec": rng.normal(1050, 20, 5)},
    "6.1.0-same": {"ops/sec": rng.normal(1000, 20, 5)},
}
print(render(compare(runs, significance="welch", stats=("Min", "Mean", "Stddev", "Max"))))

# %% [markdown]
# ## Where next
#
# * [explore-your-traces](explore-your-traces.ipynb) — load your own `vmstat`,
#   `iostat`, `/proc/vmstat` and `perf` captures;
# * one notebook per thread: the story, the published tables, the model with its
#   knobs, and the reproduction beside the published numbers:
#   [2011](2011-cfq-deep-idle.ipynb), [2012](2012-highalloc-compaction.ipynb),
#   [2014 CFQ](2014a-seqread-cfq.ipynb), [2014 fair zone](2014b-seqread-fairzone.ipynb),
#   [2015](2015-numa-slow-scan.ipynb);
# * [exercises](../exercises/README.md) — seeded problems with a checker;
# * the [README](../README.md) and [how it fits together](../docs/ARCHITECTURE.md);
# * on a projector: `make slides THREAD=2015` opens a thread as a live slide deck;
# * from a shell: `kwb tables 2015-numa-slow-scan`, `kwb reproduce --all`.
