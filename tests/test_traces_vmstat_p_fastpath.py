"""vmstat -p's fast path (blocks of counter lines checked and read with numpy) gives the frame the general loop
gives, and leaves to it every file it does not fully understand (the loop names the bad line)."""

from pathlib import Path

import pytest

from kernel_workbook.traces import vmstat as V

from fastpath_compare import assert_same, outcome

FIX = Path(__file__).parent / "fixtures" / "traces"
BASE = (FIX / "vmstat-procps4-p.txt").read_text()
HEAD, ROWS = BASE.split("\n", 1)

CASES = {
    "fixture": BASE,
    "blank lines and tabs": HEAD + "\n\n" + ROWS.replace("  ", "\t", 3) + "\n\n",
    "two partitions": BASE + HEAD.replace("vda", "vdb", 1) + "\n" + ROWS,
    "header again, no rows": BASE + HEAD + "\n",
    "19 digits": BASE + " 9999999999999999999 1 2 3\n",
    "20 digits": BASE + " 99999999999999999999 1 2 3\n",
    "arabic-indic digits": BASE + " \u0661\u0662 1 2 3\n",
    "three counters": BASE + " 1 2 3\n",
    "five counters": BASE + " 1 2 3 4 5\n",
    "a word in a row": BASE + " 1 2 x 3\n",
    "rows before the header": ROWS + HEAD + "\n" + ROWS,
    "cut last line": BASE + " 1 2",
    "a minus sign": BASE + " 1 -2 3 4\n",
    "a carriage return": BASE + " 1 2\r3 4\n",
    "a device-mapper name": BASE + HEAD.replace("vda", "dm-0", 1) + "\n" + ROWS,
    "a vertical tab": BASE + "\x0b 1 2 3 4\n",
    "counters then junk": BASE + "junk\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_general_give_the_same_frame_or_error(name, monkeypatch):
    text = CASES[name]
    fast = outcome(V.parse_vmstat_partition, text)
    monkeypatch.setattr(V, "_partition_fast", lambda text: None)
    assert_same(fast, outcome(V.parse_vmstat_partition, text))


def test_the_fast_path_reads_the_common_log():
    assert V._partition_fast(BASE) is not None
    assert V._partition_fast(CASES["two partitions"]) is not None
    assert V._partition_fast(CASES["a word in a row"]) is None
