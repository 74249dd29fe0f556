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
# # Exercise 18 — predict the sign: NUMA balancing across the 2015 kernels
#
# **Level:** intermediate · **Expected time:** 15 min · **Thread:** 2015-numa-slow-scan · **Topic:** NUMA balancing scan rate (model)
#
# The model runs autonumabench numa01 under two kernels of the 2015 thread. Predict the sign of the changes in PTE updates and pages migrated.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/18-numa-kernel-sign.ipynb`.

# %%
from kernel_workbook.heuristics.numa.exercises import NumaSign

SEED = 1
p = NumaSign(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = NumaSign(105)
display(demo.shown()[0])
example = {
    'pte_updates_sign': '-',
    'migrated_sign': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'pte_updates_sign': None,
    'migrated_sign': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
