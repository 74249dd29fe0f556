"""The exercise notebooks' percent scripts (``exercises/NN-*.py`` and ``exercises/solutions/NN-*.py``), written
from one template.

Exercises 2 to 24 are one page each: a heading, the line of level, time, thread and topic, a paragraph of what the
problem is about, the problem, the checker shown on another seed's problem with one common mistake, and the
answer dict to fill; their solutions show the solver's working and check its own answer.  What differs between
them is data: the class each draws from (:data:`~kernel_workbook.exercises.EXERCISES`), what that class declares
(``level``, ``minutes``, ``thread``, ``topic``, ``questions``), and what :data:`PAGES` holds here.  Exercise 1 (a
different shape: a ``problem()`` function, no demo, questions for going further) and its solution are written by
hand and are not generated.

    python -m kernel_workbook.exercises.scripts write   # rewrite the generated scripts
    python -m kernel_workbook.exercises.scripts check   # exit 1 naming each script that differs

After ``write``, a changed script's notebook must be synced and executed again (``jupytext --update`` then
nbconvert, as every notebook); tests/test_exercise_scripts.py checks that the committed scripts are this
module's output.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from . import EXERCISES

HANDWRITTEN = ("01-reading-mmtests-tables",)  # see the module's docstring

# jupytext writes this header when it syncs a notebook; a newer jupytext rewrites its version line, to be changed
# here too (the test of the committed scripts says so)
_HEADER = """\
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
"""

# How to write an answer.  The 2007 exercises ask for no sign, and their choices are words, not letters.
ANSWER_FORMS = {
    "default": """\
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:
""",
    "no-sign": """\
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); choices as their word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first
# wrong answer gets a hint, the next the answer:
""",
}


@dataclass(frozen=True)
class Page:
    heading: str  # after "Exercise N — "
    about: str  # one paragraph (one line in the script: the notebook wraps it)
    demo: int  # the seed of the problem the checker is shown on: one whose typical mistake reads well
    example: tuple  # (question key, the mistaken answer the demo gives to it)
    answers: str = "default"  # a key of ANSWER_FORMS


PAGES: dict[str, Page] = {
    '02-stats-hmean-amean': Page('Hmean against Amean',
         'mmtests summarises throughput rows with the harmonic mean (Hmean) and times with the arithmetic mean (Amean). Work out why, with one slow run among the runs.',
         demo=101, example=('overall', 92.4)),
    '03-stats-significance': Page("significance: CI overlap and Welch's t",
         'mmtests marks a change significant when the two intervals mean +/- 1.96 x stddev do not overlap; a t-test on the means is the textbook alternative. They can disagree: find out when and why.',
         demo=101, example=('t', -2.76)),
    '04-trace-reclaim-efficiency': Page('reclaim efficiency from /proc/vmstat',
         'A real capture of `/proc/vmstat` taken while a program pushed the machine into reclaim (`data/traces/memory-pressure`). The counters are totals since boot; the seed picks two snapshots.',
         demo=101, example=('kswapd_velocity', 1287158.0)),
    '05-trace-iostat-await': Page('iostat: await, queue and %util',
         "A real `iostat -x 1` capture of fio (`data/traces/perf-io`). The seed picks one interval; await and aqu-sz are hidden. Little's law ties them together, and %util is not what it seems on a device that serves requests in parallel.",
         demo=101, example=('await', 0.475)),
    '06-trace-flamegraph': Page('a flame graph and a differential flame graph',
         "Two real `perf script` captures of fio, buffered and direct (`data/traces/perf-io`). A flame graph's width is a share of the samples; a differential flame graph compares shares of two profiles. Draw them with `ui.plot_icicle` and `ui.plot_diff_icicle` if you like; the questions need only the folded stacks (`traces.fold`).",
         demo=101, example=('inclusive_pct', 0.39)),
    '07-cfq2011-idle-window': Page('will CFQ idle on this queue?',
         "In 2011 Maxim Patlasov found CFQ idling in front of a fast RAID: a queue marked 'deep' keeps the disk waiting for its process even when its requests are seeky. Decide, as `cfq_update_idle_window()` does, whether CFQ will idle on one queue.",
         demo=102, example=('idles', True)),
    '08-cfq2011-variant-sign': Page('predict the sign: a CFQ variant on the fast RAID',
         "The model of the 2011 RAID runs the thread's aio-stress under pristine 3.1 CFQ and one of the thread's variants. Predict the sign of the change before the model tells you.",
         demo=105, example=('sign', '+')),
    '09-cfq2011-published-cell': Page('explain a published cell of the 2011 RAID table',
         "The thread's own RAID table (`data/threads/2011-cfq-deep-idle.txt`). Read one column against the pristine CFQ column and name the mechanism that explains it.",
         demo=101, example=('pct', 31.22)),
    '10-cfq2014-scaled-slice': Page('the slice CFQ gives a reader under low_latency',
         "In 2014 Mel Gorman raised `cfq_target_latency` from 300 to 600 ms. With `low_latency` on, CFQ shrinks each queue's slice so that every busy queue gets a turn within the target. Compute the slice by hand.",
         demo=101, example=('slice_ms', 100)),
    '11-cfq2014-regime-flip': Page('where the slice regime flips',
         "Find the knob values where CFQ's slice regime flips: from scaled to whole slices as the target latency grows, and from scaled to the floor as readers are added.",
         demo=101, example=('target_no_scaling', 2401)),
    '12-cfq2014-seqread-sign': Page('predict the sign: cfq_target_latency 300 -> 600 ms on SeqRead',
         "The model's 2014 desktop disk runs tiobench SeqRead at one reader count with `cfq_target_latency` 300 and 600 ms. Predict the sign of both changes, then let the model run.",
         demo=101, example=('slice_sign', '+')),
    '13-fairzone-watermarks': Page("a zone's watermarks from min_free_kbytes",
         "The fair zone allocator's batches come from the zones' watermarks, and the watermarks from `min_free_kbytes`. Compute them for one zone of a machine from the thread.",
         demo=101, example=('wmark_min', 2048)),
    '14-fairzone-batch-share': Page('how the fair pass shares the page cache',
         "3.12's fair zone policy gives each zone NR_ALLOC_BATCH = high - low pages per round, so page cache is spread in proportion to the zones. Compute the batches and the share, and say what 3.0 did instead.",
         demo=101, example=('fills_first_3_0', 'DMA32')),
    '15-fairzone-variant-sign': Page('predict the sign: the fair policy on a small desktop',
         "The model runs tiobench on Mel Gorman's desktop at 1/32 of its size under two kernels of the thread. Predict the sign of the change in the DMA32 share and whether kswapd has to scan.",
         demo=101, example=('kswapd_scans', True)),
    '16-numa-scan-rate': Page('how fast does task_numa_work() mark memory?',
         "Automatic NUMA balancing marks `numa_balancing_scan_size_mb` of a process's memory PROT_NONE every scan period, and every marked page touched takes a hinting fault. Turn the knobs into a rate.",
         demo=101, example=('ptes_per_s', 256.0)),
    '17-numa-scan-period': Page('the scan period controller, with and without the slow-scan patch',
         '`update_task_scan_period()` decides whether a task scans faster or slower from the locality of its hinting faults; the 2015 slow-scan patch also slows it when migrations fail. Do one step by hand.',
         demo=102, example=('new_period_ms', 1963)),
    '18-numa-kernel-sign': Page('predict the sign: NUMA balancing across the 2015 kernels',
         'The model runs autonumabench numa01 under two kernels of the 2015 thread. Predict the sign of the changes in PTE updates and pages migrated.',
         demo=105, example=('pte_updates_sign', '-')),
    '19-compaction-fragindex': Page('compact or reclaim? the fragmentation index',
         'When a high-order allocation fails, `compaction_suitable()` asks whether the failure is for lack of memory (reclaim) or fragmentation (compact), through the fragmentation index. Compute it from a buddyinfo line.',
         demo=101, example=('action', 'reclaim')),
    '20-compaction-deferral': Page('how long is compaction deferred?',
         'After compaction fails, the kernel skips it for a while (`defer_compaction()`, `compaction_deferred()`), and since 3.4 only for the failed order and higher. Count the skipped requests.',
         demo=101, example=('skipped', 32)),
    '21-compaction-patch-sign': Page('predict the sign: one patch of the 2012 series',
         "The model runs its stress-highalloc test under two consecutive steps of Mel Gorman's 2012 series. Predict the sign of the change in pages scanned by direct reclaim and by kswapd.",
         demo=101, example=('counter_sign', '-')),
    '22-2007-congestion-thresholds': Page('when is the shared queue congested?',
         'One request queue is shared by every zone. When does it count as congested, and when not any more? Work out `blk_queue_congestion_threshold()` and its hysteresis.',
         demo=101, example=('on', 448), answers='no-sign'),
    '23-2007-may-write-to-queue': Page('may reclaim write this dirty page?',
         "akpm's c4e2d7dd changed who may write to a congested queue. Decide what reclaim does with one dirty page, before and after it.",
         demo=105, example=('may_write', True), answers='no-sign'),
    '24-2007-reclaim-efficiency': Page('reclaim efficiency from /proc/vmstat, and what the loop prints',
         "The number akpm says to watch first: reclaim efficiency from `/proc/vmstat`, and what Fengguang's loop prints on a kernel whose `pgsteal_<zone>` stay 0.",
         demo=103, example=('loop_prints', 97), answers='no-sign'),
}


def _class(stem: str):
    from . import exercise_class

    return exercise_class(EXERCISES[stem])


def _import(stem: str) -> tuple[str, str]:
    mod, _, cls = EXERCISES[stem].partition(":")
    return f"from kernel_workbook.exercises.{mod} import {cls}", cls


def _dict(name: str, keys, given: tuple | None = None) -> str:
    lines = [f"    {k!r}: {repr(given[1]) if given and k == given[0] else 'None'}," for k in keys]
    return f"{name} = {{\n" + "\n".join(lines) + "\n}"


def exercise(stem: str) -> str:
    """The percent script of ``exercises/<stem>.py``."""
    page, c = PAGES[stem], _class(stem)
    imp, cls = _import(stem)
    n = int(stem[:2])
    if page.example[0] not in c.questions:
        raise ValueError(f"{stem}: the demo answers {page.example[0]!r}, not a question of {cls}")
    return _HEADER + f"""
