"""``iostat -o JSON`` read by the one-pass reader (``iostat._fast_json`` over ``_fastperf.scan_fields``) gives the
frames, attrs and errors of the document walk, clean and damaged in the middle, and the fast path takes the
clean documents (so these comparisons compare something)."""

import json
import random
from pathlib import Path

import pytest

from fastpath_compare import assert_fast_is_general
from kernel_workbook.traces import iostat as I

FIX = Path(__file__).parent / "fixtures" / "traces"
GOOD = (FIX / "iostat-sysstat12-x.json").read_text()
_LINES = GOOD.split("\n")
HEAD = "\n".join(_LINES[:10]) + "\n"  # to '"statistics": [' (sysstat's own layout, from a capture)
CPU_LINE, DISK_LINE = _LINES[11], _LINES[13]
TAIL = "\t\t\t]\n\t\t}\n\t]\n}}\n"


def _doc(reports: int = 300, disks=("vda", "vdb"), cpu: bool = True, seed: int = 1, blank: bool = False) -> str:
    rnd = random.Random(seed)

    def numbers(line):  # the capture's line with other numbers, as sysstat prints them (%.2f)
        out, parts = [], line.split(": ")
        for p in parts:
            head = p.split(",")[0].rstrip("}")
            if head.replace(".", "").isdigit():
                p = f"{rnd.uniform(0, 5000):.2f}" + p[len(head):]
            out.append(p)
        return ": ".join(out)

    body = []
    for _ in range(reports):
        lines = ["\t\t\t\t{"]
        if cpu:
            lines.append(numbers(CPU_LINE.rstrip(",")) + ("," if disks else ""))
        if disks:
            lines.append('\t\t\t\t\t"disk": [')
            ds = [numbers(DISK_LINE).replace('"vda"', f'"{d}"') for d in disks]
            lines += [d + "," for d in ds[:-1]] + [ds[-1], "\t\t\t\t\t]"]
        body.append("\n".join(lines + ["\t\t\t\t}"]))
    return HEAD + ("\n" if blank else "") + ",\n".join(body) + "\n" + TAIL


CLEAN = _doc()


