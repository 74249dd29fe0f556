"""Folded stacks' numba reader (``_fastscan.folded_stacks``) gives the frame, warnings and errors of the line
reader, on fixtures and generated files, clean and damaged in the middle."""

import random
from pathlib import Path

import pytest

from fastpath_compare import assert_fast_is_general
from kernel_workbook.traces import _fastscan as F
from kernel_workbook.traces import perfscript as S

FIX = Path(__file__).parent / "fixtures" / "traces"


def _generated(lines: int = 3000, seed: int = 5) -> str:
    rng = random.Random(seed)
    frames = ["bash", "copy_process", "[unknown]", "ext4_map_blocks", "__GI___libc_write", "fio", "a b"]
    out = []
    for i in range(lines):
        out.append(";".join(rng.choice(frames) for _ in range(rng.randrange(1, 12))) + f" {rng.randrange(1, 10 ** 9)}")
        if i % 97 == 5:
            out.append("")
        if i % 89 == 3:
            out[-1] += " \t"
    return "\n".join(out) + "\n"


def _damage(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = len(lines) // 2
    lines[mid] = {"no count": lines[mid].rsplit(" ", 1)[0], "tab": lines[mid].replace(" ", "\t"),
                  "word": lines[mid] + "x", "only count": "12", "19 digits": lines[mid] + "9" * 19,
                  "count alone after blank": " 12", "two blanks": lines[mid].replace(" ", "  "),
                  "unicode digit": lines[mid] + "\u0661"}[what]
    return "\n".join(lines)


CASES = {"generated": _generated()}
for _w in ("no count", "tab", "word", "only count", "19 digits", "count alone after blank", "two blanks",
           "unicode digit"):
    CASES[f"generated, {_w}"] = _damage(CASES["generated"], _w)
for _f in sorted(FIX.glob("*folded*")):
    CASES[_f.name] = _f.read_text() * (S.FOLDED_FAST_MIN // max(len(_f.read_text()), 1) + 2)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_line_reader_give_the_same_frame_or_error(name, monkeypatch):
    assert_fast_is_general(S, S.parse_folded, CASES[name], monkeypatch, "FOLDED_FAST_MIN")


@pytest.mark.parametrize("chunk", [50, 4096])
def test_folded_stacks_in_pieces(chunk, monkeypatch):
    whole = F.folded_stacks(CASES["generated"])
    monkeypatch.setattr(F, "CHUNK", chunk)
    got = F.folded_stacks(CASES["generated"])
    assert whole is not None and len(whole[0]) == 3000
    assert whole[0].tolist() == got[0].tolist() and whole[1].tolist() == got[1].tolist()
    assert F.folded_stacks(CASES["generated, tab"]) is None
