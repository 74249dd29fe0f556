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
# # Exercise 11 — where the slice regime flips
#
# **Level:** intermediate · **Expected time:** 15 min · **Thread:** 2014-seqread-fairzone-cfq · **Topic:** CFQ target latency (mechanism)
#
# Find the knob values where CFQ's slice regime flips: from scaled to whole slices as the target latency grows, and from scaled to the floor as readers are added.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/11-cfq2014-regime-flip.ipynb`.

# %%
from kernel_workbook.heuristics.cfq.exercises_2014 import TargetLatencyFlip

SEED = 1
p = TargetLatencyFlip(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = TargetLatencyFlip(101)
display(demo.shown()[0])
example = {
    'target_no_scaling': 2401,
    'readers_at_floor': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'target_no_scaling': None,
    'readers_at_floor': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
