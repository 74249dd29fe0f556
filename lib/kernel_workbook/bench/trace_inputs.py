"""Big inputs for the trace benchmarks: one file of 10**6 lines per text format, made from the shipped
captures and the test fixtures at benchmark time (never committed).

Each generator writes the format as its tool prints it to a file (``vmstat 1 > log`` repeats both header lines
every 21 reports; ``iostat -x 1`` prints its banner once; ``watch-proc-vmstat.sh`` prints ``time: <epoch>``
before each snapshot ...) with values that move from record to record (counters grow, times advance, frame
addresses shift), so that no parser can profit from a repeated line.  :data:`FORMATS` says what each file is
and which jc parser, if any, reads the same format.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

LINES = 10 ** 6


def _data(*parts: str) -> Path:
    from kernel_workbook.paths import data_dir

    return data_dir().joinpath("traces", *parts)


def _fixture(name: str) -> str:
    """A test fixture (tests/fixtures/traces), when the benchmark runs from a checkout."""
    from kernel_workbook.paths import repo_root

    return (repo_root() / "tests" / "fixtures" / "traces" / name).read_text()


def capture(monitor: str) -> list[str]:
    """The shipped captures of *monitor*, without mmtests' latency prefix."""
    from kernel_workbook.traces._common import strip_latency_prefix

    out = []
    for p in sorted(_data().rglob(f"{monitor}-*.gz")):
        text, _ = strip_latency_prefix(gzip.decompress(p.read_bytes()).decode())
        out.append(text)
    return out


class _Writer:
    """Lines into a file, counted, in chunks (the generators never hold the whole file)."""

    def __init__(self, path: Path):
        self.f = open(path, "w")
        self.n = 0
        self.buf: list[str] = []

    def add(self, lines: list[str]) -> None:
        self.buf.extend(lines)
        self.n += len(lines)
        if len(self.buf) > 50000:
            self.flush()

    def flush(self) -> None:
        if self.buf:
            self.f.write("\n".join(self.buf) + "\n")
            self.buf = []

    def close(self) -> None:
        self.flush()
        self.f.close()

    @property
    def full(self) -> bool:
        return self.n >= LINES


def vmstat_parts() -> tuple[str, str, list[str]]:
    """The two header lines and the report lines of the shipped ``vmstat`` captures."""
    group = header = None
    rows = []
    for text in capture("vmstat"):
        for ln in text.split("\n"):
            if ln.lstrip().startswith("procs"):
                group = ln
            elif ln.lstrip().startswith("r "):
                header = ln
            elif ln.strip():
                rows.append(ln)
    return group, header, rows


def vmstat(path: Path) -> None:
    """``vmstat 1 > log`` (procps-ng): both header lines again every 21 reports."""
    group, header, rows = vmstat_parts()
    w = _Writer(path)
    k = 0
    while not w.full:
        if k % 21 == 0:
            w.add([group, header])
        w.add([rows[k % len(rows)]])
        k += 1
    w.close()


def vmstat_d(path: Path) -> None:
    """``vmstat -d 1``: the two header lines and a line per disk, every second, the counters growing."""
    lines = _fixture("vmstat-procps4-d.txt").rstrip("\n").split("\n")
    head, disks = lines[:2], [ln.split() for ln in lines[2:]]
    w = _Writer(path)
    k = 0
    while not w.full:
        out = list(head)
        for d in disks:
            v = [int(x) + (k * (j + 1) if int(x) else 0) for j, x in enumerate(d[1:])]
            out.append(f"{d[0]:<5} {v[0]:6d} {v[1]:6d} {v[2]:7d} {v[3]:7d} {v[4]:6d} {v[5]:6d} {v[6]:7d} "
                       f"{v[7]:7d} {v[8]:6d} {v[9]:6d}")
        w.add(out)
        k += 1
    w.close()


def vmstat_p(path: Path) -> None:
    """``vmstat -p vda 1``: the header once, then a line a second."""
    head = _fixture("vmstat-procps4-p.txt").split("\n")[0]
    w = _Writer(path)
    w.add([head])
    k = 0
    while not w.full:
        w.add([f"{136182 + k:21d} {11877146 + 8 * k:17d} {151110 + 3 * k:11d} {24253304 + 24 * k:17d}"])
        k += 1
    w.close()


