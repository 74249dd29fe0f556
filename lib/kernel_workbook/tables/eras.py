"""mmtests' printing conventions, by era.

mmtests changed how it prints a comparison three times in the years the
threads span (dates from the mmtests git history):

=========  ===========================  =============  ==========================
era        mean row                     %-column width  Stddev / CoeffVar percent
=========  ===========================  =============  ==========================
``2014``   ``Mean`` (arithmetic)        6              same direction as the metric
``2015``   ``Amean`` / ``Hmean``        6              same direction as the metric
``2017``   ``Amean`` / ``Hmean``        7              same direction as the metric
``current`` ``Amean`` / ``Hmean``       7              always ``pndiff`` (lower is better)
=========  ===========================  =============  ==========================

* 2014-10-08 "summarise: Distinguish when harmonic or arithmetic mean should be
  used" introduced ``Amean``/``Hmean``;
* 2017-06-16 "reporting: Maintain alignment for extremely high performance
  changes" widened the percentage to ``%7.2f``;
* 2019-04-25 "Compare: Determine comparison operation based on compared
  statistics" made Stddev and CoeffVar always lower-is-better.

The 2011 and 2012 threads predate Amean and print like the ``2014`` era.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import WorkbookParameterError


@dataclass(frozen=True)
class Era:
    name: str
    harmonic_mean: bool  # Hmean for higher-is-better metrics (else the mean is arithmetic)
    mean_label: str  # label of the arithmetic mean row
    compare_width: int  # width of the percentage, " (%W.2f%%)"
    field_width: int  # width of a value, "%W.2f"
    spread_always_lower: bool  # Stddev/CoeffVar compared with pndiff regardless of metric
    stats: tuple[str, ...]  # default summary statistics, in print order ("Mean" = the era's mean)

    def mean_name(self, higher_is_better: bool) -> str:
        if self.harmonic_mean and higher_is_better:
            return "Hmean"
        return self.mean_label


ERAS: dict[str, Era] = {
    "2014": Era("2014", False, "Mean", 6, 12, False, ("Min", "Mean", "Stddev", "Max")),
    "2015": Era("2015", True, "Amean", 6, 12, False, ("Min", "Mean", "Stddev", "CoeffVar", "Max")),
    "2017": Era("2017", True, "Amean", 7, 12, False, ("Min", "Mean", "Stddev", "CoeffVar", "Max")),
    "current": Era(
        "current",
        True,
        "Amean",
        7,
        12,
        True,
        ("Min", "Mean", "Stddev", "CoeffVar", "Max", "BMean-50", "BMean-95", "BMean-99"),
    ),
}


def get_era(era: str | Era | None) -> Era:
    if era is None:
        return ERAS["current"]
    if isinstance(era, Era):
        return era
    try:
        return ERAS[str(era)]
    except KeyError:
        raise WorkbookParameterError("era", era, "one of " + ", ".join(ERAS)) from None
