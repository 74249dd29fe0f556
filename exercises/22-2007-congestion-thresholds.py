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
# # Exercise 22 — when is the shared queue congested?
#
# **Level:** beginner · **Expected time:** 10 min · **Thread:** 2007-throttle-vm-writeout · **Topic:** writeback (mechanism)
#
# One request queue is shared by every zone. When does it count as congested, and when not any more? Work out `blk_queue_congestion_threshold()` and its hysteresis.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/22-2007-congestion-thresholds.ipynb`.

# %%
from kernel_workbook.heuristics.writeback.exercises import CongestionThresholds

SEED = 1
p = CongestionThresholds(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = CongestionThresholds(101)
display(demo.shown()[0])
example = {
    'on': 448,
    'off': None,
    'congested_now': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); choices as their word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first
# wrong answer gets a hint, the next the answer:

# %%
answer = {
    'on': None,
    'off': None,
    'congested_now': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
