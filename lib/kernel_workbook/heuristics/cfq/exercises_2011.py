"""Exercises on the 2011 thread: CFQ idling on 'deep' queues in front of a fast RAID.

* :class:`IdleWindow` -- the decision of ``cfq_update_idle_window()`` by hand;
* :class:`DeepIdleSign` -- predict the sign of a variant's change with the model;
* :class:`PublishedCell2011` -- explain a cell of the thread's RAID table.
"""

from __future__ import annotations

from ...tables import published
from ...tables.stats import pdiff
from ...exercises.seeded import Choice, Flag, Number, Page, Seeded, Sign, sign_of

THREAD = "2011-cfq-deep-idle"
CFQ_SRC = "block/cfq-iosched.c"


class IdleWindow(Seeded):
    name = "cfq2011-idle-window"
    title = "Exercise 7 -- will CFQ idle on this queue?"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'will CFQ idle on this queue?',
        "In 2011 Maxim Patlasov found CFQ idling in front of a fast RAID: a queue marked 'deep' keeps the disk "
        "waiting for its process even when its requests are seeky. Decide, as `cfq_update_idle_window()` does, "
        "whether CFQ will idle on one queue.",
        demo=102, example=('idles', True))
    level, minutes, thread, topic = "beginner", 10, THREAD, "CFQ deep idling (mechanism)"
    questions = {
        "deep": "is the queue marked deep when this request is queued (cfq_mark_cfqq_deep)",
        "seeky": "is the queue seeky (CFQQ_SEEKY)",
        "idles": "when the queue empties, does CFQ keep the disk idle waiting for its next request",
    }
    kinds = {k: Flag() for k in questions}

    def draw(self, rng):
        return {"queued": int(rng.integers(1, 8)), "seeks_of_last_32": int(rng.integers(0, 13)),
                "think_time_ms": round(float(rng.choice([rng.uniform(0.2, 6.0), rng.uniform(9.0, 20.0)])), 1),
                "slice_idle_ms": int(rng.choice([8, 8, 8, 0])), "already_deep": False}

    def text(self):
        p = self.params
        return (f"A sync CFQ queue (3.1, {CFQ_SRC}) has {p['queued']} requests queued after this one arrives; "
                f"{p['seeks_of_last_32']} of its last 32 requests were seeks; its mean think time (enough samples) "
                f"is {p['think_time_ms']} ms; slice_idle = {p['slice_idle_ms']} ms; it was not marked deep before.\n"
                "cfq_update_idle_window(): a queue with 4 or more requests queued is marked deep; CFQQ_SEEKY() is "
                "'more than 32/8 of the last 32 were seeks'; no idling when slice_idle is 0, nor for a seeky queue "
                "unless it is deep; otherwise idle unless the think time exceeds slice_idle.")

    def truth(self):
        p = self.params
        deep = p["queued"] >= 4
        seeky = p["seeks_of_last_32"] > 32 // 8
        if p["slice_idle_ms"] == 0 or (not deep and seeky):
            idles = False
        else:
            idles = not (p["think_time_ms"] > p["slice_idle_ms"])
        return {"deep": deep, "seeky": seeky, "idles": idles}

    def working(self, t):
        p = self.params
        return [f"deep: queued {p['queued']} >= 4 -> {t['deep']}",
                f"seeky: {p['seeks_of_last_32']} > 32/8 = 4 -> {t['seeky']}",
                "idles: " + ("slice_idle = 0: never" if p["slice_idle_ms"] == 0 else
                             "seeky and not deep: no" if (t["seeky"] and not t["deep"]) else
                             f"think time {p['think_time_ms']} ms {'>' if p['think_time_ms'] > p['slice_idle_ms'] else '<='}"
                             f" slice_idle {p['slice_idle_ms']} ms") + f" -> {t['idles']}",
                "the 2011 problem: a seeky queue that is deep still idles, though a RAID could serve other queues"]

    def mistake(self, key, g, t):
        p = self.params
        if key == "deep" and p["queued"] == 4 and g is False:
            return "the test is queued >= 4, so exactly 4 marks it"
        if key == "seeky" and p["seeks_of_last_32"] == 4 and g is True:
            return "seeky means more than 4 of 32 (strictly), so exactly 4 is not seeky"
        if key == "idles" and g is False and t["deep"] and t["seeky"]:
            return "a deep queue idles even when seeky: deep overrides seekiness (the 2011 thread's complaint)"
        if key == "idles" and g is True and p["slice_idle_ms"] == 0:
            return "slice_idle = 0 turns idling off for every queue"
        if key == "idles" and g is True and p["think_time_ms"] > p["slice_idle_ms"]:
            return "the process thinks longer than slice_idle: waiting for it would waste the disk"
        return None

    def typical_mistake(self):
        t = self._truth()
        for key in ("idles", "deep", "seeky"):
            a = self.answer()
            a[key] = not t[key]
            if self.mistake(key, a[key], t):
                return a, key
        return None


