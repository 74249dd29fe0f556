"""``kwb parse``, ``kwb record``, ``kwb compare``: the traces from a shell.

    kwb parse FILE [--kind K] [--to csv|parquet|json] [--out PATH]
    kwb record --out DIR [--interval S] [--perf-events E,...] [--perf-record] [--name N] [--force] -- COMMAND [ARGS...]
    kwb compare BUNDLE_A BUNDLE_B [...] [--format text|markdown|html] [--era E]
"""

from __future__ import annotations

import sys
from pathlib import Path

from .argtypes import seconds


def _cmd_parse(a) -> int:
    from .errors import WorkbookParameterError
    from .traces import KINDS, load

    if not Path(a.file).exists():
        from .errors import WorkbookParseError

        raise WorkbookParseError(a.file, None, "an existing file or folder", "no such file")
    df = load(a.file, kind=a.kind)
    if not hasattr(df, "to_csv"):  # a folder: a Bundle
        if df.logs.empty:
            raise _not_a_bundle(Path(a.file))
        print(df.summary().to_string(index=False))
        return 0
    if a.to == "parquet":
        if not a.out:
            raise WorkbookParameterError("--out", None, "a file name for parquet output")
        out = df.copy()
        out.attrs = {}
        out.columns = [str(c) for c in out.columns]
        out.to_parquet(a.out)
        print(f"kwb parse: {len(df)} rows ({df.attrs.get('format')}) -> {a.out}", file=sys.stderr)
        return 0
    dest = a.out or sys.stdout
    if a.to == "json":
        text = df.to_json(orient="records", date_format="iso", indent=None)
        if a.out:
            Path(a.out).write_text(text + "\n")
        else:
            sys.stdout.write(text + "\n")
    else:
        df.to_csv(dest, index=False)
    if a.out:
        print(f"kwb parse: {len(df)} rows ({df.attrs.get('format')}) -> {a.out}", file=sys.stderr)
    return 0


def _not_a_bundle(folder: Path):
    """A folder with no monitor log: what a bundle's logs are called, and what the folder holds instead."""
    from .errors import WorkbookParseError
    from .traces.mmtests import MONITOR_KINDS

    files = sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    found = (f"{len(files)} file(s), none named as a monitor log (the first: {', '.join(files[:3])})" if files
             else "no files")
    names = ", ".join(list(MONITOR_KINDS)[:3] + ["perf-stat"])
    return WorkbookParseError(
        str(folder), None, f"a bundle: monitor logs named <monitor>-<name>[.gz] as kwb record and mmtests write them "
        f"({names}, ...); a single capture is read with kwb parse FILE", found)


def _cmd_record(a) -> int:
    from .traces.record import Recorder

    argv = list(a.command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    events = [e for e in (a.perf_events or "").split(",") if e] or None
    r = Recorder(a.out, argv, interval=a.interval, perf_events=events, perf_record=a.perf_record, name=a.name,
                 force=a.force)
    rc = r.run()
    m = r.manifest
    print(f"kwb record: {a.out}: exit status {m['exit_status']}"
          f"{', interrupted by ' + m['interrupted'] if m['interrupted'] else ''}; monitors: "
          + ", ".join(f"{k} {v['status']}" for k, v in m["monitors"].items())
          + _settings_said(m.get("settings")), file=sys.stderr)
    return rc


def _settings_said(st: dict | None) -> str:
    if not st:
        return ""
    if not st.get("file"):
        return f"; settings not kept ({st.get('error')})"
    return (f"; settings: {st['entries']} files in {st['file']}"
            + (f" ({len(st['unread'])} not readable, named in the manifest)" if st["unread"] else ""))


def _cmd_compare(a) -> int:
    from .tables import render
    from .traces.bundle import compare_bundles, df_settings_differ

    names = a.names.split(",") if a.names else None
    cells = compare_bundles(a.bundles, names=names, era=a.era)
    print(render(cells, era=a.era, fmt=a.format))
    for bundle, mon, why in cells.attrs.get("unused", []):
        print(f"kwb compare: {bundle}: {mon}: {why}", file=sys.stderr)
    meta = cells.attrs.get("tables", {})
    for t in meta.values():
        if t.get("significance"):
            print(t["significance"])
    _print_settings(df_settings_differ(a.bundles, names=names))
    return 0


def _print_settings(df) -> None:
    """The settings that differ between the bundles, under the comparison (one line each, aligned)."""
    for lab in df.attrs.get("unrecorded", []):
        print(f"kwb compare: {lab}: no settings.txt (recorded before kwb record kept the settings, or not by it)",
              file=sys.stderr)
    if len(df.columns) < 3:
        return
    if df.empty:
        print("\nsettings: the same in every bundle")
        return
    shown = df.where(df.notna(), "-").rename(columns={"setting": ""})  # "-": a bundle without the file
    print("\nsettings that differ\n" + shown.to_string(index=False, justify="right"))


def register(sub) -> None:
    from .traces import KINDS

    p = sub.add_parser("parse", help="read a trace file (vmstat, iostat, perf, procfs...) into a table")
    p.add_argument("file")
    p.add_argument("--kind", choices=list(KINDS), help="the format (default: sniffed)")
    p.add_argument("--to", choices=["csv", "parquet", "json"], default="csv")
    p.add_argument("--out", help="write here instead of standard output (required for parquet)")
    p.set_defaults(func=_cmd_parse)

    p = sub.add_parser("record", help="run a command under vmstat, iostat, /proc snapshots and perf")
    p.add_argument("--out", required=True, help="the bundle folder to write")
    p.add_argument("--interval", type=seconds(0.05, 3600), default=1.0, help="seconds between samples (default 1)")
    p.add_argument("--perf-events", help="comma-separated perf events (default: software events and "
                   "kmem/vmscan/migrate/compaction tracepoints)")
    p.add_argument("--perf-record", action="store_true", help="also perf record -g, saved as perf script text")
    p.add_argument("--name", help="the test name in the log names (default: the command's name)")
    p.add_argument("--force", action="store_true", help="record into a folder that is not empty (logs of the same "
                   "names are replaced)")
    p.add_argument("command", nargs="+", metavar="-- COMMAND [ARGS...]")
    p.set_defaults(func=_cmd_record)

    p = sub.add_parser("compare", help="mmtests comparison of the monitors of two or more bundles")
    p.add_argument("bundles", nargs="+")
    p.add_argument("--names", help="comma-separated column names (default: the bundles' names)")
    p.add_argument("--format", choices=["text", "markdown", "html"], default="text")
    p.add_argument("--era", default="current")
    p.set_defaults(func=_cmd_compare)
