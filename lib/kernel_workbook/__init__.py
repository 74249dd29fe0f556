"""Kernel Heuristics Workbook: LKML performance threads as data, mmtests
tables, and Numba models of the kernel heuristics they argue about."""

__version__ = "0.1.0"