# %% [markdown]
# # Exercise {n} — {page.heading}
#
# **Level:** {c.level} · **Expected time:** {c.minutes} min · **Thread:** {c.thread} · **Topic:** {c.topic}
#
# {page.about}
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/{stem}.ipynb`.

# %%
{imp}

SEED = 1
p = {cls}(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = {cls}({page.demo})
display(demo.shown()[0])
{_dict("example", c.questions, page.example)}
demo.check(example)

# %% [markdown]
{ANSWER_FORMS[page.answers]}
# %%
{_dict("answer", c.questions)}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
"""


def solution(stem: str) -> str:
    """The percent script of ``exercises/solutions/<stem>.py``."""
    imp, cls = _import(stem)
    return _HEADER + f"""
# %% [markdown]
# # Exercise {int(stem[:2])} — solution
#
# The hidden solver's working for the seed of the exercise (every parameter it
# used is echoed on its first line), then the checker run on the solver's own
# answer.

# %%
{imp}

SEED = 1
p = {cls}(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()
p.solve()

# %%
# NBVAL_CHECK_OUTPUT
answer = p.answer()
p.check(answer)
"""


def scripts(root: Path) -> dict[Path, str]:
    """Every generated script under ``root`` (the repository) with the text it must hold."""
    missing = set(EXERCISES) - set(PAGES) - set(HANDWRITTEN)
    if missing:
        raise ValueError(f"no page for the exercises {sorted(missing)}: add them to PAGES")
    out = {}
    for stem in PAGES:
        out[root / "exercises" / f"{stem}.py"] = exercise(stem)
        out[root / "exercises" / "solutions" / f"{stem}.py"] = solution(stem)
    return out


def main(argv: list[str]) -> int:
    from ..paths import repo_root

    if argv not in (["write"], ["check"]):
        print(__doc__, file=sys.stderr)
        return 2
    differ = []
    for path, text in scripts(Path(repo_root())).items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            differ.append(path)
            if argv == ["write"]:
                path.write_text(text, encoding="utf-8")
    for p in differ:
        print(("wrote " if argv == ["write"] else "differs from the template: ") + str(p))
    return 1 if differ and argv == ["check"] else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
