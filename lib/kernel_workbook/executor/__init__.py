"""The one executor of the sweeps, a reproduction's seed bases and ``kwb reproduce --all``.

:func:`workers` is the one place that makes worker processes (or joins a
cluster's), and :func:`_worker_init` the one setup each worker gets.  It
gives an :class:`Executor` (``submit``, ``map``, ``as_completed``):

* on this machine, ``n`` long-lived processes (default one per core) forked
  from a server that has imported the caller's modules once
  (``concurrent.futures`` on a ``forkserver``);
* on many, the workers of a running Dask cluster: ``scheduler="tcp://host:8786"``,
  or ``$DASK_SCHEDULER_ADDRESS`` when no worker count is given
  (:mod:`.cluster`, which also starts the ``LocalCluster`` a notebook asks for
  with ``sweep.start()``).

Why not a Dask ``LocalCluster`` on one machine as well: it starts slower.
Measured on the 2-core development VM (3 runs each, interleaved, load ~7;
``docs/ARCHITECTURE.md``, "One executor"), two forkserver workers were set up
and had run tasks importing the reproductions 1.5 s (median) after the start,
for 0.8 CPU-s in all; a ``LocalCluster``'s two (a scheduler, two nannies, two
workers that each import Dask and then the package) 4.2 s after, for 3.0
CPU-s, and closing it took 1.2 s more.  ``kwb reproduce --all`` must stay
under 60 s and takes ~55 s on an idle machine, so those seconds count.  What
only Dask has (asking every worker which code it runs, or what it compiled;
scattering data once per worker) the callers use through
:attr:`Executor.client` when there is one.

Every task runs with the calling process's :func:`~kernel_workbook.config.task_env`
(or the ``env`` given): a worker keeps the environment it was started with.
A task's function and arguments travel as Dask sends them, with cloudpickle
(when installed: it comes with Dask), so what runs on a cluster runs on the
local processes too: a model's spec holds classes made at run time (its
layout's named tuples), which plain pickle cannot send.
"""

from __future__ import annotations

import gc
import os
from concurrent.futures import FIRST_COMPLETED, wait
from contextlib import contextmanager

from ..config import call_in_env, task_env
from ..errors import WorkbookParameterError
from .cluster import ENV, check_workers, connect, default_workers, scheduler_address

_IN_WORKER = False  # set by _worker_init: only a worker forgets between tasks (release)


def in_worker() -> bool:
    """True in a worker process of :func:`workers` (its cores are the executor's: run one thread there)."""
    return _IN_WORKER


def _worker_init(bounded_heap: bool, setup: tuple = ()) -> None:
    """A worker's setup, once, before its first task: it is a worker (:func:`in_worker`), its allocator, then
    the caller's ``setup`` functions.

    ``bounded_heap``: model arrays above 128 KiB are mapped and unmapped, never kept in a heap that glibc's
    growing mmap threshold would otherwise let reach the largest run's size (``M_MMAP_THRESHOLD = -3``): a
    reproduction's workers run large runs of every model one after the other.  A sweep's runs are small and
    short, and a fixed threshold makes them ~10 % slower (every array freshly mapped and zeroed): it keeps
    glibc's own."""
    global _IN_WORKER
    _IN_WORKER = True
    if bounded_heap:
        try:
            import ctypes

            ctypes.CDLL("libc.so.6").mallopt(-3, 128 * 1024)
        except (OSError, AttributeError):  # not glibc
            pass
    for fn in setup:
        fn()


def release() -> None:
    """After a task in a worker that runs many (the caller has dropped its caches): collect, freeze what
    outlives the task and give the freed heap back, so a worker does not grow task by task.  Nothing outside
    a worker (a notebook keeps what it has)."""
    if not _IN_WORKER:
        return
    gc.collect()
    # what outlives a task is the process's own (modules, the compiled models, the fits): frozen, later
    # collections (this one, and the collector's own during a task) no longer walk it (60 ms a walk)
    gc.freeze()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def where(workers: int | None = None, scheduler: str | None = None) -> str | None:
    """The Dask scheduler to run on: ``scheduler``, else ``$DASK_SCHEDULER_ADDRESS`` when no worker count was
    given, else None (local processes).  Both at once is an error naming ``workers``."""
    workers = check_workers(workers)
    if scheduler is None and (workers is not None or not os.environ.get(ENV)):
        return None
    if scheduler is not None and workers is not None:
        raise WorkbookParameterError("workers", workers, f"no worker count with a scheduler ({scheduler}): its "
                                     "cluster has the workers it has")
    return scheduler_address(scheduler)


