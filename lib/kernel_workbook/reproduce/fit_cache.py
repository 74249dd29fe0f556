"""Calibrations remembered on disk, per version of the code and data that made them.

A calibration is deterministic: the same function, arguments, mode, code and
published tables give the same fit.  Some take a minute in the lab's problem
size (2011's machines pool the runs of eight seed bases), so a notebook opened
again, or a presenter's second run, should not pay for them again.  Each fit
is stored as one JSON file (never a pickle: a file planted in the folder must
not run code when it is read; :func:`encode` says what it holds) under a name
that hashes all of what it depends on:

* the calibration's name and bound arguments, and the mode (``WORKBOOK_MODE``:
  a calibration called with ``small=None`` reads it);
* every ``.py`` file of the package and every file of the published tables and
  thread texts (``data/published``, ``data/threads``, or ``$KWB_DATA``'s);
* the versions of Python, NumPy, Numba and pandas.

Change any of them and the key changes: a stale fit is never read back.  The
folder is ``$KWB_FIT_CACHE``, else ``$XDG_CACHE_HOME/kernel-workbook/fits``,
else ``~/.cache/kernel-workbook/fits``; ``KWB_FIT_CACHE=off`` turns the cache
off (``make test``, ``make fidelity`` and ``make notebooks`` do, so that they
always fit from the code).  A file that cannot be read is refitted with a
warning naming it; a folder that cannot be written is warned about once, and
the fits are kept in memory only.

Why not a library (issue 34): ``joblib.Memory`` stores results as pickles and
keys them on the called function's own source, not on the code it calls.
``diskcache`` was tried (this file's git log has it and its measures): it needed
a Disk of its own to stay free of pickles, so the module grew (286 -> 341
lines, the JSON encoding stays either way), it could not read fits from a
folder it cannot write (opening a cache writes its settings), one damaged
database lost every fit, and SQLite is not safe on a network home folder.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import math
import os
import sys
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path

from ..errors import FitCacheWarning
from ..paths import package_dir, published_dir, threads_dir

ENV = "KWB_FIT_CACHE"
MISSING = object()  # what get() returns for a fit not stored
FORMAT = "kwb-fit 1"  # the first field of every file: another format is never read as this one
MAX_BYTES = 64 << 20  # a stored fit is a few kB; a bigger file is not one of ours
_PACKAGE = __name__.split(".")[0] + "."  # "kernel_workbook.": the only modules a stored dataclass may name
_warned_unwritable = False
_warned_unstorable: set = set()


class UnstorableFit(TypeError):
    """A value :func:`encode` has no JSON form for: the fit is kept in memory only."""


def encode(v):
    """``v`` as JSON data, tagged so that :func:`decode` gives back an equal value of the same types.

    What calibrations return: None, bools, ints, strs, floats (NaN and infinities too), lists, tuples, dicts
    (any hashable encodable keys), NumPy scalars and arrays of booleans and numbers, pandas DataFrames of
    such columns (strings too) with their ``attrs``, and dataclasses of this package.  A dict is plain JSON when its keys are
    strings that do not start with ``__``; everything else is ``{"__tag__": ...}``.
    """
    import numpy as np
    import pandas as pd

    if isinstance(v, np.generic):  # first: np.float64 is a float too
        if v.dtype.kind not in "biuf":
            raise UnstorableFit(f"a NumPy {v.dtype} scalar")
        return {"__np__": v.dtype.str, "v": encode(v.item())}
    if v is None or type(v) in (bool, str, int):  # exactly these: a subclass (an IntEnum) would come back plain
        return v
    if type(v) is float:
        return v if math.isfinite(v) else {"__float__": repr(v)}
    if isinstance(v, np.ndarray):
        if v.dtype.kind not in "biuf":
            raise UnstorableFit(f"a NumPy array of {v.dtype}")
        return {"__ndarray__": v.dtype.str, "shape": list(v.shape), "data": [encode(x) for x in v.ravel().tolist()]}
    if isinstance(v, pd.DataFrame):
        idx = v.index
        if isinstance(idx, pd.RangeIndex):
            index = {"range": [idx.start, idx.stop, idx.step]}
        else:
            index = {"values": encode(idx.tolist()), "dtype": str(idx.dtype)}
        # attrs too: a calibration may keep figures there (2015's free fit), and a fit read back without them
        # failed where the fresh one worked
        return {"__dataframe__": {"columns": encode(list(v.columns)), "dtypes": [str(t) for t in v.dtypes],
                                  "data": [encode(v.iloc[:, i].tolist()) for i in range(v.shape[1])],
                                  "index": index, "attrs": encode(dict(v.attrs))}}
    if type(v) is tuple:
        return {"__tuple__": [encode(x) for x in v]}
    if type(v) is list:
        return [encode(x) for x in v]
    if type(v) is dict:
        if all(isinstance(k, str) and not k.startswith("__") for k in v):
            return {k: encode(x) for k, x in v.items()}
        return {"__dict__": [[encode(k), encode(x)] for k, x in v.items()]}
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        cls = type(v)
        if not cls.__module__.startswith(_PACKAGE):
            raise UnstorableFit(f"a {cls.__module__}.{cls.__qualname__} (not a dataclass of this package)")
        return {"__dataclass__": f"{cls.__module__}:{cls.__qualname__}",
                "fields": {f.name: encode(getattr(v, f.name)) for f in dataclasses.fields(v)}}
    raise UnstorableFit(f"a {type(v).__module__}.{type(v).__qualname__}")


def _dataclass(name: str):
    """The dataclass ``module:qualname`` names, if it is one of this package's; importing one of the
    package's own modules is all a file can make happen."""
    mod, _, qual = name.partition(":")
    if not mod.startswith(_PACKAGE) or not qual or not all(p.isidentifier() for p in mod.split(".") + qual.split(".")):
        raise ValueError(f"{name!r} is not a dataclass of this package")
    obj = importlib.import_module(mod)
    for part in qual.split("."):
        obj = getattr(obj, part)
    if not (isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == mod):
        raise ValueError(f"{name!r} is not a dataclass of this package")
    return obj


