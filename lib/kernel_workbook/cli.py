"""``kwb``: the workbook from a shell.

    kwb tables [THREAD] [--table ID] [--format text|markdown|html|csv] [--list]
    kwb tables --mail FILE [--table N] [--format ...] [--list]    (every table in any mail)
    kwb reproduce THREAD [--json] [--seeds N]  |  kwb reproduce --all
    kwb bench [--json] [--suites S,...] [--rigorous] [--check]
    kwb report [--out DIR]

Further subcommands live in their own modules (``cli_traces``, ``cli_sweep``,
``cli_grade``, ``cli_present``), each adding itself with ``register(subparsers)``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from .argtypes import one_line_errors, whole
from .errors import WorkbookError, WorkbookInputWarning, WorkbookParameterError



def _extra_commands() -> list:
    """The functions that add the other subcommands: ``register(subparsers) -> None``, one module each."""
    from . import cli_grade, cli_present, cli_sweep, cli_traces

    return [cli_traces.register, cli_sweep.register, cli_grade.register, cli_present.register]


def _cmd_mail_tables(a) -> int:
    """The tables of a mail (or a saved thread) of the user's, as parse_text reads them."""
    from .tables import parse_file

    if a.thread:
        raise WorkbookParameterError("thread", a.thread, "no thread with --mail (the tables come from the file)")
    cells = parse_file(a.mail)
    metas = cells.attrs.get("tables") or {}
    if a.table is not None:
        if a.table not in {str(t) for t in metas}:
            raise WorkbookParameterError("--table", a.table, f"a table number of {a.mail}: "
                                         + (", ".join(str(t) for t in metas) or "it has none"))
        metas = {t: m for t, m in metas.items() if str(t) == a.table}
        cells = cells[cells["table"].astype(str) == a.table]
    if not metas:
        print(f"{a.mail}: no table found", file=sys.stderr)
        return 1
    if a.format == "csv":
        cells.to_csv(sys.stdout, index=False)
        return 0
    for tid, meta in metas.items():
        where = f"lines {meta['first_line']}-{meta['last_line']}"
        kernels = ", ".join(k or "(no name)" for k in meta["kernels"])
        if a.list:
            print(f"{tid:>3}  {meta['kind']:8s} {where:16s} {meta['title'] or '(no title)'}  [{kernels}]")
            continue
        _print_table(cells[cells["table"] == tid], a.format, f"{a.mail} / table {tid} ({meta['kind']}, {where})",
                     meta["title"], [f"note: {n}" for n in meta.get("notes") or []])
    return 0


def _print_table(t, fmt: str, head: str, title: str, lines: list[str]) -> None:
    """One table of ``kwb tables``: a heading with the lines that say where it comes from, then the table."""
    from .tables import render

    if fmt == "text":
        print(f"== {head}: {title}")
        for ln in lines:
            print(f"   {ln}")
        print()
        print(render(t))
    else:
        print(f"### {head}\n\n{title}\n")
        print(render(t, fmt=fmt))
    print()


def _cmd_tables(a) -> int:
    from .tables import published, published_tables
    from .threads import THREADS

    if a.mail:
        return _cmd_mail_tables(a)
    threads = [a.thread] if a.thread else list(THREADS)
    if a.thread and a.thread not in THREADS:
        raise WorkbookParameterError("thread", a.thread, "one of " + ", ".join(THREADS))
    if a.table and not a.thread:  # the table id alone: the thread that holds it
        threads = [th for th in THREADS if a.table in set(published_tables(th)["table"])]
        if not threads:
            raise WorkbookParameterError("--table", a.table, "a table id listed by `kwb tables --list`")
        a.thread = threads[0]
    if a.list:
        t = published_tables(a.thread)
        for r in t.itertuples():
            print(f"{r.thread:28s} {r.table:28s} {r.status:8s} lines {r.lines:18s} {r.title}")
        return 0
    if a.format == "csv":
        df = published(a.thread, a.table)
        df.to_csv(sys.stdout, index=False)
        return 0
    from .ui.panels import provenance

    for th in threads:
        cells = published(th, a.table)
        for tid, meta in cells.attrs["tables"].items():
            lines = [provenance(meta)] + ([f"machine: {meta['machine']}"] if meta.get("machine") else [])
            if not meta.get("has_header", True):
                lines.append(f"(printed without a header; columns: {', '.join(meta['kernels'])})")
            _print_table(cells[cells["table"] == tid], a.format, f"{th} / {tid}", meta["title"], lines)
    return 0


