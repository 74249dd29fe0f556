"""``kwb sweep``: one model over a grid of knobs, kernels, workloads and seeds, on Dask.

    kwb sweep MODEL --knob NAME=v1,v2,... [--knob ...] [--variant V,...|all] [--workload W,...|all]
              [--seeds 0-7] --out runs.parquet [--scheduler ADDR | --workers N]
              [--one-at-a-time | --sample N [--sample-seed S]] [--workload-kw KEY=VALUE ...]
              [--engine jit|python] [--chunk N] [--no-progress]
    kwb sweep MODEL --list

Knobs are named as the model declares them (``--list`` prints them with their
units and kernel sources).  ``--workers 0`` runs in this process without
Dask.  Running the same command again resumes: runs already in ``--out`` are
not run again.  Bad input exits with status 2 and one line saying what was
expected.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time

from .argtypes import one_line_errors, whole
from .errors import WorkbookParameterError


def _parse_knobs(spec, items: list[str], sampling: bool) -> dict:
    declared = spec.knobs()
    out: dict = {}
    for item in items:
        name, eq, rest = item.partition("=")
        name = name.strip()
        if name not in declared:
            raise WorkbookParameterError("--knob", item, f"NAME=v1,v2,... with NAME a knob of {spec.name}: "
                                         + ", ".join(declared))
        if name in out:
            raise WorkbookParameterError("--knob", item, f"each knob once ({name} is given twice)")
        k = declared[name]
        if not eq:
            if not sampling:
                raise WorkbookParameterError("--knob", item, f"{name}=v1,v2,... (values to run; {k.expected()})")
            out[name] = None  # --sample: over its widget range
            continue
        rest = rest.strip()
        if not rest:
            raise WorkbookParameterError("--knob", item, f"{name}=v1,v2,... ({k.expected()})")
        if sampling and ":" in rest and k.kind in ("int", "float"):
            lo, _, hi = rest.partition(":")
            out[name] = (_knob_value(k, lo), _knob_value(k, hi))
            continue
        out[name] = [_knob_value(k, v) for v in rest.split(",")]
    return out


def _names(text: str | None):
    if text is None:
        return None
    if text.strip() == "all":
        return "all"
    return [t.strip() for t in text.split(",") if t.strip()]


def _workload_kw(items: list[str]) -> dict:
    kw = {}
    for item in items:
        key, eq, val = item.partition("=")
        if not eq or not key.strip().isidentifier():
            raise WorkbookParameterError("--workload-kw", item, "KEY=VALUE with KEY a parameter of the workload")
        try:
            kw[key.strip()] = ast.literal_eval(val.strip())
        except (ValueError, SyntaxError):
            kw[key.strip()] = val.strip()
    return kw


def _list(spec) -> None:
    print(f"{spec.name}: {spec.title}")
    print("variants:  " + (", ".join(spec.variants) or "(none)") + (f"  (default {spec.default_variant})"
                                                                     if spec.default_variant else ""))
    print("workloads: " + (", ".join(spec.workloads) or "(none)") + (f"  (default {spec.default_workload})"
                                                                      if spec.default_workload else ""))
    print("knobs:")
    for name, k in spec.knobs().items():
        if k.kind == "object":
            continue
        print(f"  {name:32s} default {k.default!r:10s} {k.expected()}"
              + (f"; on a running kernel: {k.tunable}" if k.tunable else ""))


def _cmd_sweep(a) -> int:
    from .heuristic import model
    from .sweep import grid as G
    from .sweep.cluster import check_workers, need_dask, scheduler_address
    from .sweep.run import run_sweep
    from .sweep.store import SweepStore

    spec = model(a.model)
    if a.list:
        _list(spec)
        return 0
    if not a.out:
        raise WorkbookParameterError("--out", None, "a Parquet file for the runs (for example --out runs.parquet)")
    if a.sample is not None and a.one_at_a_time:
        raise WorkbookParameterError("--sample", a.sample, "no --sample with --one-at-a-time (choose one design)")
    workers = check_workers(a.workers)
    if a.scheduler is not None and workers is not None:
        raise WorkbookParameterError("--workers", workers, "no --workers with --scheduler (the cluster has the "
                                     "workers it has)")
    # $DASK_SCHEDULER_ADDRESS is a default: --workers asks for a local cluster (or this process)
    addr = scheduler_address(a.scheduler) if a.scheduler is not None or workers is None else None
    knobs = _parse_knobs(spec, a.knob, a.sample is not None)
    common = dict(variants=_names(a.variant), workloads=_names(a.workload), seeds=_seeds(a.seeds),
                  workload_kw=_workload_kw(a.workload_kw))
    if a.sample is not None:
        if not knobs:
            raise WorkbookParameterError("--knob", None, "at least one --knob NAME[=lo:hi|=v1,v2] to sample")
        grid = G.sample(spec, knobs, a.sample, sample_seed=a.sample_seed, **common)
    elif a.one_at_a_time:
        if not knobs:
            raise WorkbookParameterError("--knob", None, "at least one --knob NAME=v1,v2,... to vary")
        grid = G.one_at_a_time(spec, knobs, **common)
    else:
        grid = G.product(spec, knobs, **common)
    SweepStore(a.out, grid, a.engine)  # a wrong --out fails now, before anything is said or started
    if workers != 0 or addr is not None:
        need_dask()
    where = "this process" if workers == 0 and addr is None else (addr or f"a local cluster of "
                                                                   f"{workers or 'one process per core'}")
    say = _say(a.progress)
    say(f"kwb sweep: {grid.describe()} on {where}")
    t0 = time.perf_counter()
    try:
        df = run_sweep(grid, a.out, scheduler=addr, workers=workers, engine=a.engine, progress=a.progress,
                       chunk=a.chunk, log=lambda line: say(f"kwb sweep: {line}"))
    except KeyboardInterrupt:
        print(f"kwb sweep: interrupted; the runs that finished are saved beside {a.out}: run the same command "
              "again to resume", file=sys.stderr)
        return 130
    print(f"kwb sweep: {len(df)} runs of {spec.name} -> {a.out} ({time.perf_counter() - t0:.1f} s)",
          file=sys.stderr)
    return 0


def _say(progress: bool):
    def say(line: str) -> None:
        if progress:
            from tqdm import tqdm

            tqdm.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr)
    return say


MAX_SEED = 2**32 - 1  # numpy's classic seed range; a run's seed is stored as a 64-bit integer
MAX_SEEDS = 100_000  # seeds in one sweep (each is a run of every point of the grid)
MAX_INT_KNOB = 2**63 - 1  # an int knob is packed into the kernel's 64-bit integers


def _seeds(text: str) -> list[int]:
    """``--seeds``: checked against :data:`MAX_SEED` and :data:`MAX_SEEDS` before any list is built."""
    from .sweep import grid as G

    total = 0
    for part in str(text).split(","):
        lo, sep, hi = part.strip().partition("-")
        for t in (lo, hi) if sep else (lo,):
            t = t.strip()
            if len(t) > 12 or (t.isdigit() and int(t) > MAX_SEED):
                raise WorkbookParameterError("--seeds", text, f"seeds from 0 to {MAX_SEED} (as 0-7, 0,3,5 or "
                                             "0-3,10-11)")
        if sep and lo.strip().isdigit() and hi.strip().isdigit():
            total += max(0, int(hi) - int(lo) + 1)
        else:
            total += 1
        if total > MAX_SEEDS:
            raise WorkbookParameterError("--seeds", text, f"at most {MAX_SEEDS} seeds in one sweep")
    return G.parse_seeds(text)


def _knob_value(k, text: str):
    from .sweep.grid import parse_value

    if k.kind == "int":
        t = text.strip().lstrip("+-")
        if len(t) > 19 or (t.isdigit() and int(t) > MAX_INT_KNOB):
            raise WorkbookParameterError(k.name, text.strip()[:40], f"{k.expected()}, within the kernel's 64-bit "
                                         "integers")
    return parse_value(k, text)


def register(sub) -> None:
    p = sub.add_parser("sweep", help="run a model over a grid of knobs, kernels and seeds (Dask)",
                       description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="cfq, fairzone, numa, ...")
    p.add_argument("--knob", action="append", default=[], metavar="NAME=v1,v2,...",
                   help="a knob by its declared name and the values to run (repeat for more knobs); with --sample "
                        "NAME=lo:hi, NAME=v1,v2 or NAME (its widget range)")
    p.add_argument("--variant", help="kernels: names separated by commas, or all (default: the model's)")
    p.add_argument("--workload", help="workloads: names separated by commas, or all (default: the model's)")
    p.add_argument("--seeds", default="0", help="seeds: 0-7, 0,3,5 or 0-3,10-11 (default 0)")
    p.add_argument("--out", help="the Parquet file of the runs (resumed if it exists)")
    p.add_argument("--scheduler", help="a running Dask scheduler, tcp://host:8786 (default: $DASK_SCHEDULER_ADDRESS, "
                                       "else a local cluster)")
    p.add_argument("--workers", type=whole(0, 4096), help="processes of the local cluster (default: one per core; 0: run "
                                                  "in this process without Dask)")
    p.add_argument("--one-at-a-time", action="store_true",
                   help="the kernel's setting, then each knob through its values alone (a tornado chart's design)")
    p.add_argument("--sample", type=whole(1, 10**7), metavar="N", help="N random points instead of the full grid")
    p.add_argument("--sample-seed", type=whole(0, MAX_SEED), default=0, help="seed of the random points (default 0)")
    p.add_argument("--workload-kw", action="append", default=[], metavar="KEY=VALUE",
                   help="a keyword argument of the workload builder (repeatable), e.g. a smaller problem")
    p.add_argument("--engine", choices=["jit", "python"], default="jit")
    p.add_argument("--chunk", type=whole(1, 10**6), help="runs per Dask task (default: enough for a task of about 0.2 s, fewer "
                                                        "towards the end)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    p.add_argument("--list", action="store_true", help="list the model's knobs, variants and workloads")
    p.set_defaults(func=_cmd_sweep)
    one_line_errors(p, "kwb sweep")  # one line, not argparse's usage block: the user fixes one option
