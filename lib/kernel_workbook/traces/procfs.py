"""The memory files of procfs: ``buddyinfo``, ``pagetypeinfo``, ``zoneinfo``, ``meminfo``.

Each reads one snapshot or a series of snapshots separated by mmtests'
``time: <epoch>`` lines (``watch-proc-buddyinfo.sh`` and friends) or by the
stamps of a shell loop that give the epoch (``date`` with its zone, ``date +%s``,
``date -Iseconds``).
``pagetypeinfo`` takes its migrate types from the ``Number of blocks type``
header (Reserve before 3.18, HighAtomic after, CMA and Isolate when
configured): jc assumes five fixed types and mislabels the others.
``zoneinfo`` handles several nodes, nodes whose first zone is Normal, the
``per-node stats`` block of newer kernels and the pagesets.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..errors import WorkbookParseError
from ._common import (guarded, fail, read_source, read_stamp, set_attrs, stamp_epoch, strip_latency_prefix,
                      warn_truncated)

_TIME_RE = re.compile(r"^time: *(\d+(?:\.\d+)?)\s*$")


def _snapshots(text: str):
    """Yield (time or None, line number, line) with the current snapshot's time.

    Besides mmtests' ``time:`` lines, a shell loop's stamp that gives the epoch (``date`` with its zone,
    ``date +%s``, ``date -Iseconds``) starts a snapshot; a stamp without a zone stays a line the parser
    refuses, as its epoch would be a guess."""
    t = None
    for i, ln in enumerate(text.split("\n")):
        m = _TIME_RE.match(ln)
        if m:
            t = float(m.group(1))
            yield t, i, None
            continue
        if ln[:1].isdigit() or ln[:1] in "=-#*" or ln[:3] in _DAYS:
            st = read_stamp(ln)
            if st is not None and not np.isnan(stamp_epoch(*st)):
                t = stamp_epoch(*st)
                yield t, i, None
                continue
        yield t, i, ln


_DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}


def _labels(df: pd.DataFrame, cols) -> pd.DataFrame:
    """The long frames' label columns as pandas Categorical (categories sorted, so sorting and ``==`` behave as
    on the strings): a long frame repeats a few dozen labels on every row, and a str column per row cost
    zoneinfo and pagetypeinfo 5-8x their file's size at the peak; the fast path takes these codes (int8) per
    snapshot."""
    for c in cols:
        df[c] = df[c].astype("category")
    return df


def _finish_time(df: pd.DataFrame) -> pd.DataFrame:
    if "time" in df.columns and df["time"].notna().any():
        df["elapsed"] = df["time"] - df["time"].min()
    else:
        df = df.drop(columns=["time"], errors="ignore")
    return df


# ---------------------------------------------------------------- buddyinfo

_BUDDY_RE = re.compile(r"^Node\s+(\d+),\s*zone\s+(\S+)((?:\s+\d+)+)\s*$")


@guarded
def parse_buddyinfo(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse ``/proc/buddyinfo`` (one snapshot or a ``time:`` series).

    Returns
    -------
    DataFrame
        One row per node and zone per snapshot: ``node`` (int), ``zone``,
        ``order_0`` ... ``order_<MAX_ORDER-1>`` (free blocks of each order;
        11 orders on most kernels, 13 with ``MAX_ORDER`` raised), ``sample``
        (snapshot number), ``time`` and ``elapsed`` with ``time:`` lines.
    """
    text, name = read_source(src, source, max_bytes)
    text, _ = strip_latency_prefix(text)
    if len(text) > FAST_MIN and text.startswith("time:") and text.isascii():
        fast = _fast_buddyinfo(text, name)
        if fast is not None:
            return fast
    recs = []
    sample = -1
    seen = set()
    norders = None
    lines = text.split("\n")
    for t, i, ln in _snapshots(text):
        if ln is None:
            sample += 1
            seen = set()
            continue
        if not ln.strip():
            continue
        m = _BUDDY_RE.match(ln)
        if not m:
            if i == len(lines) - 1 and ln.startswith("Node"):
                warn_truncated(name, i + 1, "buddyinfo line")
                break
            raise fail(name, text, ("line", i + 1), "'Node N, zone NAME count count ...' (/proc/buddyinfo)", ln)
        key = (m.group(1), m.group(2))
        if sample < 0 or key in seen:
            sample += 1
            seen = set()
        seen.add(key)
        counts = [int(x) for x in m.group(3).split()]
        if norders is not None and len(counts) != norders:
            if i == len(lines) - 1 and not text.endswith("\n") and len(counts) < norders:
                warn_truncated(name, i + 1, "buddyinfo line")
                break
            raise fail(name, text, ("line", i + 1), f"{norders} free counts (one per order) like the lines before",
                       ln)
        norders = len(counts)
        rec = {"node": int(m.group(1)), "zone": m.group(2), "sample": sample, "time": t}
        rec.update({f"order_{k}": c for k, c in enumerate(counts)})
        recs.append(rec)
    if not recs:
        raise fail(name, text, None, "'Node N, zone NAME ...' lines (/proc/buddyinfo)", text[:80])
    cols = ["node", "zone"] + [f"order_{k}" for k in range(norders)] + ["sample", "time"]
    df = pd.DataFrame(recs).reindex(columns=cols)
    return set_attrs(_finish_time(df), name, "buddyinfo", None, None, orders=norders)