def _cmd_reproduce(a) -> int:
    from .reproduce import format_summary, reproduce_many
    from .threads import THREADS

    if not a.thread and not a.all:
        print("kwb reproduce: name a thread or give --all", file=sys.stderr)
        return 2
    if a.thread and a.all:
        print(f"kwb reproduce: give a thread ({a.thread}) or --all, not both", file=sys.stderr)
        return 2
    if a.thread and a.thread not in THREADS:
        raise WorkbookParameterError("thread", a.thread, "one of " + ", ".join(THREADS))
    threads = list(THREADS) if a.all else [a.thread]
    if a.refit:  # before the pool starts: its local workers inherit the setting
        from .reproduce import fit_cache

        os.environ[fit_cache.ENV] = "off"
    docs = []
    # every run of every thread and seed base is one task of one pool: --all uses every core
    for th, rep in zip(threads, reproduce_many(threads, seeds=a.seeds, workers=a.workers, scheduler=a.scheduler)):
        if a.json:
            docs.append(json.loads(rep.to_json()))
            continue
        print(f"######## {th} ({rep.problem_size} problem size, WORKBOOK_MODE={rep.mode})")
        for block in rep.printed():
            print(block)
            print()
        print(format_summary(rep))
        print()
    if a.json:
        print(json.dumps(docs[0] if len(docs) == 1 else docs, indent=1))
    return 0


def _cmd_bench(a) -> int:
    import pyperf

    from .bench import results, runner_args, suites

    known = list(suites())
    names = [x for x in a.suites.split(",") if x] if a.suites else known
    unknown = [x for x in names if x not in known]
    if unknown:
        raise WorkbookParameterError("--suites", ",".join(unknown), "suite names among " + ", ".join(known))
    # the suites that share pyperf's settings run in one pyperf run; a suite with its own (a long call) in its own
    own = {x: runner_args(x) for x in names}
    shared = [x for x in names if own[x] is None]
    runs = ([(shared, None)] if shared else []) + [([x], own[x]) for x in names if own[x] is not None]
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (group, settings) in enumerate(runs):
            out = Path(tmp) / f"bench{i}.json"
            cmd = [sys.executable, "-m", "kernel_workbook.bench.run", "-o", str(out), "--quiet"]
            cmd += settings if settings else ["--rigorous" if a.rigorous else "--fast"]
            cmd += ["--suites", ",".join(group)]
            proc = subprocess.run(cmd, stdout=subprocess.PIPE if a.json else None)
            if proc.returncode:
                print(f"kwb bench: the pyperf run of {', '.join(group)} failed", file=sys.stderr)
                return proc.returncode
            found += pyperf.BenchmarkSuite.load(str(out)).get_benchmarks()
    rows = results(found)
    if a.json:
        print(json.dumps({"results": rows}, indent=1))
    else:
        for r in rows:
            extra = f"  vs {r['baseline']}: {r['baseline_per_s']:.4g}/s, ratio {r['ratio']:.1f}x" if r["baseline"] else ""
            said = {True: "met", False: "MISSED", None: "not checked"}[r["met"]]
            verdict = "" if r["target"] is None else f"  [target {r['target']}: {said}]"
            peak = "" if r["peak_bytes"] is None else f"  peak {r['peak_bytes'] / 1e6:.4g} MB" + (
                "" if r["peak_ratio"] is None else f" ({r['peak_ratio']:.2f}x size)")
            print(f"{r['name']:60s} {r['ours_per_s']:.4g} {r['unit']}/s{extra}{peak}{verdict}")
    missed = [r["name"] for r in rows if r["met"] is False]
    if missed and a.check:
        print("kwb bench: targets missed: " + "; ".join(missed), file=sys.stderr)
        return 1
    return 0


