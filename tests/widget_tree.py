"""Finding widgets in an explorer's box, as the UI tests need them (shared by their modules)."""

from __future__ import annotations


def all_widgets(box, cls) -> list:
    """Every widget of class ``cls`` (or tuple of classes) in ``box``, depth first."""
    stack, out = [box], []
    while stack:
        x = stack.pop()
        if isinstance(x, cls):
            out.append(x)
        stack.extend(getattr(x, "children", ()))
    return out


def find_widget(box, cls, description: str):
    """The widget of class ``cls`` labelled ``description`` in ``box``; an AssertionError if there is none."""
    for x in all_widgets(box, cls):
        if getattr(x, "description", None) == description:
            return x
    raise AssertionError(f"no {getattr(cls, '__name__', cls)} {description!r}")
