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
# # Exercise 3 — significance: CI overlap and Welch's t
#
# **Level:** intermediate · **Expected time:** 20 min · **Thread:** all (mmtests tables) · **Topic:** statistics
#
# mmtests marks a change significant when the two intervals mean +/- 1.96 x stddev do not overlap; a t-test on the means is the textbook alternative. They can disagree: find out when and why.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/03-stats-significance.ipynb`.

# %%
from kernel_workbook.exercises.statistics import CiAndWelch

SEED = 1
p = CiAndWelch(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = CiAndWelch(101)
display(demo.shown()[0])
example = {
    'ci': None,
    't': -2.76,
    'welch': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'ci': None,
    't': None,
    'welch': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
