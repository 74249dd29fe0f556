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
# # Exercise 7 — will CFQ idle on this queue?
#
# **Level:** beginner · **Expected time:** 10 min · **Thread:** 2011-cfq-deep-idle · **Topic:** CFQ deep idling (mechanism)
#
# In 2011 Maxim Patlasov found CFQ idling in front of a fast RAID: a queue marked 'deep' keeps the disk waiting for its process even when its requests are seeky. Decide, as `cfq_update_idle_window()` does, whether CFQ will idle on one queue.
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/07-cfq2011-idle-window.ipynb`.

# %%
from kernel_workbook.heuristics.cfq.exercises_2011 import IdleWindow

SEED = 1
p = IdleWindow(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = IdleWindow(102)
display(demo.shown()[0])
example = {
    'deep': None,
    'seeky': None,
    'idles': True,
}
demo.check(example)

# %% [markdown]
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:

# %%
answer = {
    'deep': None,
    'seeky': None,
    'idles': None,
}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
