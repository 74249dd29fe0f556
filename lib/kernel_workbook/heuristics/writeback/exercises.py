"""Exercises on the 2007 throttle_vm_writeout thread: the shared queue, who may write, reclaim efficiency.

* :class:`CongestionThresholds` -- ``blk_queue_congestion_threshold()``: when a queue of
  ``nr_requests`` slots is congested, and when it is not any more (hysteresis);
* :class:`MayWriteToQueue` -- ``may_write_to_queue()`` before and after c4e2d7dd: does a task
  reclaiming a dirty page write it, keep it, or sleep in ``get_request_wait()``?
* :class:`ReclaimEfficiency2007` -- akpm's efficiency from ``/proc/vmstat`` and what Fengguang's
  loop prints on a kernel whose ``pgsteal_<zone>`` stay 0.

The thresholds come from the writeback model's own ``derive()``, so the exercise and the model cannot
disagree.
"""

from __future__ import annotations

from ...models.writeback import congestion_thresholds, params_for
from ...exercises.seeded import Choice, Flag, Number, Page, Seeded

THREAD = "2007-throttle-vm-writeout"


def thresholds(nr_requests: int) -> tuple[int, int]:
    """(on, off) of a queue of ``nr_requests`` slots, as the writeback model computes them."""
    return congestion_thresholds(params_for("2.6.23", nr_requests=int(nr_requests)))


class CongestionThresholds(Seeded):
    name = "2007-congestion-thresholds"
    title = "2007 exercise A -- when is the shared queue congested?"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'when is the shared queue congested?',
        'One request queue is shared by every zone. When does it count as congested, and when not any more? Work out '
        '`blk_queue_congestion_threshold()` and its hysteresis.',
        demo=101, example=('on', 448), answers='no-sign')
    level, minutes, thread, topic = "beginner", 10, THREAD, "writeback (mechanism)"
    questions = {
        "on": "the request count at which the queue is marked write-congested",
        "off": "congestion is cleared when the count falls below this",
        "congested_now": "is the queue congested after the sequence of counts below (True/False)",
    }
    kinds = {"on": Number(tol=0.1, digits=0), "off": Number(tol=0.1, digits=0), "congested_now": Flag()}

    def draw(self, rng):
        nr = int(rng.choice([16, 32, 64, 128, 256, 512]))
        on, off = thresholds(nr)
        peak = int(rng.integers(off, nr + 1))
        now = int(rng.integers(max(0, off - 4), min(nr, on + 2)))
        return {"nr_requests": nr, "counts": [0, peak, now]}

    def text(self):
        p = self.params
        return (f"One request queue of nr_requests = {p['nr_requests']} slots, shared by every zone.\n"
                "blk_queue_congestion_threshold(): on = nr - nr/8 + 1 (at most nr), off = nr - nr/8 - nr/16 - 1 "
                "(at least 1), integer division. get_request() marks the queue congested when the count reaches "
                "'on'; freeing a request clears it when the count falls below 'off'.\n"
                f"The queue's request count goes {' -> '.join(str(c) for c in p['counts'])}.")

    def truth(self):
        p = self.params
        on, off = thresholds(p["nr_requests"])
        congested = False
        prev = 0
        for c in p["counts"]:
            if c >= on and c > prev:
                congested = True
            if c < off and c < prev:
                congested = False
            prev = c
        return {"on": on, "off": off, "congested_now": congested}

    def working(self, t):
        nr = self.params["nr_requests"]
        return [f"on = min({nr} - {nr // 8} + 1, {nr}) = {t['on']}",
                f"off = max({nr} - {nr // 8} - {nr // 16} - 1, 1) = {t['off']}",
                "between off and on the queue keeps the state it had (hysteresis)"]

    def mistake(self, key, g, t):
        nr = self.params["nr_requests"]
        if key == "on" and g == nr - nr // 8:
            return "the threshold is one above nr - nr/8"
        if key == "off" and g == nr - nr // 8 - 1:
            return "the off threshold also takes away nr/16"
        if key == "congested_now" and g != t["congested_now"]:
            return "between 'off' and 'on' the state does not change: look at the peak, then at the fall"
        return None

    def typical_mistake(self):
        a = self.answer()
        nr = self.params["nr_requests"]
        a["on"] = nr - nr // 8
        return a, "on"


