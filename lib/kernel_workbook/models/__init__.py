"""Simulations of the kernel heuristics, one module per heuristic.

Each follows the QuantEcon shape: a frozen parameter set named after the
kernel's knobs, a thin public ``simulate(params, workload, seed)``, a private
``@numba.njit(cache=True)`` kernel fed with pre-drawn random numbers, and a
pure-Python reference of the same loop (see docs/DEVELOPING.md).
"""