def decode(d):
    """The value :func:`encode` made ``d`` from (``ValueError`` for anything else)."""
    import numpy as np
    import pandas as pd

    if d is None or isinstance(d, (bool, str, int, float)):
        return d
    if isinstance(d, list):
        return [decode(x) for x in d]
    if not isinstance(d, dict):
        raise ValueError(f"unexpected {type(d).__name__}")
    if len(d) == 1 and "__float__" in d:
        if d["__float__"] not in ("nan", "inf", "-inf"):
            raise ValueError(f"a float {d['__float__']!r}")
        return float(d["__float__"])
    if len(d) == 1 and "__tuple__" in d:
        return tuple(decode(x) for x in d["__tuple__"])
    if len(d) == 1 and "__dict__" in d:
        return {_hashable(decode(k)): decode(x) for k, x in d["__dict__"]}
    if "__np__" in d:
        t = np.dtype(d["__np__"])
        if t.kind not in "biuf":
            raise ValueError(f"a NumPy {t}")
        return t.type(decode(d["v"]))
    if "__ndarray__" in d:
        t = np.dtype(d["__ndarray__"])
        if t.kind not in "biuf":
            raise ValueError(f"a NumPy array of {t}")
        return np.array([decode(x) for x in d["data"]], dtype=t).reshape([int(n) for n in d["shape"]])
    if len(d) == 1 and "__dataframe__" in d:
        f = d["__dataframe__"]
        cols = decode(f["columns"])
        data = {i: pd.Series(decode(vals), dtype=t) for i, (t, vals) in enumerate(zip(f["dtypes"], f["data"]))}
        ix = f["index"]
        index = pd.RangeIndex(*[int(x) for x in ix["range"]]) if "range" in ix else \
            pd.Index(decode(ix["values"]), dtype=ix["dtype"])
        df = pd.DataFrame(data, index=None)
        df.index = index
        df.columns = cols
        attrs = decode(f.get("attrs", {}))
        if not isinstance(attrs, dict):
            raise ValueError("a DataFrame's attrs that are not a dict")
        df.attrs.update(attrs)
        return df
    if "__dataclass__" in d:
        cls = _dataclass(d["__dataclass__"])
        fields = d["fields"]
        names = [f.name for f in dataclasses.fields(cls)]
        if not isinstance(fields, dict) or sorted(fields) != sorted(names):
            raise ValueError(f"the fields of {d['__dataclass__']}")
        obj = object.__new__(cls)  # as pickle did: the stored state, without running __init__
        for n in names:
            object.__setattr__(obj, n, decode(fields[n]))
        return obj
    if any(k.startswith("__") for k in d):
        raise ValueError(f"unknown tag {next(k for k in d if k.startswith('__'))!r}")
    return {k: decode(x) for k, x in d.items()}


