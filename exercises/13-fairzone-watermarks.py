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
# # Exercise 13 — a zone's watermarks from min_free_kbytes
#
# **Level:** beginner · **Expected time:** 15 min · **Thread:** 2014-seqread-fairzone-cfq · **Topic:** fair zone allocator (mechanism)
#
# The fair zone allocator's batches come from the zones' watermarks, and the watermarks from `min_free_kbytes`. Compute them for one zone of a machine from the thread.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/13-fairzone-watermarks.ipynb`.

# %%
from kernel_workbook.heuristics.fairzone.exercises import Watermarks

SEED = 1
p = Watermarks(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = Watermarks(101)
display(demo.shown()[0])
example = {
    'min_free_kbytes': None,
    'wmark_min': 2048,
    'wmark_low': None,
    'wmark_high': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'min_free_kbytes': None,
    'wmark_min': None,
    'wmark_low': None,
    'wmark_high': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
