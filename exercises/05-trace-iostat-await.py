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
# # Exercise 5 — iostat: await, queue and %util
#
# **Level:** intermediate · **Expected time:** 15 min · **Thread:** 2011 and 2014 CFQ (iostat) · **Topic:** reading traces
#
# A real `iostat -x 1` capture of fio (`data/traces/perf-io`). The seed picks one interval; await and aqu-sz are hidden. Little's law ties them together, and %util is not what it seems on a device that serves requests in parallel.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/05-trace-iostat-await.ipynb`.

# %%
from kernel_workbook.exercises.trace_reading import IostatAwait

SEED = 1
p = IostatAwait(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = IostatAwait(101)
display(demo.shown()[0])
example = {
    'await': 0.475,
    'queue': None,
    'depth_when_busy': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'await': None,
    'queue': None,
    'depth_when_busy': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
