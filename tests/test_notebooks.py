"""Notebooks: paired with percent scripts, committed executed."""

import json
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(ROOT.glob("notebooks/*.ipynb")) + sorted(ROOT.glob("exercises/**/*.ipynb"))


def test_there_is_a_start_notebook():
    assert (ROOT / "notebooks" / "00-start-here.ipynb") in NOTEBOOKS


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.name)
def test_paired_script_has_the_same_cells(nb):
    py = nb.with_suffix(".py")
    assert py.exists(), f"{nb.name} has no paired percent script"
    a = jupytext.read(nb)
    b = jupytext.read(py)
    src = lambda n: [(c.cell_type, c.source.strip()) for c in n.cells]
    assert src(a) == src(b), f"{nb.name} and {py.name} differ: run `make notebooks`"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_executed_with_outputs(nb):
    cells = json.loads(nb.read_text())["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert all(c.get("execution_count") for c in code), "execute the notebook before committing (make notebooks)"
    assert any(c.get("outputs") for c in code)
    checked = [c for c in code if "NBVAL_CHECK_OUTPUT" in "".join(c["source"])]
    assert checked, "mark the cells that print tables with NBVAL_CHECK_OUTPUT"
    for c in code:
        for o in c.get("outputs", []):
            assert o.get("output_type") != "error", f"{nb.name} was committed with an error"
            assert "text/html" not in o.get("data", {}) or "vega-embed" not in str(o["data"]["text/html"]), \
                "a chart rendered with the HTML renderer (random ids, needs the network): use WORKBOOK_MODE=ci"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebooks_carry_no_widget_state(nb):
    # lab-mode widget state embeds the Vega bundle: megabytes of noise in review
    meta = json.loads(nb.read_text())["metadata"]
    assert "widgets" not in meta, "run `python -m kernel_workbook.nbtools strip` (make notebooks does)"
    assert nb.stat().st_size < 1_500_000, f"{nb.name} is {nb.stat().st_size} bytes"
