"""The allocator half of the 2014 reproduction: what is fitted (vanilla only), what is printed, no published literal."""

import json
from pathlib import Path

import pytest

from kernel_workbook.reproduce import CELL_KEYS, Reproduction, summarise
from kernel_workbook.heuristics.fairzone import fairzone_2014 as fz
from literals import literals_equal_to_published

from kernel_workbook.tables import published

ROOT = Path(__file__).resolve().parent.parent
THREAD = "2014-seqread-fairzone-cfq"
VANILLA = {"3.16.0-rc1 vanilla", "3.16-rc1"}


@pytest.fixture(scope="module")
def part():
    return fz.fairzone_part(small=True)


def test_the_thread_is_declared_by_the_fairzone_heuristic_joining_both_halves():
    from kernel_workbook.heuristic import get, thread_reproduction

    declared = thread_reproduction(THREAD)
    assert declared.reproduce is fz.reproduce and declared.calibrate is fz.calibrate_thread
    assert declared in get("fairzone").threads and not any(t.thread == THREAD for t in get("cfq").threads)


def test_cells_follow_the_schema_and_only_vanilla_is_fitted(part):
    rep = Reproduction(THREAD, cells=part.cells)
    doc = json.loads(rep.to_json())
    assert set(doc["summary"]) == {"strict", "lenient", "per_table", "seeds"}
    assert set(doc["summary"]["lenient"]) == {"predicted_cells", "direction_agreement", "median_abs_error_pts"}
    for c in doc["cells"]:
        assert list(c)[:len(CELL_KEYS)] == CELL_KEYS
        assert {"stat", "status", "reason", "noise_pts", "ratio"} <= set(c)
    fitted = [c for c in part.cells if c["calibrated"]]
    assert fitted and all(c["kernel"] in VANILLA for c in fitted)
    # a baseline-column cell has no change to predict, fitted or not (the spread's and Mel's SeqRead-1 are fitted)
    base = [c for c in part.cells if c["kernel"] == fz.baseline_of(THREAD, c["table"])]
    assert any(c["calibrated"] for c in base)
    assert all(c["published_delta_pct"] is None and c["model_delta_pct"] is None for c in base)
    # what is fitted: the vanilla spread counts and percentages, and each machine's vanilla SeqRead-1
    assert {(c["table"], c["row"]) for c in fitted if "spread" in c["table"]} == {
        ("fairzone-spread", "DMA32 allocs"), ("fairzone-spread", "Normal allocs"),
        ("spread-percent", "DMA32 allocs"), ("spread-percent", "Normal allocs")}
    # Johannes's vanilla velocities (his DMA32 size and the time scale were fitted on them)
    assert {(c["table"], c["row"]) for c in fitted if "velocity" in c["table"]} == {
        ("bigbatches-velocity", "Zone dma32 velocity"), ("bigbatches-velocity", "Zone normal velocity")}
    assert all(c["row"] == "SeqRead-MB/sec-1" and c["stat"] == "Mean" for c in fitted
               if "spread" not in c["table"] and "velocity" not in c["table"])
    # predicted: kernels that change the allocator, never vanilla's own change, never cfq600 on vanilla's allocator
    pred = [c for c in part.cells if not c["calibrated"] and c["model_delta_pct"] is not None]
    assert {c["table"] for c in pred} >= {"fairzone-spread", "spread-percent", "bigbatches-velocity",
                                           "fairzone-seqread", "bigbatches-seqread", "bigbatches1node-tiobench"}
    for c in pred:
        assert fz.KERNELS[c["kernel"]][0] != "3.16-rc1" or fz.baseline_of(THREAD, c["table"]).startswith("3")
    # every published spread and velocity number is there, with the value the thread printed
    for table in ("fairzone-spread", "spread-percent", "bigbatches-velocity"):
        mine = {(c["row"], c["kernel"]): c for c in part.cells if c["table"] == table}
        for r in published(THREAD, table).itertuples():
            assert mine[(r.row, r.kernel)]["published"] == r.value
            assert mine[(r.row, r.kernel)]["model"] is not None


def test_the_calibration_reaches_the_vanilla_figures():
    cal = fz.calibrate_desktop(True)
    for row in ("DMA32 allocs", "Normal allocs"):
        assert cal["model"][row] == pytest.approx(cal["published"][row], rel=0.05)
    d, n = cal["model"]["DMA32 allocs"], cal["model"]["Normal allocs"]
    p = cal["published"]
    assert 100 * d / (d + n) == pytest.approx(100 * p["DMA32 allocs"] / (p["DMA32 allocs"] + p["Normal allocs"]), abs=0.5)
    cj = fz.calibrate_johannes(True)
    assert cj["model_share"] == pytest.approx(cj["published_share"], abs=0.01)


