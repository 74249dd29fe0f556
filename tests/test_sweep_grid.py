"""The sweep's grids: designs, order, and every name and value checked through the knob declaration."""

from __future__ import annotations

import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.sweep import around, one_at_a_time, parse_seeds, parse_value, product, sample
from sweep_toy import MODEL, ToyParams


def test_product_is_every_combination_seeds_innermost_knobs_in_declaration_order():
    # given in the reverse of the declaration order: the table still follows the declaration
    g = product(MODEL, {"elevator": ["noop", "cfq"], "cfq_slice_idle": [0, 8]}, variants="all", seeds=[3, 1])
    assert g.knobs == ("cfq_slice_idle", "elevator")
    assert len(g) == 2 * 2 * 2 * 2
    df = g.df()
    assert list(df.columns) == ["variant", "workload", "cfq_slice_idle", "elevator", "seed"]
    assert list(df["seed"][:4]) == [3, 1, 3, 1]
    assert list(df["elevator"][:4]) == ["noop", "noop", "cfq", "cfq"]
    assert list(df["variant"].unique()) == ["3.0", "3.0-nomerges"]
    assert [r.index for r in g] == list(range(len(g)))
    # values in the knob's own type: 0 given for a float knob is 0.0
    assert df["cfq_slice_idle"].tolist()[:1] == [0.0] and isinstance(g.runs[0].knobs[0][1], float)


def test_defaults_are_the_models_kernel_and_workload():
    g = product(MODEL, {"cfq_quantum": [2]})
    assert {(r.variant, r.workload, r.seed) for r in g} == {("3.0", "steady", 0)}
    assert product(MODEL, {}).describe().startswith("1 runs of toy (product: no knobs")


def test_one_at_a_time_starts_at_the_kernels_setting_and_does_not_repeat_it():
    g = one_at_a_time(MODEL, {"cfq_slice_idle": [0, 8, 16], "cfq_quantum": [1, 4]}, variants="all")
    df = g.df()
    base = df[df["variant"] == "3.0"]
    # home (8.0, 4); slice_idle 0 and 16; quantum 1  (8.0 and 4 are the home point, not run twice)
    assert base[["cfq_slice_idle", "cfq_quantum"]].values.tolist() == [[8.0, 4], [0.0, 4], [16.0, 4], [8.0, 1]]
    # a knob a variant sets starts from the variant's value
    g2 = one_at_a_time(MODEL, {"nomerges": [False, True]}, variants="all")
    assert [(r.variant, r.knob_dict()["nomerges"]) for r in g2] == [
        ("3.0", False), ("3.0", True), ("3.0-nomerges", True), ("3.0-nomerges", False)]


def test_sample_is_drawn_from_the_declaration_and_repeatable():
    a = sample(MODEL, ["cfq_slice_idle", "cfq_quantum", "elevator"], n=20, seeds=[0, 1], sample_seed=5)
    b = sample(MODEL, ["cfq_slice_idle", "cfq_quantum", "elevator"], n=20, seeds=[0, 1], sample_seed=5)
    assert a.df().equals(b.df()) and len(a) == 40
    df = a.df()
    assert df["cfq_slice_idle"].between(0, 20).all()  # the widget range, not the whole valid range
    assert df["cfq_quantum"].between(1, 16).all() and df["cfq_quantum"].dtype.kind == "i"
    assert set(df["elevator"]) <= {"noop", "deadline", "cfq"}
    c = sample(MODEL, {"cfq_slice_idle": (2.0, 3.0), "cfq_quantum": [1, 64]}, n=30)
    assert c.df()["cfq_slice_idle"].between(2, 3).all() and set(c.df()["cfq_quantum"]) == {1, 64}
    assert not sample(MODEL, ["cfq_slice_idle"], n=5, sample_seed=6).df().equals(
        sample(MODEL, ["cfq_slice_idle"], n=5, sample_seed=5).df())


