"""How wide preformatted text may be in the lab at 1280 px.

Frames and prose are shown as HTML tables and Markdown (:mod:`kernel_workbook.frames`), which the lab
lays out itself.  What stays preformatted text is what must keep its layout: the mmtests tables,
printed exactly as mmtests prints them (``tables.render``), and a few aligned listings.  JupyterLab
wraps a long output line at the edge of the output area (it has no setting to scroll instead,
jupyterlab#9405); at 1280 x 720 the area holds 107 characters of the monospace font with the file
browser open and 139 with it closed (measured in Chromium by the browser tests).
"""

from __future__ import annotations

WIDTH = 104
"""Characters per line of aligned text (the output area at 1280 px, file browser open, holds 107)."""
TABLE_WIDTH = 136
"""The widest mmtests table row (the output area at 1280 px, file browser closed, holds 139)."""
