"""mmtests statistics and percentage columns, edge cases included."""

import math

import numpy as np
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.tables import get_era
from kernel_workbook.tables.stats import (
    best_mean, calc_amean, calc_coeffvar, calc_hmean, calc_max, calc_min, calc_stddev, pdiff, percent_fn,
    pndiff, stat_label, statistic,
)


def test_pdiff_higher_is_better():
    assert pdiff(110, 100) == pytest.approx(10.0)
    assert pdiff(90, 100) == pytest.approx(-10.0)
    # the cover letter: 82.14 over 68.90 prints 19.22%
    assert round(pdiff(82.14, 68.90), 2) == 19.22


def test_pdiff_edge_cases_as_mmtests():
    assert pdiff(5, 5) == 0  # equal
    assert pdiff(0, 5) == 0  # new is zero
    assert pdiff(5, 0) == 100  # base is zero
    assert pdiff(5, float("nan")) == 100  # base NaN


def test_pndiff_lower_is_better():
    assert pndiff(90, 100) == pytest.approx(10.0)
    assert pndiff(110, 100) == pytest.approx(-10.0)
    # 2015: System-NUMA01 209.42 against 602.44 prints 65.24%
    assert round(pndiff(209.42, 602.44), 2) == 65.24


def test_pndiff_edge_cases_as_mmtests():
    assert pndiff(7, 7) == 0
    assert pndiff(0, 7) == 100
    assert pndiff(7, 0) == -99
    assert pndiff(0, 0) == 0


def test_basic_statistics():
    x = [1.0, 2.0, 4.0]
    assert calc_min(x) == 1 and calc_max(x) == 4
    assert calc_amean(x) == pytest.approx(7 / 3)
    assert calc_hmean(x) == pytest.approx(3 / (1 + 0.5 + 0.25))
    assert calc_stddev(x) == pytest.approx(np.std(x, ddof=1))
    assert calc_coeffvar(x) == pytest.approx(np.std(x, ddof=1) * 100 / np.mean(x))


def test_hmean_stddev_uses_the_mmtests_formula():
    x = np.array([2.0, 4.0, 8.0])
    h = 3 / np.sum(1 / x)
    expect = math.sqrt(np.sum((1 / x - 1 / h) ** 2) * h**4 / 3)
    assert calc_stddev(x, "hmean") == pytest.approx(expect)


def test_hmean_is_nan_with_a_nonpositive_sample():
    assert math.isnan(calc_hmean([1.0, 0.0, 2.0]))
    assert math.isnan(calc_hmean([1.0, -1.0]))


def test_stddev_needs_two_samples_and_coeffvar_falls_back_to_zero():
    assert math.isnan(calc_stddev([3.0]))
    assert calc_coeffvar([3.0]) == 0
    assert calc_coeffvar([0.0, 0.0]) == 0


def test_best_mean_takes_the_best_share_in_the_preferred_direction():
    x = [10.0, 20.0, 30.0, 40.0]
    assert best_mean(x, 50, higher_is_better=True) == pytest.approx(35.0)
    assert best_mean(x, 50, higher_is_better=False) == pytest.approx(15.0)
    # int(n*pct/100) may be 0: mmtests keeps one sample
    assert best_mean(x, 10, higher_is_better=True) == pytest.approx(40.0)


def test_stat_labels_follow_the_era():
    assert stat_label("Mean", True, get_era("2014")) == "Mean"
    assert stat_label("Mean", True, get_era("current")) == "Hmean"
    assert stat_label("Mean", False, get_era("current")) == "Amean"
    assert stat_label("BMean-95", True, get_era("current")) == "BHmean-95"
    assert stat_label("BMean-95", False, get_era("2015")) == "BAmean-95"


def test_stddev_percentage_changed_direction_in_2019():
    # before 2019 Stddev took the metric's direction; now it is always lower-is-better
    assert percent_fn("Stddev", True, get_era("2014")) is pdiff
    assert percent_fn("Stddev", True, get_era("current")) is pndiff
    assert percent_fn("CoeffVar", True, get_era("current")) is pndiff
    assert percent_fn("Hmean", True, get_era("current")) is pdiff
    assert percent_fn("Amean", False, get_era("current")) is pndiff


def test_statistic_dispatch_and_errors():
    x = [1.0, 3.0]
    assert statistic("BAmean-50", x, higher_is_better=False) == 1.0
    assert statistic("BHmean-50", x, higher_is_better=True) == 3.0
    with pytest.raises(WorkbookParameterError, match="stat"):
        statistic("Median-ish", x, True)


def test_unknown_era_is_a_clear_error():
    with pytest.raises(WorkbookParameterError, match="era"):
        get_era("1999")
