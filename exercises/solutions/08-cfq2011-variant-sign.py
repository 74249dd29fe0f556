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
# # Exercise 8 — solution
#
# The hidden solver's working for the seed of the exercise (every parameter it
# used is echoed on its first line), then the checker run on the solver's own
# answer.

# %%
from kernel_workbook.heuristics.cfq.exercises_2011 import DeepIdleSign

SEED = 1
p = DeepIdleSign(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()
p.solve()

# %%
# NBVAL_CHECK_OUTPUT
answer = p.answer()
p.check(answer)
