"""Bundles: a folder of monitor logs (``kwb record`` output or an mmtests log tree).

A ``kwb record`` bundle follows mmtests' layout (``<monitor>-<name>.gz`` with
a ``<monitor>-<name>.start``) and adds ``manifest.json`` (machine, kernel,
tool versions, times, command, exit status, interval).  :class:`Bundle`
reads both, and :func:`compare_bundles` prints an mmtests comparison of the
monitors of two or more bundles through :func:`kernel_workbook.tables.compare`.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import SeriesBreakWarning, WorkbookParameterError, WorkbookParseError
from ..settings import FILE as SETTINGS
from ..settings import read_settings_file
from ._common import TruncatedTraceWarning, read_source
from .mmtests import scan_log_tree


class Bundle:
    """The monitor logs of one folder.

    Attributes
    ----------
    root : Path
    manifest : dict
        ``manifest.json`` of a ``kwb record`` bundle, or {} for an mmtests tree.
    logs : DataFrame
        :func:`kernel_workbook.traces.mmtests.scan_log_tree` of the folder.
    """

    def __init__(self, root):
        self.root = Path(root)
        if not self.root.is_dir():
            raise WorkbookParameterError("root", str(root), "a folder of monitor logs")
        mf = self.root / "manifest.json"
        self.manifest = {}
        if mf.exists() or mf.is_symlink():
            text, _ = read_source(mf, str(mf), 1 << 20)  # regular files only, at most 1 MiB
            try:
                self.manifest = json.loads(text)
            except (json.JSONDecodeError, RecursionError, ValueError) as e:
                raise WorkbookParseError(str(mf), None, "a JSON manifest", str(e)[:200]) from None
            if not isinstance(self.manifest, dict):
                raise WorkbookParseError(str(mf), None, "a JSON object", str(self.manifest)[:80])
            iv = self.manifest.get("interval")
            if iv is not None and not (isinstance(iv, (int, float)) and not isinstance(iv, bool)
                                       and np.isfinite(iv) and iv > 0):
                raise WorkbookParseError(str(mf), None, "'interval': a positive number of seconds", repr(iv))
        if self.manifest.get("complete") is False:  # kwb record wrote it at the start and never completed it
            warnings.warn(TruncatedTraceWarning(
                f"{mf}: the recording was cut short (the recorder was killed, or the disk was full, before it "
                f"completed the manifest); the logs hold what was written up to then"), stacklevel=3)
        mons = self.manifest.get("monitors")
        for mon, info in (mons.items() if isinstance(mons, dict) else ()):
            raw = info.get("raw") if isinstance(info, dict) else None
            # perf record's binary data, left when the recorder died before perf script converted it
            if isinstance(raw, str) and raw.endswith(".data") and "/" not in raw and (self.root / raw).is_file():
                warnings.warn(TruncatedTraceWarning(
                    f"{self.root / raw}: {mon}'s perf.data, never converted to text (the recording was cut short); "
                    f"perf script -i {raw} | gzip > {mon}-{self.manifest.get('name', 'NAME')}.gz reads it"),
                    stacklevel=3)
        self.logs = scan_log_tree(self.root)
        self._cache: dict = {}
        self.unused: list[tuple[str, str]] = []

    @property
    def name(self) -> str:
        return str(self.manifest.get("name") or self.root.name)

    def __repr__(self) -> str:
        return f"Bundle({str(self.root)!r}: {', '.join(self.monitors()) or 'no monitors'})"

    def monitors(self) -> list[str]:
        return list(dict.fromkeys(self.logs["monitor"]))

    def summary(self) -> pd.DataFrame:
        """What was found: one row per log with its rows, columns and time span."""
        from . import load

        recs = []
        for r in self.logs.itertuples():
            caught = []
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    df = load(r.path, kind=r.kind)
                rows, cols = df.shape
                span = float(df["elapsed"].max()) if "elapsed" in df.columns and len(df) else np.nan
                ver = df.attrs.get("version")
                err = ""
            except WorkbookParseError as e:
                rows = cols = 0
                span = np.nan
                ver = None
                err = str(e)
            recs.append({"monitor": r.monitor, "test": r.test, "iteration": r.iteration, "kind": r.kind,
                         "rows": rows, "columns": cols, "seconds": span, "version": ver,
                         "bytes": Path(r.path).stat().st_size, "file": Path(r.path).name, "error": err,
                         "warnings": "; ".join(str(w.message) for w in caught)})
        return pd.DataFrame(recs)

    def _select(self, monitor, test=None, iteration=None):
        sel = self.logs[self.logs["monitor"] == monitor]
        if test is not None:
            sel = sel[sel["test"] == test]
        if iteration is not None:
            sel = sel[sel["iteration"] == iteration]
        if sel.empty:
            raise WorkbookParameterError("monitor", monitor, "one of " + ", ".join(self.monitors()))
        return sel

    def load(self, monitor: str, test: str | None = None, iteration: int | None = None,
             kind: str | None = None) -> pd.DataFrame:
        """One monitor's logs, parsed and stacked, with ``run``, ``iteration`` and ``test`` columns.

        When a log carries no times but its ``.start`` file and the
        manifest's ``interval`` are known, ``time`` is ``start + sample *
        interval`` (and ``elapsed`` follows).
        """
        from . import load

        frames = []
        attrs = {}
        for r in self._select(monitor, test, iteration).itertuples():
            key = (r.path, kind)
            if key not in self._cache:
                self._cache[key] = load(r.path, kind=kind or r.kind)
            df = self._cache[key].copy()
            attrs = dict(self._cache[key].attrs)
            iv = self.manifest.get("interval")
            if "time" not in df.columns and "sample" in df.columns and r.start_time == r.start_time \
                    and r.start_time is not None and iv:
                df["time"] = float(r.start_time) + df["sample"].astype(float) * float(iv)
                df["elapsed"] = df["time"] - df["time"].min()
            df.insert(0, "test", r.test)
            df.insert(0, "iteration", r.iteration)
            df.insert(0, "run", r.run)
            frames.append(df)
        out = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        out.attrs = attrs
        out.attrs["bundle"] = str(self.root)
        return out

    def perf_script(self, test: str | None = None):
        """The ``perf-script`` log as a :class:`~kernel_workbook.traces.perfscript.PerfScript`."""
        from .perfscript import parse_perf_script

        r = self._select("perf-script", test).iloc[0]
        return parse_perf_script(Path(r["path"]))

    def samples(self) -> pd.DataFrame:
        """Per-interval samples of the headline metrics of every monitor (long: ``row``, ``value``).

        ``higher_is_better`` says each metric's direction; these are what
        :func:`compare_bundles` compares.
        """
        recs = []
        self.unused = []  # (monitor, why) for every monitor these samples leave out
        for mon in self.monitors():
            fn = _SAMPLERS.get(mon)
            if fn is None:
                self.unused.append((mon, "no headline metrics are compared for this monitor"))
                continue
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    df = self.load(mon)
            except WorkbookParseError as e:
                self.unused.append((mon, str(e)))
                continue
            for w in caught:
                if issubclass(w.category, TruncatedTraceWarning):
                    self.unused.append((mon, f"used, but truncated: {w.message}"))
                elif issubclass(w.category, SeriesBreakWarning):
                    self.unused.append((mon, f"used in segments: {w.message}"))
            got = fn(df)
            used = got.attrs.get("segments")
            if used:  # the samples each segment gave, and that no interval spans two of them
                self.unused.append((mon, f"used {used}"))
            recs.append(got)
        if not recs:
            return pd.DataFrame(columns=["row", "value", "higher_is_better"])
        return pd.concat(recs, ignore_index=True)


def open_bundle(path) -> Bundle:
    """A :class:`Bundle` of the folder *path*."""
    return Bundle(path)


def _melt(df, cols, prefix, hib):
    recs = []
    for c, h in zip(cols, hib):
        if c in df.columns:
            v = pd.to_numeric(df[c], errors="coerce").dropna()
            recs.append(pd.DataFrame({"row": f"{prefix}{c}", "value": v.to_numpy(dtype=float),
                                      "higher_is_better": h}))
    return pd.concat(recs, ignore_index=True) if recs else pd.DataFrame(columns=["row", "value",
                                                                                  "higher_is_better"])


def _vmstat_samples(df):
    d = df[~df["since_boot"]] if "since_boot" in df.columns else df
    cols = ["us", "sy", "id", "wa", "st", "bi", "bo", "si", "so", "in", "cs", "free", "r", "b"]
    hib = [False, False, True, False, False, True, True, False, False, False, False, True, False, False]
    return _melt(d, cols, "vmstat ", hib)


def _iostat_samples(df):
    d = df[~df["since_boot"]] if "since_boot" in df.columns else df
    recs = []
    cols = ["r/s", "w/s", "rkB/s", "wkB/s", "rMB/s", "wMB/s", "r_await", "w_await", "await", "aqu-sz",
            "avgqu-sz", "%util"]
    hib = [True, True, True, True, True, True, False, False, False, False, False, False]
    busy = d.groupby("device")[[c for c in ("r/s", "w/s") if c in d.columns]].sum().sum(axis=1)
    for dev in busy[busy > 0].index:
        recs.append(_melt(d[d["device"] == dev], cols, f"iostat {dev} ", hib))
    return pd.concat(recs, ignore_index=True) if recs else pd.DataFrame(columns=["row", "value",
                                                                                  "higher_is_better"])


def _procvmstat_samples(df):
    from .derived import df_reclaim
    from .procvmstat import df_rates

    if len(df) < 2:
        return pd.DataFrame(columns=["row", "value", "higher_is_better"])
    recs = []
    if "time" in df.columns:
        rates = df_rates(df)
        cols = ["pgpgin", "pgpgout", "pgfault", "pgmajfault", "pswpin", "pswpout", "compact_stall",
                "numa_hint_faults", "numa_pages_migrated", "thp_fault_alloc"]
        hib = [True, True, False, False, False, False, False, False, False, True]
        recs.append(_melt(rates, cols, "proc-vmstat /s ", hib))
    rec = df_reclaim(df)
    recs.append(_melt(rec, ["kswapd_scan", "kswapd_steal", "direct_scan", "direct_steal", "kswapd_efficiency",
                            "direct_efficiency", "kswapd_velocity", "direct_velocity"],
                      "reclaim ", [False, False, False, False, True, True, False, False]))
    out = pd.concat(recs, ignore_index=True)
    desc = rec.attrs.get("segments") or []
    if len(desc) > 1:
        from .procvmstat import segments_text

        out.attrs["segments"] = (segments_text(desc) + "; the intervals between two segments are left out "
                                 "(a counter reset or a clock set back: no delta is known there)")
    return out


def _perfstat_samples(df):
    d = df[df["counted"] == "counted"]
    recs = []
    for ev, g in d.groupby("event", sort=False):
        hib = False
        unit = g["unit"].iloc[0]
        recs.append(pd.DataFrame({"row": f"perf-stat {ev}{' (' + unit + ')' if unit else ''}",
                                  "value": g["value"].to_numpy(dtype=float), "higher_is_better": hib}))
    return pd.concat(recs, ignore_index=True) if recs else pd.DataFrame(columns=["row", "value",
                                                                                  "higher_is_better"])


def _fio_samples(df):
    """One sample per fio run: bandwidth and IOPS summed over the jobs (as tiobench reports its threads),
    the mean completion latency averaged over them."""
    recs = []
    for direction, g in df.groupby("direction", sort=False):
        agg = {"bw": g["bw"].sum() if "bw" in g else np.nan, "iops": g["iops"].sum() if "iops" in g else np.nan,
               "lat_ns.mean": g["lat_ns.mean"].mean() if "lat_ns.mean" in g else np.nan}
        recs.append(_melt(pd.DataFrame([agg]), ["bw", "iops", "lat_ns.mean"], f"fio {direction} ",
                          [True, True, False]))
    return pd.concat(recs, ignore_index=True) if recs else pd.DataFrame(columns=["row", "value",
                                                                                  "higher_is_better"])


_SAMPLERS = {"vmstat": _vmstat_samples, "iostat": _iostat_samples, "proc-vmstat": _procvmstat_samples,
             "perf-stat": _perfstat_samples, "fio": _fio_samples}


def _labels(roots: list[Path], names: list[str] | None) -> list[str]:
    """Each bundle's column name: ``names``, else its folder's; numbered when two are the same."""
    labels = names or [r.resolve().name for r in roots]
    if len(set(labels)) < len(labels):
        labels = [f"{k}-{lab}" for k, lab in enumerate(labels)]
    return labels


def df_settings_differ(bundles, names: list[str] | None = None) -> pd.DataFrame:
    """The settings (``settings.txt`` of ``kwb record``) that differ between bundles, or that one bundle has and
    another has not: one row per file, one column per bundle (its value, None where it has none).  Columns:
    ``setting`` then the bundles' names; ``attrs["unrecorded"]`` lists the bundles without a settings file."""
    roots = [b.root if isinstance(b, Bundle) else Path(b) for b in bundles]
    labels = _labels(roots, names)
    got, unrecorded = {}, []
    for lab, root in zip(labels, roots):
        f = root / SETTINGS
        if f.is_file():
            got[lab] = {k: v for k, (v, _n) in read_settings_file(f).items()}
        else:
            unrecorded.append(lab)
    keys = sorted(set().union(*got.values())) if got else []
    rows = [{"setting": k, **{lab: got[lab].get(k) for lab in got}} for k in keys
            if len({got[lab].get(k) for lab in got}) > 1]
    df = pd.DataFrame(rows, columns=["setting", *got])
    df = df.astype(object).where(df.notna(), None)  # a setting a bundle has not: None, not NaN
    df.attrs["unrecorded"] = unrecorded
    return df


