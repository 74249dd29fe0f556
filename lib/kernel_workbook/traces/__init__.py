"""traces of the Kernel Heuristics Workbook (see docs/DEVELOPING.md)."""