class Executor:
    """Tasks on worker processes: ``submit(fn, *args)`` gives a future, :meth:`map` the results in order,
    :meth:`as_completed` the finished ones as they finish (more may be added while it is read).

    ``n`` is how many tasks run at once; ``client`` the ``distributed.Client`` on a Dask cluster, else None."""

    n: int
    client = None

    def __init__(self, env: dict | None):
        self.env = task_env() if env is None else env

    def submit(self, fn, *args, key: str | None = None):
        raise NotImplementedError

    def map(self, fn, *iterables) -> list:
        return [f.result() for f in [self.submit(fn, *args) for args in zip(*iterables)]]

    def as_completed(self):
        """An object to ``add(future)`` to; iterating gives ``(future, result)`` as each finishes (a task's
        exception is raised there), ``batches()`` lists of them; ``count()`` how many are not yet read."""
        raise NotImplementedError

    def cancel(self, futures) -> None:
        for f in futures:
            f.cancel()


class _Local(Executor):
    def __init__(self, pool, n: int, env):
        super().__init__(env)
        self.pool, self.n = pool, n
        self._dumps = _dumps()

    def submit(self, fn, *args, key=None):
        return self.pool.submit(_call_pickled, self._dumps((self.env, fn, args)))

    def as_completed(self):
        return _Completed()


def _dumps():
    try:
        import cloudpickle

        return cloudpickle.dumps
    except ImportError:  # no Dask: only what plain pickle sends (a reproduction's tasks; a sweep needs Dask)
        import functools
        import pickle

        return functools.partial(pickle.dumps, protocol=pickle.HIGHEST_PROTOCOL)


def _call_pickled(payload: bytes):
    """In a worker: the task ``(env, fn, args)`` that :meth:`_Local.submit` pickled, run in ``env``."""
    import pickle

    env, fn, args = pickle.loads(payload)
    return call_in_env(env, fn, *args)


class _Completed:
    """``distributed.as_completed(with_results=True)`` for ``concurrent.futures``."""

    def __init__(self):
        self._pending: set = set()

    def add(self, f) -> None:
        self._pending.add(f)

    def count(self) -> int:
        return len(self._pending)

    def batches(self):
        while self._pending:
            done, self._pending = wait(self._pending, return_when=FIRST_COMPLETED)
            yield [(f, f.result()) for f in done]

    def __iter__(self):
        for batch in self.batches():
            yield from batch


class _Dask(Executor):
    def __init__(self, client, env):
        super().__init__(env)
        self.client = client
        self.n = sum(client.nthreads().values()) or 1

    def submit(self, fn, *args, key=None):
        return self.client.submit(call_in_env, self.env, fn, *args, pure=False, **({"key": key} if key else {}))

    def map(self, fn, *iterables) -> list:
        return self.client.gather([self.submit(fn, *args) for args in zip(*iterables)])

    def as_completed(self):
        from distributed import as_completed

        return as_completed(loop=self.client.loop, with_results=True)

    def cancel(self, futures) -> None:
        if futures:
            self.client.cancel(list(futures))


@contextmanager
def workers(n: int | None = None, scheduler: str | None = None, *, client=None, bounded_heap: bool = False,
            setup: tuple = (), preload: tuple = (), env: dict | None = None, check=None):
    """An :class:`Executor` for a block: ``n`` local processes (default one per core), or the workers of the
    Dask cluster at ``scheduler`` (or ``$DASK_SCHEDULER_ADDRESS`` when ``n`` is None), or of ``client`` (a
    ``distributed.Client`` the caller keeps open).

    Each worker runs :func:`_worker_init` (``bounded_heap``, then the ``setup`` functions) before any task.
    ``preload``: modules the local processes' server imports once, so that each worker starts with them
    (the server is the process's one ``forkserver``: the first caller's list is the one it keeps).
    ``check(client)`` runs first on a Dask cluster (a sweep asks the workers which code they run before it
    sends them any of its own).  ``env``: what every task sees of the environment (default
    :func:`~kernel_workbook.config.task_env`)."""
    if client is not None:
        yield _on_client(client, bounded_heap, setup, env, check)
        return
    addr = where(n, scheduler)
    if addr is not None:
        with connect(addr) as c:
            yield _on_client(c, bounded_heap, setup, env, check)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    n = n or default_workers()
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(preload))
    with ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_worker_init,
                             initargs=(bounded_heap, tuple(setup))) as pool:
        yield _Local(pool, n, env)


def _on_client(client, bounded_heap, setup, env, check) -> _Dask:
    if check is not None:
        check(client)
    # the workers there now; a cluster's worker that joins later runs its tasks without this setup (as before)
    client.run(_worker_init, bounded_heap, tuple(setup))
    return _Dask(client, env)


__all__ = ["Executor", "workers", "where", "in_worker", "release", "default_workers", "check_workers",
           "scheduler_address", "ENV"]
