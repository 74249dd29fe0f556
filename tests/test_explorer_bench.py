"""The explorer benchmark times what a person waits for: every move goes to a value not drawn before."""

import ipywidgets as w

from kernel_workbook.bench.explorer_bench import _grid


def test_grid_of_a_float_slider_skips_the_start_and_repeats_nothing():
    s = w.FloatSlider(value=2.0, min=0.25, max=3.0, step=0.05)
    g = _grid(s)
    assert 2.0 not in g
    assert len(g) == len(set(g)) == 55  # 56 values on the grid, less the start
    assert g[:2] == [1.95, 2.05]  # nearest first
    assert min(g) == 0.25 and max(g) == 3.0


def test_grid_of_an_int_slider():
    s = w.IntSlider(value=1000, min=0, max=3000, step=250)
    assert _grid(s) == [750, 1250, 500, 1500, 250, 1750, 0, 2000, 2250, 2500, 2750, 3000]


def test_moves_go_on_to_the_next_slider_and_never_repeat_a_setting():
    from kernel_workbook.bench.explorer_bench import _moves

    a = w.IntSlider(value=2, min=0, max=4, step=1)
    b = w.IntSlider(value=10, min=0, max=30, step=10)
    moves = _moves([a, b])
    assert [(s is a, v) for s, v in moves] == [(True, 1), (True, 3), (True, 0), (True, 4),
                                               (False, 0), (False, 20), (False, 30)]
    seen = {(a.value, b.value)}
    for s, v in moves:  # replay the moves: every setting of the two knobs is new
        s.value = v
        assert (a.value, b.value) not in seen
        seen.add((a.value, b.value))


def test_every_explorer_a_notebook_builds_is_benchmarked():
    """The redraw target is checked for each explorer a person meets (2007's was once left out of the list)."""
    import re
    from pathlib import Path

    from kernel_workbook.bench.explorer_bench import explorers

    root = Path(__file__).resolve().parents[1]
    used = {m for p in (root / "notebooks").glob("*.py")
            for m in re.findall(r"\b(\w+_explorer)\(", p.read_text(encoding="utf-8"))}
    benched = {build.__name__ for build in explorers().values()}
    # no model behind these: a published table, or a capture the person loads, shown as picked
    used -= {"table_explorer", "trace_explorer"}
    assert used, "no notebook builds an explorer: the pattern no longer matches how notebooks call them"
    assert used <= benched, f"explorers with no redraw benchmark: {sorted(used - benched)}"