# ---------------------------------------------------------------- pagetypeinfo

_PT_FREE_RE = re.compile(r"^Node\s+(\d+),\s*zone\s+(\S+),\s*type\s+(\S+)((?:\s+\d+)+)\s*$")
_PT_BLOCK_RE = re.compile(r"^Node\s+(\d+),\s*zone\s+(\S+)((?:\s+\d+)+)\s*$")


@guarded
def parse_pagetypeinfo(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse ``/proc/pagetypeinfo``.

    Returns
    -------
    DataFrame
        Long and tidy, one row per number: ``section`` (``free``: free pages
        count per migrate type and order; ``blocks``: number of pageblocks of
        each type; ``mixed``: ``Number of mixed blocks`` of kernels with
        page_owner), ``node`` (int), ``zone``, ``type`` (the migrate type as
        the kernel names it: Unmovable, Movable, Reclaimable, Reserve,
        HighAtomic, CMA, Isolate...), ``order`` (-1 for the block
        sections), ``count``, ``sample``, and ``time``/``elapsed`` with
        ``time:`` lines.  ``attrs``: ``page_block_order``, ``pages_per_block``,
        ``types`` (the block-type header, in order).

        dtypes (:data:`PAGETYPEINFO_DTYPES`): ``section``, ``zone`` and ``type`` pandas Categorical (categories
        sorted: they compare, sort and group as the strings); ``node`` int16 (the kernel's node ids are below
        ``MAX_NUMNODES`` = ``1 << NODES_SHIFT``, ``NODES_SHIFT`` at most 10); ``order`` int8 (0 to
        ``NR_PAGE_ORDERS - 1``, -1); ``count`` int64 (the kernel prints an ``unsigned long``:
        ``pagetypeinfo_showfree_print()``, ``pagetypeinfo_showblockcount_print()`` in mm/vmstat.c); ``sample``
        int32; ``time`` and ``elapsed`` float64.  A long frame has a row per number (180 a snapshot on a
        one-node machine with three zones), so these widths are what keeps a series' frame under 3x its file
        (int64 everywhere was 3.85x); a node id or an order outside them is refused, naming the line.
    """
    text, name = read_source(src, source, max_bytes)
    text, _ = strip_latency_prefix(text)
    if len(text) > FAST_MIN and text.startswith("time:") and text.isascii():
        fast = _fast_long(text, name, _pagetypeinfo_lines, _pagetypeinfo_values, "count")
        if fast is not None:
            return fast
    return _pagetypeinfo_lines(text, name)


_PT_HEADERS = ("Page block order:", "Pages per block:", "Free pages count per migrate type at order",
               "Number of blocks type", "Number of mixed blocks")


#: The frame's numeric dtypes (the labels are Categorical); see :func:`parse_pagetypeinfo`.
PAGETYPEINFO_DTYPES = {"node": np.int16, "order": np.int8, "count": np.int64, "sample": np.int32,
                       "time": np.float64}
_NODE_MAX = np.iinfo(np.int16).max
_ORDER_MAX = np.iinfo(np.int8).max


def _pagetypeinfo_values(ln: str) -> int | None:
    """How many values :func:`_pagetypeinfo_lines` takes from the line (its last numbers), None for a line it
    would not read as a header or a row of counts."""
    s = ln.strip()
    if s.startswith(_PT_HEADERS):
        return 0
    m = _PT_FREE_RE.match(ln)
    if m:
        return len(m.group(4).split())
    m = _PT_BLOCK_RE.match(ln)
    return len(m.group(3).split()) if m else None


def _pagetypeinfo_lines(text: str, name: str) -> pd.DataFrame:
    """:func:`parse_pagetypeinfo`'s line reader (and the first snapshot's, for the one-pass reader)."""
    recs = []
    meta = {}
    orders = None
    types = None
    section = None
    sample = 0
    started = False
    seen: set = set()
    lines = text.split("\n")
    for t, i, ln in _snapshots(text):
        if ln is None:
            if started:
                sample += 1
                seen.clear()
            continue
        s = ln.strip()
        if not s:
            continue
        if s.startswith("Page block order:"):
            # the kernel prints this header once per node (pagetypeinfo_show() runs per pgdat), so a
            # new snapshot starts only when a (node, zone, type) comes round again, not at each header
            section = None
            meta["page_block_order"] = _int(s.split(":", 1)[1], name, text, i, "Page block order: N")
            started = True
            continue
        if s.startswith("Pages per block:"):
            meta["pages_per_block"] = _int(s.split(":", 1)[1], name, text, i, "Pages per block: N")
            continue
        if s.startswith("Free pages count per migrate type at order"):
            orders = [_int(x, name, text, i, "the orders 0 1 2 ...") for x in s.split("order", 1)[1].split()]
            if any(o > _ORDER_MAX for o in orders):
                raise fail(name, text, ("line", i + 1), f"orders below {_ORDER_MAX + 1} (the kernel's "
                           "NR_PAGE_ORDERS is a few dozen at most)", ln)
            section = "free"
            started = True
            continue
        if s.startswith("Number of blocks type") or s.startswith("Number of mixed blocks"):
            section = "blocks" if "blocks type" in s else "mixed"
            types = s.split("type" if section == "blocks" else "blocks", 1)[1].split()
            meta["types"] = types
            continue
        cut = i == len(lines) - 1 and not text.endswith("\n")
        m_block, m_free = _PT_BLOCK_RE.match(ln), _PT_FREE_RE.match(ln)  # each once: the branches below reuse them
        m = m_block or m_free
        if m and int(m.group(1)) > _NODE_MAX:
            raise fail(name, text, ("line", i + 1), f"a node id below {_NODE_MAX + 1} (the kernel's MAX_NUMNODES "
                       "is 1 << NODES_SHIFT, NODES_SHIFT at most 10)", ln)
        if section == "free":
            m = m_free
            if m and len(m.group(4).split()) == len(orders):
                node, zone, typ = int(m.group(1)), m.group(2), m.group(3)
                if (node, zone, typ) in seen:
                    sample += 1
                    seen.clear()
                seen.add((node, zone, typ))
                for o, c in zip(orders, m.group(4).split()):
                    recs.append(("free", node, zone, typ, o, int(c), sample, t))
                continue
        elif section in ("blocks", "mixed"):
            m = m_block
            if m and len(m.group(3).split()) == len(types):
                node, zone = int(m.group(1)), m.group(2)
                for typ, c in zip(types, m.group(3).split()):
                    recs.append((section, node, zone, typ, -1, int(c), sample, t))
                continue
        if cut and ln.startswith("Node"):
            warn_truncated(name, i + 1, "pagetypeinfo line")
            break
        raise fail(name, text, ("line", i + 1),
                   "a pagetypeinfo header or 'Node N, zone NAME[, type T] counts' matching its header", ln)
    if not recs:
        raise fail(name, text, None, "/proc/pagetypeinfo content", text[:80])
    if sample > np.iinfo(np.int32).max:
        raise fail(name, text, None, f"at most {np.iinfo(np.int32).max} snapshots", f"{sample + 1}")
    df = pd.DataFrame(recs, columns=["section", "node", "zone", "type", "order", "count", "sample", "time"])
    df = df.astype(PAGETYPEINFO_DTYPES)
    return set_attrs(_finish_time(_labels(df, ("section", "zone", "type"))), name, "pagetypeinfo", None, None, **meta)


def _int(s: str, name, text, i, expected) -> int:
    try:
        return int(s.strip())
    except ValueError:
        raise fail(name, text, ("line", i + 1), expected, text.split("\n")[i]) from None


def df_pagetypeinfo_free(df: pd.DataFrame) -> pd.DataFrame:
    """The free-pages section as a grid: rows (node, zone, type), one column per order."""
    f = df[df["section"] == "free"]
    return f.pivot_table(index=["sample", "node", "zone", "type"], columns="order", values="count",
                         aggfunc="sum", sort=False)


# ---------------------------------------------------------------- zoneinfo

_ZONE_RE = re.compile(r"^Node\s+(\d+),\s*zone\s+(\S+)\s*$")
_KV_RE = re.compile(r"^\s*([A-Za-z_][\w ]*?):?\s+(-?\d{1,19})\s*$")
_PROT_RE = re.compile(r"\(\s*-?\d{1,19}(?:\s*,\s*-?\d{1,19})*\s*\)")
# the zone's lines the kernel prints after its pagesets: 4.x+ 'node_unreclaimable', 'start_pfn'; 2.6's
# 'all_unreclaimable', 'prev_priority', 'temp_priority' (mm/vmstat.c zoneinfo_show() of 2.6.18)
_ZONE_AFTER_PAGESETS = ("node_unreclaimable", "start_pfn", "all_unreclaimable", "prev_priority", "temp_priority")
# 'cpu: 0' (2.6.24+), 'cpu: 0 pcp: 1' (2.6.x: each CPU's hot and cold lists, mm/vmstat.c zoneinfo_show() of 2.6.18)
_CPU_RE = re.compile(r"cpu:\s*(\d{1,9})(?:\s+pcp:\s*(\d{1,9}))?")
_SCANNED_RE = re.compile(r"^\s*scanned\s+(\d{1,19})\s+\(a:\s*(\d{1,19})\s+i:\s*(\d{1,19})\)\s*$")


@guarded
def parse_zoneinfo(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse ``/proc/zoneinfo``.

    Returns
    -------
    DataFrame
        Long and tidy: ``node`` (int), ``zone`` (``DMA``, ``DMA32``,
        ``Normal``, ``Movable``...; a node may start at ``Normal``),
        ``scope`` (``zone`` for the zone's own lines, ``node`` for the
        ``per-node stats`` printed under the node's first zone, ``pageset``
        for the per-CPU pagesets), ``cpu`` (int, -1 outside pagesets),
        ``counter`` (as printed: ``pages free``, ``min``, ``low``, ``high``,
        ``spanned``, ``present``, ``managed``, ``nr_free_pages``, ``count``,
        ``batch``, ``vm stats threshold``, ``start_pfn``...), ``value``
        (int), ``sample``, ``time``/``elapsed`` with ``time:`` lines.
        ``protection: (0, 2681, ...)`` becomes counters ``protection[0]``...
        2.6.x printed two lists per CPU (``cpu: 0 pcp: 0``, the hot list, and ``pcp: 1``, the cold): their
        counters are ``pcp[0].count``, ``pcp[0].high``, ``pcp[0].batch``, ``pcp[1].count``...
        ``zone``, ``scope`` and ``counter`` are pandas Categorical (categories sorted): they compare, sort and
        group as the strings, at a byte a row instead of a string a row.
    """
    text, name = read_source(src, source, max_bytes)
    text, _ = strip_latency_prefix(text)
    if len(text) > FAST_MIN and text.startswith("time:") and text.isascii():
        fast = _fast_zoneinfo(text, name)
        if fast is not None:
            return fast
    return _zoneinfo_lines(text, name)


