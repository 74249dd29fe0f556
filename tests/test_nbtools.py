"""nbtools.strip (nbstripout): the widget state goes, everything nbval and the CI order read stays."""

import glob
import shutil
from pathlib import Path

import nbformat
import pytest

from kernel_workbook.nbtools import strip

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(glob.glob(str(ROOT / "notebooks" / "*.ipynb")) + glob.glob(str(ROOT / "exercises" / "*.ipynb"))
                   + glob.glob(str(ROOT / "exercises" / "solutions" / "*.ipynb")))
WIDGETS = {"application/vnd.jupyter.widget-state+json": {
    "state": {"k": {"model_name": "LayoutModel", "state": {"width": "100%", "é": "—"}}},
    "version_major": 2, "version_minor": 0}}


@pytest.mark.parametrize("src", [NOTEBOOKS[0], str(ROOT / "exercises" / "03-stats-significance.ipynb")],
                         ids=lambda p: Path(p).name)
def test_strip_of_a_lab_saved_copy_gives_the_committed_bytes(src, tmp_path):
    # as the lab saves it: nbformat's writer, every widget's state in the metadata
    nb = nbformat.read(src, as_version=nbformat.NO_CONVERT)
    assert any(c.get("outputs") for c in nb.cells) and any("execution" in c.metadata for c in nb.cells)
    nb.metadata["widgets"] = WIDGETS
    copy = tmp_path / "nb.ipynb"
    nbformat.write(nb, copy)
    assert copy.read_bytes() != Path(src).read_bytes()
    assert strip(copy) is True
    assert copy.read_bytes() == Path(src).read_bytes()  # outputs, counts, ids and nbclient's times kept


def test_strip_leaves_a_clean_notebook_untouched(tmp_path):
    copy = tmp_path / "nb.ipynb"
    shutil.copyfile(NOTEBOOKS[0], copy)
    before = copy.stat().st_mtime_ns
    assert strip(copy) is False and copy.stat().st_mtime_ns == before
