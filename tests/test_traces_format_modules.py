"""The trace formats are modules listed in ``traces.formats.FORMATS`` (issue 34, item 4): each exports its kinds with
their parsers, its sniff and its priority; ``load`` and ``sniff`` read that list.  Every test here goes over the
list, so a new format is checked as soon as it is in it, and fails until it has a fixture."""

import warnings

import pandas as pd
import pytest

from kernel_workbook.errors import WorkbookParseError
from kernel_workbook.traces import KINDS, PARSERS, formats, load, sniff
from kernel_workbook.traces.mmtests import MONITOR_KINDS
from trace_formats import BY_FORMAT, BY_FORMAT_WITH_REAL, name

FORMAT_IDS = [name(f) for f in formats.FORMATS]


@pytest.mark.parametrize("fmt", formats.FORMATS, ids=FORMAT_IDS)
def test_each_format_module_exports_kinds_sniff_and_priority(fmt):
    assert fmt.KINDS and all(isinstance(k, str) and callable(p) for k, p in fmt.KINDS.items())
    assert callable(fmt.sniff) and isinstance(fmt.PRIORITY, int)
    assert fmt.__doc__, "say which tool and options the format is"


def test_priorities_are_unique_so_the_order_never_depends_on_the_list():
    prios = [f.PRIORITY for f in formats.FORMATS]
    assert len(set(prios)) == len(prios), sorted(prios)
    assert formats.BY_PRIORITY == sorted(formats.FORMATS, key=lambda f: f.PRIORITY)


def test_kinds_are_the_formats_kinds_and_a_shared_kind_has_one_parser():
    assert KINDS == tuple(dict.fromkeys(k for f in formats.FORMATS for k in f.KINDS))
    for f in formats.FORMATS:
        for k, p in f.KINDS.items():
            assert PARSERS[k] is p, f"{name(f)} reads {k} with another parser than {PARSERS[k].__name__}"
    assert set(MONITOR_KINDS.values()) <= set(KINDS)


@pytest.mark.parametrize("fmt", FORMAT_IDS)
def test_every_format_has_a_fixture(fmt):
    """A format no fixture is sniffed as has no sniff, round-trip, damaged-file or fuzz test: put a capture of it,
    with its provenance in the folder's README, in tests/fixtures/traces/ (or real-captures/)."""
    assert BY_FORMAT_WITH_REAL[fmt], f"no fixture is sniffed as format {fmt}"


@pytest.mark.parametrize("path,kind", [pc for f in BY_FORMAT_WITH_REAL.values() for pc in f],
                         ids=lambda x: x.name if hasattr(x, "name") else x)
def test_a_sniffed_fixture_loads_as_the_kind_its_format_says(path, kind):
    """``load(path)`` sniffs and parses; ``load(path, kind=...)`` only parses: both give the same frame, or the same
    error (some real captures are refused on purpose: ``iostat -h``)."""
    def outcome(**kw):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                return load(path, **kw), [str(w.message) for w in caught]
            except WorkbookParseError as e:
                return str(e), [str(w.message) for w in caught]

    (sniffed, warned), (named, warned_named) = outcome(), outcome(kind=kind)
    assert warned == warned_named
    if isinstance(named, str):
        assert sniffed == named
    else:
        pd.testing.assert_frame_equal(sniffed, named)


def test_a_json_document_no_json_format_claims_is_no_known_format():
    """The text formats are not asked about a JSON document, nor is its mmtests file name: a vmstat header or a
    counter line inside it means nothing."""
    doc = '{"hosts": 1,\n procs -----------memory----------\n r  b   swpd\nnr_free_pages 12\n'
    assert sniff(doc, "vmstat-tiobench") is None
    assert sniff(doc.replace("{", "[", 1), "vmstat-tiobench") == "vmstat"


def test_a_name_alone_says_the_kind_when_the_content_does_not():
    assert formats.claim("1 2 3\n", "/results/iter-0/proc-buddyinfo-stream") == (None, "buddyinfo")
    assert sniff("1 2 3\n", "notes.txt") is None
