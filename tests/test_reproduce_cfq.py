"""The two CFQ reproductions: the JSON schema, what is fitted (baseline only), the blocks and frames."""

import json

import numpy as np
import pandas as pd
import pytest

from kernel_workbook.reproduce import CELL_KEYS, format_summary, reproduce
from kernel_workbook.heuristics.cfq import deep_idle_2011 as d11
from kernel_workbook.heuristics.cfq import seqread_2014 as s14
from literals import literals_equal_to_published

from kernel_workbook.tables import baseline_of, published

CFQ_TABLES = {"cfq600-seqread", "cfq600-iostat"}


@pytest.fixture(scope="module")
def part14():
    return s14.cfq_part(small=True)


@pytest.fixture(scope="module")
def rep11():
    return reproduce("2011-cfq-deep-idle", small=True)


def _check_schema(rep):
    doc = json.loads(rep.to_json())
    assert {"thread", "cells", "summary", "fitted"} <= set(doc)
    for c in doc["cells"]:
        assert list(c)[: len(CELL_KEYS)] == CELL_KEYS
    return doc


def test_2014_cfq_part_what_is_fitted(part14):
    cells = [c for c in part14.cells if c["table"] in CFQ_TABLES]
    fitted = [c for c in cells if c["calibrated"]]
    # one cell fitted, in the baseline column the issue names, and rep.fitted says which parameter
    assert [(c["table"], c["row"], c["kernel"]) for c in fitted] == [
        ("cfq600-seqread", "SeqRead-MB/sec-1", "3.16.0-rc1 vanilla")]
    # a baseline-column cell has no change to predict, fitted or not
    assert fitted[0]["published_delta_pct"] is None and fitted[0]["model_delta_pct"] is None
    assert [f["parameter"] for f in part14.fitted] == ["media_rate_mb_s"]
    assert part14.fitted[0]["fitted_to"] == ["cfq600-seqread|Mean|SeqRead-MB/sec-1|3.16.0-rc1 vanilla"]
    assert baseline_of("2014-seqread-fairzone-cfq", "cfq600-seqread") == "3.16.0-rc1 vanilla"
    pub = published("2014-seqread-fairzone-cfq", "cfq600-seqread")
    mine = {(c["row"], c["kernel"]): c for c in cells if c["table"] == "cfq600-seqread"}
    for r in pub.itertuples():
        assert mine[(r.row, r.kernel)]["published"] == r.value
    # predicted: the cfq600 column; the 3.0 column is shown, not predicted
    for c in cells:
        if c["kernel"].startswith("3.0.0"):
            assert c["model"] is None
        if c["kernel"] == "3.16.0-rc1 cfq600" and c["table"] == "cfq600-seqread":
            assert c["model"] is not None and c["model_delta_pct"] is not None
            assert c["model"] != c["published"]
    assert any("3.0.0 column not predicted" in n for n in part14.notes)


def test_2014_cfq_part_prints_blocks_rendered_from_frames(part14):
    keys = [b.key for b in part14.blocks]
    assert keys[:4] == ["cfq/fitted", "cfq600-seqread/published", "cfq600-seqread/model", "cfq600-seqread/cells"]
    assert {"cfq600-iostat/cells", "lessdirty-tiobench-min/model", "cfq/other-machines"} <= set(keys)
    text = "\n".join(b.render() for b in part14.blocks)
    assert "Mean   SeqRead-MB/sec-16         68.90" in text  # the published table as the thread printed it
    assert "media_rate_mb_s" in text and "nothing else is fitted" in text
    assert "sda-r_await" in text and "laptop-tiobench" in text
    cells = next(b for b in part14.blocks if b.key == "cfq600-seqread/cells")
    assert "nan" not in cells.render()  # the 3.0 column has no model value: printed "-", not nan
    om = s14.df_other_machines(small=True)
    assert list(om.columns) == ["table", "row", "published_vanilla", "published_cfq600", "published_pct",
                                "model_vanilla", "model_cfq600", "model_pct", "err_pts", "sign_agrees"]


