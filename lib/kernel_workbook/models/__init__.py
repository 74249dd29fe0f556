"""Simulations of the kernel heuristics, one package per heuristic.

Every model has the same shape (docs/ARCHITECTURE.md): its knobs declared once
(:mod:`.knobs`), the kernel's arrays laid out from that declaration
(:mod:`.layout`), one engine that runs the same kernel source compiled or as
Python (:mod:`.engine`), and a :class:`~.spec.ModelSpec` through which sweeps,
explorers and tests reach it with its heuristic's workloads
(:func:`kernel_workbook.heuristic.model`).
"""
