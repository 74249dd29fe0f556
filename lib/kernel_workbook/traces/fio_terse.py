"""fio's terse output (``--minimal``, ``--output-format=terse``), terse versions 2 to 5.

One line per job, fields separated by ``;``, in the order fio's manual lists
them under TERSE OUTPUT: the version, fio's version (from v3), the job name,
group and error; per direction (read, write, and trim except in v3) the I/O,
bandwidth, IOPS, runtime, submission/completion/total latency with twenty
completion-latency percentiles (``1.000000%=61``), bandwidth statistics (v5:
their sample count and IOPS statistics); CPU use; the I/O depth and latency
distributions; each disk's utilisation (from v3); then, when set, the error
count and first error (``continue_on_error``) and the job's description.
Terse reports latencies in microseconds and sizes in KiB, where the JSON
output reports nanoseconds and bytes: the column names carry the unit.
"""

from __future__ import annotations

import re

import pandas as pd

from ._common import fail, guarded, read_source, set_attrs

_DIRECTION = (["io_kbytes", "bw_kbs", "iops", "runtime_ms"]
              + [f"slat_{s}_us" for s in ("min", "max", "mean", "stdev")]
              + [f"clat_{s}_us" for s in ("min", "max", "mean", "stdev")]
              + [f"clat_pct{k:02d}" for k in range(1, 21)]
              + [f"lat_{s}_us" for s in ("min", "max", "mean", "stdev")]
              + ["bw_min_kbs", "bw_max_kbs", "bw_agg_pct", "bw_mean_kbs", "bw_dev_kbs"])
_V5_EXTRA = ["bw_samples", "iops_min", "iops_max", "iops_mean", "iops_stdev", "iops_samples"]
_JOB_TAIL = (["usr_cpu", "sys_cpu", "ctx", "majf", "minf"]
             + [f"iodepth_{d}" for d in ("1", "2", "4", "8", "16", "32", "ge64")]
             + [f"lat_us_{d}" for d in ("le2", "4", "10", "20", "50", "100", "250", "500", "750", "1000")]
             + [f"lat_ms_{d}" for d in ("le2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000",
                                        "ge2000")])
_DISK = ["name", "read_ios", "write_ios", "read_merges", "write_merges", "read_ticks", "write_ticks", "in_queue",
         "util"]
_PCT_RE = re.compile(r"(\d+(?:\.\d+)?)%=(-?\d+)")


def _layout(version: int) -> tuple[list[str], list[str]]:
    head = ["terse_version"] + (["fio_version"] if version >= 3 else []) + ["jobname", "groupid", "error"]
    dirs = ["read", "write"] + (["trim"] if version != 3 else [])
    per = _DIRECTION + (_V5_EXTRA if version >= 5 else [])
    return head, [f"{d}.{f}" for d in dirs for f in per]


