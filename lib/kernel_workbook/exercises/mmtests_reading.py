"""Exercise: read an mmtests comparison.

A seeded table with one percentage hidden.  Three questions:

* ``pct`` — the percentage mmtests prints in the hidden cell;
* ``better`` — is the new kernel better than the baseline on that row?
* ``significant`` — does the mean change pass mmtests' CI test (intervals
  ``mean +/- 1.96*stddev`` do not overlap)?

The checker recognises the usual mistakes: the formula of the other direction
(``pdiff`` is ``-pndiff``, so it shows as a flipped sign), the difference of the
means instead of a percentage, reading "positive" as "bigger", and using the
standard error instead of mmtests' standard deviation for the interval.
"""

from __future__ import annotations

import numpy as np

from ..tables import compare, render
from ..tables.significance import ci_significant, qnorm
from ..tables.stats import calc_amean, calc_hmean, calc_stddev, pdiff, pndiff
from .base import Exercise, Verdict
from .seeded import Flag, Number

# (metric, unit, higher is better, typical value, run-to-run spread as a fraction)
METRICS = [
    ("SeqRead-MB/sec", "MB/s", True, 100.0, 0.02),
    ("ops/sec", "operations per second", True, 5000.0, 0.03),
    ("sda-r_await", "ms", False, 80.0, 0.04),
    ("syst-xfsrepair", "seconds of system time", False, 300.0, 0.03),
    ("Elapsed-NUMA02", "seconds", False, 50.0, 0.01),
]


