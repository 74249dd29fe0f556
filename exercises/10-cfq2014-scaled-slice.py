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
# # Exercise 10 — the slice CFQ gives a reader under low_latency
#
# **Level:** beginner · **Expected time:** 10 min · **Thread:** 2014-seqread-fairzone-cfq · **Topic:** CFQ target latency (mechanism)
#
# In 2014 Mel Gorman raised `cfq_target_latency` from 300 to 600 ms. With `low_latency` on, CFQ shrinks each queue's slice so that every busy queue gets a turn within the target. Compute the slice by hand.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/10-cfq2014-scaled-slice.ipynb`.

# %%
from kernel_workbook.heuristics.cfq.exercises_2014 import ScaledSlice

SEED = 1
p = ScaledSlice(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = ScaledSlice(101)
display(demo.shown()[0])
example = {
    'slice_ms': 100,
    'round_ms': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'slice_ms': None,
    'round_ms': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