def test_the_desktop_memory_is_fitted_on_the_mean_of_every_seed_base_vanilla_spread():
    """One vanilla spread run's total jumps with its draw of the memory outside the page cache: other_mb is fitted
    on the mean over the runs of the seed bases of CALIBRATION_BASES, the runs those bases predict against."""
    import numpy as np

    from kernel_workbook.reproduce.calibration import CALIBRATION_BASES

    cal = fz.calibrate_desktop(True)
    per = []
    for b in CALIBRATION_BASES:
        m = fz._spread_run("3.16-rc1", cal["dma32_mb"], cal["other_mb"], fz.THP, True, b)
        per.append(m["DMA32 allocs"] + m["Normal allocs"])
    assert cal["model"]["DMA32 allocs"] + cal["model"]["Normal allocs"] == pytest.approx(float(np.mean(per)),
                                                                                         rel=1e-9)
    assert (max(per) - min(per)) / np.mean(per) > 0.05  # seed base 0's run alone would be another fit


def test_the_output_prints_published_beside_model_and_the_fidelity(part):
    keys = [b.key for b in part.blocks]
    text = "\n".join(b.render() for b in part.blocks)
    for t in ("fairzone-spread", "spread-percent", "bigbatches-velocity", "fairzone-seqread", "lessdirty-tiobench",
              "series-seqread", "laptop-tiobench", "desktop2-tiobench", "bigbatches-seqread", "bigbatches1node-tiobench"):
        assert f"== {t}, published" in text and f"== {t}, model" in text, t
        assert f"{t}/published" in keys and f"{t}/model" in keys, t
    assert "DMA32 allocs                  11099122" in text  # the published table as printed
    assert "what was fitted, and to what" in text and "fidelity by group" in text
    assert "explained" in text
    assert "bigbatches-velocity/share" in keys
    # no regime is forced: kswapd as the kernel decides, the kernels built with THP
    assert any("no regime is forced" in n for n in part.notes)
    assert fz.THP == "always"


def test_seqread_change_is_decomposed_by_assumption():
    d = fz.decompose("mel", "3.16.0-rc1 fairzone", 4, small=True)
    assert set(d) >= {"cfq", "fast_path", "zone_switch", "pagecache_hits", "total"}
    # Johannes's doubt, in the model: a leaner fast path moves an I/O-bound read by well under a percent
    assert abs(d["fast_path"]) < 1.0
    assert d["cpu_us"] < d["cpu_us_vanilla"] + 1.0
    # what fairzone gains is what SeqRead finds still cached, pages kept in the slowly aging DMA32
    assert d["hit_pct"] > d["hit_pct_vanilla"] + 3 and d["pagecache_hits"] > 3 * abs(d["fast_path"])
    share = fz.explained_share([c for c in fz.seqread_cells(True)[0]])
    assert share["published_pts"] > 0 and share["model_pts"] == share["model_pts"]


def test_the_zones_age_unequally_in_the_zone_order_kernels_as_an_outcome():
    """Issue 29: the same kswapd code ages the zones by size under the fair policy's small batches, and keeps
    DMA32 for the zone-order kernels when the kernels are built with THP; without THP's min_free_kbytes every
    kernel ages them alike.  No knob selects the regime."""
    df = fz.df_thp_sensitivity("johannes", small=True).set_index(["THP", "kernel"])
    share = df["DMA32 % of scanning"]
    assert share[("always", "3.0")] < 0.6 * share[("always", "3.16-rc1")]
    assert share[("always", "bigbatches")] < 0.6 * share[("always", "3.16-rc1")]
    for k in ("3.0", "bigbatches", "fairzone"):
        assert share[("never", k)] == pytest.approx(share[("never", "3.16-rc1")], abs=3.0), k
    assert (df.loc["always", "min_free_kbytes"] == 67584).all()
    assert (df.loc["never", "min_free_kbytes"] < 16384).all()


MY_FILES = ["models/fairzone/__init__.py", "models/fairzone/params.py", "models/fairzone/setup.py",
            "models/fairzone/layout.py", "models/fairzone/allocator_kernel.py", "models/fairzone/simulate.py",
            "models/fairzone/result.py", "models/fairzone/workload.py"] + [
                f"heuristics/fairzone/{n}.py" for n in ("__init__", "pagecache", "fairzone_2014", "charts", "bench")]


def test_no_published_figure_is_written_into_the_model_or_the_reproduction():
    """Published numbers reach the model only through published(): no literal equals one."""
    hits = literals_equal_to_published(MY_FILES, (THREAD,))
    assert not hits, hits


def test_fidelity_groups_are_computed_from_the_cells(part):
    spread = [c for c in part.cells if c["table"] in ("fairzone-spread", "spread-percent", "bigbatches-velocity")]
    s = summarise(spread)
    # fairzone and 3.0 in the two spread tables (8), bigbatches' two velocities (3.16-rc1's were fitted)
    assert s["predicted_cells"] == 10
    groups = next(b for b in part.blocks if b.key == "fairzone/fidelity").frame.set_index("group")
    assert groups.loc["spread + velocity together", "predicted_cells"] == 10
    assert groups.loc["spread + velocity together", "direction_agreement"] == s["direction_agreement"]


