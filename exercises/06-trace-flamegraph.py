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
# # Exercise 6 — a flame graph and a differential flame graph
#
# **Level:** intermediate · **Expected time:** 20 min · **Thread:** all (perf script) · **Topic:** reading traces
#
# Two real `perf script` captures of fio, buffered and direct (`data/traces/perf-io`). A flame graph's width is a share of the samples; a differential flame graph compares shares of two profiles. Draw them with `ui.plot_icicle` and `ui.plot_diff_icicle` if you like; the questions need only the folded stacks (`traces.fold`).
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/06-trace-flamegraph.ipynb`.

# %%
from kernel_workbook.exercises.trace_reading import FlameGraphs

SEED = 1
p = FlameGraphs(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = FlameGraphs(101)
display(demo.shown()[0])
example = {
    'inclusive_pct': 0.39,
    'self_pct': None,
    'diff_sign': None,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'inclusive_pct': None,
    'self_pct': None,
    'diff_sign': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
