"""What a translated procps-ng prints for ``vmstat -p`` and ``vmstat -D``, and the English it stands for.

vmstat prints these through gettext, so under ``LANG=fr_FR.UTF-8`` the ``-p`` header reads
``vda lectures secteurs lus écritures écritures dem`` and ``-D`` prints ``10 disques``; pl_PL even puts
the number last (``Dysków: 10``), and de_DE's catalogue carries newlines inside two ``-p`` labels, so
its header takes three lines.  The labels are free text with spaces in them, so they cannot be split
by whitespace: each is matched whole against what the catalogue says vmstat prints, and a header or
line that matches no catalogue is left for the English parser to refuse, naming its line.

The tables are procps-ng 4.0.2's catalogues (``/usr/share/locale/*/LC_MESSAGES/procps-ng.mo``, read
with :mod:`gettext`; an untranslated message keeps its English); ``{n}`` stands for the number.  ka's
catalogue gives ``milli spent IO`` and ``milli weighted IO`` the same words, so ``-D`` lines are
matched by their place in the listing (vmstat prints them in one order), never by label alone.
"""

from __future__ import annotations

import re

DISK_SUMMARY_LOCALIZED = {
    'de': (
        '{n} disks', '{n} partitions', '{n} Lesevorgänge gesamt', '{n} merged reads', '{n} gelesene Sektoren',
        '{n} milli reading', '{n} Schreibvorgänge', '{n} merged writes', '{n} geschriebene Sektoren',
        '{n} milli writing', '{n} inprogress IO', '{n} milli spent IO', '{n} milli weighted IO',
    ),
    'es': (
        '{n} disks', '{n} partitions', '{n} lecturas totales', '{n} lecturas combinadas', '{n} sectores leídos',
        '{n} mili lecturas', '{n} escrituras', '{n} escrituras combinadas', '{n} sectores escritos',
        '{n} milli escrituras', '{n} IO en progreso', '{n} milli spent IO', '{n} milli weighted IO',
    ),
    'fr': (
        '{n} disques', '{n} partitions', '{n} lectures totales', '{n} lectures fusionnées', '{n} secteurs lus',
        '{n} temps lectures (ms)', '{n} écritures', '{n} écritures fusionnées', '{n} secteurs écrits',
        '{n} temps écritures (ms)', '{n} E/S en cours', '{n} temps E/S consommés (ms)', '{n} temps E/S pondéré (ms)',
    ),
    'ka': (
        '{n} დისკი', '{n} დანაყოფი', '{n} სულ წაკითხვა', '{n} შერწყმული წაკითხვა', '{n} წაკითხული სექტორი',
        '{n} მილი წაკითხვა', '{n} ჩაწერა', '{n} შერწყმული ჩაწერა', '{n} ჩაწერილი სექტორი', '{n} მილი ჩაწერა',
        '{n} მიმდინარე IO', '{n} მილი დახარჯული IO', '{n} მილი დახარჯული IO',
    ),
    'ko': (
        '{n} 디스크', '{n} 분할 영역', '{n} 읽음 총 횟수', '{n} 병합 읽음', '{n} 섹터 읽음', '{n} 읽기 밀리초', '{n} 기록', '{n} 병합 기록',
        '{n} 섹터 기록', '{n} 기록 밀리초', '{n} 진행 입출력', '{n} 입출력 소요 밀리초', '{n} 가중 입출력 밀리초',
    ),
    'pl': (
        'Dysków: {n}', 'Partycji: {n}', 'Odczytów razem: {n}', 'Odczytów zgrupowanych: {n}',
        'Odczytanych sektorów: {n}', 'Odczyty w ms: {n}', 'Zapisów: {n}', 'Zapisów zgrupowanych: {n}',
        'Zapisanych sektorów: {n}', 'Zapisy w ms: {n}', 'Trwających op. we/wy: {n}', 'We/wy w ms: {n}',
        'Ważone we/wy w ms: {n}',
    ),
    'pt_BR': (
        '{n} disks', '{n} partitions', '{n} leituras totais', '{n} leituras mescladas', '{n} setores lidos',
        '{n} mili leitura', '{n} escritas', '{n} escritas mescladas', '{n} setores escritos', '{n} mili escritas',
        '{n} E/S em progresso', '{n} E/S mili gastos', '{n} milli weighted IO',
    ),
    'ro': (
        '{n} discuri', '{n} partiții', '{n} total citiri', '{n} de citiri combinate', '{n} sectoare citite',
        '{n} timp de citire (ms)', '{n} scrieri', '{n} de scrieri combinate', '{n} sectoare scrise',
        '{n} timp de scriere (ms)', '{n} In/Ieș în curs', '{n} ms consumate per In/Ieș', '{n} ms In/Ieș ponderat',
    ),
    'sv': (
        '{n} diskar', '{n} partitioner', '{n} totala läsningar', '{n} grupperade läsningar', '{n} lästa sektorer',
        '{n} ms läst', '{n} skrivningar', '{n} grupperade skrivningar', '{n} skrivna sektorer', '{n} ms skrivet',
        '{n} pågående IO', '{n} ms under IO', '{n} ms viktad IO',
    ),
    'uk': (
        '{n} дисків', '{n} розділів', '{n} читань загалом', '{n} об’єднаних читань', '{n} секторів прочитано',
        '{n} мілісекунд на читання', '{n} записів', '{n} об’єднаних записів', '{n} секторів записано',
        '{n} мілісекунд на запис', '{n} дій з введення-виведення, що виконуються',
        '{n} мілісекунд на введення-виведення', '{n} мілісекунд зваженого введення-виведення',
    ),
    'vi': (
        '{n} disks', '{n} partitions', '{n} tổng đọc', '{n} đọc hòa trộn', '{n} cung từ đã đọc', '{n} đọc milli',
        '{n} ghi', '{n} ghi hòa trộn', '{n} cung từ đã ghi', '{n} milli ghi', '{n} VR trong tiến trình',
        '{n} milli dùng VR', '{n} milli weighted IO',
    ),
}
PARTITION_LOCALIZED = {
    'de': ('gelesen', 'gelesene Sektoren', 'geschrieben', 'angeforderte Schreibvorgänge'),
    'es': ('lecturas', 'sectores leídos', 'escrituras', 'escrituras solicitadas'),
    'fr': ('lectures', 'secteurs lus', 'écritures', 'écritures dem'),
    'ka': ('წაკითხვები', 'წაკითხ სექტ', 'ჩაწერები', 'მოთხ ჩაწ'),
    'ko': ('읽음', '읽은 섹터', '기록', '요청한 기록'),
    'pl': ('odczyty', 'odcz. sektory', 'zapisy', 'żądania zapisu'),
    'pt_BR': ('leituras', 'set. lidos', 'escritas', 'escrit. solic'),
    'ro': ('citiri', 'citește sectoarele', 'scrieri', 'solicitare scrieri'),
    'sv': ('läsningar', 'lästa sektorer', 'skrivningr', 'beg. skrivningar'),
    'uk': ('читання', 'чит. секторів', 'записи', 'запитаних записів'),
    'vi': ('reads', 'cung từ đã đọc', 'writes', 'yêu cầu ghi'),
}


