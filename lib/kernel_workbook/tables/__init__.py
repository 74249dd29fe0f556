"""mmtests tables: read them from mail, compute them from samples, print them.

The public API:

* :func:`parse_text` / :func:`parse_file` — every table in a mail, one row per cell;
* :func:`published` / :func:`published_tables` — the five threads' tables as data;
* :func:`compare` — an mmtests comparison from raw samples (model runs, captures);
* :func:`render` — text in mmtests layout (by era), Markdown or HTML;
* :func:`pdiff`, :func:`pndiff` and the statistics in :mod:`.stats`;
* :func:`roundtrip_report` — does ``render(parse(text))`` give the text back.

Every function returns or takes a *cells frame*; its columns are documented in
:mod:`kernel_workbook.tables.cells`.
"""

from ..errors import UnnamedColumnsWarning
from .cells import CELL_COLUMNS, cells_frame
from .compare import compare
from .eras import ERAS, get_era
from .parse import parse_file, parse_text
from .published import baseline_of, published, published_tables
from .render import render, split_run_name
from .roundtrip import roundtrip_report
from .significance import ci_significant, welch_significant
from .stats import pdiff, pndiff, statistic

__all__ = [
    "CELL_COLUMNS", "ERAS", "baseline_of", "cells_frame", "ci_significant", "compare", "get_era",
    "parse_file", "parse_text", "pdiff", "pndiff", "published", "published_tables", "render",
    "roundtrip_report", "split_run_name", "statistic", "UnnamedColumnsWarning", "welch_significant",
]
