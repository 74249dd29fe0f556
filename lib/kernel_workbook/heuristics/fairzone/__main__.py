"""``python -m kernel_workbook.heuristics.fairzone [--min-free-sweep | --kswapd-speed-sweep]``: store the 2014
reproduction with ``KWB_2014_THP`` set, or one of its sweeps (:func:`.fairzone_2014.main`).

The package's entry point rather than the module's: the package imports ``fairzone_2014`` to declare the
heuristic, so running that module as ``__main__`` would load it twice (Python warns, and the two copies keep two
sets of caches)."""

from .fairzone_2014 import main

raise SystemExit(main())
