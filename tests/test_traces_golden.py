"""Golden frames: every fixture parses to the CSV stored beside it in fixtures/traces/golden/.

The golden files were written by this parser and then checked by hand and against jc (see the other
test_traces_* files); they pin the whole frame (every column, every value, dtypes as text) so that a
change anywhere shows up here.  After a deliberate change: KWB_UPDATE_GOLDEN=1 pytest tests/test_traces_golden.py
"""

import io
import os
import warnings
from pathlib import Path

import pandas as pd
import pytest

from kernel_workbook.traces import load

FIX = Path(__file__).parent / "fixtures" / "traces"
GOLD = FIX / "golden"
NAMES = sorted(p.name for p in FIX.iterdir() if p.is_file() and not p.name.endswith(".md"))


def frame_text(df: pd.DataFrame) -> str:
    buf = io.StringIO()
    buf.write("# " + ",".join(f"{c}:{t}" for c, t in zip(df.columns, df.dtypes.astype(str))) + "\n")
    df.to_csv(buf, index=False, float_format="%.10g")
    return buf.getvalue()


@pytest.mark.parametrize("name", NAMES)
def test_golden(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = load(FIX / name)
    got = frame_text(df)
    gold = GOLD / (name + ".csv")
    if os.environ.get("KWB_UPDATE_GOLDEN"):
        GOLD.mkdir(exist_ok=True)
        gold.write_text(got)
    assert gold.exists(), f"no golden frame for {name}: run with KWB_UPDATE_GOLDEN=1 and check it"
    assert got == gold.read_text()
