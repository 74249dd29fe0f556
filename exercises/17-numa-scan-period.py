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
# # Exercise 17 — the scan period controller, with and without the slow-scan patch
#
# **Level:** advanced · **Expected time:** 20 min · **Thread:** 2015-numa-slow-scan · **Topic:** NUMA balancing scan rate (mechanism)
#
# `update_task_scan_period()` decides whether a task scans faster or slower from the locality of its hinting faults; the 2015 slow-scan patch also slows it when migrations fail. Do one step by hand.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/17-numa-scan-period.ipynb`.

# %%
from kernel_workbook.heuristics.numa.exercises import ScanPeriod

SEED = 1
p = ScanPeriod(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = ScanPeriod(102)
display(demo.shown()[0])
example = {
    'new_period_ms': 1963,
    'direction': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'new_period_ms': None,
    'direction': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
