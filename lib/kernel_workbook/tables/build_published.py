"""Build ``data/published/*.csv`` from the thread texts and ``manifest.toml``.

    python -m kernel_workbook.tables.build_published          # write the CSVs
    python -m kernel_workbook.tables.build_published --check  # fail if they are stale

Parsed tables come from :func:`~kernel_workbook.tables.parse.parse_text` on
``data/threads/<thread>.txt``; curated ones from the manifest's ``cells``.
Every table the parser finds must be a manifest table or a quote of one
(its cells a subset of an earlier table's); anything else stops the build,
so a table cannot be missed silently.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path

import pandas as pd

from ..errors import WorkbookError
from ..paths import published_dir, threads_dir
from ..threads import THREADS
from .cells import CELL_COLUMNS
from .parse import _dequote, _decimals, parse_text

CSV_COLUMNS = ["thread"] + CELL_COLUMNS + ["source"]
TABLE_COLUMNS = [
    "thread", "table", "title", "status", "lines", "first_line", "last_line", "quoted_at",
    "author", "date", "subject", "message_line", "machine", "baseline", "era", "kind",
    "kernels", "note", "parse_notes", "has_header", "label_title", "layout",
]


class BuildError(WorkbookError):
    pass


def _ranges(spec: str) -> list[tuple[int, int]]:
    out = []
    for part in str(spec).split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-")
            out.append((int(a), int(b)))
        else:
            out.append((int(part), int(part)))
    return out


def _in(line: int, ranges) -> bool:
    return any(a <= line <= b for a, b in ranges)


def load_manifest(path: Path | None = None) -> dict:
    p = path or published_dir() / "manifest.toml"
    with open(p, "rb") as f:
        return tomllib.load(f)


def _message_for(messages: list[dict], thread: str, line: int) -> dict:
    ms = sorted((m for m in messages if m["thread"] == thread), key=lambda m: m["line"])
    cur = {}
    for m in ms:
        if m["line"] <= line:
            cur = m
    return cur


def _key(df: pd.DataFrame) -> set:
    return set(zip(df["stat"], df["row"], df["kernel"], df["value"].round(9), df["pct"].fillna(-9999.0).round(9)))


_TOP_RE = re.compile(r"^%(Cpu\d+)\s*:\s*(.*)$")


def _top_cells(lines: list[str], ranges, kernel: str) -> list[dict]:
    """Cells of top's per-CPU lines (``%Cpu0  :  3.2 us, 13.4 sy, ...``)."""
    out = []
    for a, b in ranges:
        for no in range(a, b + 1):
            m = _TOP_RE.match(_dequote(lines[no - 1])[1].strip())
            if not m:
                raise BuildError(f"line {no}: expected a top '%CpuN :' line, found {lines[no - 1]!r}")
            for part in m.group(2).split(","):
                val, field = part.split()
                out.append({"row": f"{m.group(1)} {field}", "kernel": kernel, "value": float(val),
                            "text": val, "line": no, "unit": "%"})
    return out


_PERF_TOP_RE = re.compile(r"^[-+]?\s*(\d+\.\d+)%\s+(\d+\.\d+)%\s+\[\w+\]\s+\[\w\]\s+(\S+)$")
_PERF_EDGE_RE = re.compile(r"^[-+]?\s*(\d+\.\d+)%\s+(\S+)$")


def _perf_report_cells(lines: list[str], ranges, kernel: str) -> list[dict]:
    """Cells of a ``perf report --children`` call graph pasted in a mail.

    The top line gives children and self percentages of a symbol; each ``x%``
    line below it is the share of its parent's samples going through a caller.
    """
    out = []
    for a, b in ranges:
        for no in range(a, b + 1):
            body = _dequote(lines[no - 1])[1].strip()
            m = _PERF_TOP_RE.match(body)
            if m:
                out.append({"row": f"{m.group(3)} children %", "kernel": kernel, "value": float(m.group(1)),
                            "text": m.group(1) + "%", "line": no, "unit": "%"})
                out.append({"row": f"{m.group(3)} self %", "kernel": kernel, "value": float(m.group(2)),
                            "text": m.group(2) + "%", "line": no, "unit": "%"})
                continue
            m = _PERF_EDGE_RE.match(body)
            if m:
                out.append({"row": f"via {m.group(2)} % of parent", "kernel": kernel, "value": float(m.group(1)),
                            "text": m.group(1) + "%", "line": no, "unit": "%"})
    if not out:
        raise BuildError(f"lines {ranges}: no perf report lines found")
    return out


