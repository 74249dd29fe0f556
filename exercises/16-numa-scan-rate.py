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
# # Exercise 16 — how fast does task_numa_work() mark memory?
#
# **Level:** beginner · **Expected time:** 10 min · **Thread:** 2015-numa-slow-scan · **Topic:** NUMA balancing scan rate (mechanism)
#
# Automatic NUMA balancing marks `numa_balancing_scan_size_mb` of a process's memory PROT_NONE every scan period, and every marked page touched takes a hinting fault. Turn the knobs into a rate.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/16-numa-scan-rate.ipynb`.

# %%
from kernel_workbook.heuristics.numa.exercises import ScanRate

SEED = 1
p = ScanRate(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = ScanRate(101)
display(demo.shown()[0])
example = {
    'ptes_per_s': 256.0,
    'full_pass_s': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'ptes_per_s': None,
    'full_pass_s': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
