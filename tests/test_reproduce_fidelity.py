"""The stored fidelity runs (data/fidelity, and data/fidelity/full at the full size): 8 seed bases each,
re-rendered from their own cells, and every fitted parameter of every reproduction listed with the cells it
was fitted to, those cells never scored.

The stored files come from ``WORKBOOK_MODE=ci|lab python -m kernel_workbook.reproduce.fidelity``; each
thread's own test module re-runs seed base 0 at CI size and compares it with the stored run
(``stored_differences``); the full size is too slow to rerun here.
"""

import pytest

from kernel_workbook.reproduce import modelled_threads, takes_seed_base
from kernel_workbook.reproduce.fidelity import (STORED_SEEDS, df_fitted_cells, df_seed_scores, fitted_cells_scored,
                                                load_fidelity, score_text, stored_differences, stored_threads)
from kernel_workbook.reproduce.score import over_seeds, per_table, score_cells, strict

STORED = stored_threads()
SIZES = [(th, full) for full in (False, True) for th in stored_threads(full)]


def test_the_modelled_threads_are_stored_and_take_seed_bases():
    for th in ("2011-cfq-deep-idle", "2012-highalloc-compaction", "2015-numa-slow-scan"):
        assert th in STORED, th
    for th in STORED:
        assert th in modelled_threads() and takes_seed_base(th), th
    assert stored_threads(full=True) == STORED  # make fidelity stores both sizes


@pytest.mark.parametrize("thread, full", SIZES)
def test_a_stored_run_re_renders_from_its_own_cells(thread, full):
    doc = load_fidelity(thread, full)
    assert (doc["mode"], doc["problem_size"]) == (("lab", "full") if full else ("ci", "CI"))  # echoed by the run
    cells = [{k: v for k, v in c.items() if k not in ("status", "reason", "noise_pts", "ratio")} for c in doc["cells"]]
    sc = score_cells(thread, cells, doc["fitted"])
    assert list(sc["status"]) == [c["status"] for c in doc["cells"]]
    # the reason's kind (its text may quote the reproduction's own why, which the JSON does not carry)
    assert list(sc["reason"].str.split(":").str[0]) == [c["reason"].split(":")[0] for c in doc["cells"]]
    s = doc["summary"]
    assert strict(sc) == s["strict"]
    assert per_table(sc) == s["per_table"]
    sd = s["seeds"]
    assert sd["n"] >= STORED_SEEDS and sd["bases"] == list(range(sd["n"]))
    assert sd["per_seed"][0] == {"seed_base": 0, **{k: s["strict"][k] for k in ("hits", "scored", "score")}}
    runs = [{k: p[k] for k in ("hits", "scored", "score")} for p in sd["per_seed"]]
    assert over_seeds(runs, sd["bases"]) == sd
    assert sd["min"] <= sd["mean"] <= sd["max"]
    # what a notebook prints comes from the same file
    t = score_text(thread, full)
    assert f"{s['strict']['hits']}/{s['strict']['scored']}" in t and f"over {sd['n']} seed bases" in t
    assert list(df_seed_scores(thread, full)["seed_base"]) == sd["bases"]


@pytest.mark.parametrize("full", [False, True], ids=["ci", "full"])
def test_every_fitted_parameter_names_its_cells_and_they_are_never_scored(full):
    df = df_fitted_cells(STORED, full)
    assert set(df["thread"]) == set(STORED)  # every stored reproduction lists what it fitted
    assert (df["cell"] != "").all(), df[df["cell"] == ""]
    # a fitted cell is excluded, as calibrated (or as the baseline column, which the order names first)
    bad = fitted_cells_scored(df)
    assert bad.empty, bad.to_string()
    assert fitted_cells_scored(df.assign(status="hit")).shape[0] == (df["status"] != "absent").sum()
    # a cell the reproduction does not print must at least be a published cell of its thread
    from kernel_workbook.reproduce.score import cell_key
    from kernel_workbook.tables import published

    for r in df[df["status"] == "absent"].itertuples():
        keys = {cell_key(c) for c in published(r.thread).to_dict("records")}
        assert r.cell in keys, (r.thread, r.parameter, r.cell)


def test_a_changed_model_value_is_a_difference():
    th = STORED[0]
    c = dict(load_fidelity(th)["cells"][0])
    assert stored_differences(th, [c]) == []
    c["model"] = (c["model"] or 1.0) * 1.5
    assert len(stored_differences(th, [c])) == 1
    assert stored_differences(th, [{**c, "row": "no such row"}])[0].endswith("not in the stored run")


def test_the_readme_table_is_the_stored_runs_table():
    """The README's fidelity figures are generated (make fidelity), never typed: they must equal the stored runs."""
    from pathlib import Path

    from kernel_workbook.reproduce.fidelity import fidelity_markdown, readme_section

    readme = Path(__file__).resolve().parents[1] / "README.md"
    assert readme_section(readme.read_text()) == fidelity_markdown()


