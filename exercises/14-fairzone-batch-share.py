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
# # Exercise 14 — how the fair pass shares the page cache
#
# **Level:** intermediate · **Expected time:** 15 min · **Thread:** 2014-seqread-fairzone-cfq · **Topic:** fair zone allocator (mechanism)
#
# 3.12's fair zone policy gives each zone NR_ALLOC_BATCH = high - low pages per round, so page cache is spread in proportion to the zones. Compute the batches and the share, and say what 3.0 did instead.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/14-fairzone-batch-share.ipynb`.

# %%
from kernel_workbook.heuristics.fairzone.exercises import BatchShare

SEED = 1
p = BatchShare(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = BatchShare(101)
display(demo.shown()[0])
example = {
    'batch_dma32': None,
    'batch_normal': None,
    'dma32_share_pct': None,
    'fills_first_3_0': 'DMA32',
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'batch_dma32': None,
    'batch_normal': None,
    'dma32_share_pct': None,
    'fills_first_3_0': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
