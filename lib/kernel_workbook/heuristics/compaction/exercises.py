"""Exercises on the 2012 thread: compaction, fragmentation and deferral.

* :class:`FragIndex` -- the kernel's fragmentation index decides compaction or reclaim;
* :class:`Deferral` -- ``defer_compaction()`` / ``compaction_deferred()`` (3.4) by hand;
* :class:`CompactionSign` -- predict the sign of one of the series' patches with the model.
"""

from __future__ import annotations

from ...models.compaction import fragmentation_index, unusable_free_index
from ...tables.stats import pdiff
from ...exercises.seeded import Choice, Flag, Number, Page, Seeded, Sign, sign_of

THREAD = "2012-highalloc-compaction"
MAX_ORDER = 11
EXTFRAG_THRESHOLD = 500  # sysctl_extfrag_threshold's default (mm/compaction.c)
COMPACT_MAX_DEFER_SHIFT = 6  # include/linux/compaction.h


class FragIndex(Seeded):
    name = "compaction-fragindex"
    title = "Exercise 19 -- compact or reclaim? the fragmentation index"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'compact or reclaim? the fragmentation index',
        'When a high-order allocation fails, `compaction_suitable()` asks whether the failure is for lack of memory '
        '(reclaim) or fragmentation (compact), through the fragmentation index. Compute it from a buddyinfo line.',
        demo=101, example=('action', 'reclaim'))
    level, minutes, thread, topic = "beginner", 15, THREAD, "compaction (mechanism)"
    questions = {
        "fragindex": "the fragmentation index for an order-9 request (the kernel's value / 1000, 3 decimals)",
        "unusable": "the unusable free space index for order 9 (0..1, 3 decimals)",
        "action": "what compaction_suitable() leads to: 'succeed' (a block is free), 'compact' or 'reclaim'",
    }
    kinds = {"fragindex": Number(tol=0.0015, digits=3), "unusable": Number(tol=0.0015, digits=3),
             "action": Choice((("succeed", "a free block of the order exists"),
                               ("compact", "fragmentation: compaction can help"),
                               ("reclaim", "too little free memory: reclaim first")))}

    def draw(self, rng):
        kind = rng.choice(["scattered", "scarce", "scattered", "has-block"])
        if kind == "scattered":  # lots of free memory in small pieces
            counts = [int(x) for x in rng.integers(200, 3000, 6)] + [int(x) for x in rng.integers(0, 40, 3)] + [0, 0]
        elif kind == "scarce":  # little free memory
            counts = [int(x) for x in rng.integers(0, 60, 4)] + [0] * 7
        else:
            counts = [int(x) for x in rng.integers(50, 900, 6)] + [int(x) for x in rng.integers(0, 10, 3)] + \
                     [int(rng.integers(1, 3)), 0]
        return {"order": 9, "free_blocks_by_order": counts, "extfrag_threshold": EXTFRAG_THRESHOLD}

    def text(self):
        c = self.params["free_blocks_by_order"]
        return ("A zone's /proc/buddyinfo line (free blocks of order 0..10):\n  "
                + " ".join(f"{x:5d}" for x in c)
                + "\n__fragmentation_index(): -1000 if a block of the order is free; else "
                "1000 - (1000 + free_pages x 1000 / 2^order) / free_blocks (integers). compaction_suitable() "
                "skips compaction (reclaim instead) when 0 <= index <= extfrag_threshold (500).")

    def truth(self):
        c = self.params["free_blocks_by_order"]
        fi = fragmentation_index(c, 9)
        action = "succeed" if fi < 0 else ("compact" if fi * 1000 > EXTFRAG_THRESHOLD else "reclaim")
        free = sum(n << k for k, n in enumerate(c))
        return {"fragindex": round(fi, 3), "unusable": round(unusable_free_index(c, 9), 3), "action": action,
                "free_pages": free, "blocks": sum(c)}

    def working(self, t):
        return [f"free pages = sum(count x 2^order) = {t['free_pages']}, free blocks = {t['blocks']}",
                f"fragmentation index = {t['fragindex']:.3f}; unusable = (free - pages in blocks >= 512) / free = "
                f"{t['unusable']:.3f}",
                f"index {'-1: a block is free' if t['fragindex'] < 0 else '> 0.5: compact' if t['action'] == 'compact' else '<= 0.5: reclaim'}"]

    def mistake(self, key, g, t):
        k = self.kinds[key]
        if key == "fragindex" and k.close(g, t["unusable"]) and not k.close(t["unusable"], t["fragindex"]):
            return "that is the unusable free space index; the fragmentation index weighs the number of blocks"
        if key == "action" and g == "compact" and t["action"] == "reclaim":
            return "a low index means the failure is for lack of memory, not fragmentation: compaction cannot help"
        if key == "action" and g == "reclaim" and t["action"] == "compact":
            return "a high index means plenty of free memory in small pieces: compaction can assemble a block"
        if key == "action" and g != "succeed" and t["action"] == "succeed":
            return "an order-9 or larger block is free: the allocation can succeed without either"
        return None

    def typical_mistake(self):
        t = self._truth()
        if t["action"] == "succeed":
            return None
        a = self.answer()
        a["action"] = "compact" if t["action"] == "reclaim" else "reclaim"
        return a, "action"


