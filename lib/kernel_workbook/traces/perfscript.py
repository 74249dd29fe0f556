"""``perf script`` output: samples, call chains, and folded stacks for flame graphs.

Reads samples with and without call chains (``perf record -g``), with and
without the CPU column, several events in one file, tracepoint samples that
carry no stack and print their fields instead (``kmem:mm_page_alloc:
page=... order=0 ...``), kernel and user frames, ``perf script --header``
comments, and comm names with spaces.

:func:`fold` gives folded stacks (``comm;root;...;leaf count``), the
interchange format of flame graphs, computed as FlameGraph's
``stackcollapse-perf.pl`` computes them with its defaults (process name
first, ``+0x..`` offsets stripped, ``[unknown]`` replaced by the module's
base name, C++ argument lists and quotes removed, Java ``L`` prefixes,
counts weighted by the sample period when perf prints one), so the output is
byte-identical on the inputs it reads.  Where the Perl script goes wrong we
do not copy it; each difference is named in :func:`fold`'s docstring and
shown by ``tests/test_traces_perf.py``.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._common import fail, read_source, set_attrs

_HDR_RE = re.compile(
    r"^[ \t]*(?P<comm>\S.*?)[ \t]+(?P<pid>-?\d+)(?:/(?P<tid>-?\d+))?[ \t]+(?:\[(?P<cpu>\d+)\][ \t]+)?"
    r"(?P<time>\d+\.\d+):[ \t]+(?:(?P<period>\d+)[ \t]+)?(?P<event>\S+?):(?:[ \t]+(?P<rest>.*?))?[ \t]*$")
# stackcollapse-perf.pl's frame regex, unchanged: pc, raw function, module
_FRAME_RE = re.compile(r"^\s*(\w+)\s*(.+) \((.*)\)")
# a sample line without call chain may end with "ip sym+off (dso)"
_IP_SYM_RE = re.compile(r"^([0-9a-f]+)\s+(.+?)(?: \((.*)\))?$")


@dataclass
class PerfScript:
    """The two frames of a ``perf script`` parse.

    ``samples``: one row per sample, columns ``comm pid tid cpu time event
    period stack_id trace`` (``cpu`` is -1 when not printed, ``pid`` is -1
    when perf printed only the thread id, ``period`` is 1 when not printed,
    ``stack_id`` is -1 for a sample without a stack, ``trace`` holds a
    tracepoint's fields, empty otherwise).

    ``stacks``: one row per frame of each distinct stack, columns
    ``stack_id depth addr symbol dso`` with ``depth`` 0 at the root (the
    outermost caller) and the last depth at the leaf; ``symbol`` as perf
    printed it (with its ``+0x`` offset).
    """

    samples: pd.DataFrame
    stacks: pd.DataFrame

    @property
    def attrs(self) -> dict:
        return self.samples.attrs


def parse_perf_script(src, source: str | None = None, max_bytes: int | None = None) -> PerfScript:
    """Parse ``perf script`` text into samples and stacks (see :class:`PerfScript`)."""
    text, name = read_source(src, source, max_bytes)
    p = _Parser(text, name)
    p.run()
    return p.result()


def parse_perf_script_samples(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """The samples frame of :func:`parse_perf_script`.

    Returns
    -------
    DataFrame
        ``comm pid tid cpu time event period stack_id trace`` (see :class:`PerfScript`).
    """
    return parse_perf_script(src, source, max_bytes).samples


class _Parser:
    def __init__(self, text: str, name: str):
        self.text = text
        self.name = name
        self.comm: list[str] = []
        self.pid: list[int] = []
        self.tid: list[int] = []
        self.cpu: list[int] = []
        self.time: list[float] = []
        self.event: list[str] = []
        self.period: list[int] = []
        self.stack: list[int] = []
        self.trace: list[str] = []
        self.stack_ids: dict[str, int] = {}
        self.stack_frames: list[list[tuple[str, str, str]]] = []
        self.cmdline = None
        self.version = None
        self.bad = 0

    def run(self) -> None:
        text = self.text
        if text.startswith("#"):
            self._comments()
        hdr = _HDR_RE.match
        body_cache = self.stack_ids
        pos_line = 0
        for blk in text.split("\n\n"):
            if not blk:
                pos_line += 2
                continue
            lead = len(blk) - len(blk.lstrip("\n"))
            if lead:
                blk = blk[lead:]
            head, _, body = blk.partition("\n")
            m = hdr(head)
            if m is None or (body and body[0] not in " \t"):
                self._slow(blk, pos_line + lead)
                pos_line += lead + blk.count("\n") + 2
                continue
            if body:
                sid = body_cache.get(body)
                if sid is None:
                    sid = self._add_stack(body, pos_line + lead + 1)
                    if sid == -2:  # the block holds more than one sample
                        self._slow(blk, pos_line + lead)
                        pos_line += lead + blk.count("\n") + 2
                        continue
            else:
                sid = -1
            self._sample(m, sid)
            pos_line += lead + blk.count("\n") + 2
        if not self.comm:
            if text.strip() and not all(ln.startswith("#") or not ln.strip() for ln in text.split("\n")):
                raise fail(self.name, text, ("line", 1 + self._first_noncomment()),
                           "a perf script sample line 'comm pid [cpu] time: [period] event:'")

    def _first_noncomment(self) -> int:
        for i, ln in enumerate(self.text.split("\n")):
            if ln.strip() and not ln.startswith("#"):
                return i
        return 0

    def _comments(self):
        for ln in self.text.split("\n", 200)[:200]:
            if not ln.startswith("#"):
                break
            if ln.startswith("# cmdline"):
                self.cmdline = ln.split(":", 1)[-1].strip()
            elif ln.startswith("# perf version"):
                self.version = ln.split(":", 1)[-1].strip()

    def _sample(self, m, sid) -> None:
        pid, tid = m.group("pid"), m.group("tid")
        self.comm.append(m.group("comm"))
        if tid is None:
            self.pid.append(-1)
            self.tid.append(int(pid))
        else:
            self.pid.append(int(pid))
            self.tid.append(int(tid))
        c = m.group("cpu")
        self.cpu.append(int(c) if c else -1)
        self.time.append(float(m.group("time")))
        self.event.append(m.group("event"))
        pr = m.group("period")
        self.period.append(int(pr) if pr else 1)
        rest = m.group("rest") or ""
        if sid == -1 and rest:
            # no call chain: "ip sym (dso)" on the sample line makes a one-frame stack;
            # anything else is a tracepoint's fields
            if "=" not in rest and _IP_SYM_RE.match(rest) and _FRAME_RE.match(rest):
                key = "\t" + rest
                sid = self.stack_ids.get(key)
                if sid is None:
                    sid = self._add_stack(key, 0)
                rest = ""
        self.stack.append(sid)
        self.trace.append(rest)

    def _add_stack(self, body: str, line0: int) -> int:
        frames = []
        for ln in body.split("\n"):
            if not ln.strip():
                continue
            if ln[0] not in " \t" and _HDR_RE.match(ln):
                return -2
            f = _FRAME_RE.match(ln)
            if f is None:
                if _HDR_RE.match(ln):
                    return -2
                self.bad += 1
                continue
            frames.append((f.group(1), f.group(2), f.group(3)))
        sid = len(self.stack_frames)
        self.stack_frames.append(frames)
        self.stack_ids[body] = sid
        return sid

    def _slow(self, blk: str, line0: int) -> None:
        """Line by line: comment lines, samples without blank lines between them, junk."""
        cur = None
        body: list[str] = []
        lines = blk.split("\n")

        def flush():
            if cur is None:
                return
            b = "\n".join(body)
            if b:
                sid = self.stack_ids.get(b)
                if sid is None:
                    sid = self._add_stack(b, 0)
            else:
                sid = -1
            self._sample(cur, sid)

        for i, ln in enumerate(lines):
            if not ln.strip() or ln.startswith("#"):
                continue
            m = _HDR_RE.match(ln)
            if m and not (ln[0] in " \t" and _FRAME_RE.match(ln) and not re.search(r"\d+\.\d+:\s", ln)):
                flush()
                cur = m
                body = []
                continue
            if cur is not None and ln[0] in " \t":
                body.append(ln)
                continue
            if cur is None and i == len(lines) - 1 and self.comm:
                self.bad += 1
                continue
            raise fail(self.name, self.text, ("line", line0 + i + 1),
                       "a perf script sample line 'comm pid [cpu] time: [period] event:' or a frame "
                       "'addr symbol (dso)'", ln)
        flush()

    def result(self) -> PerfScript:
        n = len(self.comm)
        samples = pd.DataFrame({
            "comm": pd.Series(self.comm, dtype=object),
            "pid": np.array(self.pid, dtype=np.int64), "tid": np.array(self.tid, dtype=np.int64),
            "cpu": np.array(self.cpu, dtype=np.int64), "time": np.array(self.time, dtype=float),
            "event": pd.Series(self.event, dtype=object), "period": np.array(self.period, dtype=np.int64),
            "stack_id": np.array(self.stack, dtype=np.int64), "trace": pd.Series(self.trace, dtype=object),
        }) if n else pd.DataFrame(columns=["comm", "pid", "tid", "cpu", "time", "event", "period", "stack_id",
                                           "trace"])
        sid, depth, addr, sym, dso = [], [], [], [], []
        for k, fr in enumerate(self.stack_frames):
            d = len(fr)
            for j, (a, s, m) in enumerate(reversed(fr)):
                sid.append(k)
                depth.append(j)
                addr.append(a)
                sym.append(s)
                dso.append(m)
        stacks = pd.DataFrame({"stack_id": np.array(sid, dtype=np.int64), "depth": np.array(depth, dtype=np.int64),
                               "addr": pd.Series(addr, dtype=object), "symbol": pd.Series(sym, dtype=object),
                               "dso": pd.Series(dso, dtype=object)})
        events = list(dict.fromkeys(self.event))
        set_attrs(samples, self.name, "perf-script", self.version, None, events=events, cmdline=self.cmdline,
                  unrecognised_lines=self.bad)
        stacks.attrs = {"source": self.name, "format": "perf-script-stacks"}
        res = PerfScript(samples, stacks)
        res._frames = self.stack_frames  # raw frames, leaf first, for fold()
        return res


def _tidy(rawfunc: str, mod: str, pname: str) -> list[str]:
    """stackcollapse-perf.pl's treatment of one frame (defaults: tidy_generic, tidy_java)."""
    rawfunc = re.sub(r"\+0x[\da-f]+$", "", rawfunc)
    if rawfunc.startswith("("):
        return []
    out = []
    for func in rawfunc.split("->"):
        if func == "[unknown]":
            if mod != "[unknown]":
                func = "[" + re.sub(r".*/", "", mod) + "]"
            else:
                func = "[unknown]"
        func = func.replace(";", ":")
        if not re.search(r"\.\(.*\)\.", func):
            func = re.sub(r"\((?!anonymous namespace\)).*", "", func, flags=re.S)
        func = func.replace('"', "").replace("'", "")
        if pname.startswith("java") and "/" in func:
            func = re.sub(r"^L", "", func)
        if out:
            if "_[i]" not in func:
                func += "_[i]"
        out.append(func)
    return out


def fold(src, event: str | None = None, weight: str = "period", pid: bool = False, tid: bool = False,
         source: str | None = None) -> pd.DataFrame:
    """Folded stacks of a ``perf script`` capture (a path, text or a :class:`PerfScript`).

    Parameters
    ----------
    event : str, optional
        Keep the samples of this event.  Default: the first event of the
        file, as ``stackcollapse-perf.pl`` does (a warning names the events
        left out).
    weight : {"period", "samples"}
        Count each sample by its period (what stackcollapse-perf.pl does when
        perf prints a period) or as one.
    pid, tid : bool
        Add ``-PID`` (or ``-PID/TID``) to the process name, like the Perl
        script's ``--pid``/``--tid``.

    Returns
    -------
    DataFrame
        ``stack`` (``comm;root;...;leaf``) and ``count`` (int), sorted by
        ``stack`` in byte order: :func:`folded_text` prints it line by line
        exactly as stackcollapse-perf.pl does.

    Notes
    -----
    Where stackcollapse-perf.pl goes wrong, we do not copy it:

    * It filters on the first event only when a sample line *ends* with the
      event name, so tracepoint samples that print their fields after the
      event (``kmem:mm_page_alloc: page=...``) slip through any filter and
      count as 1.  We filter every sample on its event and use its period.
    * It drops the last sample when the file does not end with a blank line
      (it only records a stack on a blank line).  We keep it.
    * It ignores sample lines that start with blanks (perf right-aligns the
      comm when several events or the CPU column are printed) and
      then reads their frames into the previous sample's process... We read them.
    * A sample without call chain but with ``ip sym (dso)`` on its line (``perf
      script`` of a capture without ``-g``) folds to ``comm;sym`` rather than
      to ``comm`` alone.
    """
    ps = src if isinstance(src, PerfScript) else parse_perf_script(src, source=source)
    s = ps.samples
    if not len(s):
        return pd.DataFrame({"stack": pd.Series([], dtype=object), "count": pd.Series([], dtype=np.int64)})
    events = list(dict.fromkeys(s["event"]))
    ev = event if event is not None else events[0]
    if event is None and len(events) > 1:
        warnings.warn(f"fold: keeping event {ev!r}; samples of {', '.join(repr(e) for e in events[1:])} left out "
                      "(pass event=)", stacklevel=2)
    s = s[s["event"] == ev]
    w = s["period"] if weight == "period" else pd.Series(1, index=s.index)
    comm = s["comm"].str.replace(" ", "_", regex=False)
    if tid:
        comm = comm + "-" + s["pid"].astype(str).where(s["pid"] >= 0, "?") + "/" + s["tid"].astype(str)
    elif pid:
        comm = comm + "-" + s["pid"].astype(str).where(s["pid"] >= 0, "?")
    g = pd.DataFrame({"comm": comm.to_numpy(), "sid": s["stack_id"].to_numpy(), "w": w.to_numpy()}) \
        .groupby(["comm", "sid"], sort=False)["w"].sum()
    frames = getattr(ps, "_frames", None)
    if frames is None:
        frames = _frames_from_stacks(ps.stacks)
    cache: dict[tuple[str, int], str] = {}
    acc: dict[str, int] = {}
    for (c, sid), cnt in g.items():
        key = (c.startswith("java"), sid)
        f = cache.get(key)
        if f is None:
            parts = []
            if sid >= 0:
                for pc, raw, mod in reversed(frames[sid]):
                    parts.extend(_tidy(raw, mod, c))
            f = ";".join(parts)
            cache[key] = f
        k = c + ";" + f if f else c
        acc[k] = acc.get(k, 0) + int(cnt)
    keys = sorted(acc, key=lambda x: x.encode("utf-8", "surrogateescape"))
    out = pd.DataFrame({"stack": pd.Series(keys, dtype=object),
                        "count": np.array([acc[k] for k in keys], dtype=np.int64)})
    out.attrs = {"source": s.attrs.get("source"), "format": "folded", "event": ev, "weight": weight}
    return out


def _frames_from_stacks(stacks: pd.DataFrame) -> list[list[tuple[str, str, str]]]:
    out: list[list[tuple[str, str, str]]] = []
    for sid, g in stacks.groupby("stack_id", sort=True):
        while len(out) < sid:
            out.append([])
        g = g.sort_values("depth", ascending=False)
        out.append(list(zip(g["addr"], g["symbol"], g["dso"])))
    return out


def folded_text(folded: pd.DataFrame) -> str:
    """The folded stacks as text, ``stack count`` per line (flamegraph.pl's input)."""
    return "".join(f"{s} {c}\n" for s, c in zip(folded["stack"], folded["count"]))


def parse_folded(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Read folded stacks (``a;b;c 12`` per line), e.g. stackcollapse output.

    Returns
    -------
    DataFrame
        ``stack`` and ``count`` (int).
    """
    text, name = read_source(src, source, max_bytes)
    stacks, counts = [], []
    for i, ln in enumerate(text.split("\n")):
        if not ln.strip():
            continue
        st, _, c = ln.rstrip().rpartition(" ")
        if not st or not c.isdigit():
            raise fail(name, text, ("line", i + 1), "'frame;frame;... count'", ln)
        stacks.append(st)
        counts.append(int(c))
    df = pd.DataFrame({"stack": pd.Series(stacks, dtype=object), "count": np.array(counts, dtype=np.int64)})
    return set_attrs(df, name, "folded")
