"""Every text format ``traces.load`` reads, on a file of 10**6 lines (issue 32: each >= 30 MB/s, and peak
memory <= 4x the file's size), against jc where jc reads the same format.

The inputs are made at benchmark time by :mod:`kernel_workbook.bench.trace_inputs` from the shipped captures
and the test fixtures, written once to ``$TMPDIR/kwb-bench-formats-<VERSION>/`` (shared by pyperf's worker
processes) and never committed.  One load of the biggest takes a minute at today's speed, so the suite runs
with its own pyperf settings (:data:`RUNNER_ARGS`): one process, one value of one loop.
``KWB_BENCH_FORMATS=vmstat,iostat kwb bench --suites trace-formats`` times only the formats named.

Peak memory is measured the same way in both places (:func:`peak_of`): the process's peak resident memory (``VmHWM``)
less what the process held before the load (the package and numba's compiled kernels imported: a fixed cost,
not the file's), against 4x the file's size.  In ``kwb bench`` each format has a companion pyperf benchmark
``... [peak memory]`` (unit byte), one load in a fresh worker, so ``build/bench.json`` carries MB/s and
``peak_bytes``/``peak_ratio`` (peak x the file's size) for each format.  ``python -m
kernel_workbook.bench.formats_bench`` loads each file in a fresh process and prints MB/s (wall clock, and per
CPU second: the machine may be shared) and peak memory for each format (``make bench`` runs it after the pyperf
suites), and with ``--check`` exits 1 when a target is missed.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from kernel_workbook.bench import Bench
from kernel_workbook.bench import call_timer as _timer

VERSION = 2  # bump when trace_inputs changes what it writes
# pyperf's workers see only the environment variables named: the formats chosen must reach them, or a worker
# would list every format and time the first under the name of the one chosen
RUNNER_ARGS = ["--processes", "1", "--warmups", "0", "--values", "1", "--loops", "1",
               "--inherit-environ", "KWB_BENCH_FORMATS,TMPDIR"]
TARGET_BYTES_PER_S = 30e6  # issue 32: every text format at 30 MB/s or more
TARGET_MEMORY_RATIO = 4.0  # issue 32: peak memory at most 4x the file's size


def inputs() -> Path:
    """The folder of the 10**6-line files, one per format (made on first use)."""
    from kernel_workbook.bench.trace_inputs import FORMATS, made_once

    def make(folder: Path) -> None:
        for f in FORMATS:
            f.make(folder / f.name)

    return made_once(f"kwb-bench-formats-{VERSION}", make)


def _load(path: Path, kind: str):
    import warnings

    from kernel_workbook.traces import load

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a warning per segment would time the printing, not the parsing
        return load(path, kind=kind, max_bytes=max(path.stat().st_size + 1, 1 << 20))


def benchmarks() -> list[Bench]:
    from kernel_workbook.bench.trace_inputs import FORMATS, LINES

    from kernel_workbook.traces._fastscan import warm

    d = inputs()
    only = [x for x in os.environ.get("KWB_BENCH_FORMATS", "").split(",") if x]  # a few formats, for a quick look
    warm()  # a worker times one load without warm-up: numba's import and kernel loading would be in it (1-3 s),
    # and the peak memory a fixed ~110 MB whatever the file's size
    out = []
    for f in FORMATS:
        if only and f.name not in only:
            continue
        p = d / f.name
        size = p.stat().st_size
        b = Bench(f"traces.load {f.name} ({LINES:.0e} lines of {f.what}, {size / 1e6:.0f} MB)",
                  _timer(lambda p=p, f=f: _load(p, f.kind)), items=size, unit="bytes",
                  target_per_s=TARGET_BYTES_PER_S, target_peak_ratio=TARGET_MEMORY_RATIO,
                  peak_func=lambda p=p, f=f: peak_of(lambda: _load(p, f.kind))[2])
        if f.jc:
            def jc_run(p=p, f=f):
                import jc

                jc.parse(f.jc, p.read_text(), quiet=True)

            b.baseline, b.baseline_time_func, b.baseline_items = "jc", _timer(jc_run), size
        out.append(b)
    return out


def peak_of(fn) -> tuple[float, float, int]:
    """(seconds, CPU seconds, peak bytes above the process's memory before the call) of ``fn()``, in this
    process."""
    def kib(field):
        with open("/proc/self/status") as s:
            return int(next(ln.split()[1] for ln in s if ln.startswith(field + ":")))

    with open("/proc/self/clear_refs", "w") as c:  # resets VmHWM to the current RSS (Linux 4.0 and later)
        c.write("5")
    before = kib("VmRSS")
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0, (kib("VmHWM") - before) * 1024


def main(argv: list[str]) -> int:
    """``python -m kernel_workbook.bench.formats_bench [--check] [FORMAT...]``: MB/s and peak memory of each
    format; ``--check`` exits 1 when one misses a target."""
    import json
    import subprocess

    from kernel_workbook.bench.trace_inputs import FORMATS

    if argv[:1] == ["--one"]:  # a child: one load, its figures as JSON
        f = next(f for f in FORMATS if f.name == argv[1])
        import kernel_workbook.traces  # noqa: F401  (its import is no part of the figure)
        from kernel_workbook.traces._fastscan import warm

        warm()  # nor numba's import and the loading of the compiled kernels: ~110 MB whatever the file's size
        s, cpu, peak = peak_of(lambda: _load(Path(argv[2]), f.kind))
        print(json.dumps({"seconds": s, "cpu": cpu, "peak": peak}))
        return 0
    check = "--check" in argv
    argv = [x for x in argv if x != "--check"]
    d = inputs()
    missed = 0
    print(f"{'format':<16} {'MB':>6} {'MB/s':>7} {'MB/cpu-s':>8} {'peak MB':>8} {'x size':>7}")
    for f in FORMATS:
        if argv and f.name not in argv:
            continue
        p = d / f.name
        r = subprocess.run([sys.executable, "-m", "kernel_workbook.bench.formats_bench", "--one", f.name, str(p)],
                           capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
        if r.returncode:
            print(f"{f.name:<16} failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
            missed += 1
            continue
        m = json.loads(r.stdout.strip().splitlines()[-1])
        size = p.stat().st_size
        rate, ratio = size / m["seconds"] / 1e6, m["peak"] / size
        ok = rate * 1e6 >= TARGET_BYTES_PER_S and ratio <= TARGET_MEMORY_RATIO
        missed += not ok
        print(f"{f.name:<16} {size / 1e6:6.0f} {rate:7.1f} {size / max(m['cpu'], 1e-9) / 1e6:8.1f} "
              f"{m['peak'] / 1e6:8.0f} {ratio:7.2f}"
              f"{'' if ok else '  missed (>= 30 MB/s, <= 4x size)'}", flush=True)
    return 1 if missed and check else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
