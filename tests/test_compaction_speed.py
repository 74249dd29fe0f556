"""The compaction model's speed work changed no result: fresh runs against the golden written before it.

tests/fixtures/compaction-speed/golden.json holds, for every variant on the
explorer's 256 MB zone, the explorer's knobs moved, five kernels on the
reproduction's calibrated 1 GB zone, and writeback times that are not a whole
number of ticks, the SHA-256 of every output array, the zone's fields and
vmstat counters by name, the ticks and the passes (make_golden.py beside it
wrote them with the model as it was before it was made faster).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "fixtures" / "compaction-speed"
GOLDEN = json.loads((HERE / "golden.json").read_text())


def _golden_module():
    spec = importlib.util.spec_from_file_location("compaction_speed_golden", HERE / "make_golden.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


G = _golden_module()


def _compare(got: dict, want: dict) -> list[str]:
    bad = []
    if got["ticks"] != want["ticks"]:
        bad.append(f"ticks {got['ticks']} != {want['ticks']}")
    if got["passes"] != want["passes"]:
        bad.append(f"passes {got['passes']} != {want['passes']}")
    for part in ("z", "vm"):
        for k, v in want[part].items():
            if got[part].get(k) != v:
                bad.append(f"{part}.{k} {got[part].get(k)} != {v}")
    for k, v in want["outputs"].items():
        if got["outputs"][k] != v:
            bad.append(f"array {k} differs")
    return bad


@pytest.mark.parametrize("case", GOLDEN, ids=[c["name"] for c in GOLDEN])
def test_runs_are_bit_identical_to_the_golden(case):
    got = G.fingerprint(G.run_case(case))
    assert _compare(got, case["expect"]) == []


def test_the_comparison_sees_a_different_run():
    """The check can fail: another seed of the explorer's run differs in its counters and arrays."""
    case = GOLDEN[0]
    got = G.fingerprint(G.run_case({**case, "seed": case["seed"] + 1}))
    bad = _compare(got, case["expect"])
    assert any(b.startswith("array") for b in bad) and any(b.startswith("vm.") for b in bad)


def test_the_golden_covers_the_explorer_and_a_reproduction_size_run():
    names = [c["name"] for c in GOLDEN]
    assert names[0].startswith("explorer default")
    assert any(c["workload"]["zone_mb"] == 1024.0 and c["variant"] == "revert-v5" for c in GOLDEN)
    assert len(GOLDEN) == len(G.cases())


def test_the_kernels_compile_without_reference_counting():
    """engine.kernel_no_nrt: a fifth of a run was NRT_incref/NRT_decref calls; the engine's plain decorators
    would bring them back without changing a result, so only this test would notice."""
    from kernel_workbook.models.compaction import KERNELS

    assert KERNELS.function("jit").targetoptions.get("_nrt") is False
    assert KERNELS.module("zone_kernel", "jit").get_page_from_freelist.targetoptions.get("_nrt") is False