def test_writing_the_readme_section_splices_between_the_markers(tmp_path):
    from kernel_workbook.reproduce.fidelity import (README_BEGIN, README_END, fidelity_markdown, readme_section,
                                                    write_readme_section)

    f = tmp_path / "README.md"
    f.write_text(f"# title\n\ntext\n\n{README_BEGIN}\n{README_END}\n\nmore\n")
    assert write_readme_section(f) is True
    text = f.read_text()
    assert text.startswith("# title\n") and text.endswith("\nmore\n")
    assert readme_section(text) == fidelity_markdown()
    assert write_readme_section(f) is False


def test_reproduce_many_runs_every_thread_and_seed_in_one_pool_and_gives_what_reproduce_gives():
    """kwb reproduce --all: every (thread, seed base) is a task of one process pool; the result must be the
    stored runs' -- seed base 0's cells and every other base's score -- for each thread it ran."""
    from kernel_workbook.reproduce import reproduce_many

    threads = ["2011-cfq-deep-idle"]  # the quickest; two seed bases make two tasks for two processes
    reps = reproduce_many(threads, seeds=[0, 1], workers=2)
    assert [r.thread for r in reps] == threads
    for rep in reps:
        assert stored_differences(rep.thread, rep.cells) == []
        got = rep.summary()["seeds"]["per_seed"]
        stored = load_fidelity(rep.thread)["summary"]["seeds"]["per_seed"][:2]
        assert [(s["seed_base"], s["hits"], s["scored"]) for s in got] == \
               [(s["seed_base"], s["hits"], s["scored"]) for s in stored]


def test_another_seed_base_runs_score_only_and_the_first_does_not(monkeypatch):
    """A part may skip its unscored what-ifs only in the runs whose cells alone are kept (other seed bases)."""
    import kernel_workbook.reproduce as r

    seen = []

    def fake(seed_base=0):
        seen.append((seed_base, r.score_only()))
        rep = r.Reproduction("2011-cfq-deep-idle")
        rep.seed_base = seed_base
        return rep

    monkeypatch.setattr(r, "_target", lambda thread: fake)
    rep = r.reproduce("2011-cfq-deep-idle", seeds=[0, 1], workers=1)
    assert seen == [(0, False), (1, True)] and sorted(rep.seed_runs) == [1]
    assert r.score_only() is False  # reset after the seed run


def test_a_notebook_prints_the_stored_figures_of_its_own_size(monkeypatch):
    th = "2015-numa-slow-scan"  # its two sizes score differently
    ci, full = (load_fidelity(th, f)["summary"]["strict"] for f in (False, True))
    assert ci != full
    for name, want in (("ci", ci), ("lab", full), ("slides", full)):
        monkeypatch.setenv("WORKBOOK_MODE", name)
        assert f"{want['hits']}/{want['scored']}" in score_text(th), name
        assert df_seed_scores(th)["hits"].iloc[0] == want["hits"], name


def test_a_reproduction_echoes_its_mode_and_problem_size(monkeypatch):
    from kernel_workbook.reproduce import Reproduction

    monkeypatch.setenv("WORKBOOK_MODE", "slides")
    r = Reproduction("2011-cfq-deep-idle")  # the mode while it runs
    assert (r.mode, r.problem_size) == ("slides", "full")
    monkeypatch.setenv("WORKBOOK_MODE", "ci")
    assert r.problem_size == "full"  # not the mode of whoever reads it later
    assert Reproduction("2011-cfq-deep-idle", mode="lab", small=True).problem_size == "CI"  # small=True asked for


def test_a_post_hoc_assumption_is_named_in_the_table_with_the_score_without_it():
    """A stored run whose assumption was chosen after its predicted cells were seen is labelled so in the README
    table, and the run stored without it (data/fidelity/<variant>/) gets a row of its own beside it."""
    import json

    from kernel_workbook.reproduce.fidelity import fidelity_dir, fidelity_markdown, load_fidelity, stored_variants

    table = fidelity_markdown().splitlines()
    for a in load_fidelity("2014-seqread-fairzone-cfq").get("assumptions", []):
        if a.get("chosen_after_predicted_cells_seen"):
            labelled = [ln for ln in table if f"with {a['name']} (chosen after the predicted cells were seen)" in ln]
            assert len(labelled) == 1
            variants = stored_variants("2014-seqread-fairzone-cfq")
            assert variants, "a post-hoc assumption needs the run without it stored beside it"
            for v in variants:
                rows = [ln for ln in table if f"without it (`{v}`)" in ln]
                assert len(rows) == 1
                stored = json.loads((fidelity_dir() / v / "2014-seqread-fairzone-cfq.json").read_text())
                st = stored["summary"]["strict"]
                assert rows[0].split("|")[2].strip().startswith(f"{st['hits']}/{st['scored']} = ")