def _hashable(k):
    if isinstance(k, list):
        raise ValueError("a list as a dict key")
    return k


def folder() -> Path | None:
    """Where fits are kept, or None when the cache is off."""
    v = os.environ.get(ENV, "").strip()
    if v.lower() in ("off", "0", "no", "false"):
        return None
    if v:
        return Path(v)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kernel-workbook" / "fits"


def _files(root: Path, pattern: str) -> list[Path]:
    return sorted(p for p in root.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts)


@lru_cache(maxsize=4)
def _fingerprint(data_roots: tuple[str, ...]) -> str:
    import numba
    import numpy
    import pandas

    h = hashlib.sha256()
    h.update(f"{sys.version}|{numpy.__version__}|{numba.__version__}|{pandas.__version__}".encode())
    for root, pattern in [(package_dir(), "*.py")] + [(Path(r), "*") for r in data_roots]:
        for p in _files(root, pattern):
            h.update(str(p.relative_to(root)).encode() + b"\0")
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def fingerprint() -> str:
    """The hash of the code and data every fit depends on (computed once per process and data folder)."""
    return _fingerprint((str(published_dir()), str(threads_dir())))


def path_for(key: tuple) -> Path | None:
    """The file of a calibration's entry (``key`` as :mod:`.calibration` builds it), or None when off."""
    d = folder()
    if d is None:
        return None
    from .. import config

    h = hashlib.sha256(f"{fingerprint()}|{config.mode().name}|{key!r}".encode()).hexdigest()
    return d / f"{key[0].replace(':', '.')}-{h[:32]}.json"


def get(key: tuple):
    """The stored fit of ``key``, or :data:`MISSING`."""
    p = path_for(key)
    if p is None or not p.exists():
        return MISSING
    try:
        if not p.is_file() or p.stat().st_size > MAX_BYTES:
            raise ValueError(f"not a regular file of at most {MAX_BYTES >> 20} MiB")
        doc = json.loads(p.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT!r} file")
        stored_key, value = decode(doc["key"]), decode(doc["value"])
    except Exception as e:  # a torn or foreign file: fit again, and say which
        warnings.warn(f"{p}: a stored calibration that cannot be read ({type(e).__name__}: {str(e)[:200]}); "
                      "fitting again", FitCacheWarning, stacklevel=3)
        return MISSING
    if stored_key != key:  # a hash collision, or a file copied under another name
        warnings.warn(f"{p}: holds the calibration {stored_key!r}, not {key!r}; fitting again", FitCacheWarning,
                      stacklevel=3)
        return MISSING
    return value


def put(key: tuple, value) -> None:
    """Store ``value`` as ``key``'s fit (atomically: a reader sees the old file or the new, never half)."""
    global _warned_unwritable
    p = path_for(key)
    if p is None:
        return
    try:
        text = json.dumps({"format": FORMAT, "key": encode(key), "value": encode(value)}, allow_nan=False)
    except UnstorableFit as e:
        if key[0] not in _warned_unstorable:
            _warned_unstorable.add(key[0])
            warnings.warn(f"{key[0]}: its fit holds {e}, which has no JSON form here; it is kept in memory only",
                          FitCacheWarning, stacklevel=3)
        return
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".fit-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, p)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as e:
        if not _warned_unwritable:
            _warned_unwritable = True
            warnings.warn(f"{p.parent}: calibrations cannot be stored there ({e}); they are kept in memory only "
                          f"(set {ENV} to another folder, or to off)", FitCacheWarning, stacklevel=3)


__all__ = ["ENV", "MISSING", "FORMAT", "folder", "fingerprint", "path_for", "get", "put", "encode", "decode"]