def vmstat_s(path: Path) -> None:
    """``while :; do vmstat -s; sleep 1; done``: the listing again and again, the counters growing."""
    lines = [ln for ln in _fixture("vmstat-procps4-s.txt").split("\n") if ln.strip()]
    parsed = [re.match(r"^( *)(\d+)( .*)$", ln).groups() for ln in lines]
    w = _Writer(path)
    k = 0
    while not w.full:
        w.add([f"{int(v) + k:>{len(sp) + len(v)}d}{rest}" for sp, v, rest in parsed])
        k += 1
    w.close()


def proc_vmstat(path: Path) -> None:
    """mmtests' ``watch-proc-vmstat.sh``: ``time: <epoch>`` then /proc/vmstat, every second."""
    text = capture("proc-vmstat")[0]
    first = text.split("time:")[1]
    names, vals = [], []
    for ln in first.split("\n")[1:]:
        if ln.strip():
            n, v = ln.split()
            names.append(n)
            vals.append(int(v))
    gauge = [n.startswith("nr_") or n.endswith("_threshold") or n == "workingset_nodes" for n in names]
    w = _Writer(path)
    t = 1795239370.099
    k = 0
    while not w.full:
        w.add([f"time: {t + k:.3f}"] + [f"{n} {v + (k % 7 if g else 13 * k * (i % 5))}"
                                         for i, (n, v, g) in enumerate(zip(names, vals, gauge))])
        k += 1
    w.close()


def iostat_reports() -> tuple[str, list[str]]:
    """The banner of the first shipped iostat capture and every report (``avg-cpu:`` on) of all of them."""
    banner = None
    reports = []
    for text in capture("iostat"):
        lines = text.split("\n")
        if banner is None:
            banner = lines[0]
        body = "\n".join(lines[1:]).strip("\n")
        reports += [r.strip("\n") for r in re.split(r"\n\n(?=avg-cpu:)", body) if r.strip()]
    return banner, reports


def iostat(path: Path) -> None:
    """``iostat -x 1 > log`` (sysstat 12): the banner once, then the reports of the shipped captures."""
    banner, texts = iostat_reports()
    reports = [r.split("\n") + [""] for r in texts]
    w = _Writer(path)
    w.add([banner, ""])
    k = 0
    while not w.full:
        w.add(reports[k % len(reports)])
        k += 1
    w.close()


def iostat_json(path: Path) -> None:
    """``iostat -x -o JSON 1``: sysstat 12's layout, a disk object a line."""
    doc = json.loads(_fixture("iostat-sysstat12-x.json"))
    host = doc["sysstat"]["hosts"][0]
    stats = host["statistics"]
    head = ['{"sysstat": {', '\t"hosts": [', "\t\t{"] + [
        f'\t\t\t"{k}": {json.dumps(v)},' for k, v in host.items() if k != "statistics"] + ['\t\t\t"statistics": [']
    w = _Writer(path)
    w.add(head)
    k = 0
    while True:
        st = stats[k % len(stats)]
        cpu = ", ".join(f'"{a}": {b:.2f}' for a, b in st["avg-cpu"].items())
        disks = [", ".join([f'"disk_device": "{d["disk_device"]}"'] +
                           [f'"{a}": {b + (k % 100) / 100:.2f}' for a, b in d.items() if a != "disk_device"])
                 for d in st["disk"]]
        last = w.n + 6 + len(disks) >= LINES
        w.add(["\t\t\t\t{", f'\t\t\t\t\t"avg-cpu":  {{{cpu}}},', '\t\t\t\t\t"disk": ['] +
              [f"\t\t\t\t\t\t{{{d}}}" + ("," if j + 1 < len(disks) else "") for j, d in enumerate(disks)] +
              ["\t\t\t\t\t]", "\t\t\t\t}" + ("" if last else ",")])
        k += 1
        if last:
            break
    w.add(["\t\t\t]", "\t\t}", "\t]", "}}"])
    w.close()


def _perf_intervals() -> list[tuple[str, str, str, str]]:
    """(count, unit, event, metric comment) of the intervals of the shipped perf stat -I capture."""
    out = []
    for text in capture("perf-stat"):
        for ln in text.split("\n"):
            m = re.match(r"^\s*\d+\.\d+\s+(\S+)\s+(msec\s+)?(\S+)\s*(#.*?)?\s*$", ln)
            if m:
                out.append((m.group(1), (m.group(2) or "").strip(), m.group(3), (m.group(4) or "").strip()))
    return out


