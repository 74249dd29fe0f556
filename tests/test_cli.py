"""kwb from a shell."""

import json
import subprocess
import sys


from kernel_workbook.cli import main

COVER_LINE = "Mean   SeqRead-MB/sec-16         68.90 (  0.00%)       82.14 ( 19.22%)       81.64 ( 18.50%)"


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_kwb_tables_prints_the_thread_in_its_own_layout(capsys):
    code, out, _ = run(capsys, "tables", "2014-seqread-fairzone-cfq")
    assert code == 0
    assert COVER_LINE in out.split("\n")
    assert "Johannes Weiner, 2014-06-19 18:18 UTC" in out


def test_kwb_tables_list_and_formats(capsys):
    code, out, _ = run(capsys, "tables", "--list")
    assert code == 0 and "aio-stress-fast-raid" in out and "curated" in out
    code, out, _ = run(capsys, "tables", "2011-cfq-deep-idle", "--format", "csv")
    assert out.startswith("thread,table,stat,row,kernel,value,pct")
    code, out, _ = run(capsys, "tables", "2012-highalloc-compaction", "--table", "highalloc-success", "--format", "markdown")
    assert "| Pass 1 |" in out


def test_kwb_tables_mail_prints_every_table_of_a_users_mail(capsys, tmp_path):
    from pathlib import Path

    mail = Path(__file__).parent / "fixtures" / "mail-tables" / "thp-2020-quoted-four-kernels.txt"
    code, out, _ = run(capsys, "tables", "--mail", str(mail), "--list")
    assert code == 0 and out.splitlines()[0].split()[:4] == ["1", "plain", "lines", "3-7"]
    assert "[thp base1, thp base2, thp lru1, thp lru2]" in out and len(out.splitlines()) == 2
    code, out, _ = run(capsys, "tables", "--mail", str(mail), "--table", "1", "--format", "csv")
    assert out.splitlines()[1].startswith("1,,Duration User,thp base1,93.79,")
    code, out, _ = run(capsys, "tables", "--mail", str(mail))
    assert code == 0 and out.count("== ") == 2 and "/ table 2 (plain, lines 9-16)" in out
    code, _, err = run(capsys, "tables", "--mail", str(mail), "--table", "9")
    assert code == 2 and "a table number of" in err and "1, 2" in err
    (tmp_path / "prose.txt").write_text("No numbers here.\n")
    code, _, err = run(capsys, "tables", "--mail", str(tmp_path / "prose.txt"))
    assert code == 1 and "no table found" in err


def test_kwb_reproduce_json_schema(capsys):
    code, out, _ = run(capsys, "reproduce", "2007-throttle-vm-writeout", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["thread"] == "2007-throttle-vm-writeout"
    assert set(doc["summary"]) == {"strict", "lenient", "per_table", "seeds"}
    assert set(doc["summary"]["lenient"]) == {"predicted_cells", "direction_agreement", "median_abs_error_pts"}
    assert {"hits", "scored", "score", "excluded"} <= set(doc["summary"]["strict"])
    for c in doc["cells"]:  # baseline_kernel only on a cell measured against another column than its table's
        # optional: baseline_kernel (measured against another column), exclude / repeat_of / flat (why the
        # reproduction excludes it, kept so a stored run re-scores the same)
        assert set(c) - {"baseline_kernel", "exclude", "repeat_of", "flat"} == {"table", "stat", "row", "kernel", "published", "model",
                                                "published_delta_pct", "model_delta_pct", "calibrated", "status",
                                                "reason", "noise_pts", "ratio"}
    assert any("baseline_kernel" in c for c in doc["cells"])  # 2007's rules of thumb are read against akpm's desktop


def test_kwb_reproduce_all_prints_every_thread(capsys):
    code, out, _ = run(capsys, "reproduce", "--all", "--seeds", "1")  # 8 seed bases of every thread: data/fidelity
    assert code == 0 and out.count("########") == 5 and "fidelity" in out
    assert "######## 2015-numa-slow-scan (CI problem size, WORKBOOK_MODE=ci)" in out  # the size it ran at


def test_errors_are_one_line_and_name_the_problem(capsys):
    code, _, err = run(capsys, "tables", "2099-nope")
    assert code == 2 and "thread" in err and "2099-nope" in err


def test_console_script_is_installed():
    out = subprocess.run([sys.executable, "-m", "kernel_workbook.cli", "tables", "--list"],
                         capture_output=True, text=True, check=True).stdout
    assert "series-seqread" in out


def test_user_errors_exit_2_with_one_line_and_no_argument_is_ignored(capsys, tmp_path):
    """Issue 15: no traceback and no silently ignored argument."""
    fix = "tests/fixtures/traces/vmstat-procps4.txt"
    cases = [
        (["parse", str(tmp_path / "nosuchfile")], "no such file"),
        (["parse", fix, "--out", str(tmp_path / "no" / "such" / "x.csv")], "kwb: "),
        (["tables", "--table", "nosuch"], "--table"),
        (["reproduce", "--all", "2007-throttle-vm-writeout"], "not both"),
        (["reproduce", "--all", "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "workers"),
        (["reproduce", "--all", "--scheduler", "nowhere"], "scheduler"),
        (["bench", "--suites", "nosuch"], "--suites"),
    ]
    for args, says in cases:
        code, out, err = run(capsys, *args)
        assert code == 2 and says in err and "Traceback" not in err, args
        assert len(err.strip().splitlines()) == 1, (args, err)
    code, out, _ = run(capsys, "tables", "--table", "highalloc-success", "--format", "markdown")
    assert code == 0 and out.count("### ") == 1  # the one table, found without naming its thread


def test_compare_refuses_a_names_list_of_the_wrong_length(capsys):
    b = "data/traces/memory-pressure/bundle"
    code, _, err = run(capsys, "compare", b, b, "--names", "a")
    assert code == 2 and "2 names" in err


def test_kwb_prints_an_input_warning_as_a_tool_does_not_as_python_does(tmp_path):
    # a vmstat run killed mid-line: the complete rows are read, with a warning naming the file and line
    log = tmp_path / "vmstat.log"
    log.write_bytes(b"procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----\n"
                    b" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
                    b" 1  0      0 100000   2000  30000    0    0     1     2   10   20  1  1 98  0  0\n"
                    b" 2  0      0 100000   2000  30000    0    0     1     2   10   20  1  1 98  0  0\n"
                    b" 3  0      0 100000   20")
    p = subprocess.run([sys.executable, "-m", "kernel_workbook.cli", "parse", str(log)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    warned = [ln for ln in p.stderr.splitlines() if ln.startswith("kwb: warning: ")]
    assert any(f"{log}:5: truncated last line" in ln for ln in warned), p.stderr
    assert "Warning:" not in p.stderr and ".py:" not in p.stderr, p.stderr  # no Python source line or class
