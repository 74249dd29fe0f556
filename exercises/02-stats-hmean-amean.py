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
# # Exercise 2 — Hmean against Amean
#
# **Level:** beginner · **Expected time:** 10 min · **Thread:** all (mmtests tables) · **Topic:** statistics
#
# mmtests summarises throughput rows with the harmonic mean (Hmean) and times with the arithmetic mean (Amean). Work out why, with one slow run among the runs.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/02-stats-hmean-amean.ipynb`.

# %%
from kernel_workbook.exercises.statistics import HmeanAmean

SEED = 1
p = HmeanAmean(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = HmeanAmean(101)
display(demo.shown()[0])
example = {
    'hmean': None,
    'amean': None,
    'overall': 92.4,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'hmean': None,
    'amean': None,
    'overall': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
