"""Dave's pte_dirty cells across the load's stores per access (heuristics/numa/numa_2015.df_dirty_write_sweep)."""

import pytest

from kernel_workbook.heuristics.numa import numa_2015 as N
from kernel_workbook.heuristics.numa.xfs_repair import xfs_repair
from kernel_workbook.models.numa import kernel_params, simulate
from kernel_workbook.reproduce import delta_pct


@pytest.fixture(scope="module")
def st():
    return N.Setup.for_mode()


def test_the_sweep_at_the_assumed_value_is_the_reproduction(st):
    d = N.df_dirty_write_sweep((0.0, 0.3), st)
    assert list(d.columns) == ["kernel", "counter", "published %", "write_frac 0", "write_frac 0.3", "hits"]
    assert list(d["kernel"].unique()) == [N.DKRC4, N.DK319D]
    assert list(d["counter"].unique()) == list(N.DIRTY_SWEEP_ROWS)
    runs = N.dave_runs(st)  # xfs_repair()'s own write_frac is 0.3
    for k in (N.DKRC4, N.DK319D):
        for row in N.DIRTY_SWEEP_ROWS:
            got = d[(d["kernel"] == k) & (d["counter"] == row)].iloc[0]
            want = delta_pct(N._mean(runs[(N.BOTH, k)], row), N._mean(runs[(N.BOTH, N.DK319)], row))
            assert got["write_frac 0.3"] == round(want, 1), (k, row)
    # the published change against Dave's 3.19 column (the pte_dirty table has none of its own: dave-vmstat's)
    mig = d[d["counter"] == "numa_pages_migrated"].set_index("kernel")["published %"]
    base = N._pub_cell("dave-vmstat", "numa_pages_migrated", N.DK319)
    assert mig[N.DKRC4] == round(delta_pct(N._pub_cell("dave-vmstat", "numa_pages_migrated", N.DKRC4), base), 1)
    assert mig[N.DK319D] == round(delta_pct(5748256, base), 1)  # the thread's 3.19+pte_dirty count


def test_pte_write_rule_never_reads_the_dirty_bit(st):
    # why the sweep can hold 3.19 fixed: under !pte_write the stores per access change no count
    dc = N.calibrate_dave(st.calibration_setup())
    p = kernel_params(N.DAVE_KERNELS[N.DK319], base=dc.params)
    a, b = (simulate(p, xfs_repair(dc.machine, **{**dc.kw[N.BOTH], "write_frac": w}), seed=1, verbose=False).counters
            for w in (0.0, 1.0))
    assert a == b
    # and under pte_dirty they do (the sweep is not of a knob that does nothing)
    q = kernel_params(N.DAVE_KERNELS[N.DKRC4], base=dc.params)
    c, e = (simulate(q, xfs_repair(dc.machine, **{**dc.kw[N.BOTH], "write_frac": w}), seed=1, verbose=False).counters
            for w in (0.0, 1.0))
    assert c["no_group_faults"] > e["no_group_faults"]
