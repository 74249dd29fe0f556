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
# # Exercise 8 — predict the sign: a CFQ variant on the fast RAID
#
# **Level:** intermediate · **Expected time:** 15 min · **Thread:** 2011-cfq-deep-idle · **Topic:** CFQ deep idling (model)
#
# The model of the 2011 RAID runs the thread's aio-stress under pristine 3.1 CFQ and one of the thread's variants. Predict the sign of the change before the model tells you.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/08-cfq2011-variant-sign.ipynb`.

# %%
from kernel_workbook.heuristics.cfq.exercises_2011 import DeepIdleSign

SEED = 1
p = DeepIdleSign(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = DeepIdleSign(105)
display(demo.shown()[0])
example = {
    'sign': '+',
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'sign': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
