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

import numpy as np
import pandas as pd

from ._common import SkippedLinesWarning, guarded, fail, read_source, set_attrs, warn_truncated

_HDR_RE = re.compile(
    r"^[ \t]*(?P<comm>\S.*?)[ \t]+(?P<pid>-?\d+)(?:/(?P<tid>-?\d+))?[ \t]+(?:\[(?P<cpu>\d+)\][ \t]+)?"
    r"(?P<time>\d+\.\d+):[ \t]+(?:(?P<period>\d+)[ \t]+)?(?P<event>\S+?):(?:[ \t]+(?P<rest>.*?))?[ \t]*$")
# stackcollapse-perf.pl's frame regex, unchanged: pc, raw function, module
_FRAME_RE = re.compile(r"^\s*(\w+)\s*(.+) \((.*)\)")
_REST_CACHE: dict[str, tuple[str, str]] = {}
# a sample line without call chain may end with "ip sym+off (dso)"
_IP_SYM_RE = re.compile(r"^([0-9a-f]+)\s+(.+?)(?: \((.*)\))?$")


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

    def __init__(self, samples: pd.DataFrame, frames: list, source: str | None = None):
        self.samples = samples
        self._frames = frames  # per stack: [(addr, raw symbol, dso)], leaf first
        self._stacks = None
        self._source = source

    @property
    def stacks(self) -> pd.DataFrame:
        """One row per frame of each distinct stack (built on first use)."""
        if self._stacks is None:
            sid, depth, addr, sym, dso = [], [], [], [], []
            for k, fr in enumerate(self._frames):
                for j, (a, s_, m, _) in enumerate(reversed(fr)):
                    sid.append(k)
                    depth.append(j)
                    addr.append(a)
                    sym.append(s_)
                    dso.append(m)
            st = pd.DataFrame({"stack_id": np.array(sid, dtype=np.int64), "depth": np.array(depth, dtype=np.int64),
                               "addr": pd.Series(addr, dtype=object), "symbol": pd.Series(sym, dtype=object),
                               "dso": pd.Series(dso, dtype=object)})
            st.attrs = {"source": self._source, "format": "perf-script-stacks"}
            self._stacks = st
        return self._stacks

    @property
    def attrs(self) -> dict:
        return self.samples.attrs


@guarded
def parse_perf_script(src, source: str | None = None, max_bytes: int | None = None) -> PerfScript:
    """Parse ``perf script`` text into samples and stacks (see :class:`PerfScript`)."""
    text, name = read_source(src, source, max_bytes)  # complete lines only
    body = text.rstrip("\n")
    if body and not text.endswith("\n\n"):
        last = body[body.rfind("\n") + 1:]
        frame_last = last.startswith("\t") and _frame(last) is not None and not _HDR_RE.match(last[:4096])
        # a stack cut, or a sample of a -g file before its stack ("... cpu-clock: " ends its header line).
        # Several sample lines and not a single frame line: a file without call chains (-F comm,pid,tid,
        # cpu,time,event; -F -ip), whose lines end in ':' (or in a tracepoint's arguments) and are whole.  One
        # such line alone cannot be told from a -g file cut before its first stack, so it is dropped as that,
        # with the warning
        lone_head = "\n" not in body and (last.rstrip().endswith(":") or _HDR_RE.match(last[:4096]) is not None)
        if frame_last or lone_head or "\n\t" in body[-200000:]:
            # perf script ends every sample that has a call chain with a blank line; without it the
            # stack may have been cut between two frames, and a partial stack is a wrong stack
            cut = body.rfind("\n\n")
            warn_truncated(name, body.count("\n") + 1, "perf script sample (its call chain has no closing "
                           "blank line; the sample was dropped)")
            text = text[:cut + 2] if cut >= 0 else ""
    p = _Parser(text, name)
    p.run()
    return p.result()