def test_2014_joins_the_cfq_half_then_the_allocator_half(monkeypatch):
    from kernel_workbook.heuristics.fairzone import fairzone_2014 as fz
    from kernel_workbook.reproduce import Reproduction

    called = []
    for name in ("cfq_part", "fairzone_part"):
        monkeypatch.setattr(fz, name, lambda _n=name, **kw: called.append(_n) or Reproduction(fz.THREAD))
    fz.reproduce(small=True)
    assert called == ["cfq_part", "fairzone_part"]


def test_2014_notes_prose_and_the_explorers_published_points(part14):
    lines = s14.notes_prose(part14).text.splitlines()
    assert lines == [f"* {n}" for n in part14.notes] and len(lines) > 0
    pts = s14.df_explorer_points()
    # 3.0's column is the allocator's difference, not CFQ's: the CFQ explorer draws only the 3.16 kernels
    assert set(pts["kernel"]) == {"3.16.0-rc1 vanilla", "3.16.0-rc1 cfq600"}
    allp = published(s14.THREAD, "cfq600-seqread")
    assert len(pts) == int((allp["kernel"] != "3.0.0 vanilla").sum())


def test_2014_frames_for_the_notebook():
    sl = s14.df_slices()
    assert list(sl.columns) == ["readers", "slice_ms target 300", "slice_ms target 600"]
    assert sl.set_index("readers").loc[16].tolist() == [18.0, 37.0]
    assert s14.seqread_throughput(s14.desktop_params(small=True), 2, cpu_cost_per_page=0.0, mb_total=32) > \
        s14.seqread_throughput(s14.desktop_params(small=True), 2, cpu_cost_per_page=8.0, mb_total=32) > 0


def test_2011_schema_and_what_is_fitted(rep11):
    doc = _check_schema(rep11)
    cells = doc["cells"]
    assert len(cells) == 6 + 4
    fitted = {(c["table"], c["kernel"]) for c in cells if c["calibrated"]}
    assert fitted == {("aio-stress-fast-raid", "Pristine 3.1.0-rc2 (CFQ)"),
                      ("aio-stress-slow-hdd", "Pristine 3.1.0-rc2 (CFQ)")}
    assert [f["parameter"] for f in doc["fitted"]] == ["raid-lsi1078-2011.cmd_overhead_us",
                                                       "server-sata-2011.write_cache_kb"]
    assert doc["summary"]["lenient"]["predicted_cells"] == 8
    for c in cells:
        assert c["model"] is not None and c["model"] > 0
    assert rep11.block("aio-stress-fast-raid/fitted").frame["parameter"].tolist() == ["cmd_overhead_us"]
    t = rep11.block("aio-stress-slow-hdd/targets").frame
    assert list(t.columns) == ["variant", "published_ratio", "model_ratio", "error_pct", "within_15pct",
                               "published_rank", "model_rank"]
    assert "the thread's targets" in rep11.block("aio-stress-fast-raid/targets").title
    assert format_summary(rep11).startswith("fidelity")


def test_2011_calibration_uses_only_the_baseline():
    cal = d11.calibrate("aio-stress-fast-raid", small=True)
    assert cal["parameter"] == "cmd_overhead_us"
    assert cal["published"] == published("2011-cfq-deep-idle", "aio-stress-fast-raid").query(
        "kernel == 'Pristine 3.1.0-rc2 (CFQ)'")["value"].iloc[0]
    assert abs(cal["model"] / cal["published"] - 1) < 0.1
    f = d11.fidelity_2011("aio-stress-fast-raid", small=True)
    assert f["pairs"] == 15 and len(f["ratios"]) == 5
    assert d11.short_name("3.1.0-rc2 (CFQ, mark_cfqq_deep commented out)") == "no mark_deep"
    wi = d11.df_what_if_per_command_destage(small=True)
    assert list(wi.columns) == ["variant", "published", "model (coalescing cache)", "model (per-command)",
                                "write_cache_kb"]
    assert isinstance(wi, pd.DataFrame) and len(wi) == 3


