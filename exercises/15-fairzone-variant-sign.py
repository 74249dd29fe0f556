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
# # Exercise 15 — predict the sign: the fair policy on a small desktop
#
# **Level:** intermediate · **Expected time:** 20 min · **Thread:** 2014-seqread-fairzone-cfq · **Topic:** fair zone allocator (model)
#
# The model runs tiobench on Mel Gorman's desktop at 1/32 of its size under two kernels of the thread. Predict the sign of the change in the DMA32 share and whether kswapd has to scan.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/15-fairzone-variant-sign.ipynb`.

# %%
from kernel_workbook.heuristics.fairzone.exercises import FairPolicySign

SEED = 1
p = FairPolicySign(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = FairPolicySign(101)
display(demo.shown()[0])
example = {
    'dma32_share_sign': None,
    'kswapd_scans': True,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'dma32_share_sign': None,
    'kswapd_scans': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
