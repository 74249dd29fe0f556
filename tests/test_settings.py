"""A bundle's settings.txt (kernel_workbook.settings): written by kwb record, read back line by line, and the
settings that differ between bundles listed by kwb compare."""

import pytest

from kernel_workbook.errors import (SkippedLinesWarning, TruncatedTraceWarning, WorkbookInputWarning,
                                     WorkbookParseError)
from kernel_workbook.settings import read_settings_file
from kernel_workbook.traces.bundle import df_settings_differ


def _bundle(path, text):
    path.mkdir(parents=True)
    if text is not None:
        (path / "settings.txt").write_text(text)
    return path


def test_a_damaged_settings_file_keeps_its_complete_lines_and_names_the_others(tmp_path):
    f = tmp_path / "settings.txt"
    f.write_text("/proc/sys/vm/swappiness = 10\ngarbage\n/proc/sys/vm/extfrag_threshold = 50")  # the last cut short
    with pytest.warns(WorkbookInputWarning) as caught:
        got = read_settings_file(f)
    said = {type(w.message): str(w.message) for w in caught}
    assert "settings.txt: skipped 1 line(s) that are not PATH = VALUE (lines 2; the first: 'garbage')" in \
        said[SkippedLinesWarning]
    assert "settings.txt:3: truncated setting '/proc/sys/vm/extfrag_threshold = 50'" in said[TruncatedTraceWarning]
    assert got == {"/proc/sys/vm/swappiness": ("10", 1)}


def test_a_settings_file_that_is_not_a_regular_file_is_refused_by_name(tmp_path):
    import os

    fifo = tmp_path / "settings.txt"
    os.mkfifo(fifo)  # would block a plain read forever
    with pytest.raises(WorkbookParseError, match="settings.txt"):
        read_settings_file(fifo)


def test_only_the_settings_that_differ_or_are_missing_are_listed(tmp_path):
    a = _bundle(tmp_path / "before", "/proc/sys/vm/swappiness = 60\n/proc/sys/vm/dirty_ratio = 20\n"
                                     "/sys/block/sda/queue/scheduler = noop deadline [cfq]\n")
    b = _bundle(tmp_path / "after", "/proc/sys/vm/swappiness = 10\n/proc/sys/vm/dirty_ratio = 20\n")
    c = _bundle(tmp_path / "old", None)  # recorded before settings were kept
    df = df_settings_differ([a, b, c])
    assert list(df.columns) == ["setting", "before", "after"]
    assert df.to_dict("records") == [
        {"setting": "/proc/sys/vm/swappiness", "before": "60", "after": "10"},
        {"setting": "/sys/block/sda/queue/scheduler", "before": "noop deadline [cfq]", "after": None}]
    assert df.attrs["unrecorded"] == ["old"]
    assert df_settings_differ([a, a], names=["x", "y"]).empty


def test_kwb_compare_lists_the_settings_that_differ_under_its_table(tmp_path, capsys):
    import shutil

    from kernel_workbook.cli import main
    from kernel_workbook.paths import data_dir

    seq = data_dir() / "traces" / "tiobench-seqread"
    a, b = tmp_path / "readers-01", tmp_path / "readers-04"
    shutil.copytree(seq / "readers-01", a)
    shutil.copytree(seq / "readers-04", b)
    (a / "settings.txt").write_text("/proc/sys/vm/swappiness = 60\n/proc/sys/vm/dirty_ratio = 20\n")
    (b / "settings.txt").write_text("/proc/sys/vm/swappiness = 10\n/proc/sys/vm/dirty_ratio = 20\n")
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    tail = out[out.index("settings that differ"):].splitlines()
    assert tail[1].split() == ["readers-01", "readers-04"] and tail[2].split() == ["/proc/sys/vm/swappiness", "60", "10"]
    assert len(tail) == 3  # dirty_ratio is the same: not listed
    (b / "settings.txt").unlink()
    assert main(["compare", str(a), str(b)]) == 0
    got = capsys.readouterr()
    assert "settings that differ" not in got.out and "readers-04: no settings.txt" in got.err