def test_2011_the_machine_is_fitted_on_the_mean_of_every_seed_base_baseline_not_one_draw():
    """One pristine-CFQ run on the RAID scatters by 8-15 MB/s: the fit is on the mean of the baseline runs the
    seed bases of CALIBRATION_BASES measure against (so over them the model's baseline has the published mean),
    not on seed base 0's runs alone, which differ from that mean by several MB/s."""
    import numpy as np

    from kernel_workbook.reproduce.calibration import CALIBRATION_BASES

    table = "aio-stress-fast-raid"
    cal = d11.calibrate(table, small=True)
    p, w, it = d11.machine_params(table, small=True), d11.workload(table, small=True), d11.sizes(True).iterations
    per_base = [d11._mean_tput(p, w, 0, it, b) for b in CALIBRATION_BASES]
    assert len(CALIBRATION_BASES) >= 8
    assert cal["model"] == pytest.approx(float(np.mean(per_base)), rel=1e-12)
    assert abs(per_base[0] - cal["model"]) > 1.0  # seed base 0 alone would have been another fit
    # the baseline a seed base predicts against is one of the pooled measurements
    s = d11.model_samples(table, small=True, seed_base=3)
    assert float(np.mean(s[d11.BASELINE][d11.ROW])) == pytest.approx(per_base[3], rel=1e-12)


MY_FILES = [
    "models/cfq/params.py", "models/cfq/analytic.py", "models/cfq/simulate.py", "models/cfq/result.py",
    "models/cfq/layout.py", "models/cfq/disk_kernel.py", "models/cfq/cfq_kernel.py", "models/cfq/elevator_kernel.py",
    "models/cfq/event_loop.py", "models/cfq/workload.py", "models/cfq/__init__.py", "reproduce/_side_by_side.py",
] + [f"heuristics/cfq/{n}.py" for n in ("__init__", "seqread_2014", "deep_idle_2011", "tiobench", "aio_stress", "charts")]


def test_no_published_figure_is_written_into_the_model_or_the_reproduction():
    """Published numbers reach the model only through published(): no literal equals one.

    Trivial constants (integers below 1000 and 0.5-steps such as 1.0 or
    2.0 that the kernel and the data sheets use) cannot be told apart from
    a table's value and are left out.
    """
    hits = literals_equal_to_published(MY_FILES, ("2014-seqread-fairzone-cfq", "2011-cfq-deep-idle"))
    assert not hits, hits


def test_2011_the_stored_fidelity_run_is_this_run(rep11):
    """data/fidelity holds 8 seed bases; its seed base 0 must be what this code gives now."""
    from kernel_workbook.reproduce.fidelity import stored_differences

    assert stored_differences("2011-cfq-deep-idle", rep11.cells) == []


def test_2011_a_seed_base_moves_every_seed():
    assert d11._seed(0, 0, 0) == d11._seed(0, 0) and d11._seed(0, 0, 1) != d11._seed(0, 0)
    seeds = {d11._seed(v, i, b) for v in range(6) for i in range(8) for b in range(8)}
    assert len(seeds) == 6 * 8 * 8  # no two runs of any two bases share a seed


def test_2011_every_scored_miss_says_why(rep11):
    m = d11.df_misses(rep11.scored())
    assert len(m) == int((rep11.scored()["status"] == "miss").sum())
    assert m["why"].str.len().gt(40).all()
    text = d11.misses_prose(m).text.splitlines()
    assert len(text) == len(m)
    r = m.iloc[0]
    assert text[0] == (f"* **{r['table']} | {r['variant']}**: published {r['published_delta_pct']:+.1f}%, model "
                       f"{r['model_delta_pct']:+.1f}% ({r['reason']}). {r['why']}")


