"""mmtests' summary statistics and percentage columns, exactly.

Each function mirrors the one of the same name in mmtests'
``bin/lib/MMTests/Stat.pm`` (current master), including its edge cases; the
few places where we deliberately differ are listed in ``QUIRKS_NOT_COPIED``.

The percentage column of a comparison is always "positive means better":

* :func:`pdiff` for higher-is-better metrics: ``new*100/base - 100``;
* :func:`pndiff` for lower-is-better metrics: ``100 - new*100/base``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from ..errors import WorkbookParameterError

NaN = float("nan")

QUIRKS_NOT_COPIED = {
    "missing values": "mmtests prints a missing value as 0.00 with a 0.00% change; we print NaN",
    "header without '-'": (
        "mmtests splits a run name at its first '-' and, when there is none, drops the last "
        "character of the first header row (substr with length -1); we print the whole name"
    ),
}


def _isnan(x: float) -> bool:
    return x != x


def pdiff(new: float, base: float) -> float:
    """Percentage change for higher-is-better metrics (mmtests ``pdiff``).

    Edge cases as mmtests: 0 when ``new == base`` or ``new == 0``; 100 when
    ``base`` is 0 or NaN.
    """
    if new == base or new == 0:
        return 0.0
    if base == 0 or _isnan(base):
        return 100.0
    return new * 100.0 / base - 100.0


def pndiff(new: float, base: float) -> float:
    """Percentage change for lower-is-better metrics (mmtests ``pndiff``).

    Edge cases as mmtests: 0 when ``new == base``; 100 when ``new`` is 0;
    -99 when ``base`` is 0 and ``new`` is not.
    """
    if new == base:
        return 0.0
    if new == 0:
        return 100.0
    if base == 0:
        return -99.0
    return 100.0 - new * 100.0 / base


# --- statistics -----------------------------------------------------------

def _clean(values: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(values, dtype=float).ravel()
    return a[~np.isnan(a)]


def calc_min(values) -> float:
    a = _clean(values)
    return float(a.min()) if a.size else NaN


def calc_max(values) -> float:
    a = _clean(values)
    return float(a.max()) if a.size else NaN


def calc_amean(values) -> float:
    a = _clean(values)
    return float(a.sum() / a.size) if a.size else NaN


def calc_hmean(values) -> float:
    """Harmonic mean; NaN if any value is zero or negative (as mmtests)."""
    a = _clean(values)
    if a.size == 0 or np.any(a <= 0):
        return NaN
    return float(a.size / np.sum(1.0 / a))


def calc_gmean(values) -> float:
    a = _clean(values)
    if a.size == 0:
        return NaN
    return float(np.prod(a) ** (1.0 / a.size))


def calc_stddev(values, mean: str = "amean") -> float:
    """Sample standard deviation about the arithmetic or harmonic mean.

    For ``amean`` this is the usual ``n-1`` estimator.  For ``hmean`` mmtests
    uses ``sqrt(sum((1/x - 1/H)^2) * H^4 / n)``, the delta-method spread of the
    harmonic mean; we do the same.  NaN for fewer than two samples.
    """
    a = _clean(values)
    if a.size <= 1:
        return NaN
    if mean == "amean":
        m = a.sum() / a.size
        return float(math.sqrt(np.sum((a - m) ** 2) / (a.size - 1)))
    if mean == "hmean":
        h = calc_hmean(a)
        if _isnan(h):
            return NaN
        return float(math.sqrt(np.sum((1.0 / a - 1.0 / h) ** 2) * h**4 / a.size))
    raise WorkbookParameterError("mean", mean, "'amean' or 'hmean'")


def calc_coeffvar(values, mean: str = "amean") -> float:
    """``stddev*100/mean``; 0 where mmtests gives 0 (NaN stddev or zero mean)."""
    m = calc_amean(values) if mean == "amean" else calc_hmean(values)
    sd = calc_stddev(values, mean)
    if _isnan(sd):
        sd = 0.0
    if _isnan(m) or m == 0:
        return 0.0
    return sd * 100.0 / m


def best_mean(values, percent: float, higher_is_better: bool, mean: str = "amean") -> float:
    """Mean of the best ``percent`` % of the samples (mmtests ``BAmean-N`` / ``BHmean-N``).

    The samples are sorted best first (descending when higher is better);
    ``count = max(1, int(n*percent/100))`` of them are averaged.
    """
    a = _clean(values)
    if a.size == 0:
        return NaN
    a = np.sort(a)
    if higher_is_better:
        a = a[::-1]
    count = max(1, int(a.size * percent / 100))
    sub = a[:count]
    return calc_amean(sub) if mean == "amean" else calc_hmean(sub)


_BEST = re.compile(r"^B(A|H)?[Mm]ean[-.](\d+(?:\.\d+)?)$")


def stat_label(stat: str, higher_is_better: bool, era) -> str:
    """The printed name of a summary statistic in this era.

    ``Mean`` stands for "the era's mean": ``Mean`` in 2014, ``Hmean`` or
    ``Amean`` later; ``BMean-95`` likewise becomes ``BHmean-95``/``BAmean-95``.
    """
    if stat == "Mean":
        return era.mean_name(higher_is_better)
    m = _BEST.match(stat)
    if m and m.group(1) is None:
        kind = "H" if (era.harmonic_mean and higher_is_better) else "A"
        return f"B{kind}mean-{m.group(2)}"
    return stat


def mean_kind(label: str) -> str:
    """``amean`` or ``hmean``: which mean a printed statistic is built on."""
    return "hmean" if label.startswith(("Hmean", "BHmean", "HStddev", "HCoeffVar")) else "amean"


def statistic(label: str, values, higher_is_better: bool) -> float:
    """Compute one printed statistic (``Min``, ``Amean``, ``BHmean-95`` ...)."""
    if label == "Min":
        return calc_min(values)
    if label == "Max":
        return calc_max(values)
    if label in ("Mean", "Amean"):
        return calc_amean(values)
    if label == "Hmean":
        return calc_hmean(values)
    if label == "Gmean":
        return calc_gmean(values)
    if label in ("Stddev", "HStddev"):
        return calc_stddev(values, "hmean" if label == "HStddev" else "amean")
    if label in ("CoeffVar", "HCoeffVar"):
        return calc_coeffvar(values, "hmean" if label == "HCoeffVar" else "amean")
    m = _BEST.match(label)
    if m:
        kind = "hmean" if m.group(1) == "H" else "amean"
        return best_mean(values, float(m.group(2)), higher_is_better, kind)
    raise WorkbookParameterError(
        "stat", label, "Min, Max, Mean/Amean/Hmean/Gmean, Stddev, CoeffVar, BAmean-N or BHmean-N"
    )


def is_spread(label: str) -> bool:
    return label in ("Stddev", "HStddev", "CoeffVar", "HCoeffVar")


def percent_fn(label: str, higher_is_better: bool, era):
    """``pdiff`` or ``pndiff`` for this statistic row, as the era printed it."""
    if is_spread(label) and era.spread_always_lower:
        return pndiff
    return pdiff if higher_is_better else pndiff