_ZONEINFO_COLUMNS = ["node", "zone", "scope", "cpu", "counter", "value", "sample", "time"]


def _zoneinfo_lines(text: str, name: str) -> pd.DataFrame:
    """:func:`parse_zoneinfo`'s line reader."""
    recs = []
    node = zone = None
    scope = "zone"
    cpu = -1
    sample = 0
    seen = set()
    any_zone = False
    pcp = None  # 2.6's per-CPU list (0 hot, 1 cold) the count/high/batch lines belong to
    lines = text.split("\n")
    for t, i, ln in _snapshots(text):
        if ln is None:
            if any_zone:
                sample += 1
                seen = set()
            continue
        s = ln.strip()
        if not s:
            continue
        m = _ZONE_RE.match(ln)
        if m:
            node, zone = int(m.group(1)), m.group(2)
            if (node, zone) in seen:
                sample += 1
                seen = set()
            seen.add((node, zone))
            scope, cpu, pcp = "zone", -1, None
            any_zone = True
            continue
        if node is None:
            raise fail(name, text, ("line", i + 1), "'Node N, zone NAME' first (/proc/zoneinfo)", ln)
        if s == "per-node stats":
            scope = "node"
            continue
        if s == "pagesets":
            scope, cpu = "pageset", -1
            continue
        if s.startswith("pages free"):
            scope, cpu, pcp = "zone", -1, None
        if s.startswith("cpu:"):
            m = _CPU_RE.fullmatch(s)
            if not m:
                raise fail(name, text, ("line", i + 1), "'cpu: N' (or 2.6's 'cpu: N pcp: M')", ln)
            cpu = int(m.group(1))
            pcp = m.group(2)
            scope = "pageset"
            continue
        if s.startswith("protection:"):
            body = s.split(":", 1)[1].strip()
            if not _PROT_RE.fullmatch(body):
                raise fail(name, text, ("line", i + 1), "'protection: (N, N, ...)'", ln)
            vals = re.findall(r"-?\d+", body)
            for k, v in enumerate(vals):
                recs.append((node, zone, "zone", -1, f"protection[{k}]", int(v), sample, t))
            continue
        sc = _SCANNED_RE.match(ln)
        if sc:  # 2.6.x: "scanned  N (a: N i: N)", zone->pages_scanned, nr_scan_active, nr_scan_inactive
            for key, v in zip(("pages_scanned", "nr_scan_active", "nr_scan_inactive"), sc.groups()):
                recs.append((node, zone, "zone", -1, key, int(v), sample, t))
            continue
        kv = _KV_RE.match(ln)
        if kv:
            key = kv.group(1).strip()
            if scope == "pageset" and pcp is not None and key in ("count", "high", "batch"):
                key = f"pcp[{pcp}].{key}"  # 2.6's two lists per CPU: pageset->pcp[0] (hot), pcp[1] (cold)
            if scope == "pageset" and key in _ZONE_AFTER_PAGESETS:
                scope, cpu, pcp = "zone", -1, None
            if scope == "node" and not key.startswith(("nr_", "workingset_", "pg", "numa_")):
                scope = "zone"
            recs.append((node, zone, scope, cpu, key, int(kv.group(2)), sample, t))
            continue
        if i == len(lines) - 1 and not text.endswith("\n"):
            warn_truncated(name, i + 1, "zoneinfo line")
            break
        raise fail(name, text, ("line", i + 1), "'counter value' lines under 'Node N, zone NAME'", ln)
    if not recs and not any_zone:
        raise fail(name, text, None, "/proc/zoneinfo content", text[:80])
    df = pd.DataFrame(recs, columns=_ZONEINFO_COLUMNS)
    return set_attrs(_finish_time(_labels(df, ("zone", "scope", "counter"))), name, "zoneinfo", None, None)