def test_2011_workload_prose_counts_processes_files_and_requests():
    from kernel_workbook.heuristics.cfq import aio_stress

    text = d11.workload_prose(aio_stress.patlasov_2011(usleep_us=1000)).text
    # eight instances of four 16 MB files in 4 KiB writes: 8 * 4 * 16 MiB / 4 KiB requests
    assert text.endswith("\n\n8 processes, 32 files, 131,072 requests of 4 KiB")
    assert text.startswith("8 x 'aio-stress -a 4 -b 4")


def test_2014_a_seed_base_is_an_argument_that_moves_every_seed_and_never_the_calibrations(monkeypatch):
    """No process-wide seed base: the base travels as an argument down to where a seed is drawn, and a calibration
    draws on CALIBRATION_BASE whatever base asks for it."""
    import importlib.util

    from kernel_workbook.heuristics.fairzone import fairzone_2014 as fz
    from kernel_workbook.models.cfq import DESKTOP_2014
    from kernel_workbook.reproduce.calibration import CALIBRATION_BASE

    assert importlib.util.find_spec("kernel_workbook.reproduce.seed_base") is None
    assert s14._seed(0, 0, 0) == 1000 and s14._seed(0, 0, 2) == 1000 + 2 * s14.SEED_BASE_STRIDE
    assert fz.shift_seed(11, 0) == 11 and fz.shift_seed(11, 2) == 11 + 2 * s14.SEED_BASE_STRIDE
    s14.desktop_params(small=True)  # the real fit first: what follows only watches the seeds drawn
    seen = []
    real = s14.simulate

    def spy(p, w, seed, verbose=True):
        seen.append(seed)
        return real(p, w, seed=seed, verbose=verbose)

    monkeypatch.setattr(s14, "simulate", spy)
    s14.df_file_layout(mb_totals=(8.0,), readers=(1,), iterations=2, small=True, seed_base=2)
    assert seen == [s14._seed(0, i, 2) for i in range(2)] * 2  # both layouts, seed base 2's iterations
    seen.clear()
    # the fit itself (not the store's memo of it), asked for while seed base 2 runs: its seeds are base 0's
    s14.calibrate_media_rate.__wrapped__(DESKTOP_2014, 50.0, 4096, 8.0, 2)
    assert seen and set(seen) == {s14._seed(0, i, CALIBRATION_BASE) for i in range(2)}


def test_2014_cfq_fitted_cells_are_never_scored(part14):
    """Issue 11: the CFQ half's fitted media rate names its cell, and that cell is not scored."""
    from kernel_workbook.reproduce.fidelity import df_fitted_of, fitted_cells_scored

    df = df_fitted_of("2014-seqread-fairzone-cfq", part14.cells, part14.fitted)
    assert len(df) >= 1 and (df["status"] != "absent").all()
    assert fitted_cells_scored(df).empty, fitted_cells_scored(df).to_string()


def test_2011_slow_disk_miss_is_the_write_cache_grouping_of_cfq_slices():
    """Why the slow disk misses (MISS_WHY): the cache's segments, not the media, set the gain of the
    variant without 8e1ac6655104.  Pristine CFQ switches queues all the time, 32 files share 16 segments,
    a write-back op carries few writes and most writes wait for room; without the commit CFQ idles on
    each deep queue for a whole slice, each segment grows long and writes rarely wait.  Fails if the
    write cache or CFQ's idling changes the mechanism the notebook states."""
    from kernel_workbook.models.cfq import SERVER_SATA_2011, simulate

    t = "aio-stress-slow-hdd"
    w = d11.workload(t, small=True)
    assert SERVER_SATA_2011.write_cache_extents < 32  # fewer segments than the 8 x 4 files written
    c = {}
    for v in ("Pristine 3.1.0-rc2 (CFQ)", "3.1.0-rc2 w/o 8e1ac6655104 (CFQ)"):
        r = simulate(d11.machine_params(t, v, small=True), w, seed=d11._seed(0, 0), verbose=False)
        c[v] = r.counters
    base, wo = c["Pristine 3.1.0-rc2 (CFQ)"], c["3.1.0-rc2 w/o 8e1ac6655104 (CFQ)"]
    assert wo["set_active"] * 10 < base["set_active"]  # long slices: CFQ idles on the deep queue
    assert wo["destage_ops"] * 3 < base["destage_ops"]  # the same writes in far fewer, longer write-back ops
    assert wo["write_cache_full"] * 5 < base["write_cache_full"]  # and writes seldom wait for room


