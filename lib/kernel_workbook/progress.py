"""One progress bar for every long computation (reproductions, sweeps), right for each mode.

In the lab a notebook widget bar (``tqdm.auto``); in ``WORKBOOK_MODE=ci`` a
plain text bar redrawn seldom, so that a stored notebook keeps its start and
its end rather than a screen of redraws.
"""

from __future__ import annotations


def progress(total: int, desc: str, unit: str = "step", initial: int = 0, enabled: bool = True):
    """A tqdm bar for ``total`` steps (``None`` when ``enabled`` is false)."""
    if not enabled:
        return None
    from .config import mode

    if mode().name == "ci":
        from tqdm.std import tqdm

        return tqdm(total=total, initial=initial, desc=desc, unit=unit, mininterval=30)
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit=unit, dynamic_ncols=True)
