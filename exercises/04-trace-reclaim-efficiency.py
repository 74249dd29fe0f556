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
# # Exercise 4 — reclaim efficiency from /proc/vmstat
#
# **Level:** intermediate · **Expected time:** 15 min · **Thread:** 2012 compaction, 2014 fair zone (reclaim) · **Topic:** reading traces
#
# A real capture of `/proc/vmstat` taken while a program pushed the machine into reclaim (`data/traces/memory-pressure`). The counters are totals since boot; the seed picks two snapshots.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/04-trace-reclaim-efficiency.ipynb`.

# %%
from kernel_workbook.exercises.trace_reading import ReclaimEfficiency

SEED = 1
p = ReclaimEfficiency(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = ReclaimEfficiency(101)
display(demo.shown()[0])
example = {
    'kswapd_efficiency': None,
    'direct_percentage': None,
    'kswapd_velocity': 1287158.0,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'kswapd_efficiency': None,
    'direct_percentage': None,
    'kswapd_velocity': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
