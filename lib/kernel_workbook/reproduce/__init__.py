"""Reproduce a thread's tables: calibrate on the baseline, predict the rest.

The heuristic that models a thread declares its reproduction
(:class:`kernel_workbook.heuristic.ThreadReproduction`: a function that
returns a :class:`Reproduction`, and its calibration).  A thread without a
model yet reproduces as its published tables alone, and says so.

Schema of ``kwb reproduce THREAD --json`` (shared by every thread)::

    {"thread": str, "seed_base": int,
     "cells": [{"table", "stat", "row", "kernel", "published", "model",
                "published_delta_pct", "model_delta_pct", "calibrated", ["baseline_kernel",] ["exclude",]
                "status" ("hit" | "miss" | "excluded"), "reason", "noise_pts", "ratio"}],
     "unmodelled": [{"table", "cells", "reason"}],     # published tables no cell addresses
     "fitted": [{"parameter", "value", "unit", "fitted_to": ["table|stat|row|kernel", ...]}],
     "summary": {"strict": {"hits", "scored", "score", "excluded": {reason: count}},
                 "lenient": {"predicted_cells", "direction_agreement", "median_abs_error_pts"},
                 "per_table": [{"table", "hits", "scored", "score"}],
                 "seeds": {"bases", "n", "mean", "min", "max", "per_seed"}}}

A cell's delta is ``100 * (value / baseline_value - 1)``, against the
baseline column of its table (``tables.csv: baseline``).  The strict score
and the exclusions are defined in :mod:`.score`; the lenient one is the
older direction agreement, kept beside it and labelled so.
"""

from __future__ import annotations

import contextvars
import json
import math
import os
from dataclasses import dataclass, field

import pandas as pd

from .. import config as _config
from ..errors import WorkbookParameterError
from ..heuristic import thread_reproduction
from ..tables import published, published_tables, render
from ..threads import THREADS

CELL_KEYS = ["table", "row", "kernel", "published", "model", "published_delta_pct", "model_delta_pct", "calibrated"]


@dataclass
class Block:
    """One printed block of a reproduction, rendered from its frame (never stored as text).

    ``kind`` says how: ``"mmtests"`` -- a cells frame (``tables`` shape),
    printed by :func:`kernel_workbook.tables.render` exactly as the thread
    printed it; ``"cells"`` -- cells of the reproduction (published beside
    model, the changes and the error, :func:`._side_by_side.delta_frame`);
    ``"frame"`` -- any other tidy frame; ``"list"`` -- one entry per row, its
    last column a sentence; ``"text"`` -- prose (notes), kept in ``text``.
    In a notebook a block shows as an HTML table (``frames.Table``: one number
    format per column, a dash with its meaning, ``na``, for a missing value,
    ``notes`` under it) or, for mmtests tables, as preformatted text;
    :meth:`render` is the same content as text (``kwb reproduce``, nbval).
    ``key`` is stable, for notebooks: ``"cfq600-seqread/published"``,
    ``"cfq600-seqread/model"``, ``"cfq600-seqread/cells"``, ``"notes"``.
    """

    key: str
    title: str
    kind: str = "frame"
    frame: pd.DataFrame | None = None
    text: str = ""
    na: str | None = None  # what a missing value of the frame means (shown under the table)
    notes: list = field(default_factory=list)  # lines under the table

    def shown(self):
        """What a notebook displays: a ``frames.Table``, ``Preformatted`` mmtests text or ``Prose``."""
        from ..frames import Listing, Preformatted, Prose, Table

        if self.kind == "text":
            return Preformatted(self.text, wrap=True)
        if self.kind == "mmtests":
            return Preformatted(render(self.frame))
        if self.kind == "list":
            rows = [] if self.frame is None else list(self.frame.itertuples(index=False))
            return Listing([(" / ".join(str(v) for v in r[:-1]), str(r[-1])) for r in rows])
        frame = self.frame
        na = self.na
        if self.kind == "cells":
            from ._side_by_side import delta_frame

            frame = delta_frame(self.frame.to_dict("records") if frame is not None else [])
            na = na or CELLS_NA
        if frame is None or not len(frame.columns):
            return Prose("(nothing)")
        return Table(frame, na=na, notes=self.notes)

    def render(self) -> str:
        """The block as text: its title, then the same content the notebook shows (mmtests tables exactly as
        mmtests prints them)."""
        return (f"== {self.title}\n" if self.title else "") + str(self.shown())

    def __repr__(self) -> str:
        return self.render()

    def _repr_pretty_(self, p, cycle):
        p.text(self.render())

    def _repr_html_(self) -> str:
        import html

        shown = self.shown()
        body = shown._repr_html_() if hasattr(shown, "_repr_html_") else f"<p>{html.escape(str(shown))}</p>"
        from ..frames import NO_MATH

        return (f"<div class='kwb-block {NO_MATH}'>" + (f"<b>{html.escape(self.title)}</b>" if self.title else "")
                + body + "</div>")


