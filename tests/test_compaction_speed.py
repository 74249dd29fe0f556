"""The compaction model's speed work changed no result: fresh runs against the golden written before it.

tests/fixtures/compaction-speed/golden.json holds, for every variant on the
explorer's 256 MB zone, the explorer's knobs moved, and five kernels on the
reproduction's calibrated 1 GB zone, the SHA-256 of every output array, the
zone's fields and vmstat counters by name, the ticks and the passes
(make_golden.py beside it wrote them before the model was made faster).
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


# --------------------------------------------------------------------------- a booted zone, reused


def test_boot_reads_only_the_slots_its_reuse_is_keyed_on():
    """What boot reads of the parameters is what simulate keys a kept booted zone on (the Python engine,
    its arrays recording every index read)."""
    import numpy as np

    from kernel_workbook.models.compaction import KERNELS, params_for
    from kernel_workbook.models.compaction.layout import BOOT, VM, Z, F, I
    from kernel_workbook.models.compaction.simulate import ARG_ORDER, BOOT_FLOAT, BOOT_INT, arrays
    from kernel_workbook.workloads.stress_highalloc import small

    class Reads(np.ndarray):
        def __getitem__(self, i):
            self.read.add(int(i))
            return super().__getitem__(i)

    a = arrays(params_for("revert-v5"), small(zone_mb=8, machine_mb=64), seed=2)
    a["pi"][I.boot_mode] = BOOT.BOOT_ONLY
    for k in ("pi", "pf"):
        a[k] = a[k].view(Reads)
        a[k].read = set()
    KERNELS.function("python")(*(a[k] for k in ARG_ORDER))
    assert a["vm"][VM.allocstall] == 0 and a["z"][Z.nr_free] > 0  # booted, without reclaim
    names_i = {v: k for k, v in I._asdict().items()}
    names_f = {v: k for k, v in F._asdict().items()}
    assert {names_i[i] for i in a["pi"].read} - {"boot_mode"} <= set(BOOT_INT)
    assert {names_f[i] for i in a["pf"].read} <= set(BOOT_FLOAT)
    assert {names_i[i] for i in a["pi"].read} >= {"prefill_pages", "wmark_high"}  # the recording works


def test_a_reused_booted_zone_gives_the_run_a_fresh_boot_gives():
    import sys

    import numpy as np

    from kernel_workbook.models.compaction import params_for, simulate
    from kernel_workbook.workloads.stress_highalloc import small

    S = sys.modules["kernel_workbook.models.compaction.simulate"]  # the module (the package exports the function)

    w = small(zone_mb=16, machine_mb=128, warmup_s=3, highalloc_percentage=60)
    S.forget_booted_zones()
    simulate(params_for("revert-v5"), w, seed=4, verbose=False)
    assert len(S._boots) == 1  # kept
    other = w.with_(dirty_pages_s=900.0, build_procs=3)  # the builds differ, the boot does not
    reused = simulate(params_for("capture-v5"), other, seed=4, verbose=False)
    assert len(S._boots) == 1  # no new boot: the kept one was used
    S.forget_booted_zones()
    fresh = simulate(params_for("capture-v5"), other, seed=4, verbose=False)
    for k in fresh.arrays:
        assert np.array_equal(reused.arrays[k], fresh.arrays[k]), k
    simulate(params_for("capture-v5", min_free_kbytes=4096), other, seed=4, verbose=False)  # other watermarks
    simulate(params_for("capture-v5"), other, seed=5, verbose=False)  # other uniforms
    assert len(S._boots) == 3
