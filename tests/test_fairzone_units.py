"""The fair-zone model's resolution (``pages_per_unit``): U=1 is the page model unchanged, U>1 converges to it."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kernel_workbook.models.fairzone import VARIANTS, Machine, simulate, variant_params
from kernel_workbook.workloads.pagecache import stream_write, tiobench

GOLDEN = Path(__file__).parent / "fixtures" / "fairzone-units" / "golden-u1.json"

# three populated zones, reclaim, dirty throttling, a changing other_mb: every path of the kernel runs
SMALL = Machine(name="golden-64m", ram_mb=64, dma_mb=1.0, dma32_mb=24.0, normal_mb=38.0, hole_mb=1.0, other_mb=2.0,
                writeback_mb_s=60.0)


def _golden_runs():
    w = tiobench(ram_mb=64, size_fraction=2.0, threads=(1, 2, 4), random_ops=100, other_jitter_mb=1.0)
    for v in VARIANTS:
        yield v, variant_params(v, SMALL), w
    yield "3.16-rc1 vm_dirty_bytes", variant_params("3.16-rc1", SMALL, vm_dirty_bytes=1 << 20), stream_write(40 * 256)


def _digest(df: pd.DataFrame) -> str:
    return hashlib.sha256(df.to_csv(index=False).encode()).hexdigest()


def _record(r) -> dict:
    """Everything a run reports, as plain JSON (the frames as records, samples and trace as digests)."""
    return {"counters": r.counters, "vmstat": r.vmstat, "elapsed_s": r.elapsed_s,
            "phases": json.loads(r.df_phases().to_json(orient="records")),
            "zones": json.loads(r.df_zones().to_json(orient="records")),
            "work": json.loads(r.df_work().to_json(orient="records")),
            "seqread_counters": r.phase_counters("SeqRead"),
            "samples_sha256": _digest(r.df_samples()), "trace_sha256": _digest(r.df_trace())}


def _run(p, w):
    return simulate(p, w, seed=7, trace=3000, trace_start=500, sample_ms=20.0, verbose=False)


def write_golden() -> None:
    out = {name: _record(_run(p, w)) for name, p, w in _golden_runs()}
    GOLDEN.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__" and "--write-golden" in sys.argv:
    write_golden()
