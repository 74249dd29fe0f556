"""The one list of heuristics (kernel_workbook.heuristic): what each folder declares, found without naming it."""

import subprocess
import sys

import pytest

from kernel_workbook import heuristic
from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.threads import THREADS


def test_every_folder_is_a_heuristic_whose_model_carries_its_name():
    assert heuristic.names() == ["cfq", "compaction", "fairzone", "numa", "writeback"]
    for h in heuristic.heuristics():
        assert h.model.name == h.name and h.model.workloads == {}  # the mirror names no workload of the layer above
        assert h.default_workload in h.workloads and h.spec.workloads == h.workloads
        assert h.bench is not None and callable(h.bench.benchmarks)


def test_every_thread_is_reproduced_by_exactly_one_heuristic_in_its_start_order():
    declared = [t for h in heuristic.heuristics() for t in h.threads]
    assert sorted(t.thread for t in declared) == sorted(THREADS)
    assert sorted(t.start_order for t in declared) == list(range(len(THREADS)))


def test_loading_every_heuristic_imports_no_chart_library():
    """A reproduction's worker loads every heuristic to find its thread; Altair and the widgets cost it 2-4 s."""
    code = ("import sys; from kernel_workbook import heuristic; heuristic.heuristics(); "
            "print(sorted(m for m in ('altair', 'ipywidgets') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_deferred_explorer_is_the_charts_function_under_its_name():
    from kernel_workbook.heuristics.compaction import charts

    build = heuristic.get("compaction").explorers["2012 compaction (stress-highalloc)"]
    assert build.__name__ == "compaction_explorer"
    called = []
    charts_fn = charts.compaction_explorer
    try:
        charts.compaction_explorer = lambda *a, **k: called.append((a, k)) or "box"
        assert build(1, variant="x") == "box" and called == [((1,), {"variant": "x"})]
    finally:
        charts.compaction_explorer = charts_fn


def test_an_unknown_name_says_which_exist_and_a_model_is_called_a_model():
    with pytest.raises(WorkbookParameterError, match="heuristic='nosuch'.*cfq, compaction"):
        heuristic.get("nosuch")
    with pytest.raises(WorkbookParameterError, match="model='nosuch'"):
        heuristic.model("nosuch")


@pytest.mark.parametrize("package, expected", [("fairzone", "expected nothing, --min-free-sweep or --kswapd-speed-sweep"),
                                               ("numa", "expected --wakeup-sweep")])
def test_a_heuristic_command_runs_from_its_package_loading_its_module_once(package, expected):
    """``python -m kernel_workbook.heuristics.<name>`` reaches its thread module's ``main`` (here with a bad argument,
    which it names) without Python's warning that the module, imported by its package, runs a second time."""
    r = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-m", f"kernel_workbook.heuristics.{package}",
                        "--bogus"], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert expected in r.stderr and "RuntimeWarning" not in r.stderr, r.stderr[-2000:]
