"""A sweep's results on disk: one Parquet row per run, written as the runs finish, resumable.

While a sweep runs, finished runs are written in small Parquet files beside
the output (``runs.parquet.parts/part-000001.parquet``...), each written
whole under a temporary name and renamed, so a sweep killed at any moment
loses at most the runs not yet written.  At the end the parts and the
previous file become ``runs.parquet``, sorted by the grid's order, and the
parts are removed.  Running the same sweep again reads the file and any parts
left behind and runs only what is missing.

The table (one row per run)::

    variant, workload, <each knob of the grid>, seed, <each output of the model's summary()>

Knob columns have the knob's own type (``bool``, ``int64``, ``float64``,
``string`` for a named choice); outputs keep the type the model gives them
(a count stays an integer).  The file's schema metadata ``kwb_sweep`` holds
the model, the knobs with their units and kernel sources, the workload's
keyword arguments and the engine: a file is resumed only by the same sweep.
A row of an earlier sweep into the same file that this grid does not contain
is kept (after this grid's rows), never dropped.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import WorkbookParameterError, WorkbookParseError
from .grid import KEY_COLUMNS, Grid, Run

META_KEY = b"kwb_sweep"
FORMAT = 1


def sweep_meta(grid: Grid, engine: str) -> dict:
    """What a sweep file records about the sweep that wrote it."""
    decl = grid.declared()
    return {
        "format": FORMAT,
        "model": grid.model.name,
        "knobs": list(grid.knobs),
        "units": {n: decl[n].unit for n in grid.knobs},
        "kernel_names": {n: decl[n].kernel for n in grid.knobs},
        "sources": {n: decl[n].source for n in grid.knobs},
        "workload_kw": _jsonable(grid.workload_kw),
        "engine": engine,
        # how the grid was made and each kernel's own setting of its knobs (what a tornado chart is drawn around)
        "design": grid.design,
        "home": [{"variant": v, "knobs": _jsonable(h)} for v, h in grid.home.items()],
    }


def _jsonable(d: dict):
    return json.loads(json.dumps(d, sort_keys=True, default=repr))


def _knob_type(grid: Grid, name: str) -> pa.DataType:
    k = grid.declared()[name]
    if k.kind == "bool":
        return pa.bool_()
    if k.kind == "int":
        return pa.int64()
    if k.kind == "float":
        return pa.float64()
    if all(isinstance(c, str) for c in k.choices):
        return pa.string()
    if all(isinstance(c, int) and not isinstance(c, bool) for c in k.choices):
        return pa.int64()
    return pa.float64()


def _output_value(name: str, v):
    if isinstance(v, np.generic):
        v = v.item()
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise TypeError(f"output {name!r} of the model's summary() is a {type(v).__name__}: a sweep stores scalars "
                    "(a number, a flag or a name) only")


class SweepStore:
    """The Parquet file of one sweep (``path``) and its parts directory while it runs.

    ``path=None`` keeps the results in memory only (the same table, no file).
    """

    def __init__(self, path, grid: Grid, engine: str = "jit"):
        self.path = Path(path) if path is not None else None
        self.parts = self.path.with_name(self.path.name + ".parts") if self.path is not None else None
        self.grid = grid
        self.meta = sweep_meta(grid, engine)
        self._key_schema = pa.schema([("variant", pa.string()), ("workload", pa.string())]
                                     + [(n, _knob_type(grid, n)) for n in grid.knobs] + [("seed", pa.int64())])
        self._tables: list[pa.Table] = []
        if self.path is not None:
            self._check_path()
            self._tables = self._read_existing()

    # ------------------------------------------------------------------ reading what is there
    def _check_path(self) -> None:
        parent = self.path.parent if str(self.path.parent) else Path(".")
        if not parent.is_dir():
            raise WorkbookParameterError("out", str(self.path), f"a file in an existing directory ({parent} is not one)")
        if self.path.is_dir():
            raise WorkbookParameterError("out", str(self.path), "a file name, not a directory")

    def _read_one(self, p: Path) -> pa.Table:
        try:
            t = pq.read_table(p)
        except (pa.ArrowInvalid, OSError) as e:
            raise WorkbookParseError(str(p), None, f"a Parquet file written by kwb sweep ({e})") from None
        raw = (t.schema.metadata or {}).get(META_KEY)
        if raw is None:
            raise WorkbookParseError(str(p), None, "a Parquet file written by kwb sweep (it has no kwb_sweep "
                                     "metadata); give another output file")
        theirs = json.loads(raw)
        mine = self.meta
        for what in ("model", "knobs", "workload_kw", "engine"):
            if theirs.get(what) != mine[what]:
                raise WorkbookParameterError(
                    "out", str(self.path),
                    f"the file of this same sweep to resume it, but {p.name} holds {what}={theirs.get(what)!r} "
                    f"where this sweep has {mine[what]!r}: give another output file (or remove this one)")
        return t

    def _read_existing(self) -> list[pa.Table]:
        tables = []
        if self.path.exists():
            tables.append(self._read_one(self.path))
        if self.parts.is_dir():
            for p in sorted(self.parts.glob("part-*.parquet")):
                tables.append(self._read_one(p))
        return tables

    def _keys(self, t: pa.Table) -> list[tuple]:
        cols = [t.column(c).to_pylist() for c in self._key_schema.names]
        return list(zip(*cols))

    def done(self) -> set[tuple]:
        """The keys (:meth:`Run.key`) of every run already on disk."""
        out: set[tuple] = set()
        for t in self._tables:
            out.update(self._keys(t))
        return out

    def todo(self) -> list[Run]:
        """The runs of the grid not on disk yet, in grid order."""
        done = self.done()
        return [r for r in self.grid.runs if r.key() not in done]

    # ------------------------------------------------------------------ writing as it goes
    def _table(self, results: list[tuple[Run, dict]]) -> pa.Table:
        cols: dict[str, list] = {c: [] for c in self._key_schema.names}
        outputs: dict[str, list] = {}
        for i, (run, out) in enumerate(results):
            for c, v in zip(self._key_schema.names, run.key()):
                cols[c].append(v)
            for name, v in out.items():
                if name in cols:
                    raise TypeError(f"output {name!r} of {self.grid.model.name}'s summary() has the name of a "
                                    "column of the sweep table (a knob, variant, workload or seed)")
                outputs.setdefault(name, [None] * i).append(_output_value(name, v))
            for vals in outputs.values():
                if len(vals) < i + 1:
                    vals.append(None)
        arrays = [pa.array(cols[f.name], f.type) for f in self._key_schema]
        arrays += [pa.array(v) for v in outputs.values()]
        names = list(self._key_schema.names) + list(outputs)
        return pa.Table.from_arrays(arrays, names=names)

    def _with_meta(self, t: pa.Table) -> pa.Table:
        return t.replace_schema_metadata({**(t.schema.metadata or {}), META_KEY: json.dumps(self.meta).encode()})

    def append(self, results: list[tuple[Run, dict]]) -> None:
        """Write finished runs (``(run, outputs)``) to a new part, at once and whole."""
        if not results:
            return
        t = self._with_meta(self._table(results))
        if self.path is not None:
            self.parts.mkdir(exist_ok=True)
            have = [int(p.stem.split("-")[1]) for p in self.parts.glob("part-*.parquet")]
            _write_atomically(t, self.parts / f"part-{max(have, default=0) + 1:06d}.parquet")
        self._tables.append(t)

    # ------------------------------------------------------------------ the end
    def finish(self) -> pd.DataFrame:
        """Merge the file and its parts into ``path`` in grid order; the grid's rows as a DataFrame.

        Columns: ``variant, workload``, the grid's knobs, ``seed``, then the
        model's outputs; the index is the run's position in the grid.
        ``attrs["sweep"]`` holds the file's metadata (model, knobs, units...).
        """
        merged = self._merged()
        if self.path is not None:
            if merged is not None:
                _write_atomically(self._with_meta(merged), self.path)
            if self.parts.is_dir():
                shutil.rmtree(self.parts)
        self._tables = [merged] if merged is not None else []
        return self.frame()

    def _merged(self) -> pa.Table | None:
        tables = [t for t in self._tables if t.num_rows]
        if not tables:
            return None
        # outputs in the order the lowest-numbered runs gave them; the same whatever order runs finished in
        index = {r.key(): r.index for r in self.grid.runs}
        big = len(self.grid.runs)
        first = [min((index.get(k, big) for k in self._keys(t)), default=big) for t in tables]
        tables = [tables[i] for i in sorted(range(len(tables)), key=lambda i: first[i])]
        t = pa.concat_tables([t.replace_schema_metadata(None) for t in tables], promote_options="permissive")
        keys = self._keys(t)
        order, seen = [], set()
        # this grid's runs in grid order, then rows of earlier sweeps in the order they were in
        pos = sorted(range(len(keys)), key=lambda i: (index.get(keys[i], big), i))
        for i in pos:
            if keys[i] in seen:  # a part left behind after its rows were merged: the same run, the same values
                continue
            seen.add(keys[i])
            order.append(i)
        return t.take(pa.array(order, pa.int64()))

    def frame(self) -> pd.DataFrame:
        """The grid's rows on disk so far, in grid order (see :meth:`finish`)."""
        merged = self._merged()
        if merged is None:
            cols = list(self._key_schema.names)
            df = pd.DataFrame(columns=cols)
        else:
            index = {r.key(): r.index for r in self.grid.runs}
            keys = self._keys(merged)
            mine = [i for i, k in enumerate(keys) if k in index]
            df = merged.take(pa.array(mine, pa.int64())).to_pandas()
            df.index = pd.Index([index[keys[i]] for i in mine], name="run")
        df.attrs["sweep"] = dict(self.meta)
        return df


def _write_atomically(t: pa.Table, final: Path) -> None:
    tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    try:
        pq.write_table(t, tmp)
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            tmp.unlink()


def read_sweep(path) -> pd.DataFrame:
    """A sweep file as a DataFrame (every row it holds), with its metadata in ``attrs["sweep"]``."""
    p = Path(path)
    try:
        t = pq.read_table(p)
    except (pa.ArrowInvalid, OSError) as e:
        raise WorkbookParseError(str(p), None, f"a Parquet file written by kwb sweep ({e})") from None
    raw = (t.schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise WorkbookParseError(str(p), None, "a Parquet file written by kwb sweep (no kwb_sweep metadata)")
    df = t.to_pandas()
    df.attrs["sweep"] = json.loads(raw)
    return df


__all__ = ["SweepStore", "read_sweep", "sweep_meta", "KEY_COLUMNS"]