@guarded
def parse_perf_script_samples(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """The samples frame of :func:`parse_perf_script`.

    Returns
    -------
    DataFrame
        ``comm pid tid cpu time event period stack_id trace`` (see :class:`PerfScript`).
    """
    return parse_perf_script(src, source, max_bytes).samples


def _split(text: str, sep: str):
    """``text.split(sep)``, one piece at a time: the list of a 44 MB script's blocks was one more file size of
    memory at the peak."""
    i = 0
    while True:
        j = text.find(sep, i)
        if j < 0:
            yield text[i:]
            return
        yield text[i:j]
        i = j + len(sep)


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
        self.bad_lines: list[str] = []  # the text of unreadable frame lines (the warning quotes the first)

    def run(self) -> None:
        text = self.text
        if text.startswith("#"):
            self._comments()
        hdr = _HDR_RE.match
        body_cache = self.stack_ids
        pos_line = 0
        for blk in _split(text, "\n\n"):
            if not blk:
                pos_line += 2
                continue
            lead = len(blk) - len(blk.lstrip("\n"))
            if lead:
                blk = blk[lead:]
            head, _, body = blk.partition("\n")
            m = hdr(head) if len(head) < 4096 else None
            # without -g, samples follow each other with no blank line, each indented (perf right-aligns
            # comm): the line under a sample is then another sample, not the first frame of its stack
            if m is None or (body and body[0] not in " \t") or (body and body[0] != "\t" and hdr(
                    body[:min(len(body), 4096)].partition("\n")[0])):
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
            if "=" not in rest and _IP_SYM_RE.match(rest) and (_FRAME_RE.match(rest) or _IP_SYM_NODSO_RE.match(rest)):
                key = "\t" + rest
                sid = self.stack_ids.get(key)
                if sid is None:
                    sid = self._add_stack(key, 0)
                rest = ""
        self.stack.append(sid)
        self.trace.append(rest)

    def _add_stack(self, body: str, line0: int) -> int:
        # fast path: "<addr> <symbol> (<dso>)" per line, memoised on the text after the address (the same
        # function in the same dso recurs across stacks)
        cache = _REST_CACHE
        get = cache.get
        frames = []
        append = frames.append
        for ln in body.split("\n"):
            parts = ln.split(None, 1)
            if len(parts) != 2 or ln[0] != "\t":  # perf indents a frame with a tab; anything else takes the slow way
                break
            fr = get(parts[1])
            if fr is None:
                r = parts[1]
                k = r.rfind(" (")
                if k <= 0 or not r.endswith(")") or not parts[0].isalnum():
                    break
                raw, mod = r[:k], r[k + 2:-1]
                fr = cache[r] = (raw, mod, ";".join(_tidy(raw, mod, "")))
            append((parts[0],) + fr)
        else:
            sid = len(self.stack_frames)
            self.stack_frames.append(frames)
            self.stack_ids[body] = sid
            return sid
        frames = []
        for ln in body.split("\n"):
            if not ln.strip():
                continue
            if _HDR_RE.match(ln):  # a sample line ('  dd 29526 41519.56: 2004008 cpu-clock: ...'), not a frame
                return -2
            fr = _frame(ln)
            if fr is None:
                self.bad += 1
                self.bad_lines.append(ln)
                continue
            frames.append(fr + (";".join(_tidy(fr[1], fr[2], "")),))
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
            m = _HDR_RE.match(ln) if len(ln) < 4096 else None
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
        events = list(dict.fromkeys(self.event))
        if self.bad:
            first = self.bad_lines[0] if self.bad_lines else ""
            warnings.warn(SkippedLinesWarning(
                f"{self.name}: {self.bad} line(s) that are neither a sample line nor a frame 'addr symbol (dso)' "
                f"were left out (attrs['unrecognised_lines']); the first: {first[:80]!r}"), stacklevel=4)
        set_attrs(samples, self.name, "perf-script", self.version, None, events=events, cmdline=self.cmdline,
                  unrecognised_lines=self.bad)
        return PerfScript(samples, self.stack_frames, self.name)


def _frame(ln: str):
    """(addr, raw symbol, dso) of a frame line, as stackcollapse-perf.pl's regex splits it."""
    s = ln.lstrip()
    sp = s.find(" ")
    if sp > 0 and s.endswith(")") and s[:sp].isalnum():
        rest = s[sp + 1:].lstrip(" \t")
        k = rest.rfind(" (")
        if k > 0:
            return s[:sp], rest[:k], rest[k + 2:-1]
    f = _FRAME_RE.match(ln)
    if f:
        return f.group(1), f.group(2), f.group(3)
    # perf script -F ip,sym (no dso field): '\tffffffff81c395ae percpu_counter_add_batch', or -F ip alone
    f = _NODSO_RE.match(ln)
    return (f.group(1), f.group(2) or "", "") if f else None


# -F ip,sym without dso on a sample line of a capture without -g: 'ffffffff81b6a332 _copy_to_iter'
_IP_SYM_NODSO_RE = re.compile(r"^[0-9a-f]{4,16}\s+\S+$")
_NODSO_RE = re.compile(r"^\t\s*([0-9a-f]{1,16})(?:\s+(\S.*?))?\s*$")


_OFFSET_RE = re.compile(r"\+0x[\da-f]+$")
_DOTPAREN_RE = re.compile(r"\.\(.*\)\.")
_ARGS_RE = re.compile(r"\((?!anonymous namespace\)).*", re.S)
_MODBASE_RE = re.compile(r".*/")
_TIDY_CACHE: dict = {}


def _tidy(rawfunc: str, mod: str, pname: str) -> list[str]:
    """stackcollapse-perf.pl's treatment of one frame (defaults: tidy_generic, tidy_java), memoised."""
    key = (rawfunc, mod, pname.startswith("java"))
    out = _TIDY_CACHE.get(key)
    if out is None:
        if len(_TIDY_CACHE) > 500000:
            _TIDY_CACHE.clear()
        out = _TIDY_CACHE[key] = _tidy1(rawfunc, mod, pname)
    return out


def _tidy1(rawfunc: str, mod: str, pname: str) -> list[str]:
    rawfunc = _OFFSET_RE.sub("", rawfunc)
    if rawfunc.startswith("("):
        return []
    out = []
    for func in rawfunc.split("->"):
        if func == "[unknown]":
            if mod != "[unknown]":
                func = "[" + _MODBASE_RE.sub("", mod, count=1) + "]"
            else:
                func = "[unknown]"
        func = func.replace(";", ":")
        if "(" in func and not _DOTPAREN_RE.search(func):
            func = _ARGS_RE.sub("", func, count=1)
        func = func.replace('"', "").replace("'", "")
        if pname.startswith("java") and "/" in func:
            func = re.sub(r"^L", "", func)
        if out:
            if "_[i]" not in func:
                func += "_[i]"
        out.append(func)
    return out


def fold(src, event: str | None = None, weight: str = "period", pid: bool = False, tid: bool = False,
         source: str | None = None, comm=None) -> pd.DataFrame:
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
    comm : str or list of str, optional
        Keep only the samples of these process names (``perf script --comms``
        after the fact).

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
    * Frames printed without their dso (``perf script -F ip,sym``) are frames to
      us; its regex wants ``(dso)`` and leaves the stack empty.
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
    if comm is not None:
        s = s[s["comm"].isin([comm] if isinstance(comm, str) else list(comm))]
    w = s["period"] if weight == "period" else pd.Series(1, index=s.index)
    comm = s["comm"].str.replace(" ", "_", regex=False)
    if tid:
        comm = comm + "-" + s["pid"].astype(str).where(s["pid"] >= 0, "?") + "/" + s["tid"].astype(str)
    elif pid:
        comm = comm + "-" + s["pid"].astype(str).where(s["pid"] >= 0, "?")
    g = pd.DataFrame({"comm": comm.to_numpy(), "sid": s["stack_id"].to_numpy(), "w": w.to_numpy()}) \
        .groupby(["comm", "sid"], sort=False)["w"].sum()
    frames = ps._frames
    cache: dict[tuple[str, int], str] = {}
    acc: dict[str, int] = {}
    for (c, sid), cnt in g.items():
        key = (c.startswith("java"), sid)
        f = cache.get(key)
        if f is None:
            if sid < 0:
                f = ""
            elif key[0]:  # java: its own tidying of L-prefixed names
                f = ";".join([t for pc, raw, mod, _ in reversed(frames[sid]) for t in _tidy(raw, mod, c)])
            else:
                f = ";".join([x[3] for x in reversed(frames[sid]) if x[3]])
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


#: Folded texts longer than this (and ASCII) are read by :func:`~._fastscan.folded_stacks` first.
FOLDED_FAST_MIN = 20000


@guarded
def parse_folded(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Read folded stacks (``a;b;c 12`` per line), e.g. stackcollapse output.

    Returns
    -------
    DataFrame
        ``stack`` and ``count`` (int).
    """
    text, name = read_source(src, source, max_bytes)
    if len(text) > FOLDED_FAST_MIN and text.isascii():
        from ._fastscan import folded_stacks

        fast = folded_stacks(text)  # numba finds the counts; a line list and its split took 5x the file
        if fast is not None:
            df = pd.DataFrame({"stack": pd.Series(fast[0], dtype=object, copy=False), "count": fast[1]})
            return set_attrs(df, name, "folded")
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
