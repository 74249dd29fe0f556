"""fio's JSON output (``--output-format=json``, fio 2.x to 3.x), so benchmark results load like traces."""

from __future__ import annotations

import json

import pandas as pd

from ._common import guarded, fail, read_source, set_attrs

DIRECTIONS = ("read", "write", "trim")


def _json(text: str, name: str, what: str):
    start = text.find("{")
    if start < 0:
        raise fail(name, text, None, f"{what} (a JSON object)", text[:80])
    try:
        doc, _ = json.JSONDecoder().raw_decode(text, start)  # fio may print notes before the JSON
    except json.JSONDecodeError as e:
        raise fail(name, text, e.pos, f"{what} ({e.msg})") from None
    if not isinstance(doc, dict):
        raise fail(name, text, None, f"{what} (a JSON object)", text[:80])
    return doc


def _flatten(d, prefix="", out=None):
    out = {} if out is None else out
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            _flatten(v, key + ".", out)
        elif isinstance(v, bool):
            out[key] = int(v)
        elif isinstance(v, (int, float)):
            out[key] = v
        elif isinstance(v, str):
            out[key] = v
    return out


@guarded
def parse_fio_json(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse ``fio --output-format=json`` (also ``json+``).

    Returns
    -------
    DataFrame
        One row per job and direction that did I/O (``read``, ``write``,
        ``trim``): ``jobname``, ``groupid``, ``direction``, then fio's own keys
        of that direction flattened with dots: ``io_bytes``, ``bw`` (KiB/s),
        ``bw_bytes``, ``iops``, ``runtime`` (ms), ``total_ios``,
        ``lat_ns.mean``, ``clat_ns.percentile.99.000000``, ``bw_mean``...,
        and the job's ``usr_cpu``, ``sys_cpu``, ``ctx``, ``majf``, ``minf``,
        ``job_runtime``, ``elapsed``, ``numjobs`` (from the job options, 1 if
        absent).  ``attrs``: ``version`` (``fio-3.33``), ``timestamp``,
        ``disk_util`` (list of dicts as fio printed it), ``global_options``.
    """
    text, name = read_source(src, source, max_bytes)
    doc = _json(text, name, "fio JSON output")
    jobs = doc.get("jobs")
    if not isinstance(jobs, list):
        raise fail(name, text, None, "fio JSON with a 'jobs' list", text[:80])
    recs = []
    for j in jobs:
        if not isinstance(j, dict):
            raise fail(name, text, None, "a JSON object per fio job", str(j)[:80])
        opts = j.get("job options") if isinstance(j.get("job options"), dict) else {}
        base = {"jobname": j.get("jobname"), "groupid": j.get("groupid")}
        for k in ("usr_cpu", "sys_cpu", "ctx", "majf", "minf", "job_runtime", "elapsed", "error"):
            v = j.get(k)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                base[k] = v
        try:
            base["numjobs"] = int(opts.get("numjobs", (doc.get("global options") or {}).get("numjobs", 1)))
        except (TypeError, ValueError, AttributeError):
            base["numjobs"] = 1
        for d in DIRECTIONS:
            dd = j.get(d)
            if not isinstance(dd, dict):
                continue
            if not (dd.get("io_bytes") or dd.get("total_ios") or dd.get("io_kbytes")):
                continue
            rec = dict(base)
            rec["direction"] = d
            rec.update(_flatten(dd))
            recs.append(rec)
    df = pd.DataFrame(recs)
    if len(df):
        first = ["jobname", "groupid", "direction"]
        df = df[first + [c for c in df.columns if c not in first]]
    return set_attrs(df, name, "fio-json", doc.get("fio version"), None, timestamp=doc.get("timestamp"),
                     disk_util=doc.get("disk_util") if isinstance(doc.get("disk_util"), list) else [],
                     global_options=doc.get("global options") if isinstance(doc.get("global options"), dict)
                     else {})