def _damage(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = next(j for j in range(len(lines) // 2, len(lines)) if '"disk_device": "vdb"' in lines[j])
    ln = lines[mid]
    if what == "string value":
        lines[mid] = ln.replace('"r/s": ', '"r/s": "', 1).replace(', "w/s"', '", "w/s"', 1)
    elif what == "NaN":
        lines[mid] = ln.split('"r/s": ')[0] + '"r/s": NaN, "w/s"' + ln.split(', "w/s"', 1)[1]
    elif what == "1e400":
        lines[mid] = ln.split('"r/s": ')[0] + '"r/s": 1e400, "w/s"' + ln.split(', "w/s"', 1)[1]
    elif what == "exponent":
        lines[mid] = ln.split('"r/s": ')[0] + '"r/s": 1.5e3, "w/s"' + ln.split(', "w/s"', 1)[1]
    elif what == "negative":
        lines[mid] = ln.replace('"r/s": ', '"r/s": -', 1)
    elif what == "leading zero":
        lines[mid] = ln.replace('"r/s": ', '"r/s": 0', 1)
    elif what == "duplicate key":
        lines[mid] = ln.replace('"w/s": ', '"r/s": 1.00, "w/s": ', 1)
    elif what == "disk a number":
        lines[mid] = "\t\t\t\t\t\t17"
    elif what == "missing disk":
        del lines[mid]
        lines[mid - 1] = lines[mid - 1].rstrip(",")
    elif what == "extra disk":
        lines.insert(mid, ln.replace('"vdb"', '"vdc"') + ",")
        lines[mid - 1] = lines[mid - 1] if lines[mid - 1].endswith(",") else lines[mid - 1] + ","
    elif what == "keys swapped":
        lines[mid] = ln.replace('"r/s"', '"tmp"', 1).replace('"w/s"', '"r/s"', 1).replace('"tmp"', '"w/s"', 1)
    elif what == "renamed device":
        lines[mid] = ln.replace('"vdb"', '"sdb"')
    elif what == "cut":
        return "\n".join(lines[:mid]) + "\n"
    elif what == "CR":
        lines[mid] += "\r"
    elif what == "blank line":
        lines.insert(mid, "")
    elif what == "second host":
        return text[:-len("\t]\n}}\n")] + "\t\t,{}\n\t]\n}}\n"
    elif what == "no final newline":
        return text.rstrip("\n")
    elif what == "spacing":
        lines[mid] = ln.replace('"r/s": ', '"r/s":  ', 1)
    return "\n".join(lines)


_WHAT = ("string value", "NaN", "1e400", "exponent", "negative", "leading zero", "duplicate key", "disk a number",
         "missing disk", "extra disk", "keys swapped", "renamed device", "cut", "CR", "blank line", "second host",
         "no final newline", "spacing")
CASES = {"clean": CLEAN, "one disk": _doc(disks=("vda",)), "avg-cpu only (-c)": _doc(disks=()),
         "disks only (-d)": _doc(cpu=False), "blank line after 'statistics' (-y)": _doc(blank=True),
         "timestamps (-t)": CLEAN.replace("\t\t\t\t{\n", '\t\t\t\t{\n\t\t\t\t\t"timestamp": "11/21/26 05:36:10",\n')}
for _w in _WHAT:
    CASES[f"damaged: {_w}"] = _damage(CLEAN, _w)


def _both(text):
    io = I.read_iostat(text, source="io.json")
    return io.devices, io.cpu


def _same(text, monkeypatch):
    def frames(parse):
        def one(t):
            dev, cpu = parse(t)
            out = dev.copy()
            out.attrs = {**dev.attrs, "cpu": cpu.to_dict("list"), "cpu_attrs": cpu.attrs}
            return out
        return one

    assert_fast_is_general(I, frames(_both), text, monkeypatch)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_document_walk_give_the_same_frames_or_error(name, monkeypatch):
    _same(CASES[name], monkeypatch)


def test_the_fast_path_reads_clean_documents_and_leaves_the_rest_to_the_walk():
    io = I._fast_json(CLEAN, "<t>")
    assert io is not None and len(io.devices) == 600 and len(io.cpu) == 300
    assert io.devices["device"].tolist()[:4] == ["vda", "vdb", "vda", "vdb"] and io.devices["sample"].iat[-1] == 299
    for name in ("one disk", "avg-cpu only (-c)", "disks only (-d)", "blank line after 'statistics' (-y)",
                 "damaged: negative", "damaged: CR", "damaged: blank line", "damaged: no final newline"):
        assert I._fast_json(CASES[name], "<t>") is not None, name
    assert I._fast_json(CASES["timestamps (-t)"], "<t>") is None
    # damage in the middle: the reports before it are scanned, the walk reads (or refuses) the rest
    for what in ("string value", "NaN", "1e400", "leading zero", "duplicate key", "disk a number", "cut",
                 "second host"):
        assert I._fast_json(CASES[f"damaged: {what}"], "<t>") is None, what


# ---- the damage and layouts of issue 32's review (first written for another fast path, i32i-json), on a document
# long enough for the fast path: the capture's two reports 150 times, each edit in the first report (the one the
# fast path takes its template from) and in one in the middle

_REPORTS = "\n".join(_LINES[10:22])  # the capture's two reports, '},' between them
BIG = HEAD + ",\n".join([_REPORTS] * 150) + "\n" + TAIL


def _big_doc():
    return json.loads(BIG)


def _host(doc):
    return doc["sysstat"]["hosts"][0]


def _stamped(doc):
    for k, st in enumerate(_host(doc)["statistics"]):
        st["timestamp"] = f"2026-11-21T10:{k // 60 % 60:02d}:{k % 60:02d}+0100"
    return doc


def _reordered(doc):
    d = _host(doc)["statistics"][151]["disk"][0]
    _host(doc)["statistics"][151]["disk"][0] = dict(reversed(list(d.items())))
    return doc


def _two_disks(doc):
    for st in _host(doc)["statistics"]:
        st["disk"].append(dict(st["disk"][0], disk_device="vdb"))
    return doc


def _whole(doc):
    _host(doc)["statistics"][151]["disk"][0]["r/s"] = 45
    return doc


def _no_disks(doc):
    for st in _host(doc)["statistics"]:
        st["disk"] = []
    return doc


def _cpu_only(doc):
    for st in _host(doc)["statistics"]:
        del st["disk"]
    return doc


LAYOUTS = {"timestamps": _stamped, "keys reordered": _reordered, "two disks": _two_disks, "a whole number": _whole,
           "no disks": _no_disks, "no disk field": _cpu_only}


@pytest.mark.parametrize("indent", [None, 1, "\t"])
@pytest.mark.parametrize("edit", sorted(LAYOUTS))
def test_layouts_read_as_the_walk_reads_them(edit, indent, monkeypatch):
    _same(json.dumps(LAYOUTS[edit](_big_doc()), indent=indent), monkeypatch)


EDITS = {
    "string value": ('"r/s": 45.65', '"r/s": "45.65"'),
    "NaN": ('"r/s": 45.65', '"r/s": NaN'),
    "Infinity": ('"r/s": 45.65', '"r/s": -Infinity'),
    "huge whole number": ('"r/s": 45.65', '"r/s": 1' + "0" * 400),
    "true": ('"r/s": 45.65', '"r/s": true'),
    "cpu NaN": ('"nice": 0.00', '"nice": NaN'),
    "cpu 1e400": ('"nice": 0.00', '"nice": 1e400'),
    "disk a list": ('"disk": [', '"disk": [[], '),
    "disk a dict": ('"disk": [', '"disk": {"x": '),
    "missing field": ('"r/s": 45.65, ', ''),
    "extra field": ('"r/s": 45.65', '"r/s": 45.65, "x/s": 1.0'),
    "duplicate disk key": ('"util": 0.81}', '"util": 0.81, "util": 99.0}'),
    "duplicate cpu key": ('"idle": 82.97', '"idle": 82.97, "idle": 1.0'),
    "duplicate report key": ('"avg-cpu":', '"timestamp": "a", "timestamp": "b", "avg-cpu":'),
    "no comma between reports": ("},\n\t\t\t\t{", "}\n\t\t\t\t{"),
    "key then blank then colon": ('"r/s":', '"r/s" :'),
    "duplicate key hidden by a blank before a colon": ('"util": 0.81}', '"util": 0.81, "util" : 99.0}'),
}


def _edited(what: str, where: str) -> str:
    old, new = EDITS[what]
    at = BIG.index(old) if where == "first report" else BIG.index(old, len(BIG) // 2)
    return BIG[:at] + new + BIG[at + len(old):]


@pytest.mark.parametrize("where", ["first report", "middle"])
@pytest.mark.parametrize("what", sorted(EDITS))
def test_review_damage_reads_as_the_walk_reads_it(what, where, monkeypatch):
    _same(_edited(what, where), monkeypatch)


def _arm(doc):
    _host(doc)["machine"] = "arm"  # a header the capture's reports never saw
    return json.dumps(doc, indent="\t")


AROUND = {"trailing text": BIG + "\n}", "duplicate host key": BIG.replace('"machine": "x86_64"',
                                                                         '"machine": "x86_64", "machine": "arm"', 1),
          "statistics in a string": BIG.replace('"nodename": "', '"nodename": "\\"statistics\\": [', 1),
          "comma after the last report": BIG.replace("}\n\t\t\t]\n\t\t}", "},\n\t\t\t]\n\t\t}", 1),
          "another machine": _arm(_big_doc())}


def test_the_review_document_is_read_fast():
    io = I._fast_json(BIG, "<t>")
    assert io is not None and len(io.devices) == 300 and AROUND["statistics in a string"] != BIG


@pytest.mark.parametrize("what", sorted(AROUND))
def test_review_documents_around_the_reports(what, monkeypatch):
    _same(AROUND[what], monkeypatch)
