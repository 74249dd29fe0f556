"""Progress for every long computation, right for each mode.

:func:`progress` is the bar a computation that knows its steps opens itself (the 2014 allocator
reproduction's stages, sweeps): in the lab a notebook widget bar (``tqdm.auto``); in
``WORKBOOK_MODE=ci`` a plain text bar redrawn seldom, so that a stored notebook keeps its start and
its end rather than a screen of redraws.

Most long cells do not know their steps: a reproduction fits machines and runs kernels for minutes,
a thread's first cell compiles a model for a minute.  So in the lab (``lab`` and ``slides`` modes,
inside a Jupyter kernel) every cell is watched: the models' engine calls :func:`tick` before each
compiled run, and once a cell has been running the models for :data:`SHOW_AFTER_S` seconds a bar
appears under it with the runs so far, the time and the kernel being run; :func:`compiling` shows
the time a Numba compile has taken while it runs.  The bar closes when the cell ends (it stays,
saying how many runs took how long).  Outside a kernel, and in CI mode, nothing is shown and
:func:`tick` costs a global lookup.
"""

from __future__ import annotations

import contextlib
import threading
import time

SHOW_AFTER_S = 2.0
"""A cell's bar appears once it has been running the models this long (a quick cell shows none)."""


def progress(total: int, desc: str, unit: str = "step", initial: int = 0, enabled: bool = True):
    """A tqdm bar for ``total`` steps (``None`` when ``enabled`` is false)."""
    if not enabled:
        return None
    from .config import mode

    if _ACTIVE is not None:
        _ACTIVE.explicit = True  # the computation shows its own steps: no second bar for the cell
    if mode().name == "ci":
        from tqdm.std import tqdm

        return tqdm(total=total, initial=initial, desc=desc, unit=unit, mininterval=30)
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit=unit, dynamic_ncols=True)


class _Cell:
    """The models' activity in the running cell, and its bar once it has one."""

    def __init__(self):
        self.t0 = time.monotonic()
        self.runs = 0
        self.bar = None
        self.last = 0.0
        self.explicit = False

    def show(self, what: str, force: bool = False) -> None:
        now = time.monotonic()
        if self.bar is None:
            if self.explicit or (now - self.t0 < SHOW_AFTER_S and not force):
                return
            from tqdm.notebook import tqdm

            self.bar = tqdm(total=None, desc="running the models", unit="run", initial=self.runs,
                            bar_format="{desc}: {n_fmt} runs in {elapsed}{postfix}")
            box = getattr(self.bar, "container", None)
            if box is not None and len(box.children) == 3:  # no total: a bar would sit full from the start
                box.children[1].layout.display = "none"
        if force or now - self.last >= 0.5:
            self.last = now
            self.bar.n = self.runs
            self.bar.set_postfix_str(what, refresh=False)
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.n = self.runs
            self.bar.set_postfix_str("done", refresh=False)
            self.bar.close()
            self.bar = None


_ACTIVE: _Cell | None = None
_INSTALLED = False


def tick(what: str) -> None:
    """A model run of ``what`` is starting (``models.engine`` calls this before every compiled run)."""
    cell = _ACTIVE
    if cell is None:
        return
    cell.runs += 1
    cell.show(what)


@contextlib.contextmanager
def compiling(what: str):
    """While Numba compiles ``what``: in a watched cell, the bar shows it with the seconds so far (a compile
    can take a minute); yields whether it is shown (else the caller says it in words)."""
    cell = _ACTIVE
    if cell is None or cell.explicit:
        yield False
        return
    label = f"compiling {what} with Numba (once; cached for later processes)"
    done = threading.Event()
    cell.show(label, force=True)

    def refresh():  # Numba's compiler holds the cell: the seconds move from another thread
        while not done.wait(1.0):
            if cell.bar is not None:
                cell.bar.refresh()

    t = threading.Thread(target=refresh, name="kwb-compile-clock", daemon=True)
    t.start()
    try:
        yield True
    finally:
        done.set()
        t.join()
        cell.show(f"{what} compiled", force=True)


def _pre_run_cell(*_):
    global _ACTIVE
    from .config import mode

    _ACTIVE = _Cell() if mode().name in ("lab", "slides") else None


def _post_run_cell(*_):
    global _ACTIVE
    cell, _ACTIVE = _ACTIVE, None
    if cell is not None:
        cell.close()


def _install() -> None:
    """Watch every cell of this Jupyter kernel (once; nothing outside a kernel)."""
    global _INSTALLED
    if _INSTALLED:
        return
    _INSTALLED = True
    try:
        from IPython import get_ipython

        ip = get_ipython()
    except ImportError:
        return
    if ip is None or getattr(ip, "kernel", None) is None:
        return
    ip.events.register("pre_run_cell", _pre_run_cell)
    ip.events.register("post_run_cell", _post_run_cell)
    _pre_run_cell()  # imported by a cell that is running now


_install()


__all__ = ["progress", "tick", "compiling", "SHOW_AFTER_S"]