def compare_bundles(bundles, names: list[str] | None = None, era: str = "current",
                    significance: str | None = "welch") -> pd.DataFrame:
    """An mmtests comparison of the monitors of two or more bundles (a cells frame for ``render``).

    The first bundle is the baseline.  Each metric is sampled once per
    interval (vmstat and iostat lines, /proc/vmstat deltas, perf stat
    counts); metrics that a bundle lacks are left out of the table.
    """
    bs = [b if isinstance(b, Bundle) else Bundle(b) for b in bundles]
    if len(bs) < 2:
        raise WorkbookParameterError("bundles", len(bs), "two or more bundles")
    if names is not None and len(names) != len(bs):
        raise WorkbookParameterError("names", ",".join(names), f"{len(bs)} names, one per bundle")
    labels = _labels([b.root for b in bs], names)
    parts = []
    unused = []
    for lab, b in zip(labels, bs):
        s = b.samples()
        s["kernel"] = lab
        unused += [(lab, mon, why) for mon, why in b.unused]
        parts.append(s)
    allp = pd.concat(parts, ignore_index=True)
    if allp.empty:
        raise WorkbookParameterError("bundles", [str(b.root) for b in bs], "bundles with vmstat, iostat, "
                                     "proc-vmstat, perf-stat or fio monitors")
    counts = allp.groupby("row")["kernel"].nunique()
    nonzero = allp.groupby("row")["value"].apply(lambda v: bool((v != 0).any()))
    keep = counts[(counts == len(labels)) & nonzero.reindex(counts.index).fillna(False)].index
    allp = allp[allp["row"].isin(keep)]
    rows = list(dict.fromkeys(allp["row"]))
    hib = dict(zip(allp["row"], allp["higher_is_better"].astype(bool)))
    from ..tables import compare

    cells = compare(allp[["kernel", "row", "value"]], baseline=labels[0], higher_is_better=hib,
                    stats=("Min", "Amean", "Max"), era=era, significance=significance,
                    kernels=labels, title="monitors")
    cells = cells[cells["row"].isin(rows)]
    cells.attrs["unused"] = unused  # (bundle, monitor, why): what the table could not use, and why
    return cells
