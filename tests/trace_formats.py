"""The trace fixtures sorted by the format that claims them (``traces.formats.claim``), for the tests that go over
every format: a format added to ``traces.formats.FORMATS`` gets its sniff, round-trip, damaged-file and fuzz tests
from its fixtures, and ``test_every_format_has_a_fixture`` fails until it has one."""

import warnings
from pathlib import Path

from kernel_workbook.traces import formats
from kernel_workbook.traces._common import read_source

FIX = Path(__file__).parent / "fixtures" / "traces"
REAL = Path(__file__).parent / "fixtures" / "real-captures"


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.endswith(".md"))


def _claimed(paths: list[Path]) -> dict[str, list[tuple[Path, str]]]:
    """format module's short name -> [(fixture, kind it was sniffed as)], in the order of FORMATS."""
    out: dict[str, list[tuple[Path, str]]] = {name(f): [] for f in formats.FORMATS}
    for p in paths:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a damaged real capture warns: not this module's business
            text, src = read_source(p)
        fmt, kind = formats.claim(text, src)
        if fmt is not None:
            out[name(fmt)].append((p, kind))
    return out


def name(fmt) -> str:
    return fmt.__name__.rsplit(".", 1)[-1]


#: the fixtures of tests/fixtures/traces (each with a golden frame) by format
BY_FORMAT = _claimed(_files(FIX))
#: the same with the real captures of tests/fixtures/real-captures (some damaged on purpose) added
BY_FORMAT_WITH_REAL = _claimed(_files(FIX) + _files(REAL))
