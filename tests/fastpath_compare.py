"""What a parser gives for a text, compared between its fast path and the reader it stands in for: the frame and
its attrs, or the error, and the warnings, exactly (used by tests/test_traces_*_fastpath.py)."""

import warnings

import pandas as pd

from kernel_workbook.errors import WorkbookParseError


def outcome(parse, text):
    """``(frame or ("error", message), [warning messages])`` of ``parse(text)``."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            df = parse(text)
        except WorkbookParseError as e:
            return ("error", str(e)), [str(x.message) for x in w]
    return df, [str(x.message) for x in w]


def assert_same(a, b) -> None:
    """Two outcomes are the same: warnings, and the error or the frame with its attrs."""
    (fa, wa), (fb, wb) = a, b
    assert wa == wb
    if isinstance(fb, tuple) or isinstance(fa, tuple):
        assert fa == fb
    else:
        pd.testing.assert_frame_equal(fa, fb)
        assert fa.attrs == fb.attrs
