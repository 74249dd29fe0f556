"""Is a change in the mean significant?  Both of mmtests' answers.

* ``ci``: confidence-interval overlap, as current mmtests
  (``Compare.pm`` + ``Stat.pm::cidiff``).  Each mean gets the interval
  ``mean +/- qnorm(1-alpha/2) * stddev``; note that mmtests uses the sample
  standard deviation, not the standard error, so these intervals are wide.
  The change is significant when the intervals do not overlap, i.e. when
  ``|new - base| > z * (sd_new + sd_base)``.  When both standard deviations
  are zero mmtests divides by nothing and compares the raw difference with 1;
  we copy that (a single-sample run with a difference above 1 is marked).
* ``welch``: Welch's t-test (``Stat.pm::calc_welch_test``): degrees of freedom
  floored to an integer, two-sided at level ``alpha``.

The Student-t quantile is SciPy's (``scipy.special.stdtrit``, what
``scipy.stats.t.ppf`` calls, bit for bit), imported when a Welch test first
needs it: ``scipy.stats`` costs about 0.9 s to import and ``scipy.special``
0.16 s, and every ``kwb`` command imports this module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from ..errors import WorkbookParameterError

METHODS = ("ci", "welch")


@dataclass(frozen=True)
class Significance:
    method: str  # "ci" or "welch"
    alpha: float  # two-sided level, e.g. 0.05

    def describe(self, n: dict[str, int] | None = None) -> str:
        if self.method == "ci":
            z = qnorm(1 - self.alpha / 2)
            what = f"intervals mean +/- {z:.2f}*stddev do not overlap (mmtests CI method, alpha={self.alpha:g})"
        else:
            what = f"Welch's t-test rejects equal means (alpha={self.alpha:g}, two-sided)"
        if n:
            counts = sorted(set(n.values()))
            ns = str(counts[0]) if len(counts) == 1 else ", ".join(f"{k}: {v}" for k, v in n.items())
            what += f"; n={ns} samples per kernel"
        return "* significant: " + what


def check_method(method: str, alpha: float) -> Significance:
    if method not in METHODS:
        raise WorkbookParameterError("significance", method, "one of " + ", ".join(METHODS))
    if not 0 < alpha < 1:
        raise WorkbookParameterError("alpha", alpha, "a level between 0 and 1, e.g. 0.05")
    return Significance(method, alpha)


def qnorm(p: float) -> float:
    return NormalDist().inv_cdf(p)


def qt(p: float, df: float) -> float:
    """Student-t quantile (R's ``qt(p, df)``)."""
    if not 0 < p < 1:
        raise WorkbookParameterError("p", p, "a probability strictly between 0 and 1")
    if df <= 0:
        raise WorkbookParameterError("df", df, "positive degrees of freedom")
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


def ci_ratio(base: float, sd_base: float, new: float, sd_new: float, alpha: float = 0.05) -> float:
    """mmtests ``cidiff``: the difference in units of the summed half-widths."""
    z = qnorm(1 - alpha / 2)
    sd_base = 0.0 if sd_base != sd_base else sd_base
    sd_new = 0.0 if sd_new != sd_new else sd_new
    cisum = z * (sd_base + sd_new)
    diff = new - base
    if cisum == 0:
        return diff
    return diff / cisum


def ci_significant(base: float, sd_base: float, new: float, sd_new: float, alpha: float = 0.05) -> bool:
    if base != base or new != new:
        return False
    return abs(ci_ratio(base, sd_base, new, sd_new, alpha)) > 1


def welch_significant(mx: float, my: float, sx: float, sy: float, m: int, n: int, alpha: float = 0.05) -> bool:
    """Welch's t-test as mmtests ``calc_welch_test`` (alpha as a fraction here).

    Returns False when a sample has fewer than two values (no variance); when
    both variances are zero the means are compared directly.
    """
    if m < 2 or n < 2 or any(v != v for v in (mx, my, sx, sy)):
        return False
    tsx, tsy = sx * sx / m, sy * sy / n
    if tsx + tsy == 0:
        return mx != my
    k = (m - 1) * (n - 1) * (tsx + tsy) ** 2
    k = k / ((n - 1) * tsx**2 + (m - 1) * tsy**2)
    k = math.floor(k)
    t = (mx - my) / math.sqrt(tsx + tsy)
    if k < 1:
        k = 1
    return abs(t) > qt(1 - alpha / 2, k)