CELLS_NA = ("no value: the model gives none for this cell, or the cell is in the baseline column (no change to "
            "predict)")


@dataclass
class Reproduction:
    thread: str
    cells: list[dict] = field(default_factory=list)  # CELL_KEYS (+ "stat")
    notes: list[str] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)  # what `kwb reproduce` prints, in order
    fitted: list[dict] = field(default_factory=list)  # {"parameter", "value", "unit", "fitted_to": [cell keys]}
    unmodelled: dict = field(default_factory=dict)  # "table" or "table|row" -> why the model does not address it
    # configuration facts a result rests on that no column fits ({"name", "value", "chosen_after_predicted_cells_seen",
    # evidence, the other setting's score}): in the JSON when there are any
    assumptions: list[dict] = field(default_factory=list)
    seed_base: int = 0
    seed_runs: dict = field(default_factory=dict)  # other seed bases: {base: (cells, fitted)}
    mode: str = field(default_factory=lambda: _config.mode().name)  # WORKBOOK_MODE while it ran
    small: bool | None = None  # the problem size asked for (None: the mode's)

    @property
    def problem_size(self) -> str:
        """``"CI"`` (the small problems of ``WORKBOOK_MODE=ci``) or ``"full"``."""
        small = _config.mode(self.mode).small if self.small is None else self.small
        return "CI" if small else "full"

    # ---- building
    def add(self, key: str, title: str, frame: pd.DataFrame | None = None, kind: str = "frame",
            text: str = "", na: str | None = None, notes: list | None = None) -> Block:
        b = Block(key, title, kind, frame, text, na, list(notes or []))
        self.blocks.append(b)
        return b

    # ---- the blocks of a published table: one place for their keys, titles and kinds, so that every thread
    # prints its tables alike; a thread picks the order (table by table, or all published tables first)
    def show_published(self, table: str, frame: pd.DataFrame | None = None, what: str = "",
                       label: str | None = None, key: str | None = None) -> Block:
        """``<key>/published``: ``table`` as the thread printed it (``frame``: the part of it shown, ``what``
        saying which); ``label`` names it in the title, ``key`` in the block's key (default: the table)."""
        frame = published(self.thread, table) if frame is None else frame
        return self.add(f"{key or table}/published", _titled(label or table, "published", what), frame,
                        kind="mmtests")

    def show_model(self, table: str, frame: pd.DataFrame, what: str = "", label: str | None = None,
                   key: str | None = None, kind: str = "mmtests") -> Block:
        """``<key>/model``: the model's table (mmtests-style, or ``kind="frame"`` for a tidy frame)."""
        return self.add(f"{key or table}/model", _titled(label or table, "model", what), frame, kind=kind)

    def show_cells(self, table: str, cells: list[dict], against: str, label: str | None = None,
                   key: str | None = None) -> Block:
        """``<key>/cells``: each cell published beside model, both changes ``against`` the baseline named."""
        return self.add(f"{key or table}/cells", f"{label or table}: published and model change against {against}",
                        pd.DataFrame(cells), kind="cells")

    def show_table(self, table: str, model: pd.DataFrame, cells: list[dict], against: str, *,
                   published_frame: pd.DataFrame | None = None, published_what: str = "", model_what: str = "",
                   label: str | None = None, key: str | None = None) -> None:
        """The three blocks of a table, one after the other: published, model, cells."""
        self.show_published(table, published_frame, published_what, label, key)
        self.show_model(table, model, model_what, label, key)
        self.show_cells(table, cells, against, label, key)

    # ---- reading
    def printed(self) -> list[str]:
        """What ``kwb reproduce`` prints: the blocks rendered from their frames, the notes last."""
        out = [b.render() for b in self.blocks]
        if self.notes:
            out.append("== notes\n" + "\n".join(f" * {n}" for n in self.notes))
        return out

    def __repr__(self) -> str:
        return "\n\n".join(self.printed())

    def _repr_pretty_(self, p, cycle):
        p.text(repr(self))

    def _repr_html_(self) -> str:
        """Every block as the notebook shows it (tables, mmtests text), the notes last."""
        import html

        parts = [b._repr_html_() for b in self.blocks]
        if self.notes:
            from ..frames import NO_MATH

            parts.append(f"<div class='{NO_MATH}'><b>notes</b><ul>"
                         + "".join(f"<li>{html.escape(n)}</li>" for n in self.notes) + "</ul></div>")
        return "\n".join(parts)

    def block(self, key: str) -> Block:
        """The block ``key`` (see :class:`Block`); an unknown key lists the known ones."""
        for b in self.blocks:
            if b.key == key:
                return b
        raise WorkbookParameterError("key", key, "one of " + ", ".join(b.key for b in self.blocks))

    def keys(self) -> list[str]:
        return [b.key for b in self.blocks]

    def scored(self) -> pd.DataFrame:
        """Every cell scored or excluded with its reason (columns: see :func:`.score.score_cells`)."""
        from .score import score_cells

        return score_cells(self.thread, self.cells, self.fitted)

    def df_unmodelled(self) -> pd.DataFrame:
        """Published tables of the thread that no cell addresses.  Columns: ``table, cells, reason``."""
        pub = published(self.thread)
        have = {c["table"] for c in self.cells}
        rows = []
        for t, g in pub.groupby("table", sort=False):
            if t in have:
                continue
            why = self.unmodelled.get(t) or "the reproduction does not model this table"
            rows.append({"table": t, "cells": int(len(g)), "reason": why})
        return pd.DataFrame(rows, columns=["table", "cells", "reason"])

    def summary(self) -> dict:
        from .score import over_seeds, per_table, score_cells, strict

        sc = self.scored()
        out = {"strict": strict(sc), "lenient": summarise(self.cells), "per_table": per_table(sc)}
        bases = [self.seed_base] + sorted(self.seed_runs)
        runs = [strict(sc)] + [strict(score_cells(self.thread, *self.seed_runs[b])) for b in sorted(self.seed_runs)]
        out["seeds"] = over_seeds(runs, bases)
        return out

    def to_json(self) -> str:
        sc = self.scored()
        cells = []
        for c, r in zip(self.cells, sc.itertuples()):
            d = {k: _clean(c.get(k)) for k in CELL_KEYS}
            d["stat"] = c.get("stat") or ""
            if c.get("baseline_kernel"):  # measured against another column than its table's baseline
                d["baseline_kernel"] = c["baseline_kernel"]
            if c.get("exclude"):  # excluded by the reproduction, with its reason (score.score_cells)
                d["exclude"] = c["exclude"]
            if c.get("repeat_of"):  # the same measurement as another row, printed again (score.py)
                d["repeat_of"] = c["repeat_of"]
            if c.get("flat"):  # the thread's words that the change is negligible: what the score excludes it by
                d["flat"] = c["flat"]
            d.update(status=r.status, reason=r.reason, noise_pts=_clean(r.noise_pts), ratio=_clean(r.ratio))
            cells.append(d)
        doc = {"thread": self.thread, "seed_base": self.seed_base, "mode": self.mode,
               "problem_size": self.problem_size, "cells": cells,
               "unmodelled": self.df_unmodelled().to_dict("records"), "fitted": self.fitted,
               "summary": self.summary()}
        if self.assumptions:
            doc["assumptions"] = self.assumptions
        return json.dumps(doc, indent=1, default=_json_default)

    def frame(self) -> pd.DataFrame:
        """One row per cell.  Columns: ``thread, table, stat, row, kernel, published, model,
        published_delta_pct, model_delta_pct, calibrated``."""
        cols = ["table", "stat", "row", "kernel", "published", "model", "published_delta_pct", "model_delta_pct",
                "calibrated"]
        df = pd.DataFrame([{k: c.get(k, "") if k == "stat" else c.get(k) for k in cols} for c in self.cells],
                          columns=cols)
        df.insert(0, "thread", self.thread)
        return df

    @classmethod
    def from_parts(cls, thread: str, parts: list, **kw) -> "Reproduction":
        """Run each function of ``parts`` (called with ``**kw``; each returns the :class:`Reproduction` of its part:
        its cells, blocks, notes, fits and assumptions) and join them in order."""
        rep = cls(thread)
        for fn in parts:
            part = fn(**kw)
            rep.cells.extend(part.cells)
            rep.blocks.extend(part.blocks)
            rep.notes.extend(part.notes)
            rep.fitted.extend(part.fitted)
            rep.assumptions.extend(part.assumptions)
        return rep


