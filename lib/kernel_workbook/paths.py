"""Where the workbook's files live.

The package is installed editable from a clone (``make lab`` / ``make test``),
so the data folder is the clone's ``data/``.  ``KWB_DATA`` points elsewhere,
for example at a copy of ``data/`` beside a notebook exported to another
machine.
"""

from __future__ import annotations

import os
from pathlib import Path

_PKG = Path(__file__).resolve().parent


def package_dir() -> Path:
    """The ``kernel_workbook`` package's folder (its sources)."""
    return _PKG


def repo_root() -> Path:
    """The clone's top folder (the one with ``pyproject.toml``)."""
    return _PKG.parent.parent


def data_dir() -> Path:
    """``$KWB_DATA`` if set, else ``<repo>/data``."""
    env = os.environ.get("KWB_DATA")
    return Path(env) if env else repo_root() / "data"


def threads_dir() -> Path:
    return data_dir() / "threads"


def published_dir() -> Path:
    return data_dir() / "published"


def traces_dir() -> Path:
    return data_dir() / "traces"