OUTCOMES = (("write", "the page is queued (writeback starts)"), ("keep", "PAGE_KEEP: scanned, not written"),
            ("block", "sleeps in get_request_wait() until a slot frees"))


class MayWriteToQueue(Seeded):
    name = "2007-may-write-to-queue"
    title = "2007 exercise B -- may reclaim write this dirty page?"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'may reclaim write this dirty page?',
        "akpm's c4e2d7dd changed who may write to a congested queue. Decide what reclaim does with one dirty page, "
        "before and after it.",
        demo=105, example=('may_write', True), answers='no-sign')
    level, minutes, thread, topic = "intermediate", 10, THREAD, "writeback (mechanism)"
    questions = {
        "congested": "is the queue write-congested (count >= on, it was rising)",
        "may_write": "does may_write_to_queue() return true for this task",
        "outcome": "what happens to the dirty page: 'write', 'keep' or 'block'",
    }
    kinds = {"congested": Flag(), "may_write": Flag(), "outcome": Choice(OUTCOMES)}

    def draw(self, rng):
        return {"kernel": str(rng.choice(["before c4e2d7dd", "after c4e2d7dd"])),
                "task": str(rng.choice(["kswapd", "direct reclaim"])), "nr_requests": 128,
                "count": int(rng.choice([40, 100, 115, 120, 128]))}

    def text(self):
        p = self.params
        return (f"Kernel: {p['kernel']}. {p['task']} reaches a dirty page of ZONE_NORMAL in shrink_page_list(); "
                f"the queue (nr_requests = {p['nr_requests']}, congested at 113, uncongested below 103) holds "
                f"{p['count']} requests, pdflush having filled it while rising.\n"
                "may_write_to_queue(): true if the task may write to congested queues (after c4e2d7dd: kswapd, "
                "later PF_SWAPWRITE), or if the queue is not congested. A writer that finds every slot taken "
                "sleeps in get_request_wait().")

    def truth(self):
        p = self.params
        on, _ = thresholds(p["nr_requests"])
        congested = p["count"] >= on
        privileged = p["task"] == "kswapd" and p["kernel"] == "after c4e2d7dd"
        may = privileged or not congested
        outcome = "keep" if not may else ("block" if p["count"] >= p["nr_requests"] else "write")
        return {"congested": congested, "may_write": may, "outcome": outcome, "privileged": privileged}

    def working(self, t):
        p = self.params
        return [f"congested: {p['count']} >= 113 is {t['congested']}",
                f"{p['task']} on {p['kernel']}: may write to a congested queue: {t['privileged']}",
                f"may_write_to_queue() = {t['may_write']}; slots left: {p['nr_requests'] - p['count']}"]

    def mistake(self, key, g, t):
        p = self.params
        if key == "may_write" and g and not t["may_write"] and p["task"] == "kswapd":
            return "before c4e2d7dd kswapd was treated like any allocator: it skipped a congested queue"
        if key == "may_write" and g and not t["may_write"]:
            return "direct reclaim never had the privilege: allocators avoid congested queues"
        if key == "outcome" and g == "write" and t["outcome"] == "block":
            return "every slot is taken: even a privileged writer must wait for one"
        if key == "outcome" and g == "block" and t["outcome"] == "keep":
            return "a task that may not write never reaches get_request(): the page is kept"
        return None

    def typical_mistake(self):
        t = self._truth()
        if t["may_write"] or self.params["task"] != "kswapd":
            return None
        a = self.answer()
        a["may_write"] = True
        return a, "may_write"