@pytest.mark.parametrize("call, words", [
    (lambda: product(MODEL, {"slice_idle": [1]}), "knob='slice_idle': expected a knob of toy: cfq_slice_idle, "
                                                  "cfq_quantum, nomerges, elevator, min_free_kbytes"),
    (lambda: product(MODEL, {"cfq_slice_idle": [-1]}), "cfq_slice_idle=-1: expected a number in 0..100 (ms); "
                                                       "cfq_slice_idle, block/cfq-iosched.c"),
    (lambda: product(MODEL, {"cfq_quantum": [2.5]}), "cfq_quantum=2.5: expected an integer"),
    (lambda: product(MODEL, {"elevator": ["bfq"]}), "one of 'noop', 'deadline', 'cfq'"),
    (lambda: product(MODEL, {"cfq_quantum": [4, 4]}), "listed twice"),
    (lambda: product(MODEL, {"cfq_quantum": []}), "at least one value"),
    (lambda: product(MODEL, {}, variants=["2.6"]), "variant='2.6': expected one of 3.0, 3.0-nomerges"),
    (lambda: product(MODEL, {}, workloads="random"), "workload='random': expected one of steady, bursty"),
    (lambda: product(MODEL, {}, seeds=[-1]), "seed=-1"),
    (lambda: product(MODEL, {}, seeds=[1, 1]), "seed=1: expected each seed once"),
    (lambda: product(MODEL, {}, workload_kw={"size": 3}), "workload_kw='size': expected a parameter of workload "
                                                          "steady: requests, mean_gap_ms"),
    # a combination the model's check() forbids is found before anything runs, with the grid point named
    (lambda: product(MODEL, {"cfq_slice_idle": [0, 8], "cfq_quantum": [40]}),
     "cfq_quantum=40: expected <= 32 when cfq_slice_idle is 0 (in the grid point variant='3.0', "
     "cfq_slice_idle=0.0, cfq_quantum=40)"),
    (lambda: sample(MODEL, ["cfq_quantum"], n=0), "n=0"),
    (lambda: sample(MODEL, {"cfq_slice_idle": (5.0, 1.0)}, n=3), "lo < hi"),
    (lambda: product("nosuchmodel", {}), "model='nosuchmodel': expected one of cfq"),
])
def test_bad_grids_name_what_is_wrong(call, words):
    with pytest.raises(WorkbookParameterError) as e:
        call()
    assert words in str(e.value)


def test_parse_seeds_and_values_from_text():
    assert parse_seeds("0-7") == list(range(8))
    assert parse_seeds("0,3,5") == [0, 3, 5] and parse_seeds("0-1, 10-11") == [0, 1, 10, 11]
    for bad in ("7-0", "a", "-1", "1,1", ""):
        with pytest.raises(WorkbookParameterError, match="seed"):
            parse_seeds(bad)
    d = ToyParams.declared()
    assert parse_value(d["cfq_slice_idle"], "8") == 8.0
    assert parse_value(d["nomerges"], "yes") is True and parse_value(d["nomerges"], "0") is False
    assert parse_value(d["min_free_kbytes"], "None") is None and parse_value(d["min_free_kbytes"], "1024") == 1024
    assert parse_value(d["elevator"], "deadline") == "deadline"
    for k, bad in (("cfq_quantum", "4.5"), ("nomerges", "maybe"), ("elevator", "bfq"), ("cfq_slice_idle", "x")):
        with pytest.raises(WorkbookParameterError, match=k):
            parse_value(d[k], bad)


def test_fixed_knobs_are_set_in_every_run_and_are_columns():
    g = one_at_a_time(MODEL, {"cfq_slice_idle": [0, 16]}, fixed={"min_free_kbytes": 2048, "nomerges": True},
                      variants="all")
    assert g.knobs == ("cfq_slice_idle", "nomerges", "min_free_kbytes")  # declaration order
    df = g.df()
    assert (df["min_free_kbytes"] == 2048).all() and df["nomerges"].all()
    # home: the kernel's own setting of each knob, the fixed ones as fixed
    assert g.home == {"3.0": {"cfq_slice_idle": 8.0, "nomerges": True, "min_free_kbytes": 2048},
                      "3.0-nomerges": {"cfq_slice_idle": 8.0, "nomerges": True, "min_free_kbytes": 2048}}
    assert product(MODEL, {"cfq_quantum": [1, 2]}, variants="all").home["3.0-nomerges"] == {"cfq_quantum": 4}
    with pytest.raises(WorkbookParameterError, match="fixed='cfq_slice_idle': expected a knob that is not also swept"):
        product(MODEL, {"cfq_slice_idle": [0]}, fixed={"cfq_slice_idle": 1})
    with pytest.raises(WorkbookParameterError, match="min_free_kbytes=1"):
        product(MODEL, {}, fixed={"min_free_kbytes": 1})


def test_around_moves_every_knob_by_one_rule():
    v = around(MODEL, ["cfq_slice_idle", "cfq_quantum", "nomerges", "elevator", "min_free_kbytes"])
    assert v["cfq_slice_idle"] == [4.0, 16.0] and v["cfq_quantum"] == [2, 8]
    assert v["nomerges"] == [True] and v["elevator"] == ["noop", "deadline"]
    assert v["min_free_kbytes"] == [128, 65536]  # None (computed by the kernel): the widget range's ends
    assert around(MODEL, "cfq_quantum", variant="3.0-nomerges", with_home=True) == {"cfq_quantum": [2, 4, 8]}
    assert around(MODEL, "cfq_slice_idle", factor=100) == {"cfq_slice_idle": [0.08, 100.0]}  # kept in 0..100
    assert around(MODEL, "cfq_slice_idle", steps=2, with_home=True) == {"cfq_slice_idle": [2.0, 4.0, 8.0, 16.0, 32.0]}
    with pytest.raises(WorkbookParameterError, match="factor=1"):
        around(MODEL, "cfq_quantum", factor=1)
    with pytest.raises(WorkbookParameterError, match="a knob of toy"):
        around(MODEL, "quantum")
