"""A small real model for the sweep engine's tests: a one-disk request queue with a jitted loop.

It has the shape of every workbook model (a knob declaration, variants,
workloads, ``simulate``/``summary``, a :class:`ModelSpec`), is seeded through
``engine.rng`` outside the jitted loop, compiles in well under a second and
runs in milliseconds, so the engine's tests (grid expansion, resuming, the
Parquet schema, ordering, determinism, compiles per worker) do not wait on a
thread's model.  It lives in a module of its own so that worker processes can
import it (tests/ is on their sys.path).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba

from kernel_workbook import heuristic
from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.heuristic import Heuristic
from kernel_workbook.models.engine import check_engine, rng
from kernel_workbook.models.knobs import Knobs, knob
from kernel_workbook.models.spec import ModelSpec


@dataclass(frozen=True)
class ToyParams(Knobs):
    cfq_slice_idle: float = knob(8.0, unit="ms", source="block/cfq-iosched.c cfq_arm_slice_timer()",
                                 range=(0, 100), widget=(0, 20, 1),
                                 tunable="/sys/block/<dev>/queue/iosched/slice_idle")
    cfq_quantum: int = knob(4, unit="requests", source="block/cfq-iosched.c cfq_dispatch_requests()",
                            range=(1, 64), widget=(1, 16, 1))
    nomerges: bool = knob(False, source="block/blk-merge.c blk_queue_nomerges()")
    elevator: str = knob("cfq", source="block/elevator.c elevator_init()", choices=("noop", "deadline", "cfq"))
    min_free_kbytes: int | None = knob(None, unit="KiB", source="mm/page_alloc.c init_per_zone_wmark_min()",
                                       range=(128, 65536), optional=True)

    def check(self):
        if self.cfq_quantum > 32 and self.cfq_slice_idle == 0:
            raise WorkbookParameterError("cfq_quantum", self.cfq_quantum, "<= 32 when cfq_slice_idle is 0")


@dataclass(frozen=True)
class ToyWorkload:
    requests: int
    mean_gap_ms: float
    seq_fraction: float


def steady(requests: int = 400, mean_gap_ms: float = 2.0) -> ToyWorkload:
    return ToyWorkload(requests, mean_gap_ms, 0.7)


def bursty(requests: int = 400) -> ToyWorkload:
    return ToyWorkload(requests, 0.5, 0.2)


@numba.njit(cache=False)  # no on-disk cache: every process compiles it, once (what the tests count)
def _queue(gaps, service, sequential, idle_ms, quantum, merges, elevator):
    t = 0.0
    free_at = 0.0
    waited = 0.0
    busy = 0.0
    merged = 0
    idled = 0
    since = 0
    for i in range(gaps.shape[0]):
        t += gaps[i]
        s = service[i]
        if merges and sequential[i] and i > 0:
            merged += 1
            s *= 0.25
        if elevator == 2 and sequential[i] and free_at < t < free_at + idle_ms:
            idled += 1  # waited for the next sequential request instead of seeking
            s *= 0.5
        start = max(t, free_at)
        since = since + 1 if start > t else 0
        if since >= quantum:
            start += 0.1 * since
        waited += start - t
        free_at = start + s
        busy += s
    return waited / gaps.shape[0], merged, idled, busy / max(free_at, 1e-9)


def simulate(params: ToyParams, workload: ToyWorkload, seed=0, engine: str = "jit") -> dict:
    check_engine(engine)
    if workload.requests < 1:
        raise WorkbookParameterError("requests", workload.requests, "at least 1 request")
    r = rng(seed)
    gaps = r.exponential(workload.mean_gap_ms, workload.requests)
    service = r.gamma(2.0, 1.0, workload.requests)
    seq = r.random(workload.requests) < workload.seq_fraction
    fn = _queue if engine == "jit" else _queue.py_func
    wait, merged, idled, util = fn(gaps, service, seq, params.cfq_slice_idle, params.cfq_quantum,
                                   not params.nomerges, ("noop", "deadline", "cfq").index(params.elevator))
    return {"await_ms": float(wait), "nr_merged": int(merged), "nr_idled": int(idled), "util_pct": 100.0 * util}


def summary(result: dict) -> dict:
    return dict(result)


MODEL = ModelSpec(
    name="toy", title="a one-disk request queue (sweep engine tests)", params=ToyParams, simulate=simulate,
    summary=summary, variants={"3.0": {}, "3.0-nomerges": {"nomerges": True}},
    workloads={"steady": steady, "bursty": bursty}, default_variant="3.0", default_workload="steady",
)


HEURISTIC = Heuristic(name="toy", model=MODEL, workloads=MODEL.workloads, default_workload=MODEL.default_workload)


def register(monkeypatch) -> None:
    """List the toy as a heuristic, as an installed plug-in's entry point would, for this test only."""
    from importlib.metadata import EntryPoint

    eps = heuristic._entry_points()
    eps["toy"] = EntryPoint(name="toy", value="sweep_toy:HEURISTIC", group=heuristic.ENTRY_POINT_GROUP)
    monkeypatch.setattr(heuristic, "_entry_points", lambda: eps)
