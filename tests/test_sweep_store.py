"""The sweep's table and its Parquet file: schema, order, resuming, runs never lost or run twice.

All in this process (``workers=0``); the same engine on Dask is tested in test_sweep_dask.py.
"""

from __future__ import annotations

import dataclasses
import json
import random

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kernel_workbook.errors import WorkbookParameterError, WorkbookParseError
from kernel_workbook.sweep import SweepStore, product, read_sweep, run_sweep
from kernel_workbook.sweep import run as sweep_run
from sweep_toy import MODEL

KNOBS = {"cfq_slice_idle": [0, 8], "elevator": ["noop", "cfq"], "nomerges": [False, True],
         "min_free_kbytes": [None, 1024]}


def counting(fail_at: int | None = None):
    """The toy model, counting its runs (and failing at run number ``fail_at``, like a killed sweep)."""
    calls = []

    def simulate(p, w, seed=0, engine="jit"):
        calls.append((p.cfq_slice_idle, seed))
        if fail_at is not None and len(calls) == fail_at:
            raise RuntimeError("the machine went away")
        return MODEL.simulate(p, w, seed=seed, engine=engine)

    return dataclasses.replace(MODEL, simulate=simulate), calls


def test_table_has_one_row_per_run_in_grid_order_with_typed_columns_and_metadata(tmp_path):
    g = product(MODEL, KNOBS, variants="all", seeds=[0, 1])
    df = run_sweep(g, tmp_path / "runs.parquet", workers=0, progress=False)
    assert len(df) == len(g) == 64 and list(df.index) == list(range(64))
    assert list(df.columns) == ["variant", "workload", "cfq_slice_idle", "nomerges", "elevator", "min_free_kbytes",
                                "seed", "await_ms", "nr_merged", "nr_idled", "util_pct"]
    schema = pq.read_schema(tmp_path / "runs.parquet")
    types = {f.name: f.type for f in schema}
    assert types["cfq_slice_idle"] == pa.float64() and types["nomerges"] == pa.bool_()
    assert types["elevator"] == pa.string() and types["min_free_kbytes"] == pa.int64()  # None is a null
    assert types["seed"] == pa.int64() and types["nr_merged"] == pa.int64()  # a count stays an integer
    meta = json.loads(schema.metadata[b"kwb_sweep"])
    assert meta["model"] == "toy" and meta["knobs"] == list(g.knobs)
    assert meta["units"]["cfq_slice_idle"] == "ms" and "cfq_arm_slice_timer" in meta["sources"]["cfq_slice_idle"]
    assert meta["design"] == "product" and meta["home"][1] == {
        "variant": "3.0-nomerges", "knobs": {"cfq_slice_idle": 8.0, "nomerges": True, "elevator": "cfq",
                                             "min_free_kbytes": None}}
    # every row is the run it names
    for i in (0, 17, 63):
        r = g.runs[i]
        want = MODEL.run(variant=r.variant, workload=r.workload, seed=r.seed, knobs=r.knob_dict())
        got = df.loc[i, list(want)].to_dict()
        assert got == want and df.loc[i, "seed"] == r.seed and df.loc[i, "variant"] == r.variant
    # the file is the table
    back = read_sweep(tmp_path / "runs.parquet")
    pd.testing.assert_frame_equal(back, df.reset_index(drop=True), check_exact=True)
    assert back.attrs["sweep"]["model"] == "toy"
    assert not (tmp_path / "runs.parquet.parts").exists()


def test_in_memory_table_equals_the_file_and_repeats_bit_for_bit(tmp_path):
    g = product(MODEL, KNOBS, seeds=[0, 1, 2])
    a = run_sweep(g, workers=0, progress=False)
    b = run_sweep(g, tmp_path / "b.parquet", workers=0, progress=False)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert pd.util.hash_pandas_object(a).tolist() == pd.util.hash_pandas_object(b).tolist()
    assert not a["await_ms"].duplicated().all()  # the seeds and knobs do move the outputs


def test_any_completion_order_gives_the_same_file(tmp_path):
    g = product(MODEL, KNOBS, variants="all", seeds=[0, 1])
    results = [(r, MODEL.run(variant=r.variant, workload=r.workload, seed=r.seed, knobs=r.knob_dict()))
               for r in g]
    frames = []
    for order in ("sorted", "shuffled", "reversed"):
        rs = list(results)
        if order == "shuffled":
            random.Random(7).shuffle(rs)
        elif order == "reversed":
            rs.reverse()
        s = SweepStore(tmp_path / f"{order}.parquet", g)
        for i in range(0, len(rs), 5):  # parts of 5, as batches finishing out of order
            s.append(rs[i:i + 5])
        frames.append(s.finish())
    for f in frames[1:]:
        pd.testing.assert_frame_equal(frames[0], f, check_exact=True)
    assert pq.read_table(tmp_path / "sorted.parquet").equals(pq.read_table(tmp_path / "shuffled.parquet"))


