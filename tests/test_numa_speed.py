"""The NUMA model's speed work changed no result: fresh runs against the golden written before it.

tests/fixtures/numa-speed/golden.json holds the 2015 reproduction's own runs at
CI size (every kernel on the four autonumabench tests and the xfs_repair-like
load, seeds 1 and 2, with the calibrated machine written out), calibration-like
runs, and small runs through the rate limit, migration failures, the log,
other sample and chunk lengths, the load balancer and NUMA balancing off:
their counters and times (floats as exact hex) and the SHA-256 of every array
of the result.  make_golden.py beside it wrote them before the model was made
faster.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "fixtures" / "numa-speed"
GOLDEN = json.loads((HERE / "golden.json").read_text())


def _golden_module():
    spec = importlib.util.spec_from_file_location("numa_speed_golden", HERE / "make_golden.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


G = _golden_module()


def _compare(got: dict, want: dict) -> list[str]:
    bad = []
    for part in ("counters", "times"):
        for k, v in want[part].items():
            if got[part].get(k) != v:
                bad.append(f"{part}.{k} {got[part].get(k)} != {v}")
        for k in set(got[part]) - set(want[part]):
            bad.append(f"{part}.{k} is new")
    for k, v in want["tasks"].items():
        if got["tasks"].get(k) != v:
            bad.append(f"array tasks.{k} differs")
    for k in ("samples", "periods", "final_unit_node", "final_node_free_pages", "migrate_window_max_pages",
              "migration_log"):
        if got[k] != want[k]:
            bad.append(f"array {k} differs")
    if got["notes"] != want["notes"]:
        bad.append(f"notes {got['notes']} != {want['notes']}")
    return bad


@pytest.mark.parametrize("case", GOLDEN, ids=[c["name"] for c in GOLDEN])
def test_runs_are_bit_identical_to_the_golden(case):
    got = G.fingerprint(G.run_case(case))
    assert _compare(got, case["expect"]) == []


def test_the_python_engine_gives_the_golden_too():
    """The kernel's source without Numba (the benchmark's baseline) runs the same loop."""
    case = next(c for c in GOLDEN if c["name"].startswith("small 3.19.0 vanilla NUMA02_SMT"))
    assert _compare(G.fingerprint(G.run_case(case, engine="python")), case["expect"]) == []


def test_the_comparison_sees_a_different_run():
    """The check can fail: another seed of a reproduction run differs in its counters, times and arrays."""
    case = GOLDEN[0]
    bad = _compare(G.fingerprint(G.run_case({**case, "seed": case["seed"] + 2})), case["expect"])
    assert any(b.startswith("counters.") for b in bad) and any(b.startswith("times.") for b in bad)
    assert any(b.startswith("array") for b in bad)


def test_the_golden_covers_every_reproduction_run():
    names = {c["name"] for c in GOLDEN}
    for k in G.REPRO_KERNELS:
        for w in (*G.TESTS, "xfs_repair"):
            for s in (1, 2):
                assert f"repro {k} {w} seed {s}" in names
    assert len(GOLDEN) == len(G.cases())
