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
# # Exercise 9 — explain a published cell of the 2011 RAID table
#
# **Level:** intermediate · **Expected time:** 15 min · **Thread:** 2011-cfq-deep-idle · **Topic:** CFQ deep idling (the thread's table)
#
# The thread's own RAID table (`data/threads/2011-cfq-deep-idle.txt`). Read one column against the pristine CFQ column and name the mechanism that explains it.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/09-cfq2011-published-cell.ipynb`.

# %%
from kernel_workbook.heuristics.cfq.exercises_2011 import PublishedCell2011

SEED = 1
p = PublishedCell2011(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = PublishedCell2011(101)
display(demo.shown()[0])
example = {
    'pct': 31.22,
    'sign': None,
    'why': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'pct': None,
    'sign': None,
    'why': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
