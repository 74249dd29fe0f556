"""Exercises on the 2015 thread: automatic NUMA balancing's scan rate.

* :class:`ScanRate` -- what a scan window and a period mean in PTEs per second;
* :class:`ScanPeriod` -- ``update_task_scan_period()`` by hand, with and without the slow-scan patch;
* :class:`NumaSign` -- predict the sign of a kernel change with the model.
"""

from __future__ import annotations

from ...tables.stats import pdiff
from ...exercises.seeded import Choice, Number, Page, Seeded, Sign, c_div, sign_of

THREAD = "2015-numa-slow-scan"
PAGES_PER_MB = 256  # 4 KiB pages
NUMA_PERIOD_SLOTS = 10
NUMA_PERIOD_THRESHOLD = 7


class ScanRate(Seeded):
    name = "numa-scan-rate"
    title = "Exercise 16 -- how fast does task_numa_work() mark memory?"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'how fast does task_numa_work() mark memory?',
        "Automatic NUMA balancing marks `numa_balancing_scan_size_mb` of a process's memory PROT_NONE every scan "
        "period, and every marked page touched takes a hinting fault. Turn the knobs into a rate.",
        demo=101, example=('ptes_per_s', 256.0))
    level, minutes, thread, topic = "beginner", 10, THREAD, "NUMA balancing scan rate (mechanism)"
    questions = {
        "ptes_per_s": "PTEs made PROT_NONE per second by one mm (4 KiB pages, no huge pages)",
        "full_pass_s": "seconds to cover the whole resident memory once",
    }
    kinds = {"ptes_per_s": Number(rel=0.005, digits=0, unit="PTEs/s"), "full_pass_s": Number(rel=0.005, unit="s")}

    def draw(self, rng):
        return {"numa_balancing_scan_size_mb": int(rng.choice([64, 128, 256, 256, 512])),
                "scan_period_ms": int(rng.choice([100, 250, 500, 1000, 2000, 8000])),
                "rss_mb": int(rng.choice([2048, 8192, 16384, 65536]))}

    def text(self):
        p = self.params
        return (f"A process with {p['rss_mb']} MB resident. Every scan period ({p['scan_period_ms']} ms now) "
                f"task_numa_work() marks the next numa_balancing_scan_size_mb = {p['numa_balancing_scan_size_mb']} MB "
                "of its address space PROT_NONE (change_prot_numa()), wrapping round at the end.")

    def truth(self):
        p = self.params
        ptes = p["numa_balancing_scan_size_mb"] * PAGES_PER_MB * 1000.0 / p["scan_period_ms"]
        full = p["rss_mb"] / p["numa_balancing_scan_size_mb"] * p["scan_period_ms"] / 1000.0
        return {"ptes_per_s": round(ptes, 1), "full_pass_s": round(full, 3)}

    def working(self, t):
        p = self.params
        return [f"{p['numa_balancing_scan_size_mb']} MB x 256 pages/MB = {p['numa_balancing_scan_size_mb'] * 256} PTEs "
                f"per {p['scan_period_ms']} ms -> {t['ptes_per_s']:.1f} per s",
                f"{p['rss_mb']} / {p['numa_balancing_scan_size_mb']} windows x {p['scan_period_ms']} ms = "
                f"{t['full_pass_s']:.3f} s; the period controller (next exercise) stretches or shrinks that"]

    def mistake(self, key, g, t):
        k = self.kinds[key]
        p = self.params
        if key == "ptes_per_s" and k.close(g, t["ptes_per_s"] / 1000):
            return "the period is in milliseconds: per second is 1000/period windows"
        if key == "ptes_per_s" and k.close(g, p["numa_balancing_scan_size_mb"] * 1000.0 / p["scan_period_ms"]):
            return "that is MB per second: a MB is 256 PTEs of 4 KiB"
        if key == "full_pass_s" and k.close(g, t["full_pass_s"] * 1000):
            return "that is in milliseconds"
        return None

    def typical_mistake(self):
        a = self.answer()
        a["ptes_per_s"] = self.params["numa_balancing_scan_size_mb"] * 1000.0 / self.params["scan_period_ms"]
        return a, "ptes_per_s"


