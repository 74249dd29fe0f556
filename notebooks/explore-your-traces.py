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
# # Explore your traces
#
# Engineers arrive with files: a `vmstat 1` log from a bad night, `iostat -x`
# from a benchmark, `/proc/vmstat` dumped every second, `perf stat` and
# `perf script` output, an mmtests results folder. This notebook loads any of
# them into a table and shows what is in it. It starts on the captures that
# ship with the workbook (`data/traces/`, each made with `kwb record` on a
# real machine, each with a README); point it at your own files or folders.
#
# Record your own with
# `kwb record --out DIR [--interval S] [--perf-record] -- COMMAND ARGS...`.

# %%
from pathlib import Path

from kernel_workbook import config, traces
from kernel_workbook.frames import Prose, Table
from kernel_workbook.tables import render
from kernel_workbook.ui import trace_charts, trace_explorer, trace_panels

mode = config.setup()
DATA = traces.shipped_captures()

# %% [markdown]
# ## Load a bundle or a file
#
# `traces.load(path)` sniffs the format (and gzip) of a file and returns a
# DataFrame; a folder (a `kwb record` bundle or an mmtests log tree) comes
# back as a `Bundle` whose monitors load one by one. Change `PATH` to your
# own capture. In JupyterLab the explorer below has a path box and lets you
# pick counters; in the static report it shows the default.

# %%
PATH = DATA / "memory-pressure" / "bundle"
trace_explorer(str(PATH), monitor="vmstat")

# %% [markdown]
# ## What was found
#
# One row per monitor log: its parser (`kind`), rows, columns, the seconds it
# spans and the tool version the output shows (a dash says why a log has
# none). The manifest says where and how it was recorded.

# %%
# NBVAL_CHECK_OUTPUT
bundle = traces.load(PATH)
m = bundle.manifest
display(Table(trace_panels.df_summary(bundle), units={"seconds": "s"}, na=trace_panels.SUMMARY_NA),
        Prose(f"* command (in the folder it ran in): `{trace_panels.command_line(m)}`\n* kernel: {m['kernel']['release']}\n"
              f"* tools: {m['tools']['vmstat']} / {m['tools']['iostat']} / {m['tools']['perf']}"))

# %% [markdown]
# ## Counters over time
#
# `vmstat` every second: the program pins most of the memory, then streams a
# 6 GiB file twice, so the page cache has to be recycled. vmstat's `free`
# column stays nearly flat here; the fall of free memory shows in
# `/proc/vmstat`'s `nr_free_pages` below. Charts are binned to stay under
# Altair's 5000-row limit.

# %%
vm = bundle.load("vmstat")
trace_charts.plot_timeseries(vm[~vm["since_boot"]], ["free", "cache", "bi", "wa", "sy", "id"],
                      title="vmstat under memory pressure")

# %% [markdown]
# `/proc/vmstat` is cumulative: the rates per second of its event counters
# (`traces.df_rates`) show when kswapd (`pgscan_kswapd`) and direct reclaim
# (`pgscan_direct`, `allocstall`) ran.

# %%
pv = bundle.load("proc-vmstat")
rates = traces.df_rates(pv)
trace_charts.plot_timeseries(rates, ["pgscan_kswapd", "pgsteal_kswapd", "pgscan_direct", "allocstall_normal",
                              "pgpgin", "pgfault"], title="/proc/vmstat, per second")

# %% [markdown]
# ## Reclaim efficiency, the 2007 way
#
# In the 2007 throttle-vm-writeout thread Andrew Morton pointed at the
# ratio of pages stolen to pages scanned ("if the reclaim efficiency falls
# below, umm, 25% then things are getting into some trouble") and Fengguang
# Wu posted a shell loop printing `100*steal/(scan+1)` every second.
# `traces.df_reclaim_2007` is that loop as a function over a `/proc/vmstat`
# series (on any kernel's counter names); `per_interval=True` gives the
# ratio of each second instead of since boot.

# %%
# NBVAL_CHECK_OUTPUT
display(*trace_panels.reclaim_shown(pv))

# %%
trace_charts.plot_reclaim_2007(traces.df_reclaim_2007(pv, per_interval=True))

# %% [markdown]
# Nearly every page scanned was reclaimed: the page cache of a file read
# once is the easiest memory there is to reclaim. The 2007 thread was about
# the opposite case, dirty pages kswapd could not write back, where the ratio
# collapses. The same figures as mmtests computes them (kswapd and direct
# efficiency and velocity) are in `traces.df_reclaim`; the docstring of
# `kernel_workbook.traces.derived` lists the mistakes of mmtests' own
# scripts that we correct (double-counted node-LRU scans, an efficiency of
# 100% when nothing was scanned, ...).

