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
# # Exercise 23 — may reclaim write this dirty page?
#
# **Level:** intermediate · **Expected time:** 10 min · **Thread:** 2007-throttle-vm-writeout · **Topic:** writeback (mechanism)
#
# akpm's c4e2d7dd changed who may write to a congested queue. Decide what reclaim does with one dirty page, before and after it.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/23-2007-may-write-to-queue.ipynb`.

# %%
from kernel_workbook.heuristics.writeback.exercises import MayWriteToQueue

SEED = 1
p = MayWriteToQueue(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = MayWriteToQueue(105)
display(demo.shown()[0])
example = {
    'congested': None,
    'may_write': True,
    'outcome': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); choices as their word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first
# wrong answer gets a hint, the next the answer:

# %%
answer = {
    'congested': None,
    'may_write': None,
    'outcome': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