class Deferral(Seeded):
    name = "compaction-deferral"
    title = "Exercise 20 -- how long is compaction deferred?"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'how long is compaction deferred?',
        'After compaction fails, the kernel skips it for a while (`defer_compaction()`, `compaction_deferred()`), '
        'and since 3.4 only for the failed order and higher. Count the skipped requests.',
        demo=101, example=('skipped', 32))
    level, minutes, thread, topic = "intermediate", 10, THREAD, "compaction (mechanism)"
    questions = {
        "defer_shift": "the zone's compact_defer_shift after the failures",
        "skipped": "how many of the next requests of the failed order are skipped before compaction runs again",
        "other_order_deferred": "is the first request of the other order deferred (3.4's compact_order_failed)",
    }
    kinds = {"defer_shift": Number(tol=0.1, digits=0), "skipped": Number(tol=0.1, digits=0),
             "other_order_deferred": Flag()}

    def draw(self, rng):
        return {"failures_in_a_row": int(rng.integers(1, 10)), "failed_order": 9,
                "other_order": int(rng.choice([3, 4, 9, 10])), "COMPACT_MAX_DEFER_SHIFT": COMPACT_MAX_DEFER_SHIFT}

    def text(self):
        p = self.params
        return (f"A zone starts with compact_defer_shift 0. Compaction for order {p['failed_order']} fails "
                f"{p['failures_in_a_row']} times in a row (each time it ran). Then requests arrive.\n"
                "defer_compaction(): considered = 0, shift += 1 (at most COMPACT_MAX_DEFER_SHIFT = 6), "
                "compact_order_failed = min(it, order). compaction_deferred(): an order below compact_order_failed "
                "is never deferred; else considered += 1 (at most 1 << shift) and the request is deferred while "
                "considered < 1 << shift.\n"
                f"The other order: {p['other_order']}.")

    def truth(self):
        p = self.params
        shift = min(p["failures_in_a_row"], COMPACT_MAX_DEFER_SHIFT)
        limit = 1 << shift
        considered, skipped = 0, 0
        while True:  # compaction_deferred(), request by request
            considered = min(considered + 1, limit)
            if considered < limit:
                skipped += 1
            else:
                break
        other = p["other_order"] >= p["failed_order"] and 1 < limit
        return {"defer_shift": shift, "skipped": skipped, "other_order_deferred": bool(other), "limit": limit}

    def working(self, t):
        p = self.params
        return [f"shift = min({p['failures_in_a_row']}, 6) = {t['defer_shift']}; limit = 1 << {t['defer_shift']} = "
                f"{t['limit']}",
                f"requests 1..{t['skipped']} see considered < {t['limit']}: skipped; request {t['skipped'] + 1} runs",
                f"order {p['other_order']} {'>=' if p['other_order'] >= p['failed_order'] else '<'} "
                f"compact_order_failed {p['failed_order']}"]

    def mistake(self, key, g, t):
        p = self.params
        if key == "defer_shift" and g == p["failures_in_a_row"] and g > COMPACT_MAX_DEFER_SHIFT:
            return "the shift stops at COMPACT_MAX_DEFER_SHIFT = 6"
        if key == "skipped" and g == t["limit"]:
            return "off by one: the request that brings considered to the limit runs compaction"
        if key == "skipped" and g == (1 << p["failures_in_a_row"]) - 1 and p["failures_in_a_row"] > 6:
            return "the shift stops at 6, so at most 63 are skipped"
        if key == "other_order_deferred" and g and not t["other_order_deferred"]:
            return "since 3.4 only the failed order and higher are deferred: a smaller request may still compact"
        return None

    def typical_mistake(self):
        a = self.answer()
        a["skipped"] = self._truth()["limit"]
        return a, "skipped"