def test_resume_runs_only_what_is_missing(tmp_path):
    out = tmp_path / "runs.parquet"
    spec, calls = counting()
    run_sweep(product(spec, {"cfq_slice_idle": [0, 8]}, seeds=[0, 1]), out, workers=0, progress=False)
    assert len(calls) == 4
    calls.clear()
    df = run_sweep(product(spec, {"cfq_slice_idle": [0, 8]}, seeds=[0, 1, 2, 3]), out, workers=0, progress=False)
    assert sorted(calls) == [(0.0, 2), (0.0, 3), (8.0, 2), (8.0, 3)]  # the 4 new runs only
    assert len(df) == 8 and list(df["seed"]) == [0, 1, 2, 3, 0, 1, 2, 3]
    calls.clear()
    again = run_sweep(product(spec, {"cfq_slice_idle": [0, 8]}, seeds=[0, 1, 2, 3]), out, workers=0, progress=False)
    assert calls == [] and again.equals(df)


def test_a_sweep_killed_half_way_keeps_its_runs_and_resumes_to_the_same_file(tmp_path, monkeypatch):
    monkeypatch.setattr(sweep_run, "FLUSH_N", 3)  # write every 3 runs
    g_ok = product(MODEL, KNOBS, seeds=[0, 1])
    whole = run_sweep(g_ok, tmp_path / "whole.parquet", workers=0, progress=False)

    out = tmp_path / "runs.parquet"
    spec, calls = counting(fail_at=11)
    with pytest.raises(RuntimeError, match="the machine went away") as e:
        run_sweep(product(spec, KNOBS, seeds=[0, 1]), out, workers=0, progress=False)
    assert "in sweep run 10" in "".join(getattr(e.value, "__notes__", []))  # which run failed
    parts = sorted((tmp_path / "runs.parquet.parts").glob("part-*.parquet"))
    assert sum(pq.read_metadata(p).num_rows for p in parts) == 10 and not out.exists()

    spec2, calls2 = counting()
    df = run_sweep(product(spec2, KNOBS, seeds=[0, 1]), out, workers=0, progress=False)
    assert len(calls2) == len(g_ok) - 10
    pd.testing.assert_frame_equal(df, whole, check_exact=True)
    assert pq.read_table(out).equals(pq.read_table(tmp_path / "whole.parquet"))
    assert not (tmp_path / "runs.parquet.parts").exists()


def test_rows_of_an_earlier_grid_are_kept_after_this_grids_rows(tmp_path):
    out = tmp_path / "runs.parquet"
    run_sweep(product(MODEL, {"cfq_slice_idle": [0, 8]}), out, workers=0, progress=False)
    df = run_sweep(product(MODEL, {"cfq_slice_idle": [16, 8]}), out, workers=0, progress=False)
    assert df["cfq_slice_idle"].tolist() == [16.0, 8.0]  # this grid, in its order
    assert read_sweep(out)["cfq_slice_idle"].tolist() == [16.0, 8.0, 0.0]  # nothing dropped


def test_a_file_of_another_sweep_is_not_resumed(tmp_path):
    out = tmp_path / "runs.parquet"
    run_sweep(product(MODEL, {"cfq_slice_idle": [0, 8]}), out, workers=0, progress=False)
    with pytest.raises(WorkbookParameterError) as e:
        run_sweep(product(MODEL, {"cfq_quantum": [1, 2]}), out, workers=0, progress=False)
    assert "knobs=['cfq_slice_idle'] where this sweep has ['cfq_quantum']" in str(e.value)
    with pytest.raises(WorkbookParameterError, match="workload_kw"):
        run_sweep(product(MODEL, {"cfq_slice_idle": [0]}, workload_kw={"requests": 50}), out, workers=0,
                  progress=False)
    with pytest.raises(WorkbookParameterError, match="holds engine='jit' where this sweep has 'python'"):
        run_sweep(product(MODEL, {"cfq_slice_idle": [0]}), out, workers=0, progress=False, engine="python")
    other = tmp_path / "other.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(other)
    with pytest.raises(WorkbookParseError, match="other.parquet: expected a Parquet file written by kwb sweep"):
        run_sweep(product(MODEL, {"cfq_slice_idle": [0]}), other, workers=0, progress=False)
    (tmp_path / "text.parquet").write_text("not parquet")
    with pytest.raises(WorkbookParseError, match="text.parquet"):
        run_sweep(product(MODEL, {"cfq_slice_idle": [0]}), tmp_path / "text.parquet", workers=0, progress=False)
    with pytest.raises(WorkbookParameterError, match="existing directory"):
        run_sweep(product(MODEL, {}), tmp_path / "no" / "such" / "dir.parquet", workers=0, progress=False)


def test_engine_python_runs_the_same_model_without_numba():
    g = product(MODEL, {"cfq_slice_idle": [0, 8]}, seeds=[0, 1])
    jit = run_sweep(g, workers=0, progress=False)
    py = run_sweep(g, workers=0, progress=False, engine="python")
    pd.testing.assert_frame_equal(jit, py, check_exact=False, rtol=1e-12)
    with pytest.raises(WorkbookParameterError, match="engine='gpu'"):
        run_sweep(g, workers=0, progress=False, engine="gpu")


def test_overlapping_tasks_in_threads_leave_stdout_as_it_was():
    import sys
    import threading

    from kernel_workbook.sweep.worker import _quiet

    before = sys.stdout
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()

    def a():
        with _quiet():
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def b():
        a_in.wait(5)
        with _quiet():
            b_in.set()
            a_out.wait(5)  # a leaves first: with redirect_stdout, b would then restore a's buffer

    ts = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(10)
    assert sys.stdout is before
