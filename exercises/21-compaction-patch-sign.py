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
# # Exercise 21 — predict the sign: one patch of the 2012 series
#
# **Level:** intermediate · **Expected time:** 15 min · **Thread:** 2012-highalloc-compaction · **Topic:** compaction (model)
#
# The model runs its stress-highalloc test under two consecutive steps of Mel Gorman's 2012 series. Predict the sign of the change in pages scanned by direct reclaim and by kswapd.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/21-compaction-patch-sign.ipynb`.

# %%
from kernel_workbook.heuristics.compaction.exercises import CompactionSign

SEED = 1
p = CompactionSign(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = CompactionSign(101)
display(demo.shown()[0])
example = {
    'counter_sign': '-',
    'success_sign': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'counter_sign': None,
    'success_sign': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
