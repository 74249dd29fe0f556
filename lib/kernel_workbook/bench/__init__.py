"""Benchmarks, measured with pyperf (``make bench`` / ``kwb bench``).

Each suite module of :func:`suites` has a ``benchmarks()`` function returning
:class:`Bench` objects.  ``kwb bench`` runs them all in pyperf worker processes
(``python -m kernel_workbook.bench.run``), then prints::

    {"results": [{"name", "ours_per_s", "baseline", "baseline_per_s", "ratio", "unit", "target", "met",
                  "peak_bytes", "peak_ratio"}]}

``ours_per_s`` is items per second (bytes, requests, allocations...: ``unit``
says which); ``baseline`` names what we are measured against (jc, FlameGraph,
the pure-Python reference of a model...) and ``ratio`` is ours / baseline.
Targets are written beside each benchmark (``target_per_s``, ``target_ratio``)
and checked by ``kwb bench``, not in timed tests: each result says its
``target`` and whether it was ``met`` (``kwb bench --check`` fails on a miss).

A benchmark with a ``peak_func`` (the trace formats: issue 32 promises peak memory <= 4x the file's size) also
records its peak memory, as a companion pyperf benchmark ``<name> [peak memory]`` of unit ``byte`` run in a
worker process of its own; its row carries ``peak_bytes`` and ``peak_ratio`` (peak / the items of one call: the
file's size where the unit is bytes), None for the others.

A suite whose one call lasts long (``reproduce``: a minute) declares its own
pyperf settings in ``RUNNER_ARGS``; ``kwb bench`` runs it in a pyperf run of
its own with them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

PEAK = " [peak memory]"  # the suffix of a benchmark's companion that holds its peak memory (unit: byte)

def suites() -> dict:
    """Suite name -> its module (``benchmarks()``, and ``RUNNER_ARGS`` where it has settings of its own): the
    engine's suites, then each heuristic's (``Heuristic.bench``, named after the heuristic), the reproduction
    last.  Imported only when the benchmarks run."""
    from .. import heuristic
    from . import explorer_bench, formats_bench, reproduce_bench, sweep_bench, tables_bench, traces_bench

    out = {"tables": tables_bench, "traces": traces_bench, "trace-formats": formats_bench}
    out.update((h.name, h.bench) for h in heuristic.heuristics() if h.bench is not None)
    out.update({"sweep": sweep_bench, "explorers": explorer_bench, "reproduce": reproduce_bench})
    return out


def runner_args(suite: str) -> list[str] | None:
    """The pyperf settings a suite needs of its own (its module's ``RUNNER_ARGS``), or None for the shared run."""
    return getattr(suites()[suite], "RUNNER_ARGS", None)


@dataclass
class Bench:
    name: str
    time_func: Callable[[int], float]  # pyperf bench_time_func: loops -> seconds
    items: float  # items processed by one call
    unit: str  # what an item is
    baseline: str | None = None
    baseline_time_func: Callable[[int], float] | None = None
    baseline_items: float | None = None
    target_ratio: float | None = None  # ours/baseline we promise, if any
    target_per_s: float | None = None  # absolute throughput we promise, if any
    peak_func: Callable[[], float] | None = None  # one call's peak memory in bytes, measured in a fresh worker
    target_peak_ratio: float | None = None  # peak / items we promise at most, if any

    @property
    def peak_name(self) -> str:
        """The name of the companion benchmark that holds the peak memory."""
        return self.name + PEAK

    def metadata(self) -> dict:
        """What travels with the pyperf result (pyperf metadata: numbers and text, never None)."""
        md = {"kwb_items": self.items, "kwb_unit": self.unit}
        if self.target_per_s is not None:
            md["kwb_target_per_s"] = float(self.target_per_s)
        if self.target_ratio is not None:
            md["kwb_target_ratio"] = float(self.target_ratio)
        if self.target_peak_ratio is not None:
            md["kwb_target_peak_ratio"] = float(self.target_peak_ratio)
        return md

    def peak_time_func(self) -> Callable[[int], float]:
        """pyperf "time" function of the companion benchmark: the value it returns is bytes (its unit), the
        largest peak of ``loops`` calls, times ``loops`` because pyperf divides by them."""
        def run(loops: int) -> float:
            # pyperf refuses a zero value: a call that touched no new page is recorded as 1 byte
            return max(max(self.peak_func() for _ in range(loops)), 1.0) * loops
        return run

    def peak_metadata(self) -> dict:
        """What travels with the companion's pyperf result: a value in bytes, and the items of one call."""
        return {"unit": "byte", "kwb_items": self.items, "kwb_unit": self.unit}

    def baseline_metadata(self) -> dict:
        """What travels with the baseline's pyperf result: its items and unit (the targets are the benchmark's)."""
        return {"kwb_items": self.baseline_items or self.items, "kwb_unit": self.unit}



def call_timer(fn) -> Callable[[int], float]:
    """pyperf time function: ``fn()`` called ``loops`` times, timed as a whole."""
    import time

    def run(loops: int) -> float:
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        return time.perf_counter() - t0

    return run


def copy_arrays(arrays: dict) -> dict:
    """A fresh copy of a kernel's named arrays."""
    return {k: v.copy() for k, v in arrays.items()}


def kernel_timer(fn, arrays: dict, order) -> Callable[[int], float]:
    """pyperf time function: ``fn(*arrays in order)`` on fresh copies of ``arrays`` each loop, timing the call alone.

    A kernel writes into its arrays, so every loop must start from the same state; the copy is not timed.
    """
    import time

    def run(loops: int) -> float:
        total = 0.0
        for _ in range(loops):
            b = copy_arrays(arrays)
            t0 = time.perf_counter()
            fn(*(b[k] for k in order))
            total += time.perf_counter() - t0
        return total
    return run


def results(benchmarks) -> list[dict]:
    """One row per benchmark of pyperf results (``pyperf.Benchmark``, with :meth:`Bench.metadata`), its baseline
    beside it: ``name, ours_per_s, baseline, baseline_per_s, ratio, unit, target, met``.

    ``target`` is the promise in words (``">= 20 runs/s"``, ``"ratio >= 100"``; None if the benchmark makes
    none) and ``met`` whether the mean kept it (None without a target, and for a ratio target whose baseline
    did not run: FlameGraph's script is only timed where ``KWB_FLAMEGRAPH`` points at it).
    ``peak_bytes`` is the largest value of the companion ``<name> [peak memory]`` and ``peak_ratio`` that over
    the items of one call where they are bytes (peak x the file's size); both None without a companion.
    """
    per_s, md, peak = {}, {}, {}
    for b in benchmarks:
        m = b.get_metadata()
        if b.get_name().endswith(PEAK):
            peak[b.get_name()[:-len(PEAK)]] = max(b.get_values())
            continue
        per_s[b.get_name()] = float(m["kwb_items"]) / b.mean()
        md[b.get_name()] = m
    out = []
    for name, v in per_s.items():
        if " [baseline: " in name:
            continue
        base = next((k for k in per_s if k.startswith(name + " [baseline: ")), None)
        bv = per_s[base] if base else None
        ratio = (v / bv) if bv else None
        m = md[name]
        checks = []  # (the promise in words, kept: True / False / None when it cannot be checked)
        if "kwb_target_per_s" in m:
            t = float(m["kwb_target_per_s"])
            checks.append((f">= {t:.4g} {m.get('kwb_unit', '')}/s", v >= t))
        if "kwb_target_ratio" in m:
            t = float(m["kwb_target_ratio"])
            checks.append((f"ratio >= {t:g}", ratio >= t) if base else
                          (f"ratio >= {t:g} (not checked: no baseline run)", None))
        p = peak.get(name)
        p_ratio = p / float(m["kwb_items"]) if p is not None and m.get("kwb_unit") == "bytes" else None
        if "kwb_target_peak_ratio" in m:
            t = float(m["kwb_target_peak_ratio"])
            checks.append((f"peak <= {t:g}x size", p_ratio <= t) if p_ratio is not None else
                          (f"peak <= {t:g}x size (not checked: no peak memory run)", None))
        kept = [ok for _, ok in checks if ok is not None]
        target = ", ".join(text for text, _ in checks) or None
        met = all(kept) if kept else None
        out.append({"name": name, "ours_per_s": v, "baseline": base.split(" [baseline: ", 1)[1][:-1] if base else None,
                    "baseline_per_s": bv, "ratio": ratio, "unit": m.get("kwb_unit", ""), "target": target,
                    "met": met, "peak_bytes": p, "peak_ratio": p_ratio})
    return out


def all_benchmarks(only: list[str] | None = None) -> list[Bench]:
    out = []
    for key, mod in suites().items():
        if only and key not in only:
            continue
        out.extend(mod.benchmarks())
    return out
