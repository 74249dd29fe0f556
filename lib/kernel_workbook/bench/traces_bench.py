"""The trace parsers against their baselines, on inputs made at benchmark time from the real captures.

* ``vmstat`` and ``iostat -x``: 10 MB logs, ours against jc (``jc.parse``), target 10x, with identical
  values checked before timing (the benchmark refuses to run if they differ);
* ``perf script`` to folded stacks: a 60 MB capture, ours against FlameGraph's ``stackcollapse-perf.pl``
  run with perl (``KWB_FLAMEGRAPH=/path/to/FlameGraph``: a checkout, or a bare clone); without it the
  baseline is reported as null.  Target 3x.

The inputs are written once to ``$TMPDIR/kwb-bench-traces-<n>/`` (shared by pyperf's worker processes)
and never committed.  The 60 MB perf script repeats the shipped capture with every frame address shifted
per copy, so no two copies share a stack text: our parser cannot profit from the repetition.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from kernel_workbook.bench import Bench
from kernel_workbook.bench import call_timer as _timer
from kernel_workbook.bench.trace_inputs import iostat_reports, made_once, vmstat_parts

VERSION = 2  # bump when the generated inputs change
MB = 1 << 20
VMSTAT_MB = 10
IOSTAT_MB = 10
PERF_MB = 60


def _traces_dir() -> Path:
    from kernel_workbook.paths import data_dir

    return data_dir() / "traces"


def _inputs() -> Path:
    def make(folder: Path) -> None:
        _make_vmstat(folder / "vmstat.log")
        _make_iostat(folder / "iostat.log")
        _make_perf(folder / "perf-script.txt")

    return made_once(f"kwb-bench-traces-{VERSION}", make)


def _make_vmstat(path: Path) -> None:
    """A `vmstat 1 > log` as procps-ng prints it to a file: both header lines again every 21 lines."""
    group, header, rows = vmstat_parts()
    out = []
    size = 0
    k = 0
    while size < VMSTAT_MB * MB:
        if k % 21 == 0:
            out += [group, header]
            size += len(group) + len(header) + 2
        ln = rows[k % len(rows)]
        out.append(ln)
        size += len(ln) + 1
        k += 1
    path.write_text("\n".join(out) + "\n")


def _make_iostat(path: Path) -> None:
    """`iostat -x 1 > log`: the banner once, then the reports of the shipped captures over and over."""
    banner, reports = iostat_reports()
    out = [banner, ""]
    size = 0
    k = 0
    while size < IOSTAT_MB * MB:
        r = reports[k % len(reports)] + "\n"
        out.append(r)
        size += len(r) + 1
        k += 1
    path.write_text("\n".join(out))


def _make_perf(path: Path) -> None:
    src = next(_traces_dir().rglob("perf-script-*.gz"))
    text = gzip.decompress(src.read_bytes()).decode("utf-8", "replace")
    addr = re.compile(r"(?m)^(\s+)([0-9a-f]+) ")
    with open(path, "w") as f:
        size = 0
        k = 0
        while size < PERF_MB * MB:
            if k == 0:
                chunk = text
            else:
                chunk = addr.sub(lambda m, k=k: f"{m.group(1)}{int(m.group(2), 16) + k:x} ", text)
            f.write(chunk)
            size += len(chunk)
            k += 1


def flamegraph_dir() -> Path | None:
    """Where FlameGraph is: ``$KWB_FLAMEGRAPH`` (a checkout or a bare git repository), never a path of ours."""
    base = os.environ.get("KWB_FLAMEGRAPH")
    return Path(base) if base and Path(base).exists() else None


def stackcollapse_script() -> Path | None:
    """FlameGraph's stackcollapse-perf.pl when perl and a FlameGraph are at hand (never copied into the project)."""
    if not shutil.which("perl"):
        return None
    base = flamegraph_dir()
    if base is None:
        return None
    if (base / "stackcollapse-perf.pl").exists():
        return base / "stackcollapse-perf.pl"
    out = Path(tempfile.gettempdir()) / f"kwb-bench-traces-{VERSION}" / "stackcollapse-perf.pl"
    if not out.exists():
        r = subprocess.run(["git", "-C", str(base), "show", "HEAD:stackcollapse-perf.pl"], capture_output=True)
        if r.returncode != 0:
            return None
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(r.stdout)
    return out


def _check_vmstat(text: str) -> None:
    import jc

    from kernel_workbook.traces import parse_vmstat

    ours = parse_vmstat(text)
    theirs = jc.parse("vmstat", text, quiet=True)
    names = {"r": "runnable_procs", "free": "free_mem", "bi": "blocks_in", "bo": "blocks_out", "cs": "context_switches",
             "id": "idle_time", "st": "stolen_time"}
    if len(ours) != len(theirs):
        raise AssertionError(f"vmstat: {len(ours)} rows, jc {len(theirs)}")
    for c, k in names.items():
        if ours[c].tolist() != [t[k] for t in theirs]:
            raise AssertionError(f"vmstat column {c} differs from jc's {k}")


def _check_iostat(text: str) -> None:
    import jc

    from kernel_workbook.traces import read_iostat

    ours = read_iostat(text)
    theirs = [t for t in jc.parse("iostat", text, quiet=True) if t["type"] == "device"]
    if len(ours.devices) != len(theirs):
        raise AssertionError(f"iostat: {len(ours.devices)} device rows, jc {len(theirs)}")
    for c in ("r/s", "rkB/s", "r_await", "aqu-sz", "%util"):
        k = c.replace("%", "percent_").replace("/", "_").replace("-", "_").lower()
        if ours.devices[c].tolist() != [float(t[k]) for t in theirs]:
            raise AssertionError(f"iostat column {c} differs from jc's {k}")


def benchmarks() -> list[Bench]:
    import jc

    from kernel_workbook.traces import fold, parse_perf_script, parse_vmstat, read_iostat

    d = _inputs()
    vm = (d / "vmstat.log").read_text()
    io = (d / "iostat.log").read_text()
    perf = d / "perf-script.txt"
    if not (d / "checked").exists():  # once, not in every pyperf worker
        _check_vmstat(vm)
        _check_iostat(io)
        (d / "checked").write_text("ours == jc on every row\n")
    sc = stackcollapse_script()
    if sc is None:
        perl_run = None
    else:
        def perl_run():
            subprocess.run(["perl", str(sc), str(perf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=True)

    return [
        Bench(f"traces.parse_vmstat ({VMSTAT_MB} MB vmstat 1 log)", _timer(lambda: parse_vmstat(vm)),
              len(vm.encode()), "bytes", baseline="jc", baseline_time_func=_timer(
                  lambda: jc.parse("vmstat", vm, quiet=True)), target_ratio=10.0),
        Bench(f"traces.read_iostat ({IOSTAT_MB} MB iostat -x log)", _timer(lambda: read_iostat(io)),
              len(io.encode()), "bytes", baseline="jc", baseline_time_func=_timer(
                  lambda: jc.parse("iostat", io, quiet=True)), target_ratio=10.0),
        Bench(f"traces.fold (perf script, {PERF_MB} MB, to folded stacks)",
              _timer(lambda: fold(parse_perf_script(perf))), perf.stat().st_size, "bytes",
              baseline="stackcollapse-perf.pl" if perl_run else None, baseline_time_func=_timer(perl_run)
              if perl_run else None, target_ratio=3.0),
    ]