def test_df_file_layout_compares_the_vanilla_column_under_both_layouts():
    """Only vanilla is compared; one reader reads one whole file either way, so its rows agree."""
    df = s14.df_file_layout(mb_totals=(32.0,), readers=(1, 2), iterations=1, small=True)
    assert list(df.columns) == ["mb_total", "layout", "row", "published", "model", "error %"]
    assert set(df["layout"]) == {"back to back", "ext3 windows"} and len(df) == 4
    one = df[df["row"] == "SeqRead-MB/sec-1"].set_index("layout")["model"]
    assert one["back to back"] == one["ext3 windows"]
    pub = published(s14.THREAD, "cfq600-seqread").query("kernel == @s14.BASELINE and stat == 'Mean'")
    assert set(df["published"]) <= set(pub["value"])
    errors = s14.df_file_layout_errors(df)
    assert list(errors.index) == ["SeqRead-MB/sec-1", "SeqRead-MB/sec-2"]
    assert list(errors.columns) == [(32.0, "back to back"), (32.0, "ext3 windows")]
    two = df.query("row == 'SeqRead-MB/sec-2' and layout == 'ext3 windows'")["error %"].item()
    assert errors.loc["SeqRead-MB/sec-2", (32.0, "ext3 windows")] == two


def test_ext3_layout_brings_the_vanilla_decline_out_of_the_disk_on_the_whole_benchmark():
    """docs/models/cfq.md (where tiobench's files lie): on the whole benchmark the vanilla column is within
    about 5% with the files in ext3's windows, 12-36% too fast back to back; scaled down, the windows are not."""
    df = s14.df_file_layout(mb_totals=(160.0, None), readers=(2, 4, 8, 16), iterations=3, small=True)
    err = df.pivot_table(index="row", columns=["mb_total", "layout"], values="error %")
    whole = float(2 * s14.DESKTOP_RAM_MB)
    assert err[(whole, "ext3 windows")].abs().max() < 6
    assert err[(whole, "back to back")].min() > 10
    assert err[(160.0, "ext3 windows")].min() < -30  # 10 MB a reader at 16 readers: the start is the run


def test_regular_turns_are_a_knife_edge_and_drawn_turns_are_not():
    """With the same order every round, 16 readers land on one of two outcomes by a 0.1% change of the media
    rate; with the order drawn each round the same change moves little."""
    from kernel_workbook.models.cfq import simulate
    from kernel_workbook.heuristics.cfq import tiobench

    p = s14.desktop_params(small=True)

    def mbs(rate, regular):  # the mean of three seeds: one seed alone moves a few percent
        w = tiobench.seqread(16, ram_mb=s14.DESKTOP_RAM_MB, mb_total=4096.0, rsv_window_blocks=1027,
                             regular_turns=regular)
        return np.mean([simulate(p.with_(media_rate_mb_s=rate), w, seed=k, verbose=False).throughput_mb_s
                        for k in (1, 2, 3)])

    lo, hi = 128.0, 128.25
    assert abs(mbs(hi, True) / mbs(lo, True) - 1) > 0.12
    assert abs(mbs(hi, False) / mbs(lo, False) - 1) < 0.06
