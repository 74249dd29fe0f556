"""Dask for the executor: a running cluster's client, or a ``LocalCluster`` of processes for a notebook.

``connect()`` gives a ``distributed.Client``:

* ``scheduler="tcp://host:8786"`` (or ``DASK_SCHEDULER_ADDRESS`` in the
  environment): a running cluster, started with ``dask scheduler`` and
  ``dask worker ADDRESS --nthreads 1`` on each machine;
* otherwise a ``LocalCluster`` of ``workers`` processes (default one per core
  this process may use), one thread each: what ``sweep.start()`` gives a
  notebook that wants a Dask client on one machine.  The sweeps and the
  reproductions themselves run on :mod:`kernel_workbook.executor`'s local
  processes when no scheduler is named (see there why).

One thread per process because a model's loop holds the GIL while it runs
(Numba releases it only when told to): two threads of one process would
take turns, two processes run side by side.

A local cluster's workers keep glibc's own ``malloc`` thresholds.  Dask's
nanny sets ``MALLOC_TRIM_THRESHOLD_=65536`` by default, to hand freed memory
back to the system sooner; setting it also fixes glibc's mmap threshold at
128 KiB, so every larger array a run allocates is a fresh ``mmap`` whose pages
the kernel faults in and zeroes, and freed at once.  That made a CFQ run
~10 % slower in a worker than in a plain process (a CFQ grid of 256 runs in
one thread, with and without it).  A sweep's runs are short and small, so
the speed is worth more; ``MALLOC_TRIM_THRESHOLD_`` set in the environment
still wins, and a running cluster keeps what its workers were started with:
start them with ``dask worker ... --no-nanny``, or with a Dask config file
(in ``~/.config/dask/`` or ``$DASK_CONFIG``) holding::

    distributed:
      nanny:
        pre-spawn-environ:
          MALLOC_TRIM_THRESHOLD_: null
"""

from __future__ import annotations

import atexit
import logging
import os
import re
from contextlib import contextmanager

from ..errors import WorkbookError, WorkbookParameterError

ENV = "DASK_SCHEDULER_ADDRESS"
_ADDRESS = re.compile(r"^(tcp|tls|ucx)://[^\s/:]+(:\d{1,5})?/?$|^inproc://\S+$")


def need_dask() -> None:
    """Raise a one-line error when Dask is not installed (it is an optional extra)."""
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as e:
        raise WorkbookError(f"running on Dask needs dask and distributed ({e}); install them with "
                            "pip install 'kernel-workbook[sweep]'") from None


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def scheduler_address(scheduler: str | None = None) -> str | None:
    """The scheduler to use: ``scheduler``, else ``$DASK_SCHEDULER_ADDRESS``, else None (a local cluster)."""
    name = "scheduler"
    if scheduler is None:
        scheduler, name = os.environ.get(ENV) or None, ENV
    if scheduler is None:
        return None
    if not isinstance(scheduler, str) or not _ADDRESS.match(scheduler.strip()):
        raise WorkbookParameterError(name, scheduler, "a Dask scheduler address such as tcp://host:8786")
    return scheduler.strip()


def check_workers(workers) -> int | None:
    if workers is None:
        return None
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise WorkbookParameterError("workers", workers, "a whole number of worker processes >= 1 "
                                     "(0: run in this process, without Dask)")
    return workers


@contextmanager
def connect(scheduler: str | None = None, workers: int | None = None, timeout: float | None = None):
    """A ``distributed.Client`` on a running scheduler or on a new ``LocalCluster`` (closed on exit).

    ``workers`` sizes a local cluster (and overrides ``$DASK_SCHEDULER_ADDRESS``);
    with ``scheduler`` it is an error (the cluster has the workers it has).
    Connecting to a scheduler waits up to ``timeout`` seconds for it and for
    at least one worker (default: Dask's ``distributed.comm.timeouts.connect``,
    30 s, which ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=5s`` changes); a
    scheduler that does not answer in that time is a one-line error.
    """
    client, cluster = _open(scheduler, workers, timeout)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def start(scheduler: str | None = None, workers: int | None = None, timeout: float | None = None):
    """Like :func:`connect`, for a notebook: the client stays open until ``client.close()`` or the end of the process.

    A local cluster started here is closed with its client.
    """
    client, cluster = _open(scheduler, workers, timeout)
    if cluster is not None:
        # the cluster goes with its client (closing it twice is harmless), at the latest when the process ends
        close = client.close

        def close_both(*args, **kw):
            close(*args, **kw)
            cluster.close()

        client.close = close_both
        atexit.register(close_both)
    else:
        atexit.register(client.close)
    return client


