"""Exercises on the statistics behind an mmtests table: Hmean against Amean, and significance.

* :class:`HmeanAmean` -- why mmtests summarises rates with the harmonic mean;
* :class:`CiAndWelch` -- the CI-overlap test mmtests prints beside a mean and
  Welch's t-test, which can disagree.

Both compute with the workbook's own statistics (``tables.stats``,
``tables.significance``), so the checker and the tables agree.
"""

from __future__ import annotations

import math

import numpy as np

from ..tables.significance import ci_significant, qnorm, qt, welch_significant
from ..tables.stats import calc_amean, calc_gmean, calc_hmean, calc_stddev
from .seeded import Flag, Number, Page, Seeded


class HmeanAmean(Seeded):
    name = "stats-hmean-amean"
    title = "Exercise 2 -- Hmean against Amean"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'Hmean against Amean',
        'mmtests summarises throughput rows with the harmonic mean (Hmean) and times with the arithmetic mean '
        '(Amean). Work out why, with one slow run among the runs.',
        demo=101, example=('overall', 92.4))
    level, minutes, thread, topic = "beginner", 10, "all (mmtests tables)", "statistics"
    questions = {
        "hmean": "the harmonic mean of the runs (MB/s)",
        "amean": "the arithmetic mean of the runs (MB/s)",
        "overall": "the rate of all runs together: total MB read / total seconds (MB/s)",
    }
    kinds = {k: Number(tol=0.01, unit="MB/s") for k in questions}

    def draw(self, rng):
        n = int(rng.integers(4, 7))
        typical = float(rng.choice([60.0, 100.0, 150.0]))
        runs = rng.normal(typical, typical * 0.03, n)
        runs[int(rng.integers(n))] *= float(rng.uniform(0.4, 0.7))  # one slow run: where the means part
        return {"runs_mb_s": [round(float(x), 1) for x in runs], "mb_per_run": int(rng.choice([256, 512, 1024]))}

    def text(self):
        r = self.params["runs_mb_s"]
        return (f"{len(r)} runs of a benchmark each read {self.params['mb_per_run']} MB; their rates (MB/s):\n  "
                + "  ".join(f"{x:.1f}" for x in r)
                + "\nmmtests labels this row Hmean; another tool prints Amean. Which is the rate of the whole run?")

    def truth(self):
        r = np.array(self.params["runs_mb_s"])
        mb = self.params["mb_per_run"]
        secs = mb / r
        return {"hmean": round(calc_hmean(r), 2), "amean": round(calc_amean(r), 2),
                "overall": round(mb * len(r) / secs.sum(), 2), "gmean": calc_gmean(r), "secs": secs}

    def working(self, t):
        r = self.params["runs_mb_s"]
        return [f"hmean = n / sum(1/x) = {len(r)} / {sum(1 / x for x in r):.6f} = {t['hmean']:.2f}",
                f"amean = sum(x) / n = {sum(r):.1f} / {len(r)} = {t['amean']:.2f}",
                "seconds per run = MB / rate: " + " ".join(f"{s:.3f}" for s in t["secs"]),
                f"overall = {len(r)} x {self.params['mb_per_run']} MB / {t['secs'].sum():.3f} s = {t['overall']:.2f}"
                " (= hmean: each run did the same work, so the time-weighted rate is the harmonic mean)"]

    def mistake(self, key, g, t):
        k = self.kinds[key]
        if key == "hmean" and k.close(g, t["amean"]):
            return "that is the arithmetic mean; the harmonic mean averages 1/x, then inverts"
        if key in ("hmean", "amean", "overall") and k.close(g, round(t["gmean"], 2)):
            return "that is the geometric mean"
        if key == "amean" and k.close(g, t["hmean"]):
            return "that is the harmonic mean"
        if key == "overall" and k.close(g, t["amean"]):
            return ("averaging the rates weights every run equally, but the slow run took longer: "
                    "total work over total time is the harmonic mean")
        return None

    def typical_mistake(self):
        a = self.answer()
        a["overall"] = a["amean"]
        return a, "overall"