class ReadingMmtests(Exercise):
    name = "reading-mmtests"
    level, minutes, thread, topic = "beginner", 15, "all (mmtests tables)", "statistics"
    questions = {
        "pct": "the hidden percentage, as mmtests prints it (a number, or a string such as \"-3.25%\")",
        "better": "is the new kernel better on that row (True/False)",
        "significant": "is the mean change significant by mmtests' CI test (True/False)",
    }

    def __init__(self, seed: int = 0, runs: int = 5):
        super().__init__(seed)
        rng = np.random.default_rng(seed)
        self.metric, self.unit, self.hib, typical, spread = METRICS[rng.integers(len(METRICS))]
        shift = rng.choice([-1, 1]) * rng.uniform(0.0, 0.12)
        base = typical * rng.uniform(0.8, 1.2)
        self.runs = runs
        self.samples = {
            "6.1.0-vanilla": rng.normal(base, base * spread, runs).clip(min=base * 0.2),
            "6.1.0-patched": rng.normal(base * (1 + shift), base * spread * rng.uniform(0.5, 2.0), runs)
            .clip(min=base * 0.2),
        }
        self.cells = compare({k: {self.metric: v} for k, v in self.samples.items()},
                             higher_is_better=self.hib, era="current", significance=None,
                             stats=("Min", "Mean", "Stddev", "Max"))
        self.mean_label = "Hmean" if self.hib else "Amean"

    def echo(self) -> str:
        return (f"{self.name}: seed={self.seed} metric={self.metric} ({self.unit}, "
                f"{'higher' if self.hib else 'lower'} is better) runs={self.runs}")

    kinds = {"pct": Number(tol=0.011, unit="%"), "better": Flag(), "significant": Flag()}
    hints = {
        "pct": "mmtests compares the means (Hmean for higher-is-better, Amean otherwise) and arranges the sign so "
               "that positive is better",
        "better": "the sign of the printed percentage says it (positive means better)",
        "significant": "mmtests' CI test: do the intervals mean +/- 1.96 x stddev of the two kernels overlap?",
    }

    def text(self) -> str:
        """The table with the patched kernel's mean percentage hidden."""
        lines = render(self.cells, note=False).rstrip("\n").split("\n")
        out = []
        for ln in lines:
            if ln.startswith(self.mean_label):
                head, _, _ = ln.rpartition(" (")
                ln = head + " (   ???  )"
            out.append(ln)
        return "\n".join(out)

    def shown(self) -> list:
        """The problem as a notebook shows it: the echo, the table (as mmtests prints it), the questions."""
        from ..frames import Preformatted, Prose

        questions = "\n".join(f"* `{k}`: {q}" for k, q in self.questions.items())
        return [Prose(f"`{self.echo()}`"), Preformatted(self.text()), Prose(questions)]

    def show(self) -> None:
        from IPython.display import display

        display(*self.shown())

    # --- the hidden solver ---------------------------------------------------
    def _means(self):
        kind = calc_hmean if self.hib else calc_amean
        mk = "hmean" if self.hib else "amean"
        b, n = self.samples["6.1.0-vanilla"], self.samples["6.1.0-patched"]
        return kind(b), kind(n), calc_stddev(b, mk), calc_stddev(n, mk)

    def _truth(self) -> dict:
        mb, mn, sb, sn = self._means()
        pct = pdiff(mn, mb) if self.hib else pndiff(mn, mb)
        return {"pct": round(pct, 2), "better": pct > 0, "significant": ci_significant(mb, sb, mn, sn),
                "means": (mb, mn), "sd": (sb, sn)}

    def _verdict(self, key, given, truth) -> Verdict:
        kind = self.kinds[key]
        try:
            g = kind.parse(given)
        except (TypeError, ValueError) as e:
            return Verdict(False, f"expected {e}, got {given!r}", counts=False)
        mb, mn = truth["means"]
        sb, sn = truth["sd"]
        if key == "pct":
            t = truth["pct"]
            if kind.close(g, t):
                return Verdict(True, f"{t:.2f}%")
            answer = f"{t:.2f}% (mean {mn:.2f} against {mb:.2f})"
            if kind.close(g, -t):
                # pdiff = -pndiff: the wrong formula and a flipped sign are the same number
                fn, rule = (("pdiff", "new*100/base - 100") if self.hib else ("pndiff", "100 - new*100/base"))
                return Verdict(False, f"sign flipped: this metric is {'higher' if self.hib else 'lower'}-is-better, "
                                      f"so mmtests prints {fn} = {rule} (pdiff and pndiff differ only in sign, chosen "
                                      "so that positive means better)", answer)
            if kind.close(g, mn - mb) or kind.close(g, mb - mn):
                return Verdict(False, "that is the difference of the means, not a percentage of the baseline's",
                               answer)
            return Verdict(False, f"{kind.hint(g, t)}; hint: {self.hints['pct']}", answer)
        if key == "better":
            if g == truth["better"]:
                return Verdict(True, "yes" if truth["better"] else "no")
            bigger = mn > mb
            why = ("; a bigger number is worse here: lower is better" if (bigger and not self.hib) else
                   "; a smaller number is worse here: higher is better" if (not bigger and self.hib) else "")
            return Verdict(False, f"not {g}: {self.hints['better']}{why}",
                           f"{'yes' if truth['better'] else 'no'} (the printed percentage is {truth['pct']:+.2f}%)")
        if key == "significant":
            z = qnorm(0.975)
            gap, half = abs(mn - mb), z * (sb + sn)
            if g == truth["significant"]:
                return Verdict(True, f"|{mn:.2f} - {mb:.2f}| = {gap:.2f} against z*(sd_new + sd_base) = {half:.2f}")
            se_half = z * (sb + sn) / np.sqrt(self.runs)
            if truth["significant"] is False and gap > se_half:
                msg = ("likely mistake: with the standard error (stddev/sqrt(n)) it would look significant, but "
                       "mmtests builds the interval from the standard deviation itself")
            else:
                msg = f"not {g}; hint: {self.hints['significant']}"
            return Verdict(False, msg, f"{truth['significant']} (the gap {gap:.2f} is "
                                       f"{'larger' if gap > half else 'smaller'} than {z:.2f} x (sd_new + sd_base) "
                                       f"= {half:.2f})")
        return Verdict(False, "unknown question", counts=False)

    def solve(self) -> str:
        t = self._truth()
        mb, mn = t["means"]
        sb, sn = t["sd"]
        fn = "pdiff" if self.hib else "pndiff"
        z = qnorm(0.975)
        return "\n".join([
            self.echo(),
            f"pct: {fn}({mn:.4f}, {mb:.4f}) = {t['pct']:.2f}%",
            f"better: {t['better']} (the percentage is {'positive' if t['pct'] > 0 else 'not positive'})",
            f"significant: {t['significant']} (gap {abs(mn - mb):.3f} vs {z:.2f}*({sb:.3f}+{sn:.3f}) = {z * (sb + sn):.3f})",
        ])


def problem(seed: int = 0) -> ReadingMmtests:
    return ReadingMmtests(seed)