def df_zoneinfo_wide(df: pd.DataFrame) -> pd.DataFrame:
    """The zone-scope counters of :func:`parse_zoneinfo`, one row per (sample, node, zone)."""
    z = df[df["scope"] == "zone"]
    w = z.pivot_table(index=["sample", "node", "zone"], columns="counter", values="value", aggfunc="first",
                      sort=False)
    w.columns.name = None
    return w.reset_index()


# ---------------------------------------------------------------- meminfo

_MEM_RE = re.compile(r"^(?:Node\s+(\d+)\s+)?([A-Za-z_][\w()]*):\s+(-?\d+)(?:\s+(\S+))?\s*$")
# Linux 2.4 (and 2.2) start /proc/meminfo with a table in bytes: "        total:    used:    free:  shared:
# buffers:  cached:", a "Mem:" row of six numbers and a "Swap:" row of three (total used free), then the
# "Field:  N kB" lines that 2.6 kept alone (fs/proc/proc_misc.c, meminfo_read_proc)
_MEM24_HEAD_RE = re.compile(r"^\s*total:(?:\s+[a-z]+:)+\s*$")
_MEM24_ROW_RE = re.compile(r"^(Mem|Swap):((?:\s+\S+)+)\s*$")


@guarded
def parse_meminfo(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse ``/proc/meminfo`` or ``/sys/devices/system/node/nodeN/meminfo``.

    Returns
    -------
    DataFrame
        Wide: one row per snapshot (and node, for the per-node files), one
        column per field as the kernel names it (``MemTotal``, ``MemFree``,
        ``Active(file)``, ``HugePages_Total``...), values as printed (``kB``
        for most: ``attrs["units"]`` maps each field to its unit), plus
        ``node`` (-1 for /proc/meminfo), ``sample``, ``time``/``elapsed``
        with ``time:`` lines.  Linux 2.4's table of bytes above the ``kB`` lines
        (``total: used: free: shared: buffers: cached:`` with a ``Mem:`` and a
        ``Swap:`` row) becomes the columns ``Mem.total`` ... ``Mem.cached`` and
        ``Swap.total``, ``Swap.used``, ``Swap.free``, in bytes (unit ``B``),
        named from the table's header; a count past 2**63 (2.4.13's underflowed
        ``cached``) is kept exactly (the column becomes uint64).
    """
    text, name = read_source(src, source, max_bytes)
    text, _ = strip_latency_prefix(text)
    if len(text) > FAST_MIN and text.startswith("time:") and text.isascii():
        fast = _fast_meminfo(text, name)
        if fast is not None:
            return fast
    rows: list[dict] = []
    units: dict[str, str] = {}
    cur: dict | None = None
    table: list[str] | None = None  # the 2.4 table's column names, while its rows are read
    lines = text.split("\n")
    for t, i, ln in _snapshots(text):
        if ln is None:
            cur = None
            continue
        if not ln.strip():
            continue
        if _MEM24_HEAD_RE.match(ln):
            table = [w.rstrip(":") for w in ln.split()]
            cur = {"node": -1, "time": t}
            rows.append(cur)
            continue
        r24 = _MEM24_ROW_RE.match(ln)
        if r24 and table is not None and (r24.group(1) != "Mem" or "Mem.total" not in cur):
            vals = r24.group(2).split()
            if f"{r24.group(1)}.{table[0]}" in cur:
                raise fail(name, text, ("line", i + 1), f"one '{r24.group(1)}:' row under the table header", ln)
            need = len(table) if r24.group(1) == "Mem" else 3  # the kernel prints total used free of swap
            if len(vals) != need or not all(v.isdigit() and int(v) < 1 << 64 for v in vals):
                raise fail(name, text, ("line", i + 1), f"'{r24.group(1)}:' and {need} byte counts under "
                           f"'{' '.join(w + ':' for w in table)}' (/proc/meminfo of Linux 2.4)", ln)
            for col, v in zip(table, vals):
                cur[f"{r24.group(1)}.{col}"] = int(v)
                units[f"{r24.group(1)}.{col}"] = "B"
            continue
        table = None
        m = _MEM_RE.match(ln)
        if not m:
            if i == len(lines) - 1 and not text.endswith("\n"):
                warn_truncated(name, i + 1, "meminfo line")
                break
            raise fail(name, text, ("line", i + 1), "'Field:   value [kB]' (/proc/meminfo)", ln)
        node = int(m.group(1)) if m.group(1) else -1
        key = m.group(2)
        if cur is None or key in cur or cur.get("node") != node:
            cur = {"node": node, "time": t}
            rows.append(cur)
        cur[key] = int(m.group(3))
        if m.group(4):
            units[key] = m.group(4)
    if rows and set(rows[-1]) <= {"node", "time"}:  # a 2.4 table header and nothing under it: cut there
        warn_truncated(name, len(lines), "meminfo snapshot (a table header without its rows)")
        rows.pop()
    if not rows:
        raise fail(name, text, None, "'Field: value' lines (/proc/meminfo)", text[:80])
    df = pd.DataFrame(rows)
    df["sample"] = np.arange(len(df))
    if (df["node"] >= 0).any():
        df["sample"] = df.groupby("node").cumcount()
    cols = [c for c in df.columns if c not in ("node", "time", "sample")] + ["node", "sample", "time"]
    df = df[cols]
    return set_attrs(_finish_time(df), name, "meminfo", None, None, units=units)


#: Texts longer than this (ASCII, starting with a ``time:`` line) try the one-pass readers first.
FAST_MIN = 20000


def _first_snapshot(text: str) -> list[str] | None:
    """The non-blank lines of a series' first snapshot, when the text starts with a ``time:`` line."""
    end1 = text.find("\n")
    if end1 < 0 or _TIME_RE.match(text[:end1]) is None:
        return None
    nxt = text.find("\ntime:", end1)
    return [ln for ln in text[end1:nxt if nxt >= 0 else len(text)].split("\n") if ln.strip()]


