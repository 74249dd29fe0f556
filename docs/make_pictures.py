"""Regenerate the pictures of the README (offline: vl-convert renders the PNG).

    .venv/bin/python docs/make_pictures.py
"""

from pathlib import Path

import altair as alt
import vl_convert as vlc

from kernel_workbook.tables import published
from kernel_workbook.ui import plot_pct_change

HERE = Path(__file__).resolve().parent


def main() -> None:
    cells = published("2014-seqread-fairzone-cfq", "lessdirty-tiobench")
    cells = cells[cells["row"].str.startswith("SeqRead")]
    chart = plot_pct_change(cells, "lessdirty-tiobench",
                            title="tiobench SeqRead, 2014 thread: change against 3.16-rc1 (positive = faster)")
    png = vlc.vegalite_to_png(chart.to_json(), scale=1.5)
    (HERE / "tour.png").write_bytes(png)
    print(HERE / "tour.png")


if __name__ == "__main__":
    main()
