"""The threads are data (data/threads/threads.toml): read in their order, each with its text, a clear error naming
the file for a damaged list."""

import pytest

from kernel_workbook import threads
from kernel_workbook.errors import WorkbookParseError


def test_the_five_threads_in_the_workbooks_order_each_with_its_text():
    assert list(threads.THREADS) == ["2014-seqread-fairzone-cfq", "2015-numa-slow-scan", "2011-cfq-deep-idle",
                                     "2007-throttle-vm-writeout", "2012-highalloc-compaction"]
    for t in threads.THREADS.values():
        assert t.path.exists() and t.title and t.era in ("2014", "2015")
    assert threads.get("2012-highalloc-compaction").baseline == "revert-v5"


@pytest.mark.parametrize("text, expected", [
    ("[[thread]]\nid = \"x\"\ntitle = \n", "toml.*line 3"),
    ("[[thread]]\nid = \"x\"\ntitle = \"t\"\n", "number 1 with exactly id, title"),
    ("[[thread]]\nid = \"x\"\ntitle = \"t\"\nheuristic = \"h\"\nera = \"2014\"\narchive = \"a\"\nbaseline = \"\"\n"
     "colour = \"red\"\n", "number 1 with exactly"),
    ("# nothing\n", "at least one"),
])
def test_a_damaged_list_names_the_file_and_what_was_expected(tmp_path, monkeypatch, text, expected):
    (tmp_path / "threads").mkdir()
    (tmp_path / "threads" / "threads.toml").write_text(text)
    monkeypatch.setenv("KWB_DATA", str(tmp_path))
    with pytest.raises(WorkbookParseError, match=f"(?i)threads.toml.*{expected}"):
        threads._read()