# %% [markdown]
# ## iostat: latency and queue depth
#
# The tiobench-like sequential read with 16 readers (fio, page cache
# dropped first). `traces.df_iostat_await` reads the read and write awaits
# and the queue depth from any sysstat layout (sysstat 12 dropped the
# combined `await`; it is recomputed as sysstat did, weighted by I/Os).

# %%
seq16 = traces.load(DATA / "tiobench-seqread" / "readers-16")
aw = traces.df_iostat_await(seq16.load("iostat"))
trace_charts.plot_iostat_latency(aw[aw["r/s"] > 0])

# %% [markdown]
# ## perf stat: the kernel's counters
#
# The same fio run under `perf stat -I 1000` (software events and the
# tracepoints of reclaim, compaction and migration): each event's total and
# its rate per second of the run, then the events over time. A `perf stat`
# file without `-I` gives the table and a chart of the rates; an event perf
# could not count is a dash with its reason.

# %%
# NBVAL_CHECK_OUTPUT
bundle_io = traces.load(DATA / "perf-io" / "bundle")
counters, over_time = trace_panels.shown(bundle_io.load("perf-stat"), "perf-stat", title="perf stat -I 1000, fio randrw")
counters

# %%
over_time

# %% [markdown]
# ## A flame graph of perf stacks
#
# `perf record -g -a` during buffered random I/O (fio, 2 jobs), shipped as
# `perf script` text. `traces.fold` gives the folded stacks that
# FlameGraph's `flamegraph.pl` reads (byte-identical to its
# `stackcollapse-perf.pl` on the inputs that script reads right); the
# icicle puts the process at the top and the leaf functions at the bottom.

# %%
ps = bundle_io.perf_script()
Table(ps.samples["comm"].value_counts().head(6).rename("samples").to_frame(), index=True)

# %% [markdown]
# `perf record -a` sees the whole machine, and this one was shared: the
# `python` and `pytest` samples are other people's work. Keep fio's stacks
# (`comm="fio"`, like `perf script --comms fio`).

# %%
folded = traces.fold(ps, comm="fio")
trace_charts.plot_icicle(folded, title="perf record -g, fio randrw, buffered I/O", min_fraction=0.005)

# %%
# NBVAL_CHECK_OUTPUT
top = folded.assign(leaf=folded["stack"].str.rsplit(";", n=1).str[-1]).groupby("leaf")["count"].sum()
Table((100 * top / top.sum()).sort_values(ascending=False).head(8).rename("share of samples").to_frame(),
      index=True, units={"share of samples": "%"})

# %% [markdown]
# ## A differential flame graph
#
# The same fio job with `O_DIRECT` (`bundle-direct`): widths are the direct
# run's, red frames take a larger share of the samples than in the
# buffered run, blue a smaller one.

# %%
direct = traces.load(DATA / "perf-io" / "bundle-direct")
folded_direct = traces.fold(direct.perf_script(), comm="fio")
trace_charts.plot_diff_icicle(folded, folded_direct, title="buffered -> O_DIRECT (red: larger share with O_DIRECT)",
                       min_fraction=0.005)

# %% [markdown]
# ## Two bundles, compared as mmtests would
#
# `kwb compare A B` (and `traces.bundle.compare_bundles`) sample every
# monitor once per interval and print them through the workbook's table
# engine, percentages against the first bundle, significance by Welch's
# t-test. One reader against sixteen:

# %%
# NBVAL_CHECK_OUTPUT
from kernel_workbook.traces.bundle import compare_bundles

cells = compare_bundles([DATA / "tiobench-seqread" / "readers-01", DATA / "tiobench-seqread" / "readers-16"])
rows = [r for r in dict.fromkeys(cells["row"]) if r.startswith(("fio read", "iostat vda r", "vmstat ", "iostat vda aqu"))]
print(render(cells[cells["row"].isin(rows) & cells["stat"].isin(["Amean"])]))

# %% [markdown]
# ## Your turn
#
# * Point `PATH` at a folder made by `kwb record`, or at a single `vmstat`,
#   `iostat -x`, `perf stat`, `/proc/vmstat` or `perf script` file.
# * `kwb parse FILE --to csv` gives the same tables in a shell;
#   `kwb compare A B` the comparison.
