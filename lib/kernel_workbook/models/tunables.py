"""A machine's own settings of a model's tunable knobs, read where the kernel exposes them.

A knob declared with ``tunable=`` (``/proc/sys/vm/min_free_kbytes``,
``/sys/block/<dev>/queue/iosched/slice_idle``) can be read from a running
kernel, from a copy of its files (``root``: a folder holding ``proc/sys``
and ``sys/block`` as the machine had them), or from what ``kwb record`` kept
of them (``root``: the bundle, or its ``settings.txt``).  An engineer compares the model's
defaults with the machine a capture came from (:func:`df_tunables`) and runs
the model at the machine's settings (:func:`with_tunables`)::

    p = with_tunables(params_for("contended-v5"))            # this machine's sysctls
    io = with_tunables(IOParams(), root="/mnt/capture", dev="sda")

Each file holds what the kernel prints, in the unit the knob is declared in
(the sysctls and the schedulers' sysfs files print the same units).  A file
that is not there (a tunable of another kernel: CFQ's on a kernel without
CFQ) keeps the model's value and is named in an :class:`UnreadTunableWarning`;
a file whose text is not a value of its knob is an error naming the file and
what was expected.  Nothing is guessed.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pandas as pd

from ..errors import UnreadTunableWarning, WorkbookParameterError, WorkbookParseError
from ..settings import FILE as SETTINGS
from ..settings import read_settings_file
from .knobs import TUNABLE_DEV as DEV
from .knobs import Knob, Knobs


def _value(k: Knob, text: str, source: str, lineno: int = 1):
    """The knob's value from a file's text (its first line); errors name ``source`` and ``lineno``."""
    line = text.strip().splitlines()[0].strip() if text.strip() else ""

    def bad(expected):
        return WorkbookParseError(source, lineno, f"{expected} for {k.name} ({k.tunable})", line)

    if not line:
        raise bad("a value")
    if k.kind == "choice":
        words = line.split()
        chosen = [w[1:-1] for w in words if w.startswith("[") and w.endswith("]")]
        v = chosen[0] if len(chosen) == 1 else (line if len(words) == 1 else None)
        if v not in k.choices:
            raise bad("one of " + ", ".join(repr(c) for c in k.choices) + " (the one in brackets, as the kernel "
                      "marks the one in use)")
        return v
    if k.kind == "bool":
        if line not in ("0", "1"):
            raise bad("0 or 1")
        return line == "1"
    if k.kind == "object" and isinstance(k.default, tuple):
        try:
            v = tuple(int(w) for w in line.split())
        except ValueError:
            raise bad(f"{len(k.default)} integers") from None
        if len(v) != len(k.default):
            raise bad(f"{len(k.default)} integers, one per zone the model has")
        return v
    try:
        v = int(line) if k.kind == "int" else float(line)
    except ValueError:
        raise bad("an integer" if k.kind == "int" else "a number") from None
    if k.kind == "float" and not math.isfinite(v):
        raise bad("a finite number")
    return v


def _settings(root: Path):
    """The settings file ``root`` is or holds (a bundle of ``kwb record``), else None: read the files."""
    if root.is_file():
        return read_settings_file(root), root
    if (root / SETTINGS).is_file():
        return read_settings_file(root / SETTINGS), root / SETTINGS
    return None, None


def _text(file: str, root: Path, recorded, where) -> tuple:
    """``(text, source, line)`` of a tunable's file, from the bundle's settings or the machine's tree, or
    ``(None, why, None)`` when it is not there to read."""
    if DEV in file:
        return None, "not read: no device given (dev=)", None
    if recorded is not None:
        got = recorded.get(file)
        return (got[0], str(where), got[1]) if got else (None, f"not read: not in {where.name}", None)
    path = root / file.lstrip("/")
    try:
        return path.read_text(encoding="utf-8", errors="replace"), str(path), 1
    except FileNotFoundError:
        return None, "not read: no such file on this kernel", None
    except OSError as e:
        return None, f"not read: {e.strerror or e}", None


def _read(params: Knobs, root, dev: str | None) -> list[dict]:
    root = Path(root)
    recorded, where = _settings(root)
    values = params.values()
    rows = []
    for name, k in params.declared().items():
        if not k.tunable:
            continue
        file = k.tunable if dev is None else k.tunable.replace(DEV, dev)
        row = {"knob": name, "file": file, "unit": k.unit, "model": values[name], "machine": None, "status": ""}
        text, source, line = _text(file, root, recorded, where)
        if text is None:
            row["status"] = source
        else:
            try:
                row["machine"] = _value(k, text, source, line)
                row["status"] = "same" if row["machine"] == row["model"] else "differs"
            except WorkbookParseError as e:  # shown as the machine has it; with_tunables() raises it
                row["machine"], row["status"], row["error"] = e.text, f"not a value of the model: {e.expected}", e
        rows.append(row)
    return rows


def df_tunables(params: Knobs, root="/", dev: str | None = None) -> pd.DataFrame:
    """Every tunable knob of ``params`` beside the machine's setting of it.

    Columns: ``knob, file, unit, model, machine, status`` (``status``: ``same``, ``differs``, ``not read:``
    and why -- no such file on this kernel, no device given, permission -- or ``not a value of the model:``
    and what it takes, with the machine's text in ``machine``: a scheduler the model does not have).  ``root``: where the machine's
    ``/proc`` and ``/sys`` are (``/``: this one); ``dev``: the block device of ``/sys/block/<dev>``.
    """
    rows = _read(params, root, dev)
    df = pd.DataFrame(rows, columns=["knob", "file", "unit", "model", "machine", "status"])
    for col in ("model", "machine"):  # each knob's own type (an int stays an int beside a missing value)
        df[col] = pd.Series([r[col] for r in rows], index=df.index, dtype=object)
    return df


def with_tunables(params: Knobs, root="/", dev: str | None = None) -> Knobs:
    """``params`` with every tunable knob set to the machine's setting (see :func:`df_tunables`); the knobs it
    could not read keep their value and are named in one :class:`UnreadTunableWarning`.  A file whose text is
    not a value of its knob raises :class:`WorkbookParseError` (file, line, what was expected); a value outside
    the knob's range raises its :class:`WorkbookParameterError`, with the file named."""
    rows = _read(params, root, dev)
    for r in rows:
        if "error" in r:
            raise r["error"]
    unread = [f"{r['knob']} ({r['file']}: {r['status'][len('not read: '):]})" for r in rows
              if r["status"].startswith("not read")]
    if unread:
        warnings.warn(f"{type(params).__name__}: {len(unread)} tunable(s) not read under {root}, kept at the "
                      "model's value: " + "; ".join(unread), UnreadTunableWarning, stacklevel=2)
    read = {r["knob"]: r for r in rows if r["status"] in ("same", "differs")}
    try:
        return params.with_(**{k: r["machine"] for k, r in read.items()})  # validated once, as a whole
    except WorkbookParameterError as e:
        if e.name not in read:
            raise
        where = Path(root) / read[e.name]["file"].lstrip("/")
        raise WorkbookParameterError(e.name, e.value, f"{e.expected} (read from {where})") from None


__all__ = ["df_tunables", "with_tunables", "UnreadTunableWarning"]