def update_task_scan_period(period, local, remote, shared, private, migrate_failed, slow_on_fail,
                            scan_min, scan_max, scaled_private=True, slot_floor=True, int_ratio=True):
    """kernel/sched/fair.c update_task_scan_period() (4.0 + the slow-scan patch), arguments in ms and fault counts.

    The flags switch off one step each, to name the mistake an answer most likely is.
    """
    if local + shared == 0 or (slow_on_fail and migrate_failed):
        return min(scan_max, period << 1), "slower: doubled"
    period_slot = -(-period // NUMA_PERIOD_SLOTS)  # DIV_ROUND_UP
    ratio = (local * NUMA_PERIOD_SLOTS) // (local + remote) if int_ratio else local * NUMA_PERIOD_SLOTS / (local + remote)
    if ratio >= NUMA_PERIOD_THRESHOLD:
        slot = ratio - NUMA_PERIOD_THRESHOLD
        if slot == 0 and slot_floor:
            slot = 1
        diff = slot * period_slot
        how = f"local ratio {ratio} >= {NUMA_PERIOD_THRESHOLD}: slower by {slot} x {period_slot}"
    else:
        diff = -(NUMA_PERIOD_THRESHOLD - ratio) * period_slot
        if scaled_private:
            pr = -(-private * NUMA_PERIOD_SLOTS // (private + shared))  # DIV_ROUND_UP
            diff = c_div(int(diff * pr), NUMA_PERIOD_SLOTS)
            how = f"local ratio {ratio} < {NUMA_PERIOD_THRESHOLD}: faster, scaled by the private ratio {pr}/10"
        else:
            how = f"local ratio {ratio} < {NUMA_PERIOD_THRESHOLD}: faster"
    return int(min(max(period + diff, scan_min), scan_max)), how


class ScanPeriod(Seeded):
    name = "numa-scan-period"
    title = "Exercise 17 -- the scan period controller, with and without the slow-scan patch"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'the scan period controller, with and without the slow-scan patch',
        '`update_task_scan_period()` decides whether a task scans faster or slower from the locality of its hinting '
        'faults; the 2015 slow-scan patch also slows it when migrations fail. Do one step by hand.',
        demo=102, example=('new_period_ms', 1963))
    level, minutes, thread, topic = "advanced", 20, THREAD, "NUMA balancing scan rate (mechanism)"
    questions = {
        "new_period_ms": "the task's numa_scan_period after this placement pass (ms)",
        "direction": "does the task scan 'slower', 'faster' or the 'same'",
    }
    kinds = {"new_period_ms": Number(tol=0.5, unit="ms", digits=0),
             "direction": Choice((("slower", "slower"), ("faster", "faster"), ("same", "same")))}

    def draw(self, rng):
        local = int(rng.integers(0, 400))
        return {"numa_scan_period_ms": int(rng.choice([1000, 1600, 2500, 4000, 9000])), "local": local,
                "remote": int(rng.integers(1, 400)), "shared": int(rng.integers(0, 200)),
                "private": int(rng.integers(1, 400)), "migrate_failed": int(rng.choice([0, 0, 12])),
                "kernel": str(rng.choice(["4.0.0-rc1 vanilla", "4.0.0-rc1 slowscan-v2"])),
                "task_scan_min_ms": 1000, "task_scan_max_ms": 60000}

    def text(self):
        p = self.params
        return (f"Kernel {p['kernel']}. Over the last scan a task took hinting faults: local {p['local']}, "
                f"remote {p['remote']}; private {p['private']}, shared {p['shared']}; {p['migrate_failed']} faults "
                f"whose migration failed (numa_faults_locality[2]). Its numa_scan_period is "
                f"{p['numa_scan_period_ms']} ms; task_scan_min {p['task_scan_min_ms']} ms, task_scan_max "
                f"{p['task_scan_max_ms']} ms.\nupdate_task_scan_period(): no local or shared faults (or, with the "
                "slow-scan patch, any failed migration) doubles the period; otherwise ratio = local x 10 / "
                "(local + remote) in integers; ratio >= 7 slows by max(1, ratio - 7) slots of period/10 (rounded "
                "up); below 7 it speeds up by (7 - ratio) slots, scaled by DIV_ROUND_UP(private x 10, private + "
                "shared) / 10 (C division); then clamp.")

    def _args(self):
        p = self.params
        return (p["numa_scan_period_ms"], p["local"], p["remote"], p["shared"], p["private"], p["migrate_failed"] > 0,
                p["kernel"].endswith("slowscan-v2"), p["task_scan_min_ms"], p["task_scan_max_ms"])

    def truth(self):
        new, how = update_task_scan_period(*self._args())
        old = self.params["numa_scan_period_ms"]
        alts = {"no private scaling": update_task_scan_period(*self._args(), scaled_private=False)[0],
                "no slot floor": update_task_scan_period(*self._args(), slot_floor=False)[0],
                "fractional ratio": int(update_task_scan_period(*self._args(), int_ratio=False)[0])}
        a = list(self._args())
        a[6] = not a[6]
        alts["the other kernel"] = update_task_scan_period(*a)[0]
        return {"new_period_ms": new, "direction": "slower" if new > old else "faster" if new < old else "same",
                "how": how, "alts": alts}

    def working(self, t):
        return [t["how"], f"{self.params['numa_scan_period_ms']} -> {t['new_period_ms']} ms after the clamp"]

    def mistake(self, key, g, t):
        if key != "new_period_ms":
            return None
        msgs = {"no private scaling": "the speed-up is scaled by the share of private faults",
                "no slot floor": "a ratio exactly at the threshold still slows by one slot",
                "fractional ratio": "the kernel's ratio is an integer division",
                "the other kernel": ("that is what the other kernel does: the slow-scan patch doubles the period "
                                     "when migrations failed")}
        for name, v in t["alts"].items():
            if v != t["new_period_ms"] and self.kinds[key].close(g, v):
                return msgs[name]
        return None

    def typical_mistake(self):
        t = self._truth()
        for name, v in t["alts"].items():
            if v != t["new_period_ms"]:
                a = self.answer()
                a["new_period_ms"] = v
                return a, "new_period_ms"
        return None


PAIRS = (("3.19.0 vanilla", "4.0.0-rc1 vanilla"), ("4.0.0-rc1 vanilla", "4.0.0-rc1 slowscan-v2"),
         ("4.0.0-rc1 vanilla", "4.0-rc4"))


class NumaSign(Seeded):
    name = "numa-kernel-sign"
    title = "Exercise 18 -- predict the sign: NUMA balancing across the 2015 kernels"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'predict the sign: NUMA balancing across the 2015 kernels',
        'The model runs autonumabench numa01 under two kernels of the 2015 thread. Predict the sign of the changes '
        'in PTE updates and pages migrated.',
        demo=105, example=('pte_updates_sign', '-'))
    level, minutes, thread, topic = "intermediate", 15, THREAD, "NUMA balancing scan rate (model)"
    questions = {
        "pte_updates_sign": "the sign of the change in numa_pte_updates ('+', '-', or '0' within 2%)",
        "migrated_sign": "the sign of the change in numa_pages_migrated ('+', '-', or '0' within 2%)",
    }
    kinds = {"pte_updates_sign": Sign(), "migrated_sign": Sign()}
    BAND_PCT = 2.0

    def draw(self, rng):
        a, b = PAIRS[int(rng.integers(len(PAIRS)))]
        return {"kernel_from": a, "kernel_to": b, "workload": "numa01", "machine": "mel-4socket-48",
                "passes_scale": 0.05, "model_seed": int(rng.integers(100))}

    def text(self):
        from ...models.numa import KERNEL_DOC

        p = self.params
        return (f"autonumabench {p['workload']} ({p['passes_scale']:g} "
                f"of its passes) on {p['machine']}, under:\n  {p['kernel_from']}: {KERNEL_DOC[p['kernel_from']]}\n"
                f"  {p['kernel_to']}: {KERNEL_DOC[p['kernel_to']]}")

    def truth(self):
        from ...models.numa import kernel_params, simulate
        from .autonumabench import numa01

        p = self.params
        w = numa01(p["machine"], passes_scale=p["passes_scale"])
        out = {}
        for k in (p["kernel_from"], p["kernel_to"]):
            r = simulate(kernel_params(k), w, seed=p["model_seed"], verbose=False)
            out[k] = (float(r.vmstat["numa_pte_updates"]), float(r.vmstat["numa_pages_migrated"]),
                      float(r.times["system_s"]))
        a, b = out[p["kernel_from"]], out[p["kernel_to"]]
        return {"pte_updates_sign": sign_of(pdiff(b[0], a[0]), self.BAND_PCT),
                "migrated_sign": sign_of(pdiff(b[1], a[1]), self.BAND_PCT), "runs": out,
                "pct": (pdiff(b[0], a[0]), pdiff(b[1], a[1]))}

    def working(self, t):
        lines = [f"{k}: numa_pte_updates {v[0]:.0f}, numa_pages_migrated {v[1]:.0f}, system {v[2]:.3f} s"
                 for k, v in t["runs"].items()]
        return lines + [f"changes: PTE updates {t['pct'][0]:+.2f}%, migrated {t['pct'][1]:+.2f}% "
                        f"(band +/-{self.BAND_PCT:g}%)"]

    def mistake(self, key, g, t):
        if self.params["kernel_to"].endswith("slowscan-v2") and key == "pte_updates_sign" and g == "+":
            return "the slow-scan patch doubles the period when migrations fail: fewer PTE updates, not more"
        if key == "pte_updates_sign" and g in "+-" and t[key] in "+-" and g != t[key]:
            return "sign flipped: second kernel minus first"
        return None

    def typical_mistake(self):
        if not self.params["kernel_to"].endswith("slowscan-v2") or self._truth()["pte_updates_sign"] == "+":
            return None
        a = self.answer()
        a["pte_updates_sign"] = "+"
        return a, "pte_updates_sign"


__all__ = ["ScanRate", "ScanPeriod", "NumaSign"]
