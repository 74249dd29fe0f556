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
# # Exercise 20 — how long is compaction deferred?
#
# **Level:** intermediate · **Expected time:** 10 min · **Thread:** 2012-highalloc-compaction · **Topic:** compaction (mechanism)
#
# After compaction fails, the kernel skips it for a while (`defer_compaction()`, `compaction_deferred()`), and since 3.4 only for the failed order and higher. Count the skipped requests.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/20-compaction-deferral.ipynb`.

# %%
from kernel_workbook.heuristics.compaction.exercises import Deferral

SEED = 1
p = Deferral(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = Deferral(101)
display(demo.shown()[0])
example = {
    'defer_shift': None,
    'skipped': 32,
    'other_order_deferred': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'defer_shift': None,
    'skipped': None,
    'other_order_deferred': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
