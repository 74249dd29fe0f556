"""Exercises on the 2014 fair zone allocator: watermarks, NR_ALLOC_BATCH, and the fair policy's effect.

* :class:`Watermarks` -- ``init_per_zone_wmark_min()`` and ``__setup_per_zone_wmarks()`` by hand;
* :class:`BatchShare` -- the fair pass shares page cache by NR_ALLOC_BATCH;
* :class:`FairPolicySign` -- predict the sign of a variant's change with the model.

The truths come from the model's own boot-time setup (``models.fairzone.zone_setup``).
"""

from __future__ import annotations

import math

from ...models.fairzone import simulate, variant_params, zone_setup
from ...exercises.seeded import Choice, Flag, Number, Page, Seeded, Sign, sign_of

THREAD = "2014-seqread-fairzone-cfq"
ZONES = ("DMA", "DMA32", "Normal")
MACHINE_CHOICES = ("desktop-2014", "laptop-2014", "node-4g")


class Watermarks(Seeded):
    name = "fairzone-watermarks"
    title = "Exercise 13 -- a zone's watermarks from min_free_kbytes"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        "a zone's watermarks from min_free_kbytes",
        "The fair zone allocator's batches come from the zones' watermarks, and the watermarks from "
        "`min_free_kbytes`. Compute them for one zone of a machine from the thread.",
        demo=101, example=('wmark_min', 2048))
    level, minutes, thread, topic = "beginner", 15, THREAD, "fair zone allocator (mechanism)"
    questions = {
        "min_free_kbytes": "min_free_kbytes as the kernel sets it at boot (KiB)",
        "wmark_min": "the zone's min watermark (pages)",
        "wmark_low": "the zone's low watermark (pages)",
        "wmark_high": "the zone's high watermark (pages)",
    }
    kinds = {k: Number(tol=0.5, digits=0) for k in questions}

    def draw(self, rng):
        return {"machine": MACHINE_CHOICES[int(rng.integers(len(MACHINE_CHOICES)))],
                "zone": str(rng.choice(["DMA32", "Normal"]))}

    def _setup(self):
        # the kernel built without THP: with it khugepaged's set_recommended_min_free_kbytes() replaces the
        # int_sqrt() value this exercise is about (67584 KiB on these nodes; the 2014b notebook)
        return zone_setup(variant_params("3.16-rc1", self.params["machine"], transparent_hugepage="never"))

    def text(self):
        zs = self._setup()
        lines = [f"Machine {self.params['machine']} (one node, 4 KiB pages, kernel built without THP); managed "
                 "pages per zone:"]
        lines += [f"  {z:7s} {int(m):9d}" for z, m in zip(ZONES, zs.managed)]
        lines.append(f"Zone asked about: {self.params['zone']}.")
        lines.append("init_per_zone_wmark_min(): min_free_kbytes = int_sqrt(lowmem_kbytes x 16), clamped to "
                     "128..65536, lowmem_kbytes = all managed pages x 4.\n__setup_per_zone_wmarks(): the min "
                     "watermark's pages (min_free_kbytes >> 2) are shared by managed pages (integer division); "
                     "low = min + min/4, high = min + min/2 (shifts).")
        return "\n".join(lines)

    def truth(self):
        zs = self._setup()
        z = ZONES.index(self.params["zone"])
        return {"min_free_kbytes": int(zs.min_free_kbytes), "wmark_min": int(zs.wmark_min[z]),
                "wmark_low": int(zs.wmark_low[z]), "wmark_high": int(zs.wmark_high[z]),
                "total": int(zs.managed.sum()), "managed": int(zs.managed[z])}

    def working(self, t):
        pages_min = t["min_free_kbytes"] >> 2
        return [f"lowmem_kbytes = {t['total']} x 4 = {t['total'] * 4}; int_sqrt({t['total'] * 4 * 16}) = "
                f"{math.isqrt(t['total'] * 64)} -> min_free_kbytes {t['min_free_kbytes']}",
                f"pages_min = {t['min_free_kbytes']} >> 2 = {pages_min}; zone share = {pages_min} x {t['managed']} / "
                f"{t['total']} = {t['wmark_min']}",
                f"low = {t['wmark_min']} + {t['wmark_min']} >> 2 = {t['wmark_low']}; "
                f"high = {t['wmark_min']} + {t['wmark_min']} >> 1 = {t['wmark_high']}"]

    def mistake(self, key, g, t):
        k = self.kinds[key]
        if key == "wmark_min" and k.close(g, t["min_free_kbytes"] >> 2):
            return "that is the whole node's min in pages: each zone gets its share by managed pages"
        if key == "wmark_min" and k.close(g, t["min_free_kbytes"] * t["managed"] // t["total"]):
            return "min_free_kbytes is in KiB: >> 2 turns it into 4 KiB pages"
        if key == "min_free_kbytes" and k.close(g, math.isqrt(t["total"] * 16)):
            return "lowmem_kbytes is in KiB: multiply the pages by 4 before the square root"
        if key in ("wmark_low", "wmark_high") and k.close(g, 2 * t["wmark_min"]):
            return "low is min + min/4 and high is min + min/2"
        return None

    def typical_mistake(self):
        a = self.answer()
        a["wmark_min"] = self._truth()["min_free_kbytes"] >> 2
        return a, "wmark_min"


class BatchShare(Seeded):
    name = "fairzone-batch-share"
    title = "Exercise 14 -- how the fair pass shares the page cache"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'how the fair pass shares the page cache',
        "3.12's fair zone policy gives each zone NR_ALLOC_BATCH = high - low pages per round, so page cache is "
        "spread in proportion to the zones. Compute the batches and the share, and say what 3.0 did instead.",
        demo=101, example=('fills_first_3_0', 'DMA32'))
    level, minutes, thread, topic = "intermediate", 15, THREAD, "fair zone allocator (mechanism)"
    questions = {
        "batch_dma32": "DMA32's NR_ALLOC_BATCH after a reset in 3.16-rc1 (pages)",
        "batch_normal": "Normal's NR_ALLOC_BATCH after a reset (pages)",
        "dma32_share_pct": "the share of page cache allocations that land in DMA32 while the fair pass works (%)",
        "fills_first_3_0": "without the fair pass (3.0), which zone does the page cache fill first",
    }
    kinds = {"batch_dma32": Number(tol=0.5, digits=0), "batch_normal": Number(tol=0.5, digits=0),
             "dma32_share_pct": Number(tol=0.1, unit="%"),
             "fills_first_3_0": Choice((("DMA", "DMA"), ("DMA32", "DMA32"), ("Normal", "Normal")))}

    def draw(self, rng):
        return {"machine": MACHINE_CHOICES[int(rng.integers(len(MACHINE_CHOICES)))],
                "min_free_kbytes": int(rng.choice([0, 16384, 45056, 65536]))}

    def _params(self):
        mfk = self.params["min_free_kbytes"] or None
        return variant_params("3.16-rc1", self.params["machine"], min_free_kbytes=mfk)

    def text(self):
        zs = zone_setup(self._params())
        lines = [f"Machine {self.params['machine']}, 3.16-rc1, min_free_kbytes "
                 f"{self.params['min_free_kbytes'] or 'at its boot default'}:",
                 "  zone     managed   wmark_min  wmark_low  wmark_high"]
        for i, z in enumerate(ZONES):
            lines.append(f"  {z:7s} {int(zs.managed[i]):9d} {int(zs.wmark_min[i]):10d} {int(zs.wmark_low[i]):10d} "
                         f"{int(zs.wmark_high[i]):11d}")
        lines.append("The fair pass (ALLOC_FAIR) takes from each zone of the node until its NR_ALLOC_BATCH is spent, "
                     "then resets every batch to high - low. DMA takes no page cache: its lowmem_reserve against "
                     "Normal-capable allocations keeps it below its watermark.")
        return "\n".join(lines)

    def truth(self):
        zs = zone_setup(self._params())
        b32, bn = int(zs.batch[1]), int(zs.batch[2])
        return {"batch_dma32": b32, "batch_normal": bn, "dma32_share_pct": round(b32 * 100 / (b32 + bn), 2),
                "fills_first_3_0": "Normal", "managed": [int(x) for x in zs.managed], "high": int(zs.wmark_high[1])}

    def working(self, t):
        return [f"batch = high - low: DMA32 {t['batch_dma32']}, Normal {t['batch_normal']}",
                f"share = {t['batch_dma32']} / ({t['batch_dma32']} + {t['batch_normal']}) = {t['dma32_share_pct']:.2f}% "
                "(the watermarks, and so the batches, are in proportion to the zones' sizes)",
                "3.0 walks the zonelist highest zone first and stays there while it is above the low watermark: Normal"]

    def mistake(self, key, g, t):
        k = self.kinds[key]
        m = t["managed"]
        if key == "dma32_share_pct" and k.close(g, m[1] * 100 / sum(m)):
            return "DMA takes no page cache (its lowmem_reserve): share over DMA32 and Normal only"
        if key == "batch_dma32" and k.close(g, t["high"]):
            return "the batch is high - low, not the high watermark"
        if key == "fills_first_3_0" and g == "DMA32":
            return "the zonelist starts at the highest zone: Normal, then DMA32, then DMA"
        return None

    def typical_mistake(self):
        a = self.answer()
        a["fills_first_3_0"] = "DMA32"
        return a, "fills_first_3_0"