class ReclaimEfficiency2007(Seeded):
    name = "2007-reclaim-efficiency"
    title = "2007 exercise C -- reclaim efficiency from /proc/vmstat, and what the loop prints"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'reclaim efficiency from /proc/vmstat, and what the loop prints',
        "The number akpm says to watch first: reclaim efficiency from `/proc/vmstat`, and what Fengguang's loop "
        "prints on a kernel whose `pgsteal_<zone>` stay 0.",
        demo=103, example=('loop_prints', 97), answers='no-sign')
    level, minutes, thread, topic = "beginner", 10, THREAD, "reclaim (metric)"
    questions = {
        "efficiency_pct": "akpm's efficiency: pages reclaimed / pages scanned, in % (1 decimal)",
        "loop_prints": "the ratio Fengguang's loop prints (100*steal/(scan+1), integers, steal = sum of pgsteal_*)",
        "trouble": "is reclaim 'getting into some trouble' by akpm's rule of thumb (True/False)",
    }
    kinds = {"efficiency_pct": Number(tol=0.06, digits=1), "loop_prints": Number(tol=0.1, digits=0),
             "trouble": Flag()}

    def draw(self, rng):
        scan_k = int(rng.integers(100000, 3000000))
        scan_d = int(rng.integers(0, scan_k // 10))
        eff = float(rng.choice([0.02, 0.15, 0.4, 0.9, 0.97]))
        steal = int((scan_k + scan_d) * eff)
        old_kernel = bool(rng.integers(0, 2))  # -mm of late 2007: pgsteal_<zone> stayed 0, kswapd_steal counted
        return {"pgscan_kswapd_dma32": scan_k, "pgscan_direct_dma32": scan_d,
                "pgsteal_dma32": 0 if old_kernel else steal, "kswapd_steal": steal}

    def text(self):
        p = self.params
        return ("grep -E 'scan|steal' /proc/vmstat on a 64-bit machine (every other zone's counters are 0):\n"
                + "\n".join(f"  {k} {v}" for k, v in p.items())
                + "\nakpm: efficiency = reclaimed / scanned; below about 25% reclaim is in trouble. kswapd_steal "
                "counts kswapd's reclaims; where pgsteal_<zone> stays 0 it is the only count of reclaim.")

    def truth(self):
        p = self.params
        scan = p["pgscan_kswapd_dma32"] + p["pgscan_direct_dma32"]
        reclaimed = p["pgsteal_dma32"] if p["pgsteal_dma32"] else p["kswapd_steal"]
        eff = 100.0 * reclaimed / scan
        return {"efficiency_pct": round(eff, 1), "loop_prints": 100 * p["pgsteal_dma32"] // (scan + 1),
                "trouble": eff < 25.0, "scan": scan, "reclaimed": reclaimed}

    def working(self, t):
        p = self.params
        return [f"scanned = {p['pgscan_kswapd_dma32']} + {p['pgscan_direct_dma32']} = {t['scan']}",
                f"reclaimed = {t['reclaimed']} ({'pgsteal_dma32' if p['pgsteal_dma32'] else 'kswapd_steal: pgsteal_* are 0'})",
                f"the loop sums pgsteal_* only: 100 * {p['pgsteal_dma32']} // ({t['scan']} + 1)"]

    def mistake(self, key, g, t):
        p = self.params
        if key == "loop_prints" and p["pgsteal_dma32"] == 0 and abs(g - t["efficiency_pct"]) < 1.0:
            return "the loop sums pgsteal_<zone> only, and on this kernel they are 0: it prints 0%"
        if key == "efficiency_pct" and p["pgscan_direct_dma32"] and abs(
                g - 100.0 * t["reclaimed"] / p["pgscan_kswapd_dma32"]) < 0.06:
            return "direct reclaim's scans count too (pgscan_direct_*)"
        return None

    def typical_mistake(self):
        if self.params["pgsteal_dma32"]:
            return None
        a = self.answer()
        a["loop_prints"] = int(self._truth()["efficiency_pct"])
        return a, "loop_prints"


__all__ = ["CongestionThresholds", "MayWriteToQueue", "ReclaimEfficiency2007", "thresholds"]