class DeepIdleSign(Seeded):
    name = "cfq2011-variant-sign"
    title = "Exercise 8 -- predict the sign: a CFQ variant on the fast RAID"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'predict the sign: a CFQ variant on the fast RAID',
        "The model of the 2011 RAID runs the thread's aio-stress under pristine 3.1 CFQ and one of the thread's "
        "variants. Predict the sign of the change before the model tells you.",
        demo=105, example=('sign', '+'))
    level, minutes, thread, topic = "intermediate", 15, THREAD, "CFQ deep idling (model)"
    questions = {"sign": "the sign of the change in aggregate throughput, variant against pristine 3.1 "
                         "('+', '-', or '0' within 3%)"}
    kinds = {"sign": Sign()}
    VARIANTS = ("3.1 noop", "3.1 slice_idle=0", "3.1 mark_cfqq_deep commented out", "3.1 always clear deep",
                "3.1 + patch", "3.1 w/o 8e1ac6655104")
    BAND_PCT = 3.0

    def draw(self, rng):
        return {"variant": self.VARIANTS[int(rng.integers(len(self.VARIANTS)))], "instances": int(rng.choice([4, 8])),
                "machine": "raid-lsi1078-2011", "usleep_us": 1000.0, "file_mb": 2.0, "model_seed": int(rng.integers(100))}

    def text(self):
        p = self.params
        return (f"The model of {p['machine']} (eight 10K SAS disks behind a controller) runs {p['instances']} "
                f"aio-stress instances (4 files each, 4 KiB writes, usleep {p['usleep_us']:g} us after each submit, "
                f"{p['file_mb']:g} MB per file) under pristine 3.1 CFQ and under '{p['variant']}'.\n"
                "Each instance's queue holds 4 requests when it submits (deep), then it sleeps: CFQ may wait for it.")

    def _runs(self):
        from ...models.cfq import PRESETS, for_variant, simulate
        from . import aio_stress

        p = self.params
        w = aio_stress.patlasov_2011(instances=p["instances"], usleep_us=p["usleep_us"], file_mb=p["file_mb"])
        out = {}
        for v in ("3.1", p["variant"]):
            r = simulate(for_variant(v, PRESETS[p["machine"]]), w, seed=p["model_seed"], verbose=False)
            out[v] = (r.throughput_mb_s, r.counters["arm_idle"], r.counters["mark_deep"])
        return out

    def truth(self):
        runs = self._runs()
        a, b = runs["3.1"][0], runs[self.params["variant"]][0]
        ch = pdiff(b, a)
        return {"sign": sign_of(ch, self.BAND_PCT), "change_pct": ch, "runs": runs}

    def working(self, t):
        lines = [f"{v}: {mb:.2f} MB/s, idle timer armed {idle} times, marked deep {deep} times"
                 for v, (mb, idle, deep) in t["runs"].items()]
        return lines + [f"change {t['change_pct']:+.2f}% (band +/-{self.BAND_PCT:g}%)"]

    def mistake(self, key, g, t):
        v = self.params["variant"]
        if g == "0" and t["sign"] == "+":
            return "removing the idle wait lets the RAID serve the other instances while one sleeps"
        if g == "+" and v == "3.1 always clear deep":
            return ("clearing deep does not stick: the next batch of 4 queued requests marks the queue deep again, "
                    "so CFQ keeps idling")
        if g != "-" and t["sign"] == "-":
            return ("without 8e1ac6655104 a deep seeky queue is never let go early: CFQ idles on it even more")
        if g == "-" and t["sign"] == "+":
            return "idling costs here: the device is faster than one queue can feed it"
        return None

    def typical_mistake(self):
        if self.params["variant"] != "3.1 always clear deep" or self._truth()["sign"] == "+":
            return None
        return {"sign": "+"}, "sign"