PAIRS = (("3.0", "3.16-rc1"), ("3.16-rc1", "fairzone"), ("3.16-rc1", "bigbatches"))


class FairPolicySign(Seeded):
    name = "fairzone-variant-sign"
    title = "Exercise 15 -- predict the sign: the fair policy on a small desktop"
    page = Page(  # its notebook page, as exercises/scripts.py writes it
        'predict the sign: the fair policy on a small desktop',
        "The model runs tiobench on Mel Gorman's desktop at 1/32 of its size under two kernels of the thread. "
        "Predict the sign of the change in the DMA32 share and whether kswapd has to scan.",
        demo=101, example=('kswapd_scans', True))
    level, minutes, thread, topic = "intermediate", 20, THREAD, "fair zone allocator (model)"
    questions = {
        "dma32_share_sign": "the sign of the change in the share of page cache allocated from DMA32 "
                            "('+', '-', or '0' within 0.5 points)",
        "kswapd_scans": "does kswapd scan at all in the second kernel's run (True/False)",
    }
    kinds = {"dma32_share_sign": Sign(), "kswapd_scans": Flag()}
    BAND = 0.5
    SCALE = 32  # the desktop at 1/32 of its size, as the 2014b explorer runs it: zones keep their proportions

    def draw(self, rng):
        a, b = PAIRS[int(rng.integers(len(PAIRS)))]
        return {"kernel_from": a, "kernel_to": b, "machine": f"desktop-2014/{self.SCALE}",
                "size_fraction": float(rng.choice([0.8, 2.0])), "readers": 4, "model_seed": int(rng.integers(100))}

    def _machine(self):
        from ...models.fairzone import MACHINES

        m, s = MACHINES["desktop-2014"], self.SCALE
        return m.with_(ram_mb=max(1, int(m.ram_mb // s)), dma_mb=m.dma_mb / s, dma32_mb=m.dma32_mb / s,
                       hole_mb=m.hole_mb / s, other_mb=m.other_mb / s)

    def text(self):
        p = self.params
        m = self._machine()
        return (f"tiobench SeqWrite then SeqRead, {p['readers']} threads, files {p['size_fraction']:g} x RAM, on Mel "
                f"Gorman's desktop at 1/{self.SCALE} ({m.ram_mb} MB, DMA32 {m.dma32_mb:g} MB of it), under "
                f"{p['kernel_from']} then {p['kernel_to']}.")

    def truth(self):
        from ...models.fairzone import VARIANT_DOC
        from .pagecache import tiobench

        p = self.params
        m = self._machine()
        w = tiobench(ram_mb=m.ram_mb, size_fraction=p["size_fraction"], threads=(p["readers"],),
                     phases=("SeqWrite", "SeqRead"))
        out = {}
        for k in (p["kernel_from"], p["kernel_to"]):
            s = simulate(variant_params(k, m), w, seed=p["model_seed"], verbose=False).summary()
            out[k] = (s["DMA32 allocs %"], s["pgscan_kswapd_dma32"] + s["pgscan_kswapd_normal"])
        a, b = out[p["kernel_from"]], out[p["kernel_to"]]
        return {"dma32_share_sign": sign_of(b[0] - a[0], self.BAND), "kswapd_scans": bool(b[1] > 0), "runs": out,
                "docs": {k: VARIANT_DOC[k] for k in out}}

    def working(self, t):
        lines = [f"{k}: DMA32 {v[0]:.2f}% of allocations, kswapd scanned {v[1]:.0f} pages ({t['docs'][k]})"
                 for k, v in t["runs"].items()]
        return lines + ["files smaller than memory need no reclaim, so kswapd has nothing to scan"
                        if self.params["size_fraction"] < 1 else "files larger than memory: kswapd reclaims the oldest"]

    def mistake(self, key, g, t):
        if key == "kswapd_scans" and g and not t["kswapd_scans"]:
            return "files of 0.8 x RAM fit in memory: nothing needs reclaiming"
        if key == "kswapd_scans" and not g and t["kswapd_scans"]:
            return "files of 2 x RAM cannot all stay cached: kswapd must reclaim"
        if key == "dma32_share_sign" and self.params["kernel_from"] == "3.0" and g != "+":
            return "3.0 fills Normal first and spills to DMA32 late; the fair pass spreads in proportion to size"
        return None

    def typical_mistake(self):
        a = self.answer()
        a["kswapd_scans"] = not a["kswapd_scans"]
        return a, "kswapd_scans"


__all__ = ["Watermarks", "BatchShare", "FairPolicySign"]