def perf_stat_csv(path: Path) -> None:
    """``perf stat -I 1000 -x,``: one CSV line per counter per interval (perf 6.x)."""
    rows = _perf_intervals()
    w = _Writer(path)
    w.add(["# started on Sat Nov 21 05:36:10 2026", ""])
    k = 0
    while not w.full:
        t = 1.001057041 + k // 9
        v, unit, ev, met = rows[k % len(rows)]
        mv, _, mu = met.lstrip("# ").partition(" ")
        w.add([f"{t:16.9f},{v},{unit},{ev},{2002670000 + k},100.00,{mv},{mu.strip()}"])
        k += 1
    w.close()


def perf_stat_text(path: Path) -> None:
    """``perf stat -I 1000``: the text layout, a counter a line under the ``#  time  counts unit events`` header."""
    rows = _perf_intervals()
    w = _Writer(path)
    w.add(["# started on Sat Nov 21 05:36:10 2026", "", "#           time             counts unit events"])
    k = 0
    while not w.full:
        t = 1.001057041 + k // 9
        v, unit, ev, met = rows[k % len(rows)]
        w.add([f"{t:16.9f} {v:>18s} {unit:<5s}{ev:<32s} {met:<30s}"])
        k += 1
    w.close()


def perf_stat_json(path: Path) -> None:
    """``perf stat -I 1000 -j``: one JSON object a line (perf 6.x)."""
    rows = _perf_intervals()
    w = _Writer(path)
    k = 0
    while not w.full:
        t = 1.001057041 + k // 9
        v, unit, ev, met = rows[k % len(rows)]
        mv, _, mu = met.lstrip("# ").partition(" ")
        w.add([json.dumps({"interval": round(t, 9), "counter-value": v, "unit": unit, "event": ev,
                           "event-runtime": 2002670000 + k, "pcnt-running": 100.00,
                           "metric-value": mv or "0", "metric-unit": mu.strip()}, separators=(", ", " : "))])
        k += 1
    w.close()


def perf_script(path: Path) -> None:
    """``perf script`` of a ``perf record -g``: the shipped capture again and again, every frame address
    shifted per copy so that no two copies share a stack text."""
    src = next(_data().rglob("perf-script-*.gz"))
    text = gzip.decompress(src.read_bytes()).decode("utf-8", "replace")
    addr = re.compile(r"(?m)^(\s+)([0-9a-f]+) ")
    lines_per_copy = text.count("\n")
    w = _Writer(path)
    k = 0
    while not w.full:
        chunk = text if k == 0 else addr.sub(lambda m, k=k: f"{m.group(1)}{int(m.group(2), 16) + k:x} ", text)
        w.flush()
        w.f.write(chunk)
        w.n += lines_per_copy
        k += 1
    w.close()


def folded(path: Path) -> None:
    """Folded stacks (stackcollapse-perf.pl's output): a stack a line, each one different."""
    from kernel_workbook.traces import fold

    base = fold(next(_data().rglob("perf-script-*.gz")))
    stacks = list(base["stack"])
    w = _Writer(path)
    k = 0
    while not w.full:
        s = stacks[k % len(stacks)].split(";")
        # the process and the last three frames: a line of about 100 bytes (whole stacks of this capture are
        # 600, which would make a 600 MB file)
        w.add([f"{';'.join([s[0]] + s[-3:])};leaf_{k} {250000 * (1 + k % 17)}"])
        k += 1
    w.close()


def perf_report(path: Path) -> None:
    """``perf report --stdio --children -g``: the fixture's entries and call graphs, their symbols renamed per
    copy."""
    text = _fixture("perf-report-6.1-children.txt").rstrip("\n").split("\n")
    head = [ln for ln in text if ln.startswith("#")]
    body = [ln for ln in text if not ln.startswith("#")]
    w = _Writer(path)
    w.add(head)
    k = 0
    while not w.full:
        w.add([re.sub(r"([A-Za-z_]\w*)$", rf"\g<1>_{k}", ln) if ln.strip() else ln for ln in body])
        k += 1
    w.close()


def _series(fixture: str, path: Path, grow=None) -> None:
    """mmtests' ``watch-proc-*.sh``: ``time: <epoch>`` then the file, every second."""
    body = [ln for ln in _fixture(fixture).rstrip("\n").split("\n")]
    w = _Writer(path)
    t = 1795239370.099
    k = 0
    while not w.full:
        w.add([f"time: {t + k:.3f}"] + (grow(body, k) if grow else body))
        k += 1
    w.close()