def _titled(label: str, side: str, what: str) -> str:
    return f"{label}, {side}" + (f" ({what})" if what else "")


def _clean(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    return v


def _json_default(v):
    import numpy as np

    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return _clean(float(v))
    raise TypeError(f"{type(v).__name__} is not JSON")


def delta_pct(value: float, base: float) -> float:
    if base is None or value is None or base != base or value != value or base == 0:
        return float("nan")
    return 100.0 * (value / base - 1.0)


def summarise(cells: list[dict]) -> dict:
    """Fidelity over the predicted cells (model present, not calibrated, baseline left out)."""
    pred = [c for c in cells if not c.get("calibrated") and _num(c.get("model")) and _num(c.get("published"))
            and _num(c.get("published_delta_pct")) and _num(c.get("model_delta_pct"))]
    if not pred:
        return {"predicted_cells": 0, "direction_agreement": None, "median_abs_error_pts": None}
    agree = [(_sign(c["published_delta_pct"]) == _sign(c["model_delta_pct"])) for c in pred]
    errs = sorted(abs(c["model_delta_pct"] - c["published_delta_pct"]) for c in pred)
    mid = len(errs) // 2
    med = errs[mid] if len(errs) % 2 else 0.5 * (errs[mid - 1] + errs[mid])
    return {"predicted_cells": len(pred), "direction_agreement": round(sum(agree) / len(pred), 4),
            "median_abs_error_pts": round(med, 3)}


def _num(v) -> bool:
    return isinstance(v, (int, float)) and v == v and not math.isinf(v)


# A change smaller than this (in percent) counts as "no change" on both sides.
SIGN_EPS_PCT = 5e-2


def _sign(v: float, eps: float = SIGN_EPS_PCT) -> int:
    return 0 if abs(v) < eps else (1 if v > 0 else -1)


def published_only(thread: str) -> Reproduction:
    """The reproduction of a thread that has no model yet: its tables as printed."""
    cells = published(thread)
    meta = published_tables(thread)
    rep = Reproduction(thread)
    for r in meta.itertuples():
        rep.add(f"{r.table}/published", f"{r.table}: {r.title}", cells[cells["table"] == r.table], kind="mmtests")
    rep.notes.append("no model of this thread yet: the tables above are the published ones")
    return rep


def _declared(thread: str):
    """The :class:`~kernel_workbook.heuristic.ThreadReproduction` of ``thread`` (None: no model of it yet)."""
    if thread not in THREADS:
        raise WorkbookParameterError("thread", thread, "one of " + ", ".join(THREADS))
    return thread_reproduction(thread)


def _target(thread: str):
    declared = _declared(thread)
    return None if declared is None else declared.reproduce


def modelled_threads() -> list[str]:
    """The threads some heuristic reproduces, in the order of :data:`~kernel_workbook.threads.THREADS`."""
    return [t for t in THREADS if _declared(t) is not None]


def takes_seed_base(thread: str) -> bool:
    """Can this thread's reproduction run with another seed base (``seed_base=``)?"""
    import inspect

    fn = _target(thread)
    return fn is not None and "seed_base" in inspect.signature(fn).parameters


_SCORE_ONLY = contextvars.ContextVar("kwb_reproduce_score_only", default=False)


def score_only() -> bool:
    """True while a reproduction runs for its score alone (another seed base): a part may then skip what
    it shows but never scores (a what-if), since only the cells and the fitted parameters are kept."""
    return _SCORE_ONLY.get()


def _kw_for(fn, kw: dict) -> dict:
    import inspect

    params = inspect.signature(fn).parameters
    return {k: v for k, v in kw.items() if k in params}


def _calibrate_task(thread: str, kw: dict) -> dict:
    """A worker's fit of one thread: the calibration store's new entries (fitted values, never model arrays)."""
    from . import calibration

    before = set(calibration.export())
    f = _declared(thread).calibrate
    if f is not None:
        f(**_kw_for(f, kw))
    out = {k: v for k, v in calibration.export().items() if k not in before}
    _forget()
    return out


def _one_seed(thread: str, base: int, kw: dict, fits: dict | None = None) -> tuple:
    """A worker's run: only the cells and the fitted parameters travel back, never the arrays."""
    from . import calibration

    calibration.load(fits or {})
    token = _SCORE_ONLY.set(True)
    try:
        rep = _target(thread)(seed_base=base, **kw)
        return rep.cells, rep.fitted
    finally:
        _SCORE_ONLY.reset(token)
        _forget()


def _seed_bases(seeds) -> list[int]:
    """``seeds`` as seed bases: a count (``0..seeds-1``), a list, or None (base 0 alone)."""
    bases = list(range(seeds)) if isinstance(seeds, int) else list(seeds or [0])
    if not bases or any((not isinstance(b, int)) or b < 0 for b in bases):
        raise WorkbookParameterError("seeds", seeds, "a count >= 1 or a list of seed bases >= 0")
    return bases


def reproduce(thread: str, seeds: int | list | None = None, workers: int | None = None, **kw) -> Reproduction:
    """The reproduction of ``thread``: published beside model, scored (see :mod:`.score`).

    ``seeds``: how many seed bases (``0..seeds-1``) or which ones; the first
    gives the cells and blocks, the others only their score, so the summary
    reports the strict score's mean and range over seeds.  The machine is
    fitted once (:mod:`.calibration`); the runs of other seed bases go to
    ``workers`` processes (default: one per core) with that fit.  A thread
    whose reproduction does not take a seed base yet runs once and says so.
    """
    fn = _target(thread)
    if fn is None:
        return published_only(thread)
    bases = _seed_bases(seeds)
    if not takes_seed_base(thread):
        rep = fn(**kw)
        rep.small = kw.get("small")
        if len(bases) > 1:
            rep.notes.append(f"one seed base only: this reproduction does not take seed bases yet ({len(bases)} asked)")
        return rep
    rep = fn(seed_base=bases[0], **kw)
    rep.seed_base, rep.small = bases[0], kw.get("small")
    rest = bases[1:]
    if rest:
        from . import calibration

        fits = calibration.export()
        n = workers or min(len(rest), os.cpu_count() or 1)
        if n <= 1:
            runs = [_one_seed(thread, b, kw) for b in rest]
        else:
            with _workers(n) as ex:
                runs = ex.map(_one_seed, [thread] * len(rest), rest, [kw] * len(rest), [fits] * len(rest))
        rep.seed_runs = dict(zip(rest, runs))
    return rep


def _client_env() -> dict:
    """What a task must see as this process does (a Dask worker keeps the environment it was started with, a
    pool's forkserver the one it had when it started): its mode, and the fit cache off when it is off here."""
    from . import fit_cache

    env = _config.task_env()
    if fit_cache.folder() is None:
        env[fit_cache.ENV] = "off"
    return env


def _forget() -> None:
    """After a task in a worker that runs many: drop the reproductions' caches of runs (never the calibration
    store, which is small and shared), then :func:`kernel_workbook.executor.release` (collect, freeze, give the
    freed heap back), so a worker does not grow task by task.  Nothing in the calling process (a notebook
    keeps its caches)."""
    import sys

    from .. import executor

    if not executor.in_worker():
        return

    from .calibration import is_calibration

    # the engine's modules and the heuristics' (their reproductions keep their runs in caches)
    ours = (__name__ + ".", __name__.rsplit(".", 1)[0] + ".heuristics.")
    for name, mod in list(sys.modules.items()):
        if not name.startswith(ours) or mod is None:
            continue
        for f in list(vars(mod).values()):
            if callable(getattr(f, "cache_clear", None)) and getattr(f, "__module__", None) == name \
                    and not is_calibration(f):
                f.cache_clear()
    executor.release()


def _workers(n: int | None = None, scheduler: str | None = None):
    """The executor's workers for reproductions (:func:`kernel_workbook.executor.workers`): each imports this
    package once (the local server preloads it), runs many tasks with a bounded heap and forgets after each
    (:func:`_forget`); every task sees this process's mode and fit cache (:func:`_client_env`)."""
    from ..executor import workers

    return workers(n, scheduler, bounded_heap=True, preload=(__name__,), env=_client_env())


def _first_seed(thread: str, base: int, kw: dict, fits: dict | None = None) -> Reproduction:
    """A worker's run of a thread's first seed base: the whole reproduction (its frames, no model arrays)."""
    from . import calibration

    calibration.load(fits or {})
    try:
        rep = _target(thread)(seed_base=base, **kw) if takes_seed_base(thread) else _target(thread)(**kw)
        rep.seed_base, rep.small = base, kw.get("small")
        return rep
    finally:
        _forget()


def reproduce_many(threads: list[str], seeds: int | list | None = None, workers: int | None = None,
                   scheduler: str | None = None, **kw) -> list[Reproduction]:
    """:func:`reproduce` of several threads at once (``kwb reproduce --all``) on one pool of long-lived worker
    processes: first each thread's calibration (once, :mod:`.calibration`), the heaviest first, then every seed
    base of every thread as one task with that thread's fit.

    The pool is ``workers`` local processes (default: one per core), or the workers of a running Dask
    cluster: ``scheduler="tcp://host:8786"``, or ``$DASK_SCHEDULER_ADDRESS`` when no worker count is given (the
    workers must have this package installed).  Returns the reproductions in the order of ``threads``, each
    exactly what :func:`reproduce` returns.
    """
    bases = _seed_bases(seeds)
    # the longest calibrations first (every seed base of a thread waits for its fit), as each declares
    modelled = sorted((t for t in threads if _target(t) is not None), key=lambda t: _declared(t).start_order)
    out = {t: published_only(t) for t in threads if t not in modelled}

    def seed_tasks(t):
        return [(t, bases[0], True)] + ([(t, b, False) for b in bases[1:]] if takes_seed_base(t) else [])

    from ..executor import where

    addr = where(workers, scheduler)  # a Dask scheduler's address, or None: local processes
    n = workers or min(sum(len(seed_tasks(t)) for t in modelled), os.cpu_count() or 1)
    results = {}  # (thread, base, first) -> result
    if addr is None and n <= 1:
        for t in modelled:
            fits = _calibrate_task(t, kw)
            for t_, b, first in seed_tasks(t):
                results[(t_, b, first)] = (_first_seed if first else _one_seed)(t_, b, kw, fits)
    else:
        with _workers(None if addr else n, addr) as ex:
            done = ex.as_completed()
            pending = {}
            for t in modelled:
                f = ex.submit(_calibrate_task, t, kw)
                pending[f] = ("fit", t)
                done.add(f)
            for f, result in done:
                what = pending.pop(f)
                if what[0] == "fit":
                    for t, b, first in seed_tasks(what[1]):
                        fut = ex.submit(_first_seed if first else _one_seed, t, b, kw, result)
                        pending[fut] = ("run", (t, b, first))
                        done.add(fut)
                else:
                    results[what[1]] = result
    for t in modelled:
        first = results[(t, bases[0], True)]
        out[t] = first
        if len(bases) > 1 and not takes_seed_base(t):
            first.notes.append(f"one seed base only: this reproduction does not take seed bases yet "
                               f"({len(bases)} asked)")
        for b in bases[1:]:
            if (t, b, False) in results:
                first.seed_runs[b] = results[(t, b, False)]
    return [out[t] for t in threads]


def format_summary(rep: Reproduction) -> str:
    """The fidelity lines ``kwb reproduce`` prints: strict score (over seeds), lenient score, per table.

    A ``frames.Text``: printed, it is those lines; displayed in a notebook, the same as Markdown (the
    scores as sentences, the tables' scores as a table)."""
    from ..frames import Text

    s = rep.summary()
    st, le, sd = s["strict"], s["lenient"], s["seeds"]
    if not st["scored"] and not le["predicted_cells"]:
        line = "fidelity: no predicted cells (" + "; ".join(rep.notes or ["no model"]) + ")"
        return Text(line)
    ex = ", ".join(f"{v} {k}" for k, v in st["excluded"].items()) or "none"
    strict = (f"{st['hits']}/{st['scored']} scored cells hit = {_pct(st['score'])} "
              f"(same sign, size within x2, beyond the thread's noise, repeats once); excluded: {ex}")
    seeds = (f"over {sd['n']} seed bases: mean {_pct(sd['mean'])}, range {_pct(sd['min'])} .. {_pct(sd['max'])}"
             if sd["n"] > 1 else "one seed base only")
    lenient = (f"{le['predicted_cells']} predicted cells, direction agrees on {100 * le['direction_agreement']:.1f}%, "
               f"median |model - published| = {le['median_abs_error_pts']:.2f} points") if le["predicted_cells"] else ""
    tables = [t for t in s["per_table"] if t["scored"]]
    lines = [f"fidelity (strict): {strict}", f"  {seeds}"]
    md = [f"**Fidelity (strict):** {strict}; {seeds}."]
    if lenient:
        lines.append(f"fidelity (lenient, direction only): {lenient}")
        md.append(f"**Fidelity (lenient, direction only):** {lenient}.")
    lines += [f"  {t['table']:28s} {t['hits']:3d}/{t['scored']:<3d} {_pct(t['score'])}" for t in tables]
    if tables:
        md += ["", "| table | hits / scored | score |", "|---|--:|--:|"]
        md += [f"| {t['table']} | {t['hits']}/{t['scored']} | {_pct(t['score'])} |" for t in tables]
    return Text("\n".join(lines), "\n\n".join(md[:2 if lenient else 1]) + "\n" + "\n".join(md[2 if lenient else 1:]))


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"