def build(manifest: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (cells, tables) as they should be on disk."""
    man = manifest or load_manifest()
    messages = man.get("message", [])
    all_cells, all_tables = [], []
    for thread in THREADS:
        text = (threads_dir() / f"{thread}.txt").read_text(encoding="utf-8")
        lines = text.splitlines()
        parsed = parse_text(text, source=f"data/threads/{thread}.txt")
        metas = parsed.attrs["tables"]
        entries = [t for t in man.get("table", []) if t["thread"] == thread]
        claimed: dict[int, str] = {}
        published_keys: list[tuple[str, set]] = []
        tables_rows = []
        for ent in entries:
            tid = ent["id"]
            ranges = _ranges(ent["lines"])
            status = ent.get("status", "parsed")
            msg = _message_for(messages, thread, ranges[0][0])
            if status == "parsed":
                mine = [n for n, m in metas.items() if all(_in(x, ranges) for x in m["row_lines"])]
                if not mine:
                    raise BuildError(f"{thread} {tid}: the parser finds no table in lines {ent['lines']}")
                parts = []
                order_base = 0
                for n in mine:
                    claimed[n] = tid
                    t = parsed[parsed["table"] == n].copy()
                    t["order"] += order_base
                    order_base = int(t["order"].max()) + 1
                    parts.append(t)
                t = pd.concat(parts, ignore_index=True)
                published_keys.append((tid, _key(t)))
                meta = metas[mine[0]]
                if ent.get("kernels"):
                    names = ent["kernels"]
                    if len(names) != t["col"].nunique():
                        raise BuildError(f"{thread} {tid}: {len(names)} kernel names for {t['col'].nunique()} columns")
                    t["kernel"] = [names[c] for c in t["col"]]
                t["table"] = tid
                t["thread"] = thread
                t["source"] = [lines[n - 1].rstrip() for n in t["line"]]
                kind = meta["kind"]
                layout = meta["layout"]
                parse_notes = [nt for n in mine for nt in metas[n]["notes"]]
                first = min(metas[n]["first_line"] for n in mine)
                last = max(metas[n]["last_line"] for n in mine)
                has_header = meta["has_header"]
                label_title = meta["label_title"]
                kernels = list(dict.fromkeys(t.sort_values("col")["kernel"]))
            else:
                if ent.get("from_text") == "top":
                    raw = _top_cells(lines, ranges, ent["baseline"])
                elif ent.get("from_text") == "perf-report":
                    raw = _perf_report_cells(lines, ranges, ent["baseline"])
                else:
                    raw = ent.get("cells", [])
                if not raw:
                    raise BuildError(f"{thread} {tid}: a curated table needs cells")
                kcols = list(dict.fromkeys(c["kernel"] for c in raw))
                rorder = list(dict.fromkeys(c["row"] for c in raw))
                recs = []
                for c in raw:
                    src = lines[c["line"] - 1]
                    if c["text"] not in src:
                        raise BuildError(f"{thread} {tid}: {c['text']!r} is not on line {c['line']}: {src!r}")
                    recs.append({
                        "thread": thread, "table": tid, "stat": c.get("stat", ""), "row": c["row"],
                        "kernel": c["kernel"], "value": float(c["value"]), "pct": float(c.get("pct", "nan")),
                        "sig": False, "unit": c.get("unit", ""), "text": c["text"],
                        "decimals": _decimals(re.sub(r"[^\d.]", "", c["text"].split("m")[-1])),
                        "col": kcols.index(c["kernel"]), "order": rorder.index(c["row"]), "line": c["line"],
                        "quote": _dequote(src)[0], "kind": "plain", "stddev_pct": float("nan"),
                        "source": src.rstrip(),
                    })
                t = pd.DataFrame(recs)
                # one header row of whole names: these labels are descriptions,
                # not mmtests run names to split at their first '-'
                kind, layout, parse_notes, has_header, label_title = "plain", {"header": [kcols]}, [], True, ""
                first = min(a for a, _ in ranges)
                last = max(b for _, b in ranges)
                kernels = kcols
            if ent.get("baseline") and ent["baseline"] not in kernels:
                raise BuildError(f"{thread} {tid}: baseline {ent['baseline']!r} is not a column ({kernels})")
            all_cells.append(t[CSV_COLUMNS])
            tables_rows.append({
                "thread": thread, "table": tid, "title": ent.get("title", ""), "status": status,
                "lines": ent["lines"], "first_line": first, "last_line": last, "quoted_at": "",
                "author": ent.get("author", msg.get("author", "")), "date": ent.get("date", msg.get("date", "")),
                "subject": ent.get("subject", msg.get("subject", "")), "message_line": msg.get("line", 0),
                "machine": ent.get("machine", msg.get("machine", "")), "baseline": ent.get("baseline", kernels[0]),
                "era": THREADS[thread].era, "kind": kind, "kernels": json.dumps(kernels),
                "note": ent.get("note", ""), "parse_notes": json.dumps(parse_notes),
                "has_header": has_header, "label_title": label_title, "layout": json.dumps(layout),
            })
        # every other table the parser found must be a quote of a published one
        quoted: dict[str, list[int]] = {}
        for n, m in metas.items():
            if n in claimed:
                continue
            k = _key(parsed[parsed["table"] == n])
            home = next((tid for tid, pk in published_keys if k <= pk), None)
            if home is None:
                raise BuildError(
                    f"{thread}: the table at line {m['first_line']} is in no manifest entry and quotes none")
            quoted.setdefault(home, []).append(m["first_line"])
        for row in tables_rows:
            row["quoted_at"] = ";".join(str(x) for x in quoted.get(row["table"], []))
        all_tables.extend(tables_rows)
    cells = pd.concat(all_cells, ignore_index=True)
    tables = pd.DataFrame(all_tables, columns=TABLE_COLUMNS)
    return cells, tables


def _write_csv(df: pd.DataFrame, path: Path) -> None:
    df.to_csv(path, index=False, lineterminator="\n")


def write(out_dir: Path | None = None) -> list[Path]:
    d = out_dir or published_dir()
    cells, tables = build()
    written = []
    for thread, g in cells.groupby("thread", sort=False):
        p = d / f"{thread}.csv"
        _write_csv(g, p)
        written.append(p)
    p = d / "tables.csv"
    _write_csv(tables, p)
    written.append(p)
    return written


def check(out_dir: Path | None = None) -> list[str]:
    """Differences between the CSVs on disk and a fresh build (empty: up to date)."""
    import tempfile

    d = out_dir or published_dir()
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for p in write(Path(tmp)):
            have = d / p.name
            if not have.exists():
                problems.append(f"{have} is missing")
            elif have.read_text() != p.read_text():
                problems.append(f"{have} differs from a fresh build")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kernel_workbook.tables.build_published", description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="only compare with what is on disk")
    a = ap.parse_args(argv)
    if a.check:
        problems = check()
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    for p in write():
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
