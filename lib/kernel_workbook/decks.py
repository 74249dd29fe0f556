"""How a notebook becomes a deck for a 1280x720 screen: which cells share a slide, what is split, what is hidden.

Both decks come from here: the live one ``kwb present`` opens in the lab (jupyterlab-slideshow, the
notebook itself, styled by ``templates/kwb_talk/custom.css``) and the static reveal.js one ``kwb present
--html`` writes.  The rules, as a presenter would lay the slides out by hand:

* a ``#``/``##`` heading starts a slide; everything else joins the slide before it while the slide's
  estimated height fits the screen, and starts a sub-slide when it does not;
* a lead-in (prose of a few lines right before a code cell) goes with the output it introduces;
* prose taller than the screen is split between paragraphs into several cells, each a sub-slide
  (a heading never ends a piece);
* the code of a setup cell (``config.setup()``, imports, anything that prints a line at most) is hidden
  and the cell joins the slide before it; a code cell of more than three lines, or one marked
  ``# NBVAL_CHECK_OUTPUT`` (it prints a table: the table is the point), is folded: a small ``...``
  chip shows where it is and a click unfolds it;
* an output still taller than its room scrolls inside the slide and says so (the stylesheet's
  "more below" cue); the static deck splits printed text between its blank lines instead.

A slide mark the notebook's author set (``slideshow`` metadata: slide, subslide, fragment, skip, notes)
is kept as it is: the rules fill in only what the notebook leaves open.

Heights are estimates from the text (characters a line, lines, the SVG's own height) with the metrics of
``custom.css`` (prose 18 px, code and printed text 13 px); the browser tests measure the real slides.
The live deck budgets for charts drawn in ``WORKBOOK_MODE=slides`` (fonts and plots about 1.5 times the
committed CI-mode charts), since that is what the presenter sees once the cells run.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

SCREEN = 720  # px: the projector's height
ROOM = SCREEN - 40  # what a slide may fill: the deck's top and bottom margins off
# the metrics of templates/kwb_talk/custom.css at 1280 px
PROSE_LINE = 28.8  # px: 18 px at line-height 1.6
PROSE_CHARS = 105  # characters of prose a line holds (1,100 px of 18 px DejaVu Sans)
PARAGRAPH = 18  # px between blocks
HEADING = {1: 80, 2: 66, 3: 52, 4: 44, 5: 40, 6: 40}  # px a heading line takes, margins included
TABLE_ROW = 38  # px: a row of a Markdown table
LI_CHARS = 120  # characters a list item of an HTML output holds on a line of a static slide (1280 px, 18 px)
ROW_CELL_CHARS = 60  # characters a wide text cell of an HTML table holds on a line before it wraps (a rough half width)
MONO_LINE = 17  # px: a line of code or printed text (13 px at line-height 1.3)
OUTPUT_PAD = 12  # px around an output
CELL_PAD = 10  # px around a cell
LIVE_CHART_SCALE = 1.5  # a chart in WORKBOOK_MODE=slides against the committed CI-mode SVG
FOLDED_LINES = 3  # a code cell longer than this is folded
LEAD_IN_LINES = 4  # prose this short (lines on screen) before a code cell introduces its output
SETUP = re.compile(r"\bconfig\.setup\(")
CHECKED = "# NBVAL_CHECK_OUTPUT"
TAG_SETUP = "kwb-setup"  # a setup cell: no code shown at all (custom.css)
TAG_SCROLLS = "kwb-scrolls"  # an output taller than its slide even alone: it scrolls, on purpose
MARKS = ("slide", "subslide", "fragment", "skip", "notes")


def source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


# --- heights ----------------------------------------------------------------------------------------

_INLINE = re.compile(r"!\[[^]]*\]\([^)]*\)|\[([^]]*)\]\([^)]*\)|[*_`]")


def _visible(text: str) -> str:
    """Markdown as it reads: links as their text, emphasis and code marks dropped."""
    return _INLINE.sub(lambda m: m.group(1) or "", text)


def _wrapped(text: str, chars: int) -> int:
    """Lines ``text`` takes wrapped at ``chars`` characters (word wrap)."""
    lines, at = 1, 0
    for word in text.split():
        n = len(word)
        if at and at + 1 + n > chars:
            lines, at = lines + 1, n
        else:
            at += n + (1 if at else 0)
    return lines


def blocks(md: str) -> list[str]:
    """Markdown split into blocks: paragraphs, lists, tables, headings, fenced code (kept whole)."""
    out, cur, fence = [], [], False
    for line in md.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and not line.strip():
            if cur:
                out.append("\n".join(cur))
                cur = []
            continue
        if not fence and re.match(r"#{1,6} ", line) and cur:  # a heading is a block of its own
            out.append("\n".join(cur))
            cur = []
        cur.append(line)
        if not fence and re.match(r"#{1,6} ", line):
            out.append("\n".join(cur))
            cur = []
    if cur:
        out.append("\n".join(cur))
    return out


def block_height(block: str) -> float:
    first = block.lstrip()
    m = re.match(r"(#{1,6}) ", first)
    if m:
        return HEADING[len(m.group(1))] * _wrapped(_visible(first[m.end():]), PROSE_CHARS * 2 // (len(m.group(1)) + 2))
    if first.startswith("```"):
        return MONO_LINE * (len(block.splitlines()) - 2) + 24 + PARAGRAPH
    if first.startswith("|"):
        rows = [r for r in block.splitlines() if not re.match(r"\s*\|?\s*:?-{3,}", r)]
        return TABLE_ROW * len(rows) + PARAGRAPH
    items = re.split(r"\n(?=\s*(?:[*+-]|\d+\.) )", block)
    if len(items) > 1 or re.match(r"(?:[*+-]|\d+\.) ", first):
        return sum(PROSE_LINE * _wrapped(_visible(i), PROSE_CHARS - 5) + 4 for i in items) + PARAGRAPH
    return PROSE_LINE * _wrapped(_visible(block), PROSE_CHARS) + PARAGRAPH


def prose_height(md: str) -> float:
    return sum(block_height(b) for b in blocks(md)) + CELL_PAD


def _svg_height(svg: str) -> float:
    m = re.search(r'<svg[^>]*?\sheight="([\d.]+)', svg)
    return float(m.group(1)) if m else 300.0


def _html_height(html: str) -> float:
    """A rough height for HTML output (tables, preformatted text, paragraphs, line breaks); a stylesheet is
    not shown (a table's colours: 160 kB of CSS for 2015's 200 rows)."""
    html = re.sub(r"<style[^>]*>.*?</style>", "", html, flags=re.S)
    pre = sum(len(m.strip("\n").splitlines()) for m in re.findall(r"<pre[^>]*>(.*?)</pre>", html, re.S))
    rest = re.sub(r"<pre[^>]*>.*?</pre>", "", html, flags=re.S)
    # a row is as tall as its longest cell wraps: a cell of prose (2015's calibration reasons) takes several lines
    rows = sum(max([1] + [-(-len(re.sub(r"<[^>]+>", "", c).strip()) // ROW_CELL_CHARS)
                          for c in re.findall(r"<t[dh]\b.*?</t[dh]>", r, re.S)])
               for r in re.findall(r"<tr\b.*?</tr>", rest, re.S))
    breaks = len(re.findall(r"<(?:p|div|li|h\d|br)\b", rest))
    words = len(re.sub(r"<[^>]+>", " ", re.sub(r"<table.*?</table>", "", rest, flags=re.S)))
    return pre * 14 + rows * 24 + breaks * 20 + words / 150 * 20 + 20


def output_height(out: dict, chart_scale: float) -> float:
    kind = out.get("output_type")
    if kind == "stream":  # a progress bar rewrites its line (\r): one line on screen
        text = re.sub(r"[^\n]*\r(?!\n)", "", source({"source": out.get("text", "")}))
        return MONO_LINE * len(text.rstrip("\n").splitlines()) + OUTPUT_PAD if text.strip() else 0.0
    if kind == "error":
        return MONO_LINE * 12
    data = out.get("data", {})
    if "image/svg+xml" in data:
        return _svg_height(source({"source": data["image/svg+xml"]})) * chart_scale + OUTPUT_PAD
    if "image/png" in data:
        return 300 * chart_scale
    if "text/html" in data:
        html = source({"source": data["text/html"]})
        return max(_html_height(html), _list_height(html)) + OUTPUT_PAD
    if "text/markdown" in data:
        return prose_height(source({"source": data["text/markdown"]}))
    if "text/plain" in data:
        return MONO_LINE * len(source({"source": data["text/plain"]}).splitlines()) + OUTPUT_PAD
    return 0.0


# --- roles --------------------------------------------------------------------------------------------

def is_setup(cell: dict) -> bool:
    """A cell that prepares (configures, imports, computes) and shows a line at most: its code is hidden."""
    if cell["cell_type"] != "code":
        return False
    src = source(cell)
    if SETUP.search(src):
        return True
    outs = cell.get("outputs", [])
    shown = sum(output_height(o, 1.0) for o in outs)
    return not src.lstrip().startswith(CHECKED) and shown <= MONO_LINE * 2 + OUTPUT_PAD and \
        not any("data" in o and set(o["data"]) - {"text/plain"} for o in outs)


def is_folded(cell: dict) -> bool:
    src = source(cell).strip()
    return cell["cell_type"] == "code" and (len(src.splitlines()) > FOLDED_LINES or src.startswith(CHECKED))


def code_height(cell: dict, chart_scale: float) -> float:
    src = source(cell).strip()
    if is_setup(cell) or cell.get("metadata", {}).get("transient", {}).get("remove_source"):
        shown = 0.0
    elif is_folded(cell) or cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"):
        shown = 22.0  # the fold's chip
    else:
        shown = MONO_LINE * len(src.splitlines()) + 16
    return shown + sum(output_height(o, chart_scale) for o in cell.get("outputs", [])) + CELL_PAD


def height(cell: dict, chart_scale: float = 1.0) -> float:
    if cell["cell_type"] == "markdown":
        return prose_height(source(cell))
    if cell["cell_type"] == "code":
        return code_height(cell, chart_scale)
    return 0.0


def _heading_level(cell: dict) -> int:
    m = re.match(r"(#{1,6}) ", source(cell).lstrip()) if cell["cell_type"] == "markdown" else None
    return len(m.group(1)) if m else 0


# --- splitting prose ------------------------------------------------------------------------------------

def _units(md: str, room: float) -> list[tuple[str, float, bool]]:
    """The blocks of ``md`` as ``(text, height, tight)``; a list taller than half the room comes as its items
    (``tight``: joined to the item before by a line break, so the list stays one list)."""
    out = []
    for b in blocks(md):
        h = block_height(b)
        items = re.split(r"\n(?=(?:[*+-]|\d+\.) )", b)
        if h > room / 2 and len(items) > 1:
            out += [(item, block_height(item), n > 0) for n, item in enumerate(items)]
        else:
            out.append((b, h, False))
    return out


def _heading(text: str) -> bool:
    return bool(re.match(r"#{1,6} ", text.lstrip()))


def _piece(cell: dict, units: list[tuple[str, float, bool]], n: int) -> dict:
    c = copy.deepcopy(cell)
    c["source"] = units[0][0] + "".join(("\n" if tight else "\n\n") + text for text, _, tight in units[1:])
    if n:  # a cell of the deck's own: an id of its own, no author's mark (that stays on the first piece)
        c["id"] = f"{cell.get('id', 'md')}-{n + 1}"
        c.get("metadata", {}).pop("slideshow", None)
    return c


def split_prose(cell: dict, room: float = ROOM, lead_in: bool = False) -> list[dict]:
    """A Markdown cell as the deck's cells: pieces within ``room`` (split between blocks, a long list between
    its items, no heading left at the end of a piece) and, with ``lead_in`` (a code cell follows), its last
    paragraph as a cell of its own when it is short, so that it can go with the output it introduces."""
    units = _units(source(cell), room)
    tail = []
    if lead_in and len(units) > 1 and not units[-1][2] and _is_lead_in_text(units[-1][0]):
        tail = [units.pop()]
    if sum(h for _, h, _ in units) + CELL_PAD <= room:
        pieces = [units]
    else:
        pieces, cur, h = [], [], CELL_PAD
        for u in units:
            if cur and h + u[1] > room:
                carry = []
                while cur and _heading(cur[-1][0]):  # a heading goes with what it heads
                    carry.insert(0, cur.pop())
                if cur:
                    pieces.append(cur)
                    cur, h = carry, CELL_PAD + sum(x[1] for x in carry)
                else:
                    cur = carry
            cur.append(u)
            h += u[1]
        if cur:
            pieces.append(cur)
        for piece in pieces[1:]:  # a piece that starts inside a list starts a list of its own
            piece[0] = (piece[0][0], piece[0][1], False)
    return [_piece(cell, piece, n) for n, piece in enumerate(pieces + ([tail] if tail else []))]


def _is_lead_in_text(text: str) -> bool:
    """A short paragraph, or a minor heading (``###`` and below): it introduces what follows it."""
    if _heading(text):
        return not re.match(r"#{1,2} ", text.lstrip())
    return (not re.match(r"\s*(?:[*+-]|\d+\.|\||```)", text)
            and block_height(text) <= LEAD_IN_LINES * PROSE_LINE + PARAGRAPH)


def split_text_output(cell: dict, room: float, first: float | None = None) -> list[dict]:
    """A code cell whose printed text is taller than ``room`` as several copies, each showing a page of the text
    (split at blank lines where possible, else where the page is full; the first page fits ``first``, the room
    its lead-in leaves): for the static deck, where a reader turns pages rather than scroll."""
    outs = cell.get("outputs", [])
    if not outs or not all(o.get("output_type") == "stream" for o in outs):
        return [cell]
    text = "".join(source({"source": o.get("text", "")}) for o in outs if o.get("name") != "stderr")
    lines = text.rstrip("\n").split("\n")
    per = int((room - OUTPUT_PAD - CELL_PAD) // MONO_LINE)
    first_page = per if first is None else max(int((first - OUTPUT_PAD - CELL_PAD) // MONO_LINE), per // 3)
    if len(lines) <= first_page:
        return [cell]
    chunks, start = [], 0
    while start < len(lines):
        page = first_page if not chunks else per
        end = min(start + page, len(lines))
        if end < len(lines):  # break at the last blank line of the page, if it is not too early
            blank = max((i for i in range(start + page // 2, end) if not lines[i].strip()), default=None)
            end = blank + 1 if blank is not None else end
        chunks.append(lines[start:end])
        start = end
        while start < len(lines) and not lines[start].strip():
            start += 1
    out = []
    for n, chunk in enumerate(chunks):
        c = copy.deepcopy(cell)
        c["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "\n".join(chunk).rstrip("\n") + "\n"}]
        if n:
            c["id"] = f"{cell.get('id', 'code')}-{n + 1}"
            c["source"] = ""
        out.append(c)
    return out


# what an HTML output lists, item by item: a table's rows, a list's items, preformatted text's lines
_ITEMS = (("<tbody", re.compile(r"(<tbody>\s*)(.*?)(\s*</tbody>)", re.S), re.compile(r"<tr\b.*?</tr>", re.S), "\n"),
          ("<ul", re.compile(r"(<ul\b[^>]*>)(.*?)(</ul>)", re.S), re.compile(r"<li\b.*?</li>", re.S), ""),
          ("<pre", re.compile(r"(<pre\b[^>]*>)(.*?)(</pre>)", re.S), re.compile(r"[^\n]*\n|[^\n]+"), ""))


def _list_height(html: str) -> float:
    """An output holding one list, its items as a static slide wraps them (:func:`_item_height`), with what
    holds them; 0 for any other output.  ``_html_height``'s prose rule put a page of three of 2015's miss reasons
    at 381 px with its title, where the deck drew the three items alone at 423 px (141 px each), so two such pages
    were laid on one slide, which then scrolled (782 px in 720)."""
    parts = _items_of(html, _ITEMS[1])
    if parts is None:
        return 0.0
    head, items, tail = parts
    return _html_height(head + tail) + sum(_item_height(i) for i in items)


def _items_of(html: str, kind: tuple) -> tuple[str, list[str], str] | None:
    """``(head, items, tail)`` of the one table body, list or preformatted block (``kind``, one of
    :data:`_ITEMS`) in ``html``; None when it has none, or more than one."""
    tag, box, item, _ = kind
    m = box.search(html) if html.count(tag) == 1 else None
    return None if m is None else (html[:m.start(2)], item.findall(m.group(2)), html[m.end(2):])


def _item_height(item: str) -> float:
    """An item's height on a static slide (measured in the reveal.js deck at 1280x720: a list item's sentence
    takes a third more than ``_html_height``'s prose, a line of printed text 19 px, wrapped at about 120
    characters)."""
    if item.startswith("<tr"):
        return _html_height(item) - 20
    if item.startswith("<li"):
        # a long item wraps at about LI_CHARS (measured: 610 characters, 5 lines of 28.2 px at 18 px); the
        # sentence rule above underestimates items of several lines (2015's miss reasons scrolled a page)
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", item)).strip()
        return max(1.35 * (_html_height(item) - 20), PROSE_LINE * _wrapped(text, LI_CHARS) + 4)
    if item.startswith("<"):
        return 1.35 * (_html_height(item) - 20)
    return 19 * max(1, -(-len(item) // 120))


def _pack(items: list, height, room: float, frame: float = 0.0, first: float | None = None) -> list[list]:
    """``items`` in order, as pages: each as many as fit ``room`` (``frame``: what every page holds besides;
    ``first``: the first page's room) by ``height(item)``; an item taller than a page has one of its own."""
    pages, cur, h = [], [], frame
    for it in items:
        ih = height(it)
        if cur and h + ih > (room if pages or first is None else first):
            pages.append(cur)
            cur, h = [], frame
        cur.append(it)
        h += ih
    return pages + [cur]


def _pages(out: dict, room: float) -> list[dict]:
    """An output taller than ``room`` as several outputs, each within it where it can be: a whole reproduction
    split between its blocks, an HTML table between its rows (its title, header, style and notes on every
    page), a list between its items, printed text between its lines, Markdown between its blocks; any other
    output as it is."""
    if output_height(out, 1.0) <= room:
        return [out]
    data = out.get("data", {})

    def each(key: str, texts: list[str]) -> list[dict]:
        return [{**copy.deepcopy(out), "data": {**data, key: t}} for t in texts] if len(texts) > 1 else [out]

    if "text/markdown" in data and "text/html" not in data:
        pages = _pack(_units(source({"source": data["text/markdown"]}), room), lambda u: u[1], room - OUTPUT_PAD)
        return each("text/markdown", [p[0][0] + "".join(("\n" if tight else "\n\n") + t for t, _, tight in p[1:])
                                      for p in pages])
    html = source({"source": data.get("text/html", "")})
    blocks = re.split(r"\n(?=<div\b)", html)  # a whole reproduction: its blocks, one after the other
    if len(blocks) > 1 and all(b.count("<div") == b.count("</div>") for b in blocks):
        outs = each("text/html", ["\n".join(p) for p in _pack(blocks, _html_height, room, OUTPUT_PAD)])
        return [q for o in outs for q in (_pages(o, room) if len(outs) > 1 else [o])]
    for kind in _ITEMS:
        parts = _items_of(html, kind)
        if parts is None:
            continue
        head, items, tail = parts
        frame = _html_height(head + tail) + OUTPUT_PAD
        if frame > room / 2:  # the list is not what makes it tall (several tables in one block)
            continue
        pages = _pack(items, _item_height, room, frame)
        return each("text/html", [head + kind[3].join(p) + tail for p in pages])
    return [out]


def split_outputs(cell: dict, room: float, first: float | None = None) -> list[dict]:
    """A code cell whose outputs (tables, charts) are taller than ``room`` together as several copies, each with
    the outputs that fit a page (an output taller than a page split by :func:`_pages`; the
    first page fits ``first``, the room its lead-in leaves): for the static deck, where a reader turns pages
    rather than scroll.  Printed text (a stream) is :func:`split_text_output`'s."""
    outs = cell.get("outputs", [])
    if not outs or all(o.get("output_type") == "stream" for o in outs):
        return [cell]
    per = room - CELL_PAD
    if sum(output_height(o, 1.0) for o in outs) <= (per if first is None else first - CELL_PAD):
        return [cell]
    pieces = [p for o in outs for p in _pages(o, per)]
    groups = _pack(pieces, lambda o: output_height(o, 1.0), per,
                   first=None if first is None else max(first - CELL_PAD, per / 3))
    if len(groups) == 1:
        return [cell]
    out = []
    for n, group in enumerate(groups):
        c = copy.deepcopy(cell)
        c["outputs"] = group
        if n:
            c["id"] = f"{cell.get('id', 'code')}-{n + 1}"
            c["source"] = ""
        out.append(c)
    return out


# --- slides ----------------------------------------------------------------------------------------------

@dataclass
class Slide:
    kind: str  # "slide" or "subslide"
    cells: list[dict] = field(default_factory=list)
    heights: list[float] = field(default_factory=list)

    @property
    def height(self) -> float:
        return sum(self.heights)


def _mark(cell: dict) -> str | None:
    return cell.get("metadata", {}).get("slideshow", {}).get("slide_type")


def _is_lead_in(cell: dict, h: float) -> bool:
    return cell["cell_type"] == "markdown" and _heading_level(cell) not in (1, 2) and h <= LEAD_IN_LINES * PROSE_LINE + 40


def slides(cells: list[dict], chart_scale: float = 1.0, room: float = ROOM) -> list[Slide]:
    """The cells grouped into slides (see the module's rules).  Cells marked ``skip``/``notes``/``fragment``
    by the author ride along with the slide they fall in."""
    out: list[Slide] = []
    for cell in cells:
        h = height(cell, chart_scale)
        mark = _mark(cell)
        cur = out[-1] if out else None
        if mark in ("slide", "subslide"):
            out.append(Slide(mark, [cell], [h]))
        elif cur is None or _heading_level(cell) in (1, 2):
            out.append(Slide("slide", [cell], [h]))
        elif mark in ("skip", "notes", "fragment") or cell["cell_type"] == "raw":
            cur.cells.append(cell)
            cur.heights.append(h if mark == "fragment" else 0.0)
        elif is_setup(cell) or cur.height + h <= room:
            cur.cells.append(cell)
            cur.heights.append(h)
        elif cell["cell_type"] == "code" and cur.height + _fold(cell, chart_scale) <= room:
            cur.cells.append(cell)  # its few lines of code folded, it fits
            cur.heights.append(_fold(cell, chart_scale, apply=True))
        elif h > room and cur.height <= room / 3:
            # taller than the screen, it scrolls wherever it goes: beside the short text that heads it
            cur.cells.append(cell)
            cur.heights.append(_fold(cell, chart_scale, apply=True))
        elif (cell["cell_type"] == "code" and len(cur.cells) > 1 and _mark(cur.cells[-1]) is None
              and _is_lead_in(cur.cells[-1], cur.heights[-1])):
            # the lead-in goes with the output it introduces
            lead, lh = cur.cells.pop(), cur.heights.pop()
            if lh + h > room:
                h = _fold(cell, chart_scale, apply=True)
            out.append(Slide("subslide", [lead, cell], [lh, h]))
        else:
            if h > room:
                h = _fold(cell, chart_scale, apply=True)
            out.append(Slide("subslide", [cell], [h]))
    return out


def _fold(cell: dict, chart_scale: float, apply: bool = False) -> float:
    """The height of a code cell with its code folded (``apply``: fold it)."""
    if cell["cell_type"] != "code":
        return height(cell, chart_scale)
    folded = copy.deepcopy(cell.get("metadata", {}))
    folded.setdefault("jupyter", {})["source_hidden"] = True
    if apply:
        cell["metadata"] = folded
        return height(cell, chart_scale)
    return height({**cell, "metadata": folded}, chart_scale)


def _tag(cell: dict, tag: str) -> None:
    tags = cell.setdefault("metadata", {}).setdefault("tags", [])
    if tag not in tags:
        tags.append(tag)


def mark_slides(nb: dict, chart_scale: float, room: float = ROOM) -> list[Slide]:
    """Set the cells' slide marks (``metadata.slideshow``) and the deck's tags in place; returns the slides."""
    laid = slides(nb["cells"], chart_scale, room)
    for s in laid:
        for n, cell in enumerate(s.cells):
            meta = cell.setdefault("metadata", {})
            mark = _mark(cell)
            if n == 0:
                meta["slideshow"] = {"slide_type": mark if mark in ("slide", "subslide") else s.kind}
            elif mark not in ("skip", "notes", "fragment"):
                meta.pop("slideshow", None)  # continues the slide (jupyterlab-slideshow reads no mark so)
        if s.height > room:  # taller than the screen even so: its tallest cell scrolls, on purpose
            _tag(s.cells[max(range(len(s.cells)), key=lambda i: s.heights[i])], TAG_SCROLLS)
    return laid


def _cells_split(nb: dict, room: float) -> list[dict]:
    cells, src = [], nb["cells"]
    for n, cell in enumerate(src):
        before_code = n + 1 < len(src) and src[n + 1]["cell_type"] == "code"
        cells += split_prose(cell, room, lead_in=before_code) if cell["cell_type"] == "markdown" else [cell]
    return cells


def live_deck(nb: dict) -> dict:
    """The notebook as ``kwb present`` shows it in the lab (a new dict): slide marks, long prose split, setup
    code hidden, long code folded."""
    nb = copy.deepcopy(nb)
    meta = nb.setdefault("metadata", {})
    for key in ("rise", "jupytext", "@deathbeds/jupyterlab-fonts"):  # no paired .py beside the deck
        meta.pop(key, None)
    nb["cells"] = _cells_split(nb, ROOM)
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        cmeta = cell.setdefault("metadata", {})
        if is_setup(cell):
            _tag(cell, TAG_SETUP)
            cmeta.setdefault("jupyter", {})["source_hidden"] = True
        elif is_folded(cell):
            cmeta.setdefault("jupyter", {})["source_hidden"] = True
    mark_slides(nb, LIVE_CHART_SCALE)
    return nb


def _scale_svg(out: dict, k: float) -> None:
    """Draw an SVG output ``k`` times its size (its viewBox keeps the drawing whole)."""
    svg = source({"source": out["data"]["image/svg+xml"]})
    head = re.search(r"<svg[^>]*>", svg).group(0)
    if "viewBox" not in head:
        return
    new = re.sub(r'\s(width|height)="([\d.]+)"', lambda m: f' {m.group(1)}="{float(m.group(2)) * k:.0f}"', head)
    out["data"]["image/svg+xml"] = svg.replace(head, new, 1)


MIN_CHART_SCALE = 0.6  # below this a chart's labels get too small to read on a projector: it scrolls instead


def fit_charts(laid: list[Slide], room: float = ROOM) -> None:
    """On each slide taller than ``room`` whose tallest cell draws SVG charts, draw them smaller so that the
    slide fits, down to :data:`MIN_CHART_SCALE` (a static deck's committed charts; live ones are the
    kernel's)."""
    for s in laid:
        if s.height <= room:
            continue
        i = max(range(len(s.cells)), key=lambda j: s.heights[j])
        svgs = [o for o in s.cells[i].get("outputs", []) if "image/svg+xml" in o.get("data", {})]
        charts = sum(output_height(o, 1.0) - OUTPUT_PAD for o in svgs)
        if not charts:
            continue
        k = 1 - (s.height - room + 4) / charts  # 4 px to spare: the sizes are written rounded
        if k >= MIN_CHART_SCALE:
            for o in svgs:
                _scale_svg(o, k)
            s.heights[i] -= charts * (1 - k)
            tags = s.cells[i].get("metadata", {}).get("tags", [])
            if TAG_SCROLLS in tags:
                tags.remove(TAG_SCROLLS)


def static_deck(nb: dict) -> dict:
    """The notebook as the static reveal.js deck shows it (a new dict): the live deck's rules with no code
    (nothing runs there: what the code printed and drew is the slide), no setup cell (its line names the mode
    the page was built in), and printed text taller than the screen split into pages."""
    nb = copy.deepcopy(nb)
    nb.get("metadata", {}).pop("rise", None)
    cells = []
    for cell in _cells_split(nb, ROOM):
        if cell["cell_type"] == "code" and SETUP.search(source(cell)):
            continue
        if cell["cell_type"] == "code":
            cell.setdefault("metadata", {})["transient"] = {"remove_source": True}
            # a progress bar (stderr) reports the run that made the page, not the thread: not a slide's content
            cell["outputs"] = [o for o in cell.get("outputs", []) if o.get("name") != "stderr"]
            lead = height(cells[-1]) if cells and _is_lead_in(cells[-1], height(cells[-1])) else 0.0
            cells += [page for part in split_text_output(cell, ROOM, ROOM - lead)
                      for page in split_outputs(part, ROOM, ROOM - lead if part is cell else None)]
        else:
            cells.append(cell)
    nb["cells"] = cells
    fit_charts(mark_slides(nb, 1.0))
    return nb