def _cmd_report(a) -> int:
    from .report import build_report

    os.environ.setdefault("WORKBOOK_MODE", "ci")
    index = build_report(Path(a.out))
    print(index)
    return 0


MAX_SEED_BASES = 1000  # each seed base is a whole reproduction of the thread: 8 is the default, 1000 a day's work


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="kwb", description="Kernel Heuristics Workbook")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("tables", help="print the published tables of the threads, or every table of a mail")
    p.add_argument("thread", nargs="?", help="thread id (default: all five)")
    p.add_argument("--mail", metavar="FILE", help="a mail or a saved thread of yours: every comparison table in it")
    p.add_argument("--table", help="one table id (see --list); with --mail its number")
    p.add_argument("--format", choices=["text", "markdown", "html", "csv"], default="text")
    p.add_argument("--list", action="store_true", help="list the tables with their provenance")
    p.set_defaults(func=_cmd_tables)

    p = sub.add_parser("reproduce", help="published beside model, with a fidelity summary")
    p.add_argument("thread", nargs="?")
    p.add_argument("--all", action="store_true", help="every thread")
    p.add_argument("--json", action="store_true", help="machine-readable cells and summary")
    p.add_argument("--seeds", type=whole(1, MAX_SEED_BASES), default=8,
                   help="seed bases to score (0..N-1; the strict score's mean and range); default 8")
    p.add_argument("--workers", type=whole(1, 4096), default=None, help="local worker processes (default: one per "
                   "core)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on the workers of a Dask cluster (tcp://host:8786; default $DASK_SCHEDULER_ADDRESS when "
                        "no --workers is given)")
    p.add_argument("--refit", action="store_true",
                   help="fit every machine again, not from the fits an earlier run stored for this code and data "
                        "(reproduce/fit_cache.py; local workers only, a cluster's keep their own)")
    p.set_defaults(func=_cmd_reproduce)

    p = sub.add_parser("bench", help="run the pyperf benchmarks")
    p.add_argument("--json", action="store_true")
    p.add_argument("--suites", default="", help="comma-separated suites (default: all)")
    p.add_argument("--rigorous", action="store_true",
                   help="pyperf --rigorous instead of --fast (a suite with settings of its own keeps them)")
    p.add_argument("--check", action="store_true", help="exit 1 when a benchmark misses its target")
    p.set_defaults(func=_cmd_bench)

    p = sub.add_parser("report", help="execute the notebooks and export static HTML")
    p.add_argument("--out", default="build/report")
    p.set_defaults(func=_cmd_report)

    for register in _extra_commands():
        register(sub)
    for name, sp in sub.choices.items():  # one line of error for a wrong option, not argparse's usage block
        if "error" not in vars(sp):  # a subcommand may have its own
            one_line_errors(sp, f"kwb {name}")
    return ap


def _show_warning(shown):
    """Warnings about the user's input printed as a command-line tool prints them (no Python source line);
    any other warning as Python shows it."""
    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, WorkbookInputWarning):
            print(f"kwb: warning: {message}", file=file or sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)
    return show


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    a = ap.parse_args(argv)
    shown = warnings.showwarning
    warnings.showwarning = _show_warning(shown)  # restored below: tests call main() in-process
    try:
        return int(a.func(a) or 0)
    except WorkbookError as e:
        print(f"kwb: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `kwb tables | head`
        return 0
    except OSError as e:  # a user's path: --out in a missing folder, a file that cannot be written
        where = f"{e.filename}: " if e.filename else ""
        print(f"kwb: {where}{e.strerror or e}", file=sys.stderr)
        return 2
    finally:
        warnings.showwarning = shown


if __name__ == "__main__":
    raise SystemExit(main())