@guarded
def parse_fio_terse(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse fio's terse output (versions 2 to 5).

    Returns
    -------
    DataFrame
        One row per job and direction that did I/O (``read``, ``write``, ``trim``), as
        :func:`parse_fio_json` gives them: ``jobname``, ``groupid``, ``direction``, ``error``, then the
        direction's fields (``io_kbytes``, ``bw_kbs``, ``iops``, ``runtime_ms``, ``slat_*_us``,
        ``clat_*_us``, ``lat_*_us``, ``bw_*``; v5 also ``bw_samples`` and ``iops_*``), each percentile
        as ``clat_pct_<p>`` (``clat_pct_99.000000``, microseconds), and the job's ``usr_cpu``,
        ``sys_cpu`` (%), ``ctx``, ``majf``, ``minf``, ``iodepth_*`` and ``lat_us_*``/``lat_ms_*`` (% of
        I/Os).  ``attrs``: ``version`` (``fio-3.33``; None in v2), ``terse_version``, ``disk_util``
        (one dict per disk and job), ``descriptions`` (job -> text), ``errors`` (job -> (count, first
        error) with ``continue_on_error``).
    """
    text, name = read_source(src, source, max_bytes)
    lines = text.split("\n")
    recs, disks, descs, errors = [], [], {}, {}
    fio_version = terse = None
    for i, ln in enumerate(lines):
        if not ln.strip():
            continue
        f = ln.rstrip("\n").split(";")

        def bad(expected, i=i, ln=ln):
            return fail(name, text, ("line", i + 1), expected, ln)

        if not f[0].isdigit() or int(f[0]) not in (2, 3, 4, 5):
            if i > 0 and terse == 2 and lines[i - 1].strip():
                descs[recs[-1]["jobname"] if recs else ""] = ln  # v2 puts the description on a line of its own
                continue
            raise bad("a fio terse line: '<terse version 2-5>;fio-<version>;<jobname>;...'")
        v = int(f[0])
        if terse is not None and v != terse:
            raise bad(f"terse version {terse} like the lines above")
        terse = v
        head, body = _layout(v)
        need = len(head) + len(body) + len(_JOB_TAIL)
        if len(f) < need:
            raise bad(f"{need} fields of terse version {v} (found {len(f)})")
        job = dict(zip(head, f))
        if v >= 3:
            fio_version = job["fio_version"]
        k = len(head)
        vals = dict(zip(body, f[k:k + len(body)]))
        tail = dict(zip(_JOB_TAIL, f[k + len(body):need]))
        rest = f[need:]
        # each disk is 9 fields ending in its utilisation '%'; then the error count and first error
        # (continue_on_error), then the description, which may itself hold ';'
        while v >= 3 and len(rest) >= 9 and rest[8].endswith("%"):
            d = dict(zip(_DISK, rest[:9]))
            disks.append({"jobname": job["jobname"], **{kk: _num(vv, bad) if kk != "name" else vv
                                                         for kk, vv in d.items()}})
            rest = rest[9:]
        if len(rest) >= 2 and rest[0].isdigit() and re.fullmatch(r"-?\d+", rest[1]):
            errors[job["jobname"]] = (int(rest[0]), int(rest[1]))
            rest = rest[2:]
        if rest and any(rest):
            descs[job["jobname"]] = ";".join(rest)
        base = {"jobname": job["jobname"], "groupid": int(_num(job["groupid"], bad)),
                "error": int(_num(job["error"], bad))}
        jobcols = {kk: _num(vv, bad) for kk, vv in tail.items()}
        for d in ("read", "write", "trim"):
            if f"{d}.io_kbytes" not in vals:
                continue
            rec = dict(base, direction=d)
            for kk, vv in vals.items():
                if not kk.startswith(d + "."):
                    continue
                fld = kk[len(d) + 1:]
                if fld.startswith("clat_pct"):
                    m = _PCT_RE.fullmatch(vv)
                    if not m:
                        raise bad(f"a completion latency percentile '<p>%=<usec>' for {d}")
                    rec[f"clat_pct_{m.group(1)}"] = float(m.group(2))
                else:
                    rec[fld] = _num(vv, bad)
            if not (rec["io_kbytes"] or rec["iops"]):
                continue  # a direction without I/O, left out as parse_fio_json leaves it out
            rec.update(jobcols)
            recs.append(rec)
    if terse is None:
        raise fail(name, text, None, "fio terse lines ('3;fio-3.33;<jobname>;...')", text[:80])
    df = pd.DataFrame(recs)
    if len(df):
        first = ["jobname", "groupid", "direction"]
        df = df[first + [c for c in df.columns if c not in first]]
    return set_attrs(df, name, "fio-terse", fio_version, None, terse_version=terse, disk_util=disks,
                     descriptions=descs, errors=errors)


def _num(s: str, bad) -> float:
    t = s.strip()
    if t.endswith("%"):
        t = t[:-1]
    try:
        return float(t)
    except ValueError:
        raise bad(f"a number (found {s!r})") from None

