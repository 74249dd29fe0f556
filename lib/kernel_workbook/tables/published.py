"""The tables printed in the five threads, as data (``data/published``)."""

from __future__ import annotations

import json
from functools import lru_cache

import pandas as pd

from ..errors import WorkbookParameterError
from ..paths import published_dir
from ..threads import THREADS

_JSON_FIELDS = ("kernels", "parse_notes", "layout")


@lru_cache(maxsize=1)
def _tables_frame() -> pd.DataFrame:
    df = pd.read_csv(published_dir() / "tables.csv", dtype=str, keep_default_na=False)
    for c in ("first_line", "last_line", "message_line"):
        df[c] = df[c].astype(int)
    df["has_header"] = df["has_header"] == "True"
    return df


@lru_cache(maxsize=8)
def _cells(thread: str) -> pd.DataFrame:
    df = pd.read_csv(published_dir() / f"{thread}.csv", keep_default_na=False,
                     na_values={"value": [""], "pct": [""], "stddev_pct": [""]},
                     dtype={"stat": str, "row": str, "kernel": str, "unit": str, "text": str, "kind": str,
                            "source": str, "table": str, "thread": str})
    df["sig"] = df["sig"].astype(str) == "True"
    return df


def published_tables(thread: str | None = None) -> pd.DataFrame:
    """One row per published table: provenance and how it was obtained.

    Columns: ``thread, table, title, status`` (``parsed`` or ``curated``),
    ``lines`` (first appearance in ``data/threads/<thread>.txt``),
    ``first_line, last_line, quoted_at`` (lines where replies quote it again),
    ``author, date, subject, message_line, machine, baseline, era, kind,
    kernels, note, parse_notes, has_header, label_title, layout``.
    """
    df = _tables_frame()
    if thread is not None:
        _check_thread(thread)
        df = df[df["thread"] == thread]
    return df.reset_index(drop=True).copy()


def _check_thread(thread: str) -> None:
    if thread not in THREADS:
        raise WorkbookParameterError("thread", thread, "one of " + ", ".join(THREADS))


def published(thread: str | None = None, table: str | None = None) -> pd.DataFrame:
    """Cells of the published tables (all, one thread's, or one table).

    Returns a cells frame (see :mod:`kernel_workbook.tables.cells`) with two
    more columns: ``thread`` and ``source`` (the text of the line the cell was
    read from).  ``df.attrs["tables"]`` holds each table's metadata (title,
    author, date, machine, baseline, layout...), so :func:`render` prints it
    the way the thread did.
    """
    if thread:
        _check_thread(thread)
    # a copy of the frame read once: reproductions look numbers up thousands of times, and building the frame
    # (concatenation, the metadata's JSON) cost ~3 ms a call; the copy deep-copies attrs, so no caller can
    # change what the next one gets
    return _published(thread, table).copy()


@lru_cache(maxsize=128)
def _published(thread: str | None, table: str | None) -> pd.DataFrame:
    threads = [thread] if thread else list(THREADS)
    parts = [_cells(t) for t in threads]
    df = pd.concat(parts, ignore_index=True)
    meta = published_tables(thread)
    if table is not None:
        if table not in set(meta["table"]):
            raise WorkbookParameterError("table", table, "one of " + ", ".join(meta["table"]))
        df = df[df["table"] == table]
        meta = meta[meta["table"] == table]
    df = df.reset_index(drop=True).copy()
    df.attrs["tables"] = {r["table"]: _meta(r) for r in meta.to_dict("records")}
    return df


def _meta(r: dict) -> dict:
    m = dict(r)
    for f in _JSON_FIELDS:
        m[f] = json.loads(m[f]) if m.get(f) else ([] if f != "layout" else {})
    m["quoted_at"] = [int(x) for x in m["quoted_at"].split(";") if x] if m.get("quoted_at") else []
    return m


def baseline_of(thread: str, table: str) -> str:
    """The kernel column a table's percentages are against."""
    return _baselines(thread)[table]


@lru_cache(maxsize=16)
def _baselines(thread: str) -> dict:
    # looked up per cell by the reproductions: one frame per thread, not one per call (a tenth of a 2014 seed)
    df = published_tables(thread)
    return dict(zip(df["table"], df["baseline"]))
