"""The heuristics, one folder each: everything about a heuristic above its kernel mirror.

A folder holds the heuristic's workloads, the reproductions of its threads,
its charts and explorers, its exercises and its benchmarks, and ends its
``__init__.py`` with one declaration, ``HEURISTIC = Heuristic(...)``
(:mod:`kernel_workbook.heuristic`).  The kernel mirror it runs stays below, in
``models/<name>/``; the shared engines (``reproduce``, ``ui``, ``sweep``,
``exercises``, ``bench``) too.  The folders do not import one another (an
import-linter contract), but for the 2014 thread's fair-zone half, which
reads its files through the CFQ block layer and its CFQ half's fits.

Adding a heuristic with one thread: its kernel package ``models/<name>/``, a
folder here (the folder is its registration: :func:`kernel_workbook.heuristic.names`
lists the folders), its docs page and its notebooks.
"""