# each step of the series and the counter that shows what it changed (summary() names, /proc/vmstat's)
STEPS = (("revert-v5", "fixcache-v5", "compact_free_scanned"), ("fixcache-v5", "contended-v5", "compact_contended"),
         ("contended-v5", "nokswapd-v5", "pgscan_kswapd_normal"), ("nokswapd-v5", "scaled-v5", "pgscan_direct_normal"),
         ("scaled-v5", "capture-v5", "compact_captured"))


class CompactionSign(Seeded):
    name = "compaction-patch-sign"
    title = "Exercise 21 -- predict the sign: one patch of the 2012 series"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'predict the sign: one patch of the 2012 series',
        "The model runs its stress-highalloc test under two consecutive steps of Mel Gorman's 2012 series. Predict "
        "the sign of the change in pages scanned by direct reclaim and by kswapd.",
        demo=101, example=('counter_sign', '-'))
    level, minutes, thread, topic = "intermediate", 15, THREAD, "compaction (model)"
    questions = {
        "counter_sign": "the sign of the change in the named counter ('+', '-', or '0' within 5%)",
        "success_sign": "the sign of the change in Pass 1's success rate ('+', '-', or '0')",
    }
    kinds = {"counter_sign": Sign(), "success_sign": Sign()}
    BAND_PCT = 5.0

    def draw(self, rng):
        a, b, counter = STEPS[int(rng.integers(len(STEPS)))]
        return {"kernel_from": a, "kernel_to": b, "counter": counter, "workload": "stress-highalloc small",
                "model_seed": int(rng.integers(100))}

    def text(self):
        from ...models.compaction import VARIANT_NOTES

        p = self.params
        return (f"The model's stress-highalloc (small zone: a kernel build in the background, then order-9 "
                f"allocations) under two steps of Mel Gorman's 2012 series:\n  {p['kernel_from']}: "
                f"{VARIANT_NOTES[p['kernel_from']]}\n  {p['kernel_to']}: {VARIANT_NOTES[p['kernel_to']]}\n"
                f"The counter: {p['counter']} (as /proc/vmstat names it).")

    def truth(self):
        from ...models.compaction import params_for, simulate
        from . import stress_highalloc

        p = self.params
        w = stress_highalloc.small()
        out = {}
        for k in (p["kernel_from"], p["kernel_to"]):
            s = simulate(params_for(k), w, seed=p["model_seed"], verbose=False).summary()
            out[k] = (float(s[p["counter"]]), float(s["success_pass_1"]))
        a, b = out[p["kernel_from"]], out[p["kernel_to"]]
        ch = pdiff(b[0], a[0]) if a[0] else (100.0 if b[0] else 0.0)
        return {"counter_sign": sign_of(ch, self.BAND_PCT), "success_sign": sign_of(b[1] - a[1]), "runs": out,
                "pct": ch}

    def working(self, t):
        c = self.params["counter"]
        lines = [f"{k}: {c} {v[0]:.0f}, Pass 1 success {v[1]:.2f}%" for k, v in t["runs"].items()]
        return lines + [f"{c} changes {t['pct']:+.2f}% (band +/-{self.BAND_PCT:g}%); the small test makes few "
                        "high-order attempts, so one success more or less moves Pass 1 by a large step"]

    def mistake(self, key, g, t):
        to = self.params["kernel_to"]
        if key == "counter_sign" and to == "nokswapd-v5" and g != "+" and t[key] == "+":
            return "without __GFP_NO_KSWAPD, THP allocations wake kswapd: it scans more, not less"
        if key == "counter_sign" and to == "fixcache-v5" and g == "-" and t[key] == "+":
            return ("7db8889a's skip-ahead made a wrapped free scanner jump to another task's position and scan "
                    "almost nothing; the fix removes the skip-ahead, so it scans more")
        if key == "counter_sign" and to == "capture-v5" and g != "+" and t[key] == "+":
            return "capture hands the freed block straight to the allocating process: compact_captured starts counting"
        if g in "+-" and t[key] in "+-" and g != t[key]:
            return f"sign flipped: {self.params['kernel_to']} minus {self.params['kernel_from']}"
        return None

    def typical_mistake(self):
        t = self._truth()
        for key in self.questions:
            if t[key] in "+-":
                a = self.answer()
                a[key] = {"+": "-", "-": "+"}[t[key]]
                return a, key
        return None


__all__ = ["FragIndex", "Deferral", "CompactionSign"]
