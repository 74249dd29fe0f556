"""Finding widgets in an explorer's box, as the UI tests need them (shared by their modules)."""

from __future__ import annotations

from kernel_workbook.ui.explorer import widgets_in as all_widgets


def find_widget(box, cls, description: str):
    """The widget of class ``cls`` labelled ``description`` in ``box``; an AssertionError if there is none."""
    for x in all_widgets(box, cls):
        if getattr(x, "description", None) == description:
            return x
    raise AssertionError(f"no {getattr(cls, '__name__', cls)} {description!r}")