def test_every_fitted_parameter_names_the_published_cells_it_was_fitted_to(part):
    """The fitted list flags every cell a fit used as calibrated in the strict score, whatever its table."""
    from kernel_workbook.reproduce.score import score_cells

    keys = {k for f in part.fitted for k in f["fitted_to"]}
    assert "bigbatches-velocity||Zone dma32 velocity|3.16-rc1" in keys  # the level and split Johannes's fit used
    assert "laptop-tiobench|Mean|SeqRead-MB/sec-1|3.16.0-rc1 vanilla" in keys  # a fit on a non-baseline column
    scored = score_cells(THREAD, part.cells, part.fitted)
    out = scored[scored["reason"].str.startswith(("calibrated", "baseline"))]
    have = {f"{r.table}|{r.stat}|{r.row}|{r.kernel}" for r in out.itertuples()}
    present = {f"{c['table']}|{c.get('stat') or ''}|{c['row']}|{c['kernel']}" for c in part.cells}
    assert keys & present <= have  # never scored as a prediction
    assert "bigbatches-velocity||Zone dma32 velocity|3.16-rc1" in (keys & present) - {
        f"{r.table}|{r.stat}|{r.row}|{r.kernel}" for r in out[out["reason"].str.startswith("baseline")].itertuples()}


def test_every_fitted_parameter_names_its_cells_and_none_is_scored(part):
    """Issue 11: each parameter fitted by the allocator half lists its published cells; none of them is scored."""
    from kernel_workbook.reproduce.fidelity import df_fitted_of, fitted_cells_scored

    df = df_fitted_of(THREAD, part.cells, part.fitted)
    assert len(part.fitted) >= 4 and (df["cell"] != "").all()
    assert fitted_cells_scored(df).empty, fitted_cells_scored(df).to_string()


def test_kswapd_speed_is_a_priori_and_its_regime_an_outcome(part):
    """Issue 11 item 3: kswapd's reclaim speed is a physical knob, never fitted (the vanilla column cannot identify
    it, docs/models/fairzone.md), and no reproduction forces the stays-awake what-if."""
    from kernel_workbook.models.fairzone import Machine

    assert not any("kswapd" in f["parameter"] for f in part.fitted)
    a_priori = Machine().kswapd_pages_per_ms
    for key in ("mel", "desktop2", "laptop", "johannes"):
        assert fz._alloc_machine(key, True, fz.THP).kswapd_pages_per_ms == a_priori
    p = fz.seqread_run("mel", "3.0", True).params
    assert not p.kswapd_stays_awake and p.transparent_hugepage == "always"


def test_the_round_robin_changelog_is_predicted_out_of_sample():
    """81c0a2bb515f's test beside the model: the node fitted on the round-robin kernel's file pages only; the
    kernel before the series activates DMA32 pages (the changelog: 443214 active), the round-robin one does not."""
    cl = fz.roundrobin_changelog()
    assert cl["meta"]["commit"] == fz.ROUND_ROBIN and len(cl["figures"]) == 12
    cal = fz.calibrate_roundrobin()
    for z in ("DMA32", "Normal"):
        assert cal["model"][z] == pytest.approx(cal["published"][z], rel=0.03)
    df = fz.df_roundrobin().set_index(["kernel", "zone"])
    before, after = "before the series (3.11-rc)", "round-robin (3.12)"
    assert df.loc[(before, "DMA32"), "model nr_active_file"] > 100_000
    assert df.loc[(after, "DMA32"), "model nr_active_file"] < 10_000


def test_the_thp_assumption_is_stated_with_its_history_and_the_other_score(part, monkeypatch):
    """Issue 29: THP was identified after the predicted cells had been seen and the vanilla columns cannot pick it,
    so the part says so in the JSON (``assumptions``) with the stored score of the other setting, and prints both."""
    a, = [x for x in part.assumptions if x["name"] == "transparent_hugepage"]
    assert a["value"] == fz.THP == "always"
    assert a["chosen_after_predicted_cells_seen"] is True and a["baseline_discriminates"] is False
    other = a["other_setting"]
    assert other["value"] == "never" and other["seed_bases"] == 8 and other["score"] < 0.3
    assert Path(ROOT / other["stored"]).is_file()
    rep = Reproduction.from_parts(THREAD, [fz.fairzone_part], small=True)
    assert json.loads(rep.to_json())["assumptions"][0]["other_setting"] == other
    df = part.blocks[[b.key for b in part.blocks].index("fairzone/thp")].frame
    assert list(df["THP"]) == ["always", "never"] and list(df["min_free_kbytes"]) == [67584, 11442]
    assert "not stored" not in " ".join(df["strict (seed base 0)"])
    monkeypatch.setenv(fz.THP_ENV, "sometimes")
    with pytest.raises(ValueError, match="KWB_2014_THP"):
        fz._thp_from_env()


def test_variants_prose_lists_every_variant_with_its_knobs():
    from kernel_workbook.models.fairzone import VARIANT_DOC

    lines = fz.variants_prose().text.splitlines()
    assert len(lines) == len(VARIANT_DOC) and lines[0].startswith("* **3.0**: ")
    # 3.16-rc1 is the base: it changes no knob
    assert [x for x in lines if x.startswith("* **3.16-rc1**")][0].endswith("Knobs: the 3.16-rc1 defaults.")
    assert [x for x in lines if x.startswith("* **3.12**")][0].endswith("Knobs: {'remote_spill_pass': False}.")
