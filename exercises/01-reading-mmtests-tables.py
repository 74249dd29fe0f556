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
# # Exercise 1 — reading an mmtests table
#
# **Level:** beginner · **Expected time:** 15 min · **Thread:** all (mmtests tables) · **Topic:** statistics
#
# A seeded problem: one kernel against a baseline, five runs each, one
# percentage hidden. Predict three things, then run the checker. It tells you
# what is right and, for what is not, the mistake it most likely is.
# Change `SEED` for a fresh problem; `problem(SEED).solve()` shows the working
# (try first!).
#
# Before you start: `notebooks/00-start-here.ipynb`, section "How to read an
# mmtests comparison".

# %%
from kernel_workbook.exercises.mmtests_reading import problem

SEED = 1
p = problem(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# Fill in your answers: `pct` as mmtests prints it (`-3.25` or `"-3.25%"`), `better` and
# `significant` as `True`/`False` (or `"yes"`/`"no"`). A first wrong answer gets a hint, the next the answer.

# %%
answer = {
    "pct": None,
    "better": None,
    "significant": None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)

# %% [markdown]
# ### Going further
#
# 1. Find a seed where the Min row and the mean row disagree in sign. What does
#    that tell you about the runs?
# 2. mmtests' CI test uses the standard deviation, not the standard error. How
#    many runs would you need before this difference of means would be
#    significant if it used `stddev/sqrt(n)`?
# 3. Why does mmtests arrange the percentage so that positive is always better,
#    instead of printing the plain change?
