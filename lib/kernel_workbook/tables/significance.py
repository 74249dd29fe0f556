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

The Student-t quantile is computed here (regularized incomplete beta by
continued fraction, then bisection) so that the workbook does not need SciPy.
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


def _betacf(a: float, b: float, x: float) -> float:
    # Lentz's continued fraction for the incomplete beta function.
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def pt(t: float, df: float) -> float:
    """Student-t CDF."""
    x = df / (df + t * t)
    tail = 0.5 * betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def qt(p: float, df: float) -> float:
    """Student-t quantile (R's ``qt(p, df)``), by bisection on :func:`pt`."""
    if not 0 < p < 1:
        raise WorkbookParameterError("p", p, "a probability strictly between 0 and 1")
    if df <= 0:
        raise WorkbookParameterError("df", df, "positive degrees of freedom")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -qt(1 - p, df)
    lo, hi = 0.0, 1.0
    while pt(hi, df) < p:
        hi *= 2.0
        if hi > 1e12:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if pt(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


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
