"""``iostat -o JSON`` read strictly against the document sysstat writes (issue 32, item 4).  Each case is damage the
issue measured being accepted; the comment says what the parser did then."""

import json
import re
from pathlib import Path

import pytest

from kernel_workbook.errors import WorkbookParseError
from kernel_workbook.traces import read_iostat

FIX = Path(__file__).parent / "fixtures" / "traces"
GOOD = (FIX / "iostat-sysstat12-x.json").read_text()
DISK0 = "$.sysstat.hosts[0].statistics[0].disk[0]"


def _err(text) -> WorkbookParseError:
    with pytest.raises(WorkbookParseError) as e:
        read_iostat(text, source="io.json")
    return e.value


def _line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def test_the_capture_reads_as_before():
    io = read_iostat(GOOD)
    assert len(io.devices) == 2 and io.devices["r/s"].tolist() == [45.65, 296.0]
    assert io.cpu["%idle"].tolist() == [82.97, 49.49] and io.devices.attrs["ncpu"] == 2


def test_a_string_value_is_an_error_naming_its_path():
    """Was: '"r/s": "45.65"' read as NaN."""
    text = GOOD.replace('"r/s": 45.65', '"r/s": "45.65"')
    e = _err(text)
    assert e.expected.startswith(f"a number at {DISK0}['r/s']")
    assert e.line == _line_of(text, '"r/s": "45.65"') and e.source == "io.json" and e.text == '"45.65"'


@pytest.mark.parametrize("literal,was", [("1e400", "inf"), ("NaN", "NaN"), ("-Infinity", "-inf")])
def test_a_number_json_cannot_hold_or_sysstat_never_prints_is_an_error(literal, was):
    """Was: 1e400 read as inf, a NaN literal as NaN, -Infinity as -inf."""
    text = GOOD.replace('"w/s": 8.22', f'"w/s": {literal}')
    e = _err(text)
    assert e.expected.startswith("a ") and "number" in e.expected and f"{DISK0}['w/s']" in e.expected
    assert e.line == _line_of(text, f'"w/s": {literal}') and e.text == literal


def test_a_disk_entry_that_is_not_an_object_is_an_error():
    """Was: a number among the disks, or the disk list written as one object, was dropped without a word."""
    doc = json.loads(GOOD)
    doc["sysstat"]["hosts"][0]["statistics"][1]["disk"].append(7)
    e = _err(json.dumps(doc))
    assert "at $.sysstat.hosts[0].statistics[1].disk[1]" in e.expected and e.text == "7"
    doc = json.loads(GOOD)
    st = doc["sysstat"]["hosts"][0]["statistics"][0]
    st["disk"] = st["disk"][0]
    e = _err(json.dumps(doc, indent=1))
    assert "a JSON array at $.sysstat.hosts[0].statistics[0].disk" in e.expected and e.line is not None


def test_empty_statistics_is_an_error_not_an_empty_frame():
    """Was: an empty frame and no word."""
    doc = json.loads(GOOD)
    doc["sysstat"]["hosts"][0]["statistics"] = []
    text = json.dumps(doc, indent="\t")
    e = _err(text)
    assert "at least one report at $.sysstat.hosts[0].statistics" in e.expected
    assert e.line == _line_of(text, '"statistics"')


def test_a_second_host_is_an_error_not_dropped():
    """Was: the second host's reports dropped without a word."""
    doc = json.loads(GOOD)
    host = doc["sysstat"]["hosts"][0]
    doc["sysstat"]["hosts"].append(dict(host, nodename="other"))
    e = _err(json.dumps(doc, indent="\t"))
    assert "one host" in e.expected and "at $.sysstat.hosts[1]" in e.expected and e.text == "2 hosts"


def test_a_duplicate_key_is_an_error_not_the_last_kept():
    """Was: '"util": 0.81, "util": 99.0' read as 99.0."""
    text = GOOD.replace('"util": 0.81}', '"util": 0.81, "util": 99.0}')
    e = _err(text)
    assert "each key once" in e.expected and f"{DISK0}['util']" in e.expected and e.text == "'util' twice"
    assert e.line == _line_of(text, '"util": 99.0')


@pytest.mark.parametrize("edit,where", [
    (lambda h: h.update({"number-of-cpus": "2"}), "['number-of-cpus']"),
    (lambda h: h.pop("nodename"), "$.sysstat.hosts[0]"),
    (lambda h: h["statistics"][0].update({"avg-cpu": {"user": 1}}), "['avg-cpu']"),
    (lambda h: h["statistics"][0].update({"cpu": 3}), "statistics[0]['cpu']"),
    (lambda h: h["statistics"][1]["disk"][0].pop("util"), "statistics[1].disk[0]"),
    (lambda h: h["statistics"][1]["disk"][0].update({"disk_device": 3}), "['disk_device']"),
    (lambda h: h["statistics"][1].update({"timestamp": 5}), "['timestamp']"),
])
def test_types_and_fields_are_sysstats(edit, where):
    """Each field sysstat writes, of the type it writes it: a count of CPUs as a string, a host without its name,
    an avg-cpu without its fields, a key sysstat never writes, a disk without a field the others have, a device
    named by a number, a time stamp that is a number."""
    doc = json.loads(GOOD)
    edit(doc["sysstat"]["hosts"][0])
    e = _err(json.dumps(doc, indent="\t"))
    assert where in e.expected and re.match(r"io\.json:\d+: expected ", str(e))