def _words_re(label: str) -> str:
    # a label's words in order, any run of blanks (or the newlines de_DE's catalogue put there) between
    return r"[ \t\n]+".join(re.escape(w) for w in label.split())


def _partition_res():
    out = []
    for loc, labels in PARTITION_LOCALIZED.items():
        body = r"[ \t\n]+".join(_words_re(x) for x in labels)
        out.append((loc, " ".join(labels).split(), re.compile(r"^([ \t]*\S+)[ \t]+" + body + r"[ \t]*$", re.M)))
    return out


_PARTITION_RES = _partition_res()


def delocalize_partition(text: str) -> tuple[str, str | None]:
    """Put the English header on each translated ``vmstat -p`` header of *text*, padded with blank lines
    to as many lines as it took (line numbers still name the file's lines).  Returns the text and the
    first header as printed (None when nothing was translated)."""
    first = None
    for _loc, words, rx in _PARTITION_RES:
        if not all(w in text for w in words):  # a word of the header is nowhere: no need to try the pattern
            continue

        def repl(m):
            nonlocal first
            first = first or " ".join(m.group(0).split())
            return m.group(1) + "  reads  read sectors  writes  requested writes" + "\n" * m.group(0).count("\n")
        text, n = rx.subn(repl, text)
        if n:
            break  # one file, one language
    return text, first


def _line_re(template: str) -> re.Pattern:
    head, _, tail = template.partition("{n}")
    parts = [_words_re(head) if head.strip() else "", r"(\d{1,19})", _words_re(tail) if tail.strip() else ""]
    return re.compile(r"[ \t]*" + r"[ \t]+".join(p for p in parts if p) + r"[ \t]*")


_SUMMARY_RES = {loc: [_line_re(t) for t in labels] for loc, labels in DISK_SUMMARY_LOCALIZED.items()}


def delocalize_disk_summary(text: str, names: tuple) -> tuple[str, str | None]:
    """Rewrite the lines of a translated ``vmstat -D`` as ``<number> <English name>`` (*names*, in
    vmstat's order), one line for one line.  The language is the one whose catalogue reads the most
    lines from the top, each line at its place in the listing (a listing may start again at its first
    line: several runs in one file); lines after the first that it cannot read are left as printed, for
    the English parser to refuse.  Returns the text and the language (None when nothing was translated)."""
    lines = text.split("\n")
    nonblank = [i for i, ln in enumerate(lines) if ln.strip()]
    best, best_out = None, {}
    for loc, res in _SUMMARY_RES.items():
        out = {}
        k = 0
        for i in nonblank:
            m = res[k].fullmatch(lines[i])
            if m is None and k:
                k = 0  # a new listing (a run appended, or the last one cut short)
                m = res[0].fullmatch(lines[i])
            if m is None:
                break
            out[i] = f"{m.group(1)} {names[k]}"
            k = (k + 1) % len(names)
        if len(out) > len(best_out):
            best, best_out = loc, out
    english = sum(1 for i in best_out if lines[i].split() == best_out[i].split())
    if best is None or english == len(best_out):
        return text, None  # English as printed (or a catalogue that left every line read so far untranslated)
    for i, ln in best_out.items():
        lines[i] = ln
    return "\n".join(lines), best


def looks_like_translated_disk_summary(head: str) -> bool:
    """True when the first two non-blank lines are a translated ``-D``'s ``disks`` and ``partitions``."""
    first = [ln for ln in head.split("\n", 40)[:40] if ln.strip()][:2]
    return len(first) == 2 and any(res[0].fullmatch(first[0]) and res[1].fullmatch(first[1])
                                   for res in _SUMMARY_RES.values())
