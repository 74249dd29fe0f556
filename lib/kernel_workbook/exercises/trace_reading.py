"""Exercises on reading real captures (``data/traces``): reclaim efficiency, iostat's await, flame graphs.

The captures are the repository's own (each folder's README says the
machine, kernel and command); the seed picks a window, a row or a frame, so
every student reads a different part of the same capture.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import traces
from ..paths import traces_dir
from .seeded import Number, Page, Seeded, Sign, sign_of

PRESSURE_VMSTAT = "memory-pressure/bundle/proc-vmstat-pressure.gz"
IO_BUNDLES = ("perf-io/bundle", "perf-io/bundle-direct")


@lru_cache(maxsize=None)
def _load(rel: str):
    return traces.load(traces_dir() / rel)


@lru_cache(maxsize=None)
def _fold(rel: str):
    return traces.fold(traces_dir() / rel)


def _rel(path: str) -> str:
    return "data/traces/" + path


# ------------------------------------------------------------------ reclaim efficiency

RECLAIM_COUNTERS = ("pgscan_kswapd", "pgsteal_kswapd", "pgscan_direct", "pgsteal_direct")


class ReclaimEfficiency(Seeded):
    name = "trace-reclaim-efficiency"
    title = "Exercise 4 -- reclaim efficiency from /proc/vmstat"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'reclaim efficiency from /proc/vmstat',
        'A real capture of `/proc/vmstat` taken while a program pushed the machine into reclaim '
        '(`data/traces/memory-pressure`). The counters are totals since boot; the seed picks two snapshots.',
        demo=101, example=('kswapd_velocity', 1287158.0))
    level, minutes, thread, topic = "intermediate", 15, "2012 compaction, 2014 fair zone (reclaim)", "reading traces"
    questions = {
        "kswapd_efficiency": "kswapd's reclaim efficiency over the window: % of the pages it scanned that it reclaimed",
        "direct_percentage": "the share of all scanned pages that direct reclaim scanned (%)",
        "kswapd_velocity": "kswapd's scan velocity over the window (pages scanned per second)",
    }
    kinds = {"kswapd_efficiency": Number(tol=0.05, unit="%"), "direct_percentage": Number(tol=0.05, unit="%"),
             "kswapd_velocity": Number(rel=0.01, unit="pages/s", digits=0)}

    def draw(self, rng):
        df = _load(PRESSURE_VMSTAT)
        scan = df["pgscan_kswapd"].to_numpy(dtype=float)
        moving = np.flatnonzero(np.diff(scan) > 0)  # intervals in which kswapd scanned
        first, last = int(moving[0]), int(moving[-1]) + 1
        a = int(rng.integers(max(0, first - 2), last - 1))
        b = int(rng.integers(max(a + 1, first + 1), min(len(df) - 1, last + 2) + 1))
        return {"capture": _rel(PRESSURE_VMSTAT), "first_snapshot": a, "last_snapshot": b}

    def _rows(self):
        df = _load(PRESSURE_VMSTAT)
        return df.iloc[[self.params["first_snapshot"], self.params["last_snapshot"]]]

    def text(self):
        rows = self._rows()
        el = rows["elapsed"].to_numpy()
        lines = [f"Two snapshots of /proc/vmstat (counters since boot) from {self.params['capture']}:",
                 f"  {'counter':16s} {'snapshot %d' % self.params['first_snapshot']:>16s} "
                 f"{'snapshot %d' % self.params['last_snapshot']:>16s}"]
        for c in RECLAIM_COUNTERS:
            v = rows[c].to_numpy()
            lines.append(f"  {c:16s} {int(v[0]):16d} {int(v[1]):16d}")
        lines.append(f"  {'elapsed (s)':16s} {el[0]:16.3f} {el[1]:16.3f}")
        return "\n".join(lines)

    def truth(self):
        rows = self._rows()
        s = traces.reclaim_summary(rows.reset_index(drop=True))
        d = {c: float(rows[c].iloc[1] - rows[c].iloc[0]) for c in RECLAIM_COUNTERS}
        eff = s["kswapd_efficiency"]
        return {"kswapd_efficiency": round(eff if eff == eff else 100.0, 2),
                "direct_percentage": round(s["direct_percentage"] if s["direct_percentage"] == s["direct_percentage"]
                                           else 0.0, 2),
                "kswapd_velocity": round(s["kswapd_velocity"], 1), "d": d, "elapsed": s["elapsed"],
                "end": {c: float(rows[c].iloc[1]) for c in RECLAIM_COUNTERS}}

    def working(self, t):
        d = t["d"]
        return ["deltas: " + ", ".join(f"{c} {int(v)}" for c, v in d.items()),
                f"kswapd efficiency = pgsteal_kswapd / pgscan_kswapd = {int(d['pgsteal_kswapd'])} / "
                f"{int(d['pgscan_kswapd'])} (100% when nothing was scanned)",
                "direct percentage = pgscan_direct / (pgscan_kswapd + pgscan_direct) x 100",
                f"velocity = pgscan_kswapd delta / {t['elapsed']:.3f} s"]

    def mistake(self, key, g, t):
        d, e = t["d"], t["end"]
        k = self.kinds[key]
        if key == "kswapd_efficiency" and d["pgsteal_kswapd"] > 0 and k.close(g, d["pgscan_kswapd"] * 100 / d["pgsteal_kswapd"]):
            return "scanned over reclaimed: efficiency is reclaimed over scanned"
        if key == "kswapd_efficiency" and e["pgscan_kswapd"] > 0 and k.close(g, e["pgsteal_kswapd"] * 100 / e["pgscan_kswapd"]):
            return "that uses the counters since boot: take the difference between the snapshots"
        if key == "direct_percentage" and d["pgscan_kswapd"] > 0 and k.close(g, d["pgscan_direct"] * 100 / d["pgscan_kswapd"]):
            return "divided by kswapd's scans only: the share is of kswapd's plus direct reclaim's"
        if key == "kswapd_velocity" and k.close(g, d["pgscan_kswapd"]):
            return "that is the number of pages, not per second"
        if key == "kswapd_velocity" and k.close(g, d["pgsteal_kswapd"] / t["elapsed"]):
            return "velocity counts pages scanned, not reclaimed"
        return None

    def typical_mistake(self):
        t = self._truth()
        if t["end"]["pgscan_kswapd"] == 0 or t["d"]["pgscan_kswapd"] == 0:
            return None
        a = self.answer()
        a["kswapd_velocity"] = t["d"]["pgscan_kswapd"]
        return a, "kswapd_velocity"


# ------------------------------------------------------------------ iostat

class IostatAwait(Seeded):
    name = "trace-iostat-await"
    title = "Exercise 5 -- iostat: await, queue and %util"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'iostat: await, queue and %util',
        "A real `iostat -x 1` capture of fio (`data/traces/perf-io`). The seed picks one interval; await and aqu-sz "
        "are hidden. Little's law ties them together, and %util is not what it seems on a device that serves "
        "requests in parallel.",
        demo=101, example=('await', 0.475))
    level, minutes, thread, topic = "intermediate", 15, "2011 and 2014 CFQ (iostat)", "reading traces"
    questions = {
        "await": "the interval's await (ms): the mean time of a request, reads and writes together",
        "queue": "by Little's law, the mean number of requests in flight (what iostat prints as aqu-sz)",
        "depth_when_busy": "the mean number in flight while the device was busy (queue divided by %util/100)",
    }
    kinds = {"await": Number(tol=0.005, rel=0.01, unit="ms", digits=3), "queue": Number(tol=0.01, rel=0.02, digits=2),
             "depth_when_busy": Number(tol=0.01, rel=0.03, digits=2)}

    def draw(self, rng):
        rel = IO_BUNDLES[int(rng.integers(len(IO_BUNDLES)))] + "/iostat-randrw.gz"
        df = traces.df_iostat_await(_load(rel))
        ok = df[(df["r/s"] > 0) & (df["w/s"] > 0) & (df["%util"] > 0)]
        if "since_boot" in df.columns:
            ok = ok[~ok["since_boot"].astype(bool)]
        row = int(ok.index[int(rng.integers(len(ok)))])
        return {"capture": _rel(rel), "row": row}

    def _row(self):
        rel = self.params["capture"][len("data/traces/"):]
        return traces.df_iostat_await(_load(rel)).loc[self.params["row"]]

    def text(self):
        r = self._row()
        return (f"One interval of `iostat -x 1` ({self.params['capture']}, row {self.params['row']}, "
                f"device {r['device']}):\n"
                f"  r/s {r['r/s']:.2f}   w/s {r['w/s']:.2f}   r_await {r['r_await']:.2f} ms   "
                f"w_await {r['w_await']:.2f} ms   %util {r['%util']:.2f}\n"
                "(aqu-sz and await are hidden)")

    def truth(self):
        r = self._row()
        rs, ws, ra, wa, u = (float(r[c]) for c in ("r/s", "w/s", "r_await", "w_await", "%util"))
        aw = (rs * ra + ws * wa) / (rs + ws)
        q = (rs * ra + ws * wa) / 1000.0
        return {"await": round(aw, 4), "queue": round(q, 3), "depth_when_busy": round(q / (u / 100.0), 3),
                "printed_queue": float(r["queue"]), "plain_mean": (ra + wa) / 2, "util": u, "q_ms": rs * ra + ws * wa}

    def working(self, t):
        return [f"await = (r/s x r_await + w/s x w_await) / (r/s + w/s) = {t['await']:.4f} ms (weighted by requests)",
                f"Little's law: in flight = arrivals/s x time in system = {t['q_ms']:.1f} ms/s / 1000 = {t['queue']:.3f}"
                f" (iostat printed aqu-sz {t['printed_queue']:.2f})",
                f"%util is the share of time with at least one request in flight ({t['util']:.1f}%): "
                f"{t['queue']:.3f} / {t['util'] / 100:.3f} = {t['depth_when_busy']:.3f} in flight while busy; above 1, "
                "the device served requests in parallel, so %util below 100 does not mean spare capacity nor 100 "
                "saturation"]

    def mistake(self, key, g, t):
        k = self.kinds[key]
        if key == "await" and k.close(g, t["plain_mean"]):
            return "the plain mean of r_await and w_await: weight each by its requests per second"
        if key == "queue" and k.close(g, t["q_ms"]):
            return "await is in milliseconds: divide by 1000 to get requests in flight"
        if key == "depth_when_busy" and k.close(g, t["queue"] * t["util"] / 100):
            return "multiplied by the busy fraction: divide by it"
        return None

    def typical_mistake(self):
        a = self.answer()
        a["await"] = round(self._truth()["plain_mean"], 4)
        if self.kinds["await"].close(a["await"], self._truth()["await"]):
            return None
        return a, "await"


# ------------------------------------------------------------------ flame graphs

FRAMES = ("ksys_write", "vfs_write", "ext4_buffered_write_iter", "generic_perform_write", "ext4_da_write_begin",
          "__filemap_get_folio", "copy_folio_from_iter_atomic", "do_idle", "__fill_random_buf", "do_syscall_64")


def _shares(rel: str, frame: str):
    f = _fold(rel)
    tot = float(f["count"].sum())
    inc = slf = 0.0
    for s, c in zip(f["stack"], f["count"]):
        fr = s.split(";")
        if frame in fr:
            inc += c
        if fr[-1] == frame:
            slf += c
    return inc, slf, tot


class FlameGraphs(Seeded):
    name = "trace-flamegraph"
    title = "Exercise 6 -- a flame graph and a differential flame graph"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'a flame graph and a differential flame graph',
        "Two real `perf script` captures of fio, buffered and direct (`data/traces/perf-io`). A flame graph's width "
        "is a share of the samples; a differential flame graph compares shares of two profiles. Draw them with "
        "`ui.plot_icicle` and `ui.plot_diff_icicle` if you like; the questions need only the folded stacks "
        "(`traces.fold`).",
        demo=101, example=('inclusive_pct', 0.39))
    level, minutes, thread, topic = "intermediate", 20, "all (perf script)", "reading traces"
    questions = {
        "inclusive_pct": "in the first capture, the width of the frame: % of the sampled time whose stack contains it",
        "self_pct": "in the first capture, its self time: % of the sampled time where it is the leaf (top of stack)",
        "diff_sign": "in the differential flame graph second minus first, is the frame's share '+', '-' or '0' "
                     "(within 0.5 points)",
    }
    kinds = {"inclusive_pct": Number(tol=0.2, unit="%"), "self_pct": Number(tol=0.2, unit="%"), "diff_sign": Sign()}

    def draw(self, rng):
        order = [0, 1] if rng.random() < 0.5 else [1, 0]
        return {"first": _rel(IO_BUNDLES[order[0]] + "/perf-script-randrw.gz"),
                "second": _rel(IO_BUNDLES[order[1]] + "/perf-script-randrw.gz"),
                "frame": FRAMES[int(rng.integers(len(FRAMES)))]}

    def _rels(self):
        return self.params["first"][len("data/traces/"):], self.params["second"][len("data/traces/"):]

    def text(self):
        a, b = self._rels()
        fa, fb = _fold(a), _fold(b)
        return (f"Two `perf script` captures of fio randrw, folded with traces.fold (weights: sample periods):\n"
                f"  first:  {self.params['first']} ({len(fa)} distinct stacks)\n"
                f"  second: {self.params['second']} ({len(fb)} distinct stacks)\n"
                f"The frame: {self.params['frame']}. Draw them with ui.plot_icicle / ui.plot_diff_icicle, or read the "
                "folded stacks.")

    def truth(self):
        a, b = self._rels()
        ia, sa, ta = _shares(a, self.params["frame"])
        ib, sb, tb = _shares(b, self.params["frame"])
        pa, pb = ia * 100 / ta, ib * 100 / tb
        return {"inclusive_pct": round(pa, 2), "self_pct": round(sa * 100 / ta, 2),
                "diff_sign": sign_of(pb - pa, 0.5), "second_pct": pb, "raw_sign": sign_of(ib - ia, 0.0),
                "tot": (ta, tb)}

    def working(self, t):
        ta, tb = t["tot"]
        return [f"first: frame in {t['inclusive_pct']:.2f}% of {ta:.0f} sampled ns (inclusive), leaf in "
                f"{t['self_pct']:.2f}%",
                f"second: {t['second_pct']:.2f}% of {tb:.0f}; the difference of shares is "
                f"{t['second_pct'] - t['inclusive_pct']:+.2f} points",
                "a differential flame graph compares shares of each profile, not raw sample counts: the captures "
                "differ in length and in what else ran"]

    def mistake(self, key, g, t):
        k = self.kinds[key]
        if key == "inclusive_pct" and k.close(g, t["self_pct"]) and not k.close(t["self_pct"], t["inclusive_pct"]):
            return "that is its self time (leaf only); the width counts every stack the frame is in"
        if key == "self_pct" and k.close(g, t["inclusive_pct"]):
            return "that is the frame's full width; self time counts only samples where it is on top"
        if key == "diff_sign" and g == t["raw_sign"] and g != t["diff_sign"]:
            return "compared raw sample totals; the captures have different totals, so compare shares"
        if key == "diff_sign" and t["diff_sign"] in "+-" and g == {"+": "-", "-": "+"}[t["diff_sign"]]:
            return "sign flipped: second minus first"
        return None

    def typical_mistake(self):
        t = self._truth()
        if self.kinds["inclusive_pct"].close(t["self_pct"], t["inclusive_pct"]):
            return None
        a = self.answer()
        a["inclusive_pct"] = t["self_pct"]
        return a, "inclusive_pct"


__all__ = ["ReclaimEfficiency", "IostatAwait", "FlameGraphs"]
