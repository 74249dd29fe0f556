"""Calibrations stored on disk (reproduce/fit_cache.py): read back only for the same code, data, mode and
arguments; a damaged file is refitted with a warning naming it; an unwritable folder costs time, not results."""

import json
import os
import pickle
import warnings

import pytest

from kernel_workbook.errors import FitCacheWarning
from kernel_workbook.reproduce import calibration, fit_cache

CALLS = []


@calibration.calibration
def _toy_fit(x: float, small: bool | None = None) -> dict:
    CALLS.append(x)
    return {"value": 2.0 * x, "tried": [(x, 2.0 * x)]}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(fit_cache.ENV, str(tmp_path))
    CALLS.clear()
    _toy_fit.cache_clear()
    yield tmp_path
    _toy_fit.cache_clear()


def test_a_fit_is_stored_and_read_back_by_the_next_process_without_fitting_again(cache):
    assert _toy_fit(3.0) == {"value": 6.0, "tried": [(3.0, 6.0)]} and CALLS == [3.0]
    files = list(cache.glob("*.json"))
    assert len(files) == 1 and "_toy_fit" in files[0].name
    _toy_fit.cache_clear()  # what a new process starts with: an empty store
    assert _toy_fit(3.0) == {"value": 6.0, "tried": [(3.0, 6.0)]} and CALLS == [3.0]
    assert _toy_fit(4.0)["value"] == 8.0 and CALLS == [3.0, 4.0]  # other arguments: another fit


def test_other_code_or_data_or_mode_is_another_key(cache, monkeypatch):
    _toy_fit(3.0)
    _toy_fit.cache_clear()
    monkeypatch.setattr(fit_cache, "fingerprint", lambda: "another version of the code")
    _toy_fit(3.0)
    assert CALLS == [3.0, 3.0]
    _toy_fit.cache_clear()
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    _toy_fit(3.0)
    assert CALLS == [3.0, 3.0, 3.0] and len(list(cache.glob("*.json"))) == 3


def test_the_fingerprint_covers_the_package_and_the_published_tables(tmp_path, monkeypatch):
    pub, thr = tmp_path / "published", tmp_path / "threads"
    pub.mkdir()
    thr.mkdir()
    (pub / "t.csv").write_text("a,b\n1,2\n")
    a = fit_cache._fingerprint((str(pub), str(thr)))
    (pub / "t.csv").write_text("a,b\n1,3\n")
    fit_cache._fingerprint.cache_clear()
    assert fit_cache._fingerprint((str(pub), str(thr))) != a
    assert len(fit_cache.fingerprint()) == 64


def test_a_damaged_file_is_fitted_again_with_a_warning_naming_it(cache):
    _toy_fit(3.0)
    (f,) = cache.glob("*.json")
    f.write_bytes(b"\x80\x05not JSON")
    _toy_fit.cache_clear()
    with pytest.warns(FitCacheWarning, match=str(f.name)):
        assert _toy_fit(3.0)["value"] == 6.0
    assert CALLS == [3.0, 3.0]
    _toy_fit.cache_clear()
    assert _toy_fit(3.0)["value"] == 6.0 and CALLS == [3.0, 3.0]  # and stored whole again


def test_a_file_holding_another_calibration_is_not_believed(cache):
    _toy_fit(3.0)
    (f,) = cache.glob("*.json")
    f.write_text(json.dumps({"format": fit_cache.FORMAT, "key": fit_cache.encode(("someone:else", ())),
                             "value": {"value": -1.0}}))
    _toy_fit.cache_clear()
    with pytest.warns(FitCacheWarning, match="not"):
        assert _toy_fit(3.0)["value"] == 6.0


def test_off_stores_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv(fit_cache.ENV, "off")
    CALLS.clear()
    _toy_fit.cache_clear()
    _toy_fit(5.0)
    _toy_fit.cache_clear()
    _toy_fit(5.0)
    assert CALLS == [5.0, 5.0] and fit_cache.folder() is None
    _toy_fit.cache_clear()


def test_a_file_in_place_of_the_folder_costs_time_not_results(tmp_path, monkeypatch):
    blocker = tmp_path / "fits"
    blocker.write_text("a file where the folder should be")
    monkeypatch.setenv(fit_cache.ENV, str(blocker))
    monkeypatch.setattr(fit_cache, "_warned_unwritable", False)
    CALLS.clear()
    _toy_fit.cache_clear()
    with pytest.warns(FitCacheWarning, match="kept in memory only"):
        assert _toy_fit(6.0)["value"] == 12.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said once, not at every fit
        _toy_fit.cache_clear()
        assert _toy_fit(7.0)["value"] == 14.0
    _toy_fit.cache_clear()


