"""Both significance methods, and the quantiles behind them."""

import numpy as np
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.tables import compare, render
from kernel_workbook.tables.significance import ci_ratio, ci_significant, qnorm, qt, welch_significant

# R: qt(p, df)
R_QT = [
    (0.975, 1, 12.7062047361747),
    (0.975, 2, 4.30265272974946),
    (0.975, 5, 2.57058183563631),
    (0.975, 10, 2.22813885198627),
    (0.975, 30, 2.04227245630124),
    (0.995, 5, 4.03214298355523),
    (0.95, 3, 2.35336343480182),
]


@pytest.mark.parametrize("p,df,expect", R_QT)
def test_qt_matches_r(p, df, expect):
    assert qt(p, df) == pytest.approx(expect, rel=1e-9)


def test_qt_is_scipys_student_t_quantile():
    # the same numbers as scipy.stats to the last bit, so a table marks what a SciPy user's check marks
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 3, 7, 30, 1000):
        for p in (0.9, 0.95, 0.975, 0.995, 0.9995):
            assert qt(p, df) == float(stats.t.ppf(p, df))


def test_qt_is_symmetric():
    assert qt(0.025, 7) == pytest.approx(-qt(0.975, 7))


def test_ci_method_is_interval_overlap_with_stddev():
    z = qnorm(0.975)
    # intervals 10 +- z*1 and 14 +- z*1 overlap (distance 4 < 2z = 3.92?) -> no: 4 > 3.92, significant
    assert ci_significant(10, 1, 14, 1)
    assert not ci_significant(10, 1, 13.9, 1)
    assert ci_ratio(10, 1, 10 + 2 * z, 1) == pytest.approx(1.0)


def test_ci_with_zero_spread_compares_the_raw_difference_like_mmtests():
    assert ci_significant(5, 0, 6.5, 0)
    assert not ci_significant(5, 0, 5.5, 0)


def test_welch_rejects_only_clear_differences():
    a = [10.0, 10.2, 9.9, 10.1, 10.0]
    b = [11.0, 11.1, 10.9, 11.2, 11.0]
    c = [10.1, 9.8, 10.2, 10.0, 10.1]
    sd = lambda x: float(np.std(x, ddof=1))
    assert welch_significant(np.mean(b), np.mean(a), sd(b), sd(a), 5, 5)
    assert not welch_significant(np.mean(c), np.mean(a), sd(c), sd(a), 5, 5)
    assert not welch_significant(1.0, 2.0, 0.1, 0.1, 1, 5)  # one sample: no test


def test_compare_marks_the_mean_row_and_states_the_method():
    rng = np.random.default_rng(0)
    s = {"5.0-base": rng.normal(100, 1, 8), "5.0-fast": rng.normal(120, 1, 8), "5.0-same": rng.normal(100, 1, 8)}
    for method, words in (("ci", "do not overlap"), ("welch", "Welch")):
        c = compare(s, significance=method, era="current")
        means = c[c["stat"] == "Hmean"].set_index("kernel")["sig"]
        assert means["5.0 fast"] and not means["5.0 same"] and not means["5.0 base"]
        assert not c[c["stat"] != "Hmean"]["sig"].any()
        text = render(c)
        hmean_line = next(ln for ln in text.split("\n") if ln.startswith("Hmean"))
        assert "*  " in hmean_line and hmean_line.endswith("%)")
        assert words in text and "alpha=0.05" in text and "n=8" in text


def test_bad_method_or_alpha_is_named():
    with pytest.raises(WorkbookParameterError, match="significance"):
        compare({"a": [1, 2]}, significance="bayes")
    with pytest.raises(WorkbookParameterError, match="alpha"):
        compare({"a": [1, 2]}, alpha=5)
