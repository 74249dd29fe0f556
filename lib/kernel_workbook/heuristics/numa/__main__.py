"""``WORKBOOK_MODE=ci python -m kernel_workbook.heuristics.numa --wakeup-sweep``: store the 2015 wake-up sweep
(:func:`.numa_2015.main`).

The package's entry point rather than the module's: the package imports ``numa_2015`` to declare the
heuristic, so running that module as ``__main__`` would load it twice (Python warns, and the two copies keep two
sets of caches)."""

from .numa_2015 import main

raise SystemExit(main())