class CiAndWelch(Seeded):
    name = "stats-significance"
    title = "Exercise 3 -- significance: CI overlap and Welch's t"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        "significance: CI overlap and Welch's t",
        'mmtests marks a change significant when the two intervals mean +/- 1.96 x stddev do not overlap; a t-test '
        'on the means is the textbook alternative. They can disagree: find out when and why.',
        demo=101, example=('t', -2.76))
    level, minutes, thread, topic = "intermediate", 20, "all (mmtests tables)", "statistics"
    questions = {
        "ci": "does mmtests' CI test call the change significant: |mean_new - mean_base| > 1.96 x (sd_base + sd_new)",
        "t": "Welch's t statistic, (mean_new - mean_base) / sqrt(sd_new^2/n_new + sd_base^2/n_base)",
        "welch": "is the change significant by Welch's t-test at alpha = 0.05",
    }
    kinds = {"ci": Flag(), "t": Number(tol=0.01, rel=0.005), "welch": Flag()}

    def draw(self, rng):
        n = int(rng.integers(4, 9))
        base = float(rng.choice([80.0, 200.0, 1000.0]))
        sd = base * float(rng.uniform(0.01, 0.04))
        # the change: from well inside the noise to well outside, in units of the standard error
        shift = float(rng.choice([-1, 1]) * rng.uniform(0.5, 6.0)) * sd * math.sqrt(2.0 / n)
        a = rng.normal(base, sd, n)
        b = rng.normal(base + shift, sd * float(rng.uniform(0.6, 1.6)), n)
        return {"n": n, "base_runs": [round(float(x), 2) for x in a], "new_runs": [round(float(x), 2) for x in b]}

    def _stats(self):
        a, b = np.array(self.params["base_runs"]), np.array(self.params["new_runs"])
        return calc_amean(a), calc_amean(b), calc_stddev(a), calc_stddev(b), len(a), len(b)

    def text(self):
        mb, mn, sb, sn, m, n = self._stats()
        return ("Two kernels, runs of a lower-is-better time (s):\n"
                f"  base: {' '.join(f'{x:.2f}' for x in self.params['base_runs'])}\n"
                f"  new:  {' '.join(f'{x:.2f}' for x in self.params['new_runs'])}\n"
                f"  base mean {mb:.3f} sd {sb:.3f} (n={m});  new mean {mn:.3f} sd {sn:.3f} (n={n})\n"
                "(sd is the sample standard deviation, n-1 in the denominator, as mmtests computes it)")

    def truth(self):
        mb, mn, sb, sn, m, n = self._stats()
        t = (mn - mb) / math.sqrt(sn * sn / n + sb * sb / m)
        tsb, tsn = sb * sb / m, sn * sn / n
        df = max(1, math.floor((m - 1) * (n - 1) * (tsb + tsn) ** 2 / ((n - 1) * tsb ** 2 + (m - 1) * tsn ** 2)))
        return {"ci": ci_significant(mb, sb, mn, sn), "t": round(t, 3), "welch": welch_significant(mn, mb, sn, sb, n, m),
                "df": df, "tcrit": qt(0.975, df), "gap": abs(mn - mb), "half": qnorm(0.975) * (sb + sn),
                "t_sd": (mn - mb) / math.sqrt(sn * sn + sb * sb)}

    def working(self, t):
        return [f"CI test: gap {t['gap']:.3f} against 1.96 x (sd_base + sd_new) = {t['half']:.3f} -> {t['ci']}",
                f"Welch: t = {t['t']:.3f}, df = {t['df']} (Welch-Satterthwaite, floored), "
                f"critical |t| = {t['tcrit']:.3f} -> {t['welch']}",
                "the CI test uses the spread of single runs, so it is stricter than a test on the means"]

    def mistake(self, key, g, t):
        if key == "t" and self.kinds["t"].close(g, round(t["t_sd"], 3)):
            return "that divides by the standard deviations, not by the standard error of the means (sd/sqrt(n))"
        if key == "t" and self.kinds["t"].close(g, -t["t"]):
            return "sign flipped: new minus base"
        if key == "ci" and g and not t["ci"] and t["welch"]:
            return ("Welch's test says yes, but mmtests' interval is built from the standard deviation "
                    "itself, which is wider than the standard error")
        if key == "welch" and g != t["welch"] and g == t["ci"]:
            return "that is the CI test's verdict; Welch compares t with Student's t at the Welch df"
        return None

    def typical_mistake(self):
        a = self.answer()
        a["t"] = round(self._truth()["t_sd"], 3)
        return a, "t"


__all__ = ["HmeanAmean", "CiAndWelch"]
