"""Exercises on the 2014 CFQ half: ``cfq_target_latency`` and the scaled slice.

* :class:`ScaledSlice` -- ``cfq_scaled_cfqq_slice()`` by hand;
* :class:`TargetLatencyFlip` -- the knob values where the slice regime flips;
* :class:`SeqReadSign` -- predict the sign of 300 -> 600 ms on SeqRead with the model.

The slices come from the model's own closed form (``models.cfq.scaled_slice_ms``),
the one the event loop's jiffies are checked against.
"""

from __future__ import annotations

from ...models.cfq import CFQParams, scaled_slice_ms
from ...tables.stats import pdiff
from ...exercises.seeded import Number, Page, Seeded, Sign, sign_of

THREAD = "2014-seqread-fairzone-cfq"


def _slice(sync, idle, target, n):
    return scaled_slice_ms(CFQParams(cfq_slice_sync=float(sync), cfq_slice_idle=float(idle),
                                     cfq_target_latency=float(target)), int(n))


class ScaledSlice(Seeded):
    name = "cfq2014-scaled-slice"
    title = "Exercise 10 -- the slice CFQ gives a reader under low_latency"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'the slice CFQ gives a reader under low_latency',
        "In 2014 Mel Gorman raised `cfq_target_latency` from 300 to 600 ms. With `low_latency` on, CFQ shrinks each "
        "queue's slice so that every busy queue gets a turn within the target. Compute the slice by hand.",
        demo=101, example=('slice_ms', 100))
    level, minutes, thread, topic = "beginner", 10, THREAD, "CFQ target latency (mechanism)"
    questions = {
        "slice_ms": "the slice of each reader's queue in steady state (ms)",
        "round_ms": "how long until every busy queue has had its slice once (ms)",
    }
    kinds = {"slice_ms": Number(tol=0.5, unit="ms", digits=0), "round_ms": Number(tol=0.5, rel=0.01, unit="ms", digits=0)}

    def draw(self, rng):
        return {"busy_queues": int(rng.integers(1, 17)), "cfq_slice_sync_ms": int(rng.choice([60, 80, 100, 100, 120])),
                "cfq_slice_idle_ms": 8, "cfq_target_latency_ms": int(rng.choice([150, 300, 300, 450, 600])),
                "HZ": 1000, "ioprio": 4}

    def text(self):
        p = self.params
        return (f"{p['busy_queues']} sequential readers, one sync queue each at priority 4, HZ=1000, low_latency on.\n"
                f"cfq_slice_sync = {p['cfq_slice_sync_ms']} ms, cfq_slice_idle = {p['cfq_slice_idle_ms']} ms, "
                f"cfq_target_latency = {p['cfq_target_latency_ms']} ms.\n"
                "cfq_scaled_cfqq_slice(): if slice x busy queues exceeds the target latency, the slice becomes "
                "slice x target / (slice x busy), but never below min(slice, 2 x slice_idle x slice / slice_sync).")

    def truth(self):
        p = self.params
        s, n, tgt, idle = p["cfq_slice_sync_ms"], p["busy_queues"], p["cfq_target_latency_ms"], p["cfq_slice_idle_ms"]
        sl = _slice(s, idle, tgt, n)
        return {"slice_ms": sl, "round_ms": sl * n, "expect": s * n, "low": min(s, 2 * idle), "unfloored": s * tgt // (s * n)}

    def working(self, t):
        p = self.params
        s, n, tgt = p["cfq_slice_sync_ms"], p["busy_queues"], p["cfq_target_latency_ms"]
        if t["expect"] <= tgt:
            first = f"expect = {s} x {n} = {t['expect']} ms <= target {tgt}: no scaling, slice {s} ms"
        else:
            first = (f"expect = {s} x {n} = {t['expect']} ms > target {tgt}: {s} x {tgt} / {t['expect']} = "
                     f"{t['unfloored']} ms, floor {t['low']} ms -> {t['slice_ms']:g} ms")
        return [first, f"round = {n} x {t['slice_ms']:g} = {t['round_ms']:g} ms"]

    def mistake(self, key, g, t):
        k = self.kinds[key]
        s = self.params["cfq_slice_sync_ms"]
        if key == "slice_ms" and k.close(g, t["unfloored"]) and t["unfloored"] < t["low"]:
            return "the scaled slice has a floor: min(slice, 2 x slice_idle x slice / slice_sync)"
        if key == "slice_ms" and k.close(g, s) and t["slice_ms"] != s:
            return f"low_latency scales the slice down when {self.params['busy_queues']} x {s} ms exceeds the target"
        if key == "slice_ms" and k.close(g, self.params["cfq_target_latency_ms"] / self.params["busy_queues"]):
            return "close, but the kernel scales in integer jiffies and applies a floor"
        if key == "round_ms" and k.close(g, self.params["cfq_target_latency_ms"]) and not k.close(t["round_ms"], g):
            return "the target is a goal, not a guarantee: the floor (or the unscaled slice) can exceed it"
        return None

    def typical_mistake(self):
        t = self._truth()
        if t["slice_ms"] == self.params["cfq_slice_sync_ms"]:
            return None
        a = self.answer()
        a["slice_ms"] = self.params["cfq_slice_sync_ms"]
        return a, "slice_ms"


class TargetLatencyFlip(Seeded):
    name = "cfq2014-regime-flip"
    title = "Exercise 11 -- where the slice regime flips"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'where the slice regime flips',
        "Find the knob values where CFQ's slice regime flips: from scaled to whole slices as the target latency "
        "grows, and from scaled to the floor as readers are added.",
        demo=101, example=('target_no_scaling', 2401))
    level, minutes, thread, topic = "intermediate", 15, THREAD, "CFQ target latency (mechanism)"
    questions = {
        "target_no_scaling": "the smallest cfq_target_latency (whole ms) at which the readers' slices are not scaled",
        "readers_at_floor": "at the given target, the smallest number of readers whose slice sits on the floor",
    }
    kinds = {"target_no_scaling": Number(tol=0.5, unit="ms", digits=0), "readers_at_floor": Number(tol=0.5, digits=0)}

    def draw(self, rng):
        return {"readers": int(rng.integers(2, 17)), "cfq_slice_sync_ms": int(rng.choice([60, 100, 100, 150])),
                "cfq_slice_idle_ms": int(rng.choice([4, 8, 8, 12])),
                "cfq_target_latency_ms": int(rng.choice([200, 300, 300, 600])), "HZ": 1000}

    def text(self):
        p = self.params
        return (f"{p['readers']} sequential readers; cfq_slice_sync = {p['cfq_slice_sync_ms']} ms, "
                f"cfq_slice_idle = {p['cfq_slice_idle_ms']} ms, low_latency on, HZ=1000.\n"
                f"(1) Raise cfq_target_latency from 1 ms: from which value are the {p['readers']} readers' slices "
                "left whole?\n"
                f"(2) At cfq_target_latency = {p['cfq_target_latency_ms']} ms, add readers: from how many is the slice "
                "the floor min(slice, 2 x slice_idle)?")

    def truth(self):
        p = self.params
        s, idle, n, tgt = p["cfq_slice_sync_ms"], p["cfq_slice_idle_ms"], p["readers"], p["cfq_target_latency_ms"]
        # at HZ=1000 a jiffy is a ms: scaled while sync x n > target, so the flip is at sync x n; the model's
        # closed form confirms both sides of it (and of the floor) rather than being searched over every value
        t_flip = s * n
        assert _slice(s, idle, t_flip, n) == s and _slice(s, idle, t_flip - 1, n) < s
        low = min(s, 2 * idle)
        n_floor = next(m for m in range(1, 100_000) if s * m > tgt and s * tgt // (s * m) <= low)
        assert _slice(s, idle, tgt, n_floor) == low and (n_floor == 1 or _slice(s, idle, tgt, n_floor - 1) > low)
        return {"target_no_scaling": t_flip, "readers_at_floor": n_floor, "low": low}

    def working(self, t):
        p = self.params
        s, n = p["cfq_slice_sync_ms"], p["readers"]
        return [f"scaling happens while slice x readers > target: {s} x {n} = {s * n} > target, "
                f"so from target = {t['target_no_scaling']} ms the slice stays {s} ms",
                f"the floor is min({s}, 2 x {p['cfq_slice_idle_ms']}) = {t['low']} ms; {s} x "
                f"{p['cfq_target_latency_ms']} / ({s} x m) <= {t['low']} first at m = {t['readers_at_floor']}"]

    def mistake(self, key, g, t):
        if key == "target_no_scaling" and g == t["target_no_scaling"] + 1:
            return "off by one: the kernel scales only while expect > target, so equality already leaves it whole"
        if key == "target_no_scaling" and g == self.params["cfq_slice_sync_ms"]:
            return "one slice is not enough: every busy queue's slice must fit in the target"
        if key == "readers_at_floor" and abs(g - t["readers_at_floor"]) == 1:
            return "off by one: the kernel divides in whole jiffies; check both neighbours"
        return None

    def typical_mistake(self):
        a = self.answer()
        a["target_no_scaling"] = self._truth()["target_no_scaling"] + 1
        return a, "target_no_scaling"


class SeqReadSign(Seeded):
    name = "cfq2014-seqread-sign"
    title = "Exercise 12 -- predict the sign: cfq_target_latency 300 -> 600 ms on SeqRead"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'predict the sign: cfq_target_latency 300 -> 600 ms on SeqRead',
        "The model's 2014 desktop disk runs tiobench SeqRead at one reader count with `cfq_target_latency` 300 and "
        "600 ms. Predict the sign of both changes, then let the model run.",
        demo=101, example=('slice_sign', '+'))
    level, minutes, thread, topic = "intermediate", 15, THREAD, "CFQ target latency (model)"
    questions = {
        "slice_sign": "the sign of the change in each reader's slice ('+', '-', '0')",
        "throughput_sign": "the sign of the change in SeqRead MB/s in the model ('+', '-', or '0' within 1%)",
    }
    kinds = {"slice_sign": Sign(), "throughput_sign": Sign()}
    BAND_PCT = 1.0

    def draw(self, rng):
        return {"readers": int(rng.choice([1, 2, 4, 8, 16])), "machine": "desktop-2014", "mb_total": 64.0,
                "target_from_ms": 300, "target_to_ms": 600, "model_seed": int(rng.integers(100))}

    def text(self):
        p = self.params
        return (f"tiobench SeqRead with {p['readers']} reader(s) ({p['mb_total']:g} MB in all) on the model of the "
                f"2014 desktop disk (7200 rpm), CFQ of 3.16 with cfq_target_latency {p['target_from_ms']} ms and "
                f"{p['target_to_ms']} ms (Mel Gorman's patch 1/4). Each switch between readers costs a seek.")

    def truth(self):
        from ...models.cfq import PRESETS, for_variant, simulate
        from . import tiobench

        p = self.params
        base = for_variant("3.16", PRESETS[p["machine"]])
        w = tiobench.seqread(p["readers"], mb_total=p["mb_total"])
        a = simulate(base.with_(cfq_target_latency=float(p["target_from_ms"])), w, seed=p["model_seed"], verbose=False)
        b = simulate(base.with_(cfq_target_latency=float(p["target_to_ms"])), w, seed=p["model_seed"], verbose=False)
        sa = scaled_slice_ms(base.cfq.with_(cfq_target_latency=float(p["target_from_ms"])), p["readers"])
        sb = scaled_slice_ms(base.cfq.with_(cfq_target_latency=float(p["target_to_ms"])), p["readers"])
        ch = pdiff(b.throughput_mb_s, a.throughput_mb_s)
        return {"slice_sign": sign_of(sb - sa), "throughput_sign": sign_of(ch, self.BAND_PCT), "slices": (sa, sb),
                "mb_s": (a.throughput_mb_s, b.throughput_mb_s), "change_pct": ch}

    def working(self, t):
        (sa, sb), (a, b) = t["slices"], t["mb_s"]
        p = self.params
        return [f"slice at {p['target_from_ms']} ms: {sa:g} ms; at {p['target_to_ms']} ms: {sb:g} ms",
                f"model: {a:.2f} -> {b:.2f} MB/s, {t['change_pct']:+.2f}% (band +/-{self.BAND_PCT:g}%)",
                "longer slices mean fewer switches (seeks) per MB; with few readers nothing is scaled and nothing changes"]

    def mistake(self, key, g, t):
        if key == "slice_sign" and g == "+" and t["slice_sign"] == "0":
            return "with few readers slice x readers fits in 300 ms already: no scaling at either setting"
        if key == "throughput_sign" and g == "+" and t["slice_sign"] == "0":
            return "the slices do not change, so neither does the order of service"
        if key == "throughput_sign" and g == "-" and t["throughput_sign"] == "+":
            return "a larger target gives longer slices, so fewer seeks between readers"
        return None

    def typical_mistake(self):
        if self._truth()["slice_sign"] != "0":
            return None
        a = self.answer()
        a["slice_sign"] = "+"
        return a, "slice_sign"


__all__ = ["ScaledSlice", "TargetLatencyFlip", "SeqReadSign"]