def _bump(body: list[str], k: int) -> list[str]:
    # the last number of each line moves, so that no two snapshots are the same text
    return [re.sub(r"(\d+)(\s*(?:kB)?\s*)$", lambda m: f"{int(m.group(1)) + k % 97}{m.group(2)}", ln) for ln in body]


def buddyinfo(path: Path) -> None:
    _series("buddyinfo-6.18.txt", path, _bump)


def pagetypeinfo(path: Path) -> None:
    # the counts move; _bump also moved the headers ('Page block order: 10', the orders '0 1 ... 11'), a new
    # page block size and order every second that no kernel prints
    _series("pagetypeinfo-6.18.txt", path,
            lambda body, k: [new if ln.startswith("Node") else ln for ln, new in zip(body, _bump(body, k))])


def _bump_counters(body: list[str], k: int) -> list[str]:
    # the counters move, the zones' and CPUs' names stay: _bump turned 'zone DMA32' into 'zone DMA33', 'cpu: 0'
    # into 'cpu: 1', a new zone and CPU every second that no kernel prints
    keep = ("Node ", "cpu:")
    return [ln if ln.lstrip().startswith(keep) else new for ln, new in zip(body, _bump(body, k))]


def zoneinfo(path: Path) -> None:
    _series("zoneinfo-6.18.txt", path, _bump_counters)


def meminfo(path: Path) -> None:
    _series("meminfo-6.18.txt", path, _bump)


@dataclass(frozen=True)
class Format:
    name: str  # the file name and the benchmark's
    kind: str  # traces.load(kind=)
    make: Callable[[Path], None]
    what: str
    jc: str | None = None  # the jc parser that reads the same format, if any


FORMATS = [
    Format("vmstat", "vmstat", vmstat, "vmstat 1 log", "vmstat"),
    Format("vmstat-d", "vmstat-d", vmstat_d, "vmstat -d 1 log"),
    Format("vmstat-p", "vmstat-p", vmstat_p, "vmstat -p vda 1 log"),
    Format("vmstat-s", "vmstat-s", vmstat_s, "vmstat -s in a loop"),
    Format("proc-vmstat", "proc-vmstat", proc_vmstat, "/proc/vmstat series"),
    Format("iostat", "iostat", iostat, "iostat -x 1 log", "iostat"),
    Format("iostat-json", "iostat", iostat_json, "iostat -x -o JSON 1 log"),
    Format("perf-stat-csv", "perf-stat", perf_stat_csv, "perf stat -I -x, log"),
    Format("perf-stat-text", "perf-stat", perf_stat_text, "perf stat -I log"),
    Format("perf-stat-json", "perf-stat", perf_stat_json, "perf stat -I -j log"),
    Format("perf-script", "perf-script", perf_script, "perf script -g"),
    Format("folded", "folded", folded, "folded stacks"),
    Format("perf-report", "perf-report", perf_report, "perf report --stdio --children"),
    Format("buddyinfo", "buddyinfo", buddyinfo, "/proc/buddyinfo series"),
    Format("pagetypeinfo", "pagetypeinfo", pagetypeinfo, "/proc/pagetypeinfo series"),
    Format("zoneinfo", "zoneinfo", zoneinfo, "/proc/zoneinfo series"),
    Format("meminfo", "meminfo", meminfo, "/proc/meminfo series"),
]

#: The kinds ``traces.load`` reads that have no 10**6-line benchmark input yet, and why.
NOT_BENCHMARKED = {
    "fio-json": "one JSON document per run (fio's summary), not a log that grows with the run",
    "pyperf-json": "one JSON document per benchmark run, not a log",
    "vmstat-D": "vmstat -D prints one summary, not a series (no 10**6-line file exists in practice)",
    "fio-terse": "not generated yet (a terse line per job; long files come from --status-interval)",
    "iostat-cpu": "not generated yet (iostat -c: the avg-cpu lines of the iostat log alone)",
    "perf-report-callgraph": "not generated yet (perf report -g caller layout)",
}


def made_once(name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``$TMPDIR/<name>``, filled by ``make(folder)`` on first use: built in a folder of its own and
    renamed into place, so pyperf's parallel workers never read a half-written input."""
    import shutil
    import tempfile

    d = Path(tempfile.gettempdir()) / name
    if (d / "done").exists():
        return d
    tmp = Path(tempfile.mkdtemp(prefix=name + "-"))
    make(tmp)
    (tmp / "done").write_text("ok\n")
    try:
        tmp.rename(d)
    except OSError:  # another worker won the race
        shutil.rmtree(tmp, ignore_errors=True)
    return d
