"""The table engine: how fast mail text becomes cells."""

from __future__ import annotations

import time

from kernel_workbook.bench import Bench


def benchmarks() -> list[Bench]:
    from kernel_workbook.tables import parse_text, render
    from kernel_workbook.threads import THREADS

    text = "\n".join(THREADS[t].text() for t in THREADS)
    nbytes = len(text.encode())

    def parse(loops: int) -> float:
        t0 = time.perf_counter()
        for _ in range(loops):
            parse_text(text)
        return time.perf_counter() - t0

    cells = parse_text(text)

    def rend(loops: int) -> float:
        t0 = time.perf_counter()
        for _ in range(loops):
            render(cells)
        return time.perf_counter() - t0

    return [
        Bench("tables.parse_text (five threads)", parse, nbytes, "bytes"),
        Bench("tables.render (every table of the five threads)", rend, len(cells), "cells"),
    ]
