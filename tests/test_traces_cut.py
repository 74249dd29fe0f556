"""Cut any real fixture at any byte: the parser returns a prefix of the uncut records, or an error, and
warns whenever it dropped something (issue 15 item 7), for every fixture of every format.

Records are compared in each parser's own frame: rows of the cut parse must equal the first rows of
the uncut parse (columns the uncut parse has; ``elapsed`` and ``source`` excepted).  Hypothesis picks
the cut points; KWB_CUT_EXAMPLES sets how many per fixture (25 by default, to keep CI short).
"""

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_workbook.errors import WorkbookParseError
from kernel_workbook.traces import TruncatedTraceWarning, load
from trace_formats import BY_FORMAT

FIX = Path(__file__).parent / "fixtures" / "traces"
N = int(os.environ.get("KWB_CUT_EXAMPLES", "25"))

# every fixture of every format (tests/trace_formats.py), as the kind it is sniffed as
FIXTURES = [(p.name, kind) for fixtures in BY_FORMAT.values() for p, kind in fixtures]


def _same_rows(got: pd.DataFrame, whole: pd.DataFrame) -> bool:
    if len(got) > len(whole):
        return False
    for c in got.columns:
        if c in ("elapsed",) or c not in whole.columns:
            continue
        a = got[c].to_numpy()
        b = whole[c].iloc[:len(got)].to_numpy()
        if a.dtype.kind in "fiu" and b.dtype.kind in "fiu":
            if not np.array_equal(a.astype(float), b.astype(float), equal_nan=True):
                return False
        elif [str(x) for x in a] != [str(x) for x in b]:
            return False
    return True


@pytest.mark.parametrize("fixture,kind", FIXTURES)
def test_any_cut_is_a_prefix_or_an_error_and_warns_when_it_drops(fixture, kind):
    data = (FIX / fixture).read_bytes()
    json_doc = data.lstrip().startswith(b"{")
    with warnings.catch_warnings():
        warnings.simplefilter("error", TruncatedTraceWarning)
        whole = load(data, kind=kind)

    @settings(max_examples=N, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(st.integers(1, len(data) - 1))
    def check(k):
        cut = data[:k]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                got = load(cut, kind=kind)
            except WorkbookParseError:
                return
        warned = any(issubclass(w.category, TruncatedTraceWarning) for w in caught)
        assert _same_rows(got, whole), f"{fixture} cut at byte {k}: not a prefix of the uncut records"
        if json_doc:  # one JSON document: refused above, or the cut fell after its records (its closing brackets)
            assert len(got) == len(whole), f"{fixture} cut at byte {k}: records lost without an error"
            return
        if cut[cut.rfind(b"\n") + 1:].strip():  # a piece of a line was cut off: it must be said
            assert warned, f"{fixture} cut at byte {k}: a line was dropped without a warning"

    check()
