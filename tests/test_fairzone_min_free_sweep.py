"""The 2014 result across min_free_kbytes's plausible range (fairzone_2014.min_free_sweep): the stored sweep agrees
with the stored runs at its two ends, and the floor is read, checked and applied the way the kernel raises it."""

import json

import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.models.fairzone import zone_setup
from kernel_workbook.heuristics.fairzone import fairzone_2014 as fz
from kernel_workbook.reproduce.fidelity import fidelity_dir


def _stored(path):
    return json.loads(path.read_text())


def test_the_stored_sweep_covers_int_sqrt_to_khugepaged_and_its_ends_are_the_stored_runs():
    df = fz.df_min_free_sweep()
    assert list(df["min_free_kbytes floor"]) == list(fz.MIN_FREE_SWEEP)
    # floor 0 leaves int_sqrt() alone: the stored run without THP; 67584 is khugepaged's value: the stored run with
    never = fz._sweep_row(0, _stored(fz.thp_fidelity_dir("never", False) / f"{fz.THREAD}.json"))
    always = fz._sweep_row(67584, _stored(fidelity_dir(False) / f"{fz.THREAD}.json"))
    for row, want in ((df.iloc[0], never), (df.iloc[-1], always)):
        assert row["strict (seed base 0)"] == want["strict (seed base 0)"]
        assert row["mean"] == pytest.approx(want["mean"], abs=1e-4)
        assert row["DMA32 % of scanning, 3.0"] == pytest.approx(want["DMA32 % of scanning, 3.0"], abs=0.05)
    assert (df["seed bases"] == 8).all()
    assert df["min"].le(df["mean"]).all() and df["mean"].le(df["max"]).all()


def test_the_sweep_row_reads_the_velocity_share_and_families_from_the_cells():
    doc = _stored(fz.thp_fidelity_dir("never", False) / f"{fz.THREAD}.json")
    row = fz._sweep_row(0, doc)
    vel = {(c["kernel"], c["row"]): c["model"] for c in doc["cells"] if c["table"] == "bigbatches-velocity"}
    d, n = vel[("3. 3.0", "Zone dma32 velocity")], vel[("3. 3.0", "Zone normal velocity")]
    assert row["DMA32 % of scanning, 3.0"] == round(100 * d / (d + n), 1)
    fams = [k for k in row if "/" in str(row[k]) and k != "strict (seed base 0)"]
    assert sum(int(row[k].split("/")[1]) for k in fams) == doc["summary"]["strict"]["scored"]


@pytest.mark.parametrize("bad", ["-1", "lots", "1.5"])
def test_a_bad_floor_names_the_variable(monkeypatch, bad):
    monkeypatch.setenv(fz.MIN_FREE_ENV, bad)
    with pytest.raises(WorkbookParameterError, match=fz.MIN_FREE_ENV):
        fz._min_free_from_env()


def test_the_floor_only_ever_raises_min_free_kbytes(monkeypatch):
    own = zone_setup(fz._params("3.0", "desktop-2014", "never")).min_free_kbytes
    monkeypatch.setattr(fz, "MIN_FREE_FLOOR", own - 1000)
    assert zone_setup(fz._params("3.0", "desktop-2014", "never")).min_free_kbytes == own
    monkeypatch.setattr(fz, "MIN_FREE_FLOOR", own + 1000)
    assert zone_setup(fz._params("3.0", "desktop-2014", "never")).min_free_kbytes == own + 1000
    monkeypatch.setattr(fz, "MIN_FREE_FLOOR", None)
    assert zone_setup(fz._params("3.0", "desktop-2014", "never")).min_free_kbytes == own


def test_the_stored_kswapd_sweep_holds_the_a_priori_speed_and_it_is_the_stored_run_without_thp():
    df = fz.df_kswapd_speed_sweep()
    assert list(df["kswapd_pages_per_ms"]) == list(fz.KSWAPD_SWEEP)
    never = fz._sweep_row(1000.0, _stored(fz.thp_fidelity_dir("never", False) / f"{fz.THREAD}.json"),
                          "kswapd_pages_per_ms")
    row = df[df["kswapd_pages_per_ms"] == 1000.0].iloc[0]
    assert row["strict (seed base 0)"] == never["strict (seed base 0)"]
    assert row["mean"] == pytest.approx(never["mean"], abs=1e-4)
    assert (df["seed bases"] == 8).all()


@pytest.mark.parametrize("bad", ["0", "-3", "fast", "inf"])
def test_a_bad_kswapd_speed_names_the_variable(monkeypatch, bad):
    monkeypatch.setenv(fz.KSWAPD_ENV, bad)
    with pytest.raises(WorkbookParameterError, match=fz.KSWAPD_ENV):
        fz._kswapd_speed_from_env()


def test_the_kswapd_speed_reaches_the_params(monkeypatch):
    monkeypatch.setattr(fz, "KSWAPD_SPEED", 125.0)
    assert fz._params("3.0", "desktop-2014", "never").machine.kswapd_pages_per_ms == 125.0
    monkeypatch.setattr(fz, "KSWAPD_SPEED", None)
    assert fz._params("3.0", "desktop-2014", "never").machine.kswapd_pages_per_ms == 1000.0


def test_kswapd_cycle_is_woken_by_the_slow_path_at_int_sqrt_and_ends_with_its_nap_at_khugepaged_watermarks():
    """The mechanism the 2014b notebook shows: at the int_sqrt() watermarks every cycle ends with an allocation in
    the slow path waking kswapd and DMA32 gives its share by size; at khugepaged's, kswapd's own HZ/10 nap ends
    each cycle and Normal gives most of the pages."""
    s = fz.df_kswapd_cycle_summary(fz.df_kswapd_cycle(small=True)).set_index("min_free_kbytes")
    low, high = s.iloc[0], s.iloc[-1]
    assert s.index[0] < 16384 and s.index[-1] == 67584
    assert low["cycles ended by the slow path"] == low["cycles"] > 10
    assert high["cycles ended by the slow path"] == 0 and high["cycles"] > 10
    # the nap is HZ/10: a cycle at khugepaged's watermarks lasts at least that long, at int_sqrt()'s far less
    assert high["ms a cycle"] >= 100 > 2 * low["ms a cycle"]
    assert low["DMA32 %"] > 35 > 25 > high["DMA32 %"]
