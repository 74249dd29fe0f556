"""Calibrations remembered on disk, per version of the code and data that made them.

A calibration is deterministic: the same function, arguments, mode, code and
published tables give the same fit.  Some take a minute in the lab's problem
size (2011's machines pool the runs of eight seed bases), so a notebook opened
again, or a presenter's second run, should not pay for them again.  Each fit
is stored as one pickle under a key that hashes all of what it depends on:

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
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path

from ..errors import FitCacheWarning
from ..paths import package_dir, published_dir, threads_dir

ENV = "KWB_FIT_CACHE"
MISSING = object()  # what get() returns for a fit not stored
_warned_unwritable = False


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
    return d / f"{key[0].replace(':', '.')}-{h[:32]}.pkl"


def get(key: tuple):
    """The stored fit of ``key``, or :data:`MISSING`."""
    p = path_for(key)
    if p is None or not p.exists():
        return MISSING
    try:
        with open(p, "rb") as f:
            stored_key, value = pickle.load(f)
    except Exception as e:  # a torn or foreign file: fit again, and say which
        warnings.warn(f"{p}: a stored calibration that cannot be read ({type(e).__name__}: {e}); fitting again",
                      FitCacheWarning, stacklevel=3)
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
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".fit-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump((key, value), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, p)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as e:
        if not _warned_unwritable:
            _warned_unwritable = True
            warnings.warn(f"{p.parent}: calibrations cannot be stored there ({e}); they are kept in memory only "
                          f"(set {ENV} to another folder, or to off)", FitCacheWarning, stacklevel=3)


__all__ = ["ENV", "MISSING", "folder", "fingerprint", "path_for", "get", "put"]