FAST_RAID = "aio-stress-fast-raid"
WHY = (("a", "the elevator never idles: no slices, requests dispatched as they come"),
       ("b", "CFQ keeps its slices but never waits for an emptied queue"),
       ("c", "a queue is never marked deep, so a seeky queue does not earn the idle wait"),
       ("d", "deep is cleared but set again by the next 4 queued requests, so CFQ keeps idling"),
       ("e", "a queue found faster than its device is not marked deep again, so CFQ stops idling on it"))
COLUMN_WHY = (("noop", "a"), ("slice_idle=0", "b"), ("mark_cfqq_deep", "c"), ("always clear deep", "d"),
              ("+ patch", "e"))


class PublishedCell2011(Seeded):
    name = "cfq2011-published-cell"
    title = "Exercise 9 -- explain a published cell of the 2011 RAID table"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'explain a published cell of the 2011 RAID table',
        "The thread's own RAID table (`data/threads/2011-cfq-deep-idle.txt`). Read one column against the pristine "
        "CFQ column and name the mechanism that explains it.",
        demo=101, example=('pct', 31.22))
    level, minutes, thread, topic = "intermediate", 15, THREAD, "CFQ deep idling (the thread's table)"
    questions = {
        "pct": "the column's change against Pristine 3.1.0-rc2 (CFQ), as mmtests prints it (higher is better), %",
        "sign": "'+', '-' or '0' (within 3%)",
        "why": "which mechanism explains the column ('a'..'e')",
    }
    kinds = {"pct": Number(tol=0.01, unit="%"), "sign": Sign(), "why": Choice(WHY)}

    def _table(self):
        return published(THREAD, FAST_RAID)

    def draw(self, rng):
        kernels = [k for k in self._table()["kernel"] if any(key in k for key, _ in COLUMN_WHY)]
        return {"thread": THREAD, "table": FAST_RAID, "column": kernels[int(rng.integers(len(kernels)))]}

    def text(self):
        d = self._table()
        meta = d.attrs["tables"][FAST_RAID]
        lines = [f"{meta['title']} ({THREAD}, lines {meta['lines']}):"]
        for k, v in zip(d["kernel"], d["value"]):
            lines.append(f"  {k:48s} {v:8.2f}")
        lines.append(f"The column: {self.params['column']}")
        lines.append("Mechanisms:")
        lines += [f"  {k}: {text}" for k, text in WHY]
        return "\n".join(lines)

    def truth(self):
        d = self._table()
        base = float(d["value"].iloc[0])
        v = float(d.loc[d["kernel"] == self.params["column"], "value"].iloc[0])
        pct = pdiff(v, base)
        why = next(letter for key, letter in COLUMN_WHY if key in self.params["column"])
        return {"pct": round(pct, 2), "sign": sign_of(pct, 3.0), "why": why, "base": base, "value": v}

    def working(self, t):
        return [f"pdiff = {t['value']:.2f} x 100 / {t['base']:.2f} - 100 = {t['pct']:.2f}%",
                f"'{self.params['column']}' changes: {dict(WHY)[t['why']]}"]

    def mistake(self, key, g, t):
        if key == "pct" and self.kinds["pct"].close(g, round(t["value"] - t["base"], 2)):
            return "that is the difference in MB/s, not a percentage"
        if key == "pct" and self.kinds["pct"].close(g, -t["pct"]):
            return "sign flipped: throughput is higher-is-better, so mmtests prints new/base - 1"
        if key == "why" and t["why"] == "d" and g in "bce":
            return "clearing deep alone did not help: the table shows no gain, since the queue is marked again"
        if key == "why" and g == "d" and t["why"] != "d":
            return "this column did gain: something stopped the idling for good"
        if key == "why" and {g, t["why"]} == {"a", "b"}:
            return "noop has no slices at all; slice_idle=0 keeps CFQ's slices and only drops the wait"
        return None

    def typical_mistake(self):
        a = self.answer()
        a["pct"] = round(self._truth()["value"] - self._truth()["base"], 2)
        return a, "pct"


__all__ = ["IdleWindow", "DeepIdleSign", "PublishedCell2011"]