def _fast_buddyinfo(text: str, name: str) -> pd.DataFrame | None:
    """The series mmtests' ``watch-proc-buddyinfo.sh`` writes (``time: <epoch>``, then the same zones' lines,
    each its ``Node N, zone NAME`` printed the same way, every time), read by numba into the frame's columns
    (:func:`~._fastscan.scan_series`): a regex match and a dict a line took 18x the file's memory for 10**6
    lines.  None for anything else (a stamp line, a zone missing, added or moved, another count of orders, a
    cut snapshot or line), which :func:`parse_buddyinfo`'s line reader then reads, warns about or refuses."""
    from ._fastscan import scan_series

    first = _first_snapshot(text)
    if not first:
        return None
    heads, keys, widths = [], [], set()
    for ln in first:
        m = _BUDDY_RE.match(ln)
        if m is None:
            return None
        heads.append(ln[:m.start(3)])
        keys.append((int(m.group(1)), m.group(2)))
        widths.add(len(m.group(3).split()))
    if len(widths) != 1 or len(set(keys)) != len(keys):
        return None
    norders = widths.pop()
    snapshots = text.count("\ntime:") + 1
    scan = scan_series(text, heads, snapshots, pad=True, width=norders, signed=False)
    if scan is None:
        return None
    vals, times = scan
    df = pd.DataFrame({"node": np.tile(np.array([k[0] for k in keys], dtype=np.int64), snapshots),
                       "zone": np.tile(np.array([k[1] for k in keys], dtype=object), snapshots)})
    for o in range(norders):
        df[f"order_{o}"] = vals[o]
    df["sample"] = np.repeat(np.arange(snapshots, dtype=np.int64), len(keys))
    df["time"] = np.repeat(times, len(keys))
    return set_attrs(_finish_time(df), name, "buddyinfo", None, None, orders=norders)