def test_a_real_calibration_reads_back_equal(cache):
    from kernel_workbook.heuristics.cfq import deep_idle_2011 as d11

    d11.calibrate.cache_clear()
    first = d11.calibrate("aio-stress-slow-hdd", small=True)
    d11.calibrate.cache_clear()
    again = d11.calibrate("aio-stress-slow-hdd", small=True)
    assert again == first and again is not first
    d11.calibrate.cache_clear()


def test_kwb_reproduce_stores_its_fits_and_refit_ignores_them(tmp_path):
    import json
    import subprocess
    import sys

    env = dict(os.environ, KWB_FIT_CACHE=str(tmp_path), WORKBOOK_MODE="ci")
    cmd = [sys.executable, "-m", "kernel_workbook.cli", "reproduce", "2007-throttle-vm-writeout", "--json",
           "--seeds", "1", "--workers", "1"]
    refit = subprocess.run(cmd + ["--refit"], env=env, capture_output=True, text=True, check=True)
    assert not list(tmp_path.glob("*.json"))
    first = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    assert list(tmp_path.glob("*.json"))
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    assert json.loads(again.stdout) == json.loads(first.stdout) == json.loads(refit.stdout)


class _Planted:
    """Unpickling this writes a file: what a .pkl planted in the cache folder did when kwb reproduce started."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').write('pwned')",))


def _key(x: float):
    from kernel_workbook import config

    return (_toy_fit.__kwb_calibration__, (("x", x), ("small", None)), config.mode().name)


def test_a_planted_pickle_never_runs(cache):
    marker = cache / "pwned"
    key = _key(3.0)
    stored = fit_cache.path_for(key)
    for p in (stored.with_suffix(".pkl"), stored):  # where the pickle cache read, and the JSON cache reads
        p.write_bytes(pickle.dumps((key, _Planted(marker))))
    with pytest.warns(FitCacheWarning, match="cannot be read"):
        assert _toy_fit(3.0)["value"] == 6.0
    assert not marker.exists() and CALLS == [3.0]


def test_a_stored_file_can_name_only_dataclasses_of_this_package(cache):
    key = _key(3.0)
    for cls in ("os:system", "subprocess:Popen", "kernel_workbook.reproduce.fit_cache:UnstorableFit",
                "kernel_workbook.paths:package_dir", "kernel_workbook.x;import os:A"):
        fit_cache.path_for(key).write_text(json.dumps({"format": fit_cache.FORMAT, "key": fit_cache.encode(key),
                                                       "value": {"__dataclass__": cls, "fields": {}}}))
        _toy_fit.cache_clear()
        with pytest.warns(FitCacheWarning, match="not a dataclass of this package"):
            assert _toy_fit(3.0)["value"] == 6.0


def test_every_type_a_calibration_returns_reads_back_equal_and_of_its_type():
    import numpy as np
    import pandas as pd

    from kernel_workbook.models.cfq.params import DiskParams

    df = pd.DataFrame({"quantity": pd.Series(["a", "b"], dtype="str"), "value": [1.5, float("nan")],
                       "n": np.array([1, 2], dtype=np.int64)})
    df.attrs.update(free_fit_cost_us=0.25, runs=3)  # 2015's fit keeps figures there: they must come back too
    value = {"x": 1.5, "inf": float("inf"), "nan": float("nan"), "n": 2**70, "s": "__tuple__", "b": True,
             "none": None, "t": (1, (2.0, "3")), "l": [np.float64(1.25), np.int32(7), np.bool_(True)],
             3: "int key", ("a", 1): "tuple key", "__dict__": "a key like a tag", "arr": np.arange(6.0).reshape(2, 3),
             "df": df, "disk": DiskParams()}
    back = fit_cache.decode(json.loads(json.dumps(fit_cache.encode(value), allow_nan=False)))
    assert list(back) == list(value)
    for k in value:
        a, b = value[k], back[k]
        assert type(a) is type(b), k
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b, check_exact=True)
            assert b.attrs == a.attrs
        elif isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        elif k == "nan":
            assert b != b
        else:
            assert a == b, k
    assert [type(x) for x in back["l"]] == [np.float64, np.int32, np.bool_]


def test_a_fit_with_no_json_form_is_kept_in_memory_with_a_warning(cache):
    @calibration.calibration
    def _odd_fit(x: float) -> dict:
        return {"f": lambda: x}

    with pytest.warns(FitCacheWarning, match="kept in memory only"):
        assert _odd_fit(1.0)["f"]() == 1.0
    assert not list(cache.glob("*.json"))