def _open(scheduler, workers, timeout):
    need_dask()
    from distributed import Client, LocalCluster

    timeout = connect_timeout(timeout)

    workers = check_workers(workers)
    # $DASK_SCHEDULER_ADDRESS is a default: a worker count asks for a local cluster
    addr = scheduler_address(scheduler) if scheduler is not None or workers is None else None
    if addr is not None:
        if workers is not None:
            raise WorkbookParameterError("workers", workers, f"no worker count with a scheduler ({addr}): "
                                         "its cluster has the workers it has")
        _probe(addr, timeout)
        try:
            client = Client(addr, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as e:
            raise WorkbookParameterError("scheduler", addr, f"the address of a running Dask scheduler; "
                                         f"connecting failed ({e.__class__.__name__}: {e})") from None
        try:
            client.wait_for_workers(1, timeout=timeout)
        except TimeoutError:
            client.close()
            raise WorkbookParameterError("scheduler", addr, f"a scheduler with workers; none joined in "
                                         f"{timeout:g} s (start them with: dask worker {addr} --nthreads 1)") from None
        return client, None
    if workers == 0:
        raise WorkbookParameterError("workers", 0, "at least 1 worker for a Dask cluster (0 runs without one)")
    n = workers or default_workers()
    import dask

    # None unsets one of the nanny's variables (see the module's docstring for why)
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.CRITICAL)
    try:
        return Client(cluster, set_as_default=False), cluster
    except BaseException:
        cluster.close()
        raise


def connect_timeout(timeout: float | None = None) -> float:
    """``timeout`` checked (seconds, finite, > 0), or Dask's ``distributed.comm.timeouts.connect``."""
    if timeout is None:
        import dask
        from dask.utils import parse_timedelta

        timeout = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect", "30s"), default="seconds")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not (0 < timeout <= 86400):
        raise WorkbookParameterError("timeout", timeout, "seconds to wait for the scheduler, from 0 to 86400")
    return float(timeout)


def _connect_failed(addr: str, e: Exception) -> WorkbookParameterError:
    first = str(e).splitlines()[0][:200] if str(e) else ""
    return WorkbookParameterError("scheduler", addr, f"the address of a running Dask scheduler; connecting failed "
                                                     f"({e.__class__.__name__}: {first})")


def _probe(addr: str, timeout: float) -> None:
    """Open one connection to the scheduler and complete Dask's handshake within ``timeout`` seconds, or raise
    a one-line error.

    ``distributed.Client(addr, timeout=...)`` bounds the TCP connect but then waits for the handshake with no
    limit (``distributed.comm.core.connect`` reads the peer's reply without a timeout): an address that accepts
    and never answers (a wrong port, a firewall that holds the connection, a stopped process) hung
    ``kwb reproduce --scheduler`` and ``kwb sweep`` for minutes.  The whole exchange is bounded here instead."""
    import asyncio
    import socket
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm import connect as comm_connect
    from distributed.security import Security

    if addr.startswith("tcp://"):  # a refused or unreachable port is a failed connection, said at once (Dask's
        # connect retries it until the deadline, which would read as a scheduler that accepted and never answered)
        host, _, port = addr[len("tcp://"):].rpartition(":")
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
        except (OSError, ValueError) as e:
            raise _connect_failed(addr, e) from None

    async def once():
        comm = await comm_connect(addr, timeout=timeout, **Security().get_connection_args("client"))
        await comm.close()

    try:
        # in a thread of its own: a notebook's kernel already runs an event loop in this one
        with ThreadPoolExecutor(1, thread_name_prefix="kwb-dask-probe") as ex:
            ex.submit(asyncio.run, asyncio.wait_for(once(), timeout)).result()
    except (asyncio.TimeoutError, TimeoutError):
        raise WorkbookParameterError("scheduler", addr, f"the address of a running Dask scheduler; it accepted "
                                     f"the connection but did not answer in {timeout:g} s") from None
    except (OSError, ValueError) as e:
        raise _connect_failed(addr, e) from None


def describe(client) -> str:
    """One line: where the client's cluster is and how many worker processes and threads it has."""
    info = client.scheduler_info()
    ws = info.get("workers", {})
    threads = sum(w.get("nthreads", 1) for w in ws.values())
    return f"{info.get('address', '?')}: {len(ws)} worker process(es), {threads} thread(s)"


__all__ = ["connect", "start", "default_workers", "scheduler_address", "check_workers", "need_dask", "describe", "ENV"]