def _zoneinfo_values(ln: str) -> int | None:
    """How many values :func:`_zoneinfo_lines` takes from the line (the last numbers of it), None for a line it
    would not read as a zone, a heading or a counter."""
    s = ln.strip()
    if _ZONE_RE.match(ln) or s in ("per-node stats", "pagesets") or s.startswith("cpu:"):
        return 0
    if s.startswith("protection:"):
        return len(re.findall(r"\d+", s))
    if _SCANNED_RE.match(ln):
        return 3
    return 1 if _KV_RE.match(ln) else None


def _fast_zoneinfo(text: str, name: str) -> pd.DataFrame | None:
    """The series mmtests' ``watch-proc-zoneinfo.sh`` writes, read by :func:`_fast_long`: a tuple per line took
    21x the file's memory for 10**6 lines."""
    return _fast_long(text, name, _zoneinfo_lines, _zoneinfo_values, "value")


def _fast_long(text: str, name: str, line_reader, values_of, value: str) -> pd.DataFrame | None:
    """A ``time:`` series of a long frame's file (``zoneinfo``, ``pagetypeinfo``: a row per number) whose
    snapshots are the same lines but for their numbers, read by numba (:func:`~._fastscan.scan_template`):
    *line_reader* reads the first snapshot, and every later one must be its lines with other unsigned numbers
    where *line_reader* took its values (``values_of(line)`` of them, the last numbers of the line), so each
    row is the first snapshot's row with its own *value* column, ``sample`` and ``time``.  The columns are made
    whole, none a Python object per row.  None for anything else (a line changed, renamed, missing or added, a
    sign, a stamp line, a cut snapshot or line), which *line_reader* then reads, warns about or refuses."""
    import warnings

    from ._fastscan import scan_template

    lines = _first_snapshot(text)
    if not lines:
        return None
    template, expect = [], []
    for ln in lines:
        n = values_of(ln)
        spans = [m.span() for m in re.finditer(r"\d+", ln)][-n:] if n else []
        if n is None or len(spans) != n or any(a > 0 and ln[a - 1] == "-" for a, _ in spans):
            return None
        cuts = [0] + [x for sp in spans for x in sp] + [len(ln)]
        template.append([ln[cuts[q]:cuts[q + 1]] for q in range(0, len(cuts), 2)])
        expect += [int(ln[a:b]) for a, b in spans]
    first_len = text.find("\ntime:", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            first = line_reader(text[:first_len + 1] if first_len >= 0 else text, name)
        except (WorkbookParseError, Warning):
            return None
    if len(first) != len(expect) or (first["sample"] != 0).any() or first[value].tolist() != expect \
            or "time" not in first.columns:
        return None
    snapshots = text.count("\ntime:") + 1
    rows = len(first)
    out = np.empty(snapshots * rows, dtype=np.int64)
    scan = scan_template(text, template, snapshots, out=out)
    if scan is None:
        return None
    cols = {}
    for col in first.columns:
        dtype = first[col].dtype
        if col == value:
            cols[col] = out
        elif col == "sample":
            cols[col] = np.repeat(np.arange(snapshots, dtype=dtype), rows)
        elif col == "time":
            cols[col] = np.repeat(scan[1], rows)
        elif col == "elapsed":  # _finish_time's, made whole here: built on the frame, its temporaries were the peak
            cols[col] = np.repeat(scan[1] - scan[1].min(), rows)
        # each label column is the first snapshot's tiled, in its own dtype: an index array of every row to
        # take them with was 8 bytes a row more at the peak (0.6x the file for pagetypeinfo)
        elif isinstance(dtype, pd.CategoricalDtype):
            cols[col] = pd.Categorical.from_codes(np.tile(first[col].cat.codes.to_numpy(), snapshots), dtype=dtype,
                                                  validate=False)
        elif isinstance(dtype, np.dtype):
            cols[col] = np.tile(first[col].to_numpy(), snapshots)
        else:  # the strings in their own array type (pandas' str), not a Python object a row
            cols[col] = first[col].array.take(np.tile(np.arange(rows), snapshots))
    # one frame of the columns as they are (an insert into a frame copied its integer block: 2x at the peak)
    df = pd.DataFrame(cols, copy=False)
    df.attrs.update(first.attrs)
    return df


def _fast_meminfo(text: str, name: str) -> pd.DataFrame | None:
    """The series mmtests' ``watch-proc-meminfo.sh`` writes (``time: <epoch>``, then the same fields in the same
    order with the same units every time, no ``Node N`` prefix), read by numba into the frame's columns without a
    string or a dict per line (:func:`~._fastscan.scan_series`): 10**6 lines took 11x the file's memory.  None
    for anything else (a 2.4 table, a stamp line, a field missing, added or moved, another unit, a cut
    snapshot), which :func:`parse_meminfo`'s line reader then reads, warns about or refuses as before."""
    from ._fastscan import scan_series

    first = _first_snapshot(text)
    if first is None:
        return None
    fields, units = [], []
    for ln in first:
        m = _MEM_RE.match(ln)
        if m is None or m.group(1) is not None or m.group(2)[:3] in _DAYS:
            return None
        fields.append(m.group(2))
        units.append(m.group(4) or "")
    if not fields or len(set(fields)) != len(fields):
        return None
    scan = scan_series(text, [f + ":" for f in fields], text.count("\ntime:") + 1, units, pad=True)
    if scan is None:
        return None
    vals, times = scan
    n = times.size
    df = pd.DataFrame(vals.T, columns=pd.Index(fields), copy=False)
    extra = pd.DataFrame({"node": np.full(n, -1, dtype=np.int64), "sample": np.arange(n, dtype=np.int64),
                          "time": times})
    df = _finish_time(pd.concat([df, extra], axis=1))
    return set_attrs(df, name, "meminfo", None, None, units={f: u for f, u in zip(fields, units) if u})
