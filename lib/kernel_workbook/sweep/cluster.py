"""Where a sweep runs, as the sweep's users name it: :mod:`kernel_workbook.executor` (its processes on this
machine, or a Dask cluster) makes the workers; this is the sweep's face of its Dask part, for a notebook that
wants a ``distributed.Client`` (:func:`start`, :func:`connect`) and for ``kwb sweep``'s checks."""

from __future__ import annotations

from ..executor.cluster import (ENV, check_workers, connect, connect_timeout, default_workers, describe, need_dask,
                                scheduler_address, start)

__all__ = ["connect", "start", "default_workers", "scheduler_address", "check_workers", "need_dask", "describe",
           "connect_timeout", "ENV"]
