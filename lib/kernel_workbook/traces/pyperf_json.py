"""pyperf's JSON results (``pyperf ... -o result.json``, ``.json.gz``), read as plain JSON."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import guarded, fail, read_source, set_attrs
from .fio import _json


@guarded
def parse_pyperf_json(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse a pyperf result file (one benchmark or a suite), without importing pyperf.

    Returns
    -------
    DataFrame
        One row per measured value: ``benchmark`` (its ``name`` metadata),
        ``run`` (0-based run index within the benchmark), ``value`` (float,
        seconds per loop for time benchmarks), ``warmup`` (bool: warmup
        values are kept, flagged, so they can be dropped), ``loops`` (the
        loops of that value when recorded), ``unit`` (from metadata, default
        ``second``).  ``attrs``: ``version`` (the file's format version),
        ``metadata`` (the suite's common metadata).
    """
    text, name = read_source(src, source, max_bytes)
    doc = _json(text, name, "pyperf JSON")
    benches = doc.get("benchmarks")
    if benches is None and "runs" in doc:
        benches = [doc]
    if not isinstance(benches, list):
        raise fail(name, text, None, "pyperf JSON with 'benchmarks'", text[:80])
    common = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    recs = []
    for b in benches:
        if not isinstance(b, dict) or not isinstance(b.get("runs"), list):
            raise fail(name, text, None, "a pyperf benchmark with 'runs'", str(b)[:80])
        md = dict(common)
        if isinstance(b.get("metadata"), dict):
            md.update(b["metadata"])
        bname = str(md.get("name", ""))
        unit = str(md.get("unit", "second"))
        for r, run in enumerate(b["runs"]):
            if not isinstance(run, dict):
                continue
            rmd = run.get("metadata") if isinstance(run.get("metadata"), dict) else {}
            loops = rmd.get("loops", md.get("loops"))
            for w in run.get("warmups", []) or []:
                if isinstance(w, (list, tuple)) and len(w) == 2 and all(
                        isinstance(x, (int, float)) and not isinstance(x, bool) for x in w):
                    recs.append((bname, r, float(w[1]), True, float(w[0]), unit))
            for v in run.get("values", []) or []:
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    recs.append((bname, r, float(v), False,
                                 float(loops) if isinstance(loops, (int, float)) else np.nan, unit))
    df = pd.DataFrame(recs, columns=["benchmark", "run", "value", "warmup", "loops", "unit"])
    return set_attrs(df, name, "pyperf-json", str(doc.get("version")) if doc.get("version") else None, None,
                     metadata=common)
